"""The command line without Typer, for the command lines it can read exactly as Typer
reads them; ``parse`` returns None for every other (``--help``, completion, ``--``, joined
short options, a value that looks like an option, an unknown option, a value Typer would
convert or refuse in its own way, a missing argument), and Typer then handles it, messages
and all. ``tests/cli/test_fast.py`` compares the two on generated command lines: whatever
this accepts, Typer accepts with the same values.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from tasplan.cli.spec import COMMANDS

_INT = re.compile(r"(?:0|[1-9][0-9]{0,17})\Z")  # plain decimal: every parser agrees


def parse(args: list[str]) -> tuple[str, dict[str, Any]] | None:
    """(command name, one keyword per option given) or None: leave it to Typer."""
    if any(key.startswith("_") and key.endswith("_COMPLETE") for key in os.environ):
        return None  # shell completion
    if args == ["--version"]:
        return "version", {}
    if not args or args[0] not in COMMANDS or COMMANDS[args[0]] is None:
        return None
    spec = COMMANDS[args[0]]
    options, argument = spec["options"], spec["argument"]
    kwargs: dict[str, Any] = {}
    positional: list[Any] = []
    tokens = iter(args[1:])
    for token in tokens:
        if token.startswith("-") and token != "-":
            flag, eq, value = token.partition("=") if token.startswith("--") else \
                (token, "", "")
            entry = options.get(flag)
            if entry is None:
                return None
            name, kind, multiple = entry
            if kind == "flag":
                if eq:
                    return None
                kwargs[name] = True
                continue
            if not eq:
                value = next(tokens, None)
                if value is None or (value.startswith("-") and value != "-"):
                    return None
            converted = _convert(kind, value)
            if converted is None:
                return None
            if multiple:
                kwargs.setdefault(name, []).append(converted)
            else:
                kwargs[name] = converted
        else:
            if argument is None:
                return None
            converted = _convert(argument[1], token)
            if converted is None:
                return None
            positional.append(converted)
    if argument is not None:
        if not positional:
            return None
        kwargs[argument[0]] = positional
    return args[0], kwargs


def command_args(args: list[str]) -> list[str]:
    """The arguments after the command name (what the Typer command records)."""
    return list(args[1:])


def _convert(kind: str, value: str) -> Any:
    if not value:
        return None
    if kind == "str":
        return value
    if kind == "path":
        return Path(value)
    if kind.startswith("int:"):
        if not _INT.match(value):
            return None
        low, high = kind.split(":")[1:]
        number = int(value)
        if (low and number < int(low)) or (high and number > int(high)):
            return None
        return number
    if kind.startswith("enum:"):
        import importlib

        _, module, name = kind.split(":")
        enum = getattr(importlib.import_module(module), name)
        return next((member for member in enum if member.value == value), None)
    return None
