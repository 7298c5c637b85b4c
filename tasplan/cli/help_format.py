"""``--help`` that never cuts what a user must type.

Typer's Rich panels give each option's help a narrow column at 80 columns and end long
words there with an ellipsis (``TopologyAwareWorkloadSc…``, ``TASPLAN_REQUEST_TIMEOU…``),
piped output included (Rich assumes 80 columns). On a terminal of ``RICH_MIN_WIDTH``
columns or more the panels have room (tested for every command); anywhere else help is
plain text, as kubectl prints it: option names on their own line when long, help text
wrapped at spaces only (never inside a word, never at a hyphen).
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Sequence
from typing import Any

from typer._click.formatting import HelpFormatter  # Typer's vendored Click (pinned)

RICH_MIN_WIDTH = 120


def rich_help() -> bool:
    """Whether Typer's Rich panels have the room to show every word whole."""
    if sys.stdout is None or not sys.stdout.isatty():
        return False
    from rich.console import Console

    return Console().width >= RICH_MIN_WIDTH


def use_plain_help(command: Any) -> None:
    """Make ``command`` print plain help (its own ``--help`` and, for the group, the
    command list)."""
    command.rich_markup_mode = None
    command.context_class = _plain_context(command.context_class)


_CONTEXTS: dict[type, type] = {}


def _plain_context(base: type) -> type:
    if getattr(base, "formatter_class", None) is PlainHelpFormatter:
        return base
    if base not in _CONTEXTS:
        _CONTEXTS[base] = type(f"Plain{base.__name__}", (base,),
                               {"formatter_class": PlainHelpFormatter})
    return _CONTEXTS[base]


def _wrap(text: str, width: int, indent: str) -> list[str]:
    """Lines of ``text`` at most ``width`` wide where words allow: breaks at spaces only."""
    out: list[str] = []
    for paragraph in text.split("\n\n"):
        if out:
            out.append("")
        lines = textwrap.wrap(" ".join(paragraph.split()), max(width - len(indent), 20),
                              break_long_words=False, break_on_hyphens=False)
        out += [indent + line for line in lines]
    return out


class PlainHelpFormatter(HelpFormatter):
    """Click's help layout without cutting: text wraps at spaces only."""

    def write_text(self, text: str) -> None:
        for line in _wrap(text, self.width, " " * self.current_indent):
            self.write(f"{line}\n")

    def write_dl(self, rows: Sequence[tuple[str, str]], col_max: int = 30,
                 col_spacing: int = 2) -> None:
        rows = list(rows)
        first_col = min(max((len(a) for a, _ in rows), default=0), col_max) + col_spacing
        indent = " " * self.current_indent
        for term, text in rows:
            self.write(f"{indent}{term}")
            if not text:
                self.write("\n")
                continue
            if len(term) <= first_col - col_spacing:
                pad = " " * (first_col - len(term))
            else:  # a long term: its text starts on the next line
                self.write("\n")
                pad = indent + " " * first_col
            lines = _wrap(text, self.width - first_col - self.current_indent, "")
            self.write(f"{pad}{lines[0]}\n" if lines else "\n")
            for line in lines[1:]:
                self.write(f"{indent}{' ' * first_col}{line}\n" if line else "\n")
