"""Typer parameter definitions as plain records, so that the modules defining the command
line import no Typer: a command run through the fast parser (``cli/fast.py``) never builds
the Typer app. ``cli/build.py`` turns each record into ``typer.Option`` / ``typer.Argument``
with the same arguments when the app is built (``--help``, completion, anything the fast
parser leaves to Typer)."""

from __future__ import annotations

from typing import Any


class Option:
    """``typer.Option(*decls, **settings)``, recorded."""

    __slots__ = ("decls", "settings")

    def __init__(self, *decls: str, **settings: Any) -> None:
        self.decls = decls
        self.settings = settings

    def __repr__(self) -> str:
        return f"{type(self).__name__}{self.decls!r}"


class Argument(Option):
    """``typer.Argument(**settings)``, recorded."""

    __slots__ = ()
