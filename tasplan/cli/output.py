"""Where table output goes and how wide it is.

On a terminal, tables fit its width (optional columns are dropped first; only then does
Rich shorten cells). Anywhere else (a file, a pipe, a CI log) nothing is cut or wrapped:
the output is as wide as its content. ``--width`` sets the width the tables aim for,
terminal or not; names and numbers are still never cut to meet it.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from tasplan.untrusted import clean

if TYPE_CHECKING:  # Rich is imported when something is printed through it
    from rich.console import Console, RenderableType

    from tasplan.target import Target

UNLIMITED = 1 << 16  # wide enough that Rich never wraps a line


@dataclass(frozen=True, slots=True)
class Width:
    target: int | None  # what tables aim for (None: everything, at content width)
    cut: bool  # whether lines longer than target may be cut/wrapped (a terminal only)


def stdout_width(requested: int | None, *, terminal: bool | None = None) -> Width:
    if requested is not None:
        return Width(requested, cut=False)
    if terminal if terminal is not None else (sys.stdout is not None and sys.stdout.isatty()):
        from rich.console import Console

        return Width(Console().width, cut=True)
    return Width(None, cut=False)


def render(build: Callable[[int | None], Iterable[RenderableType]], width: Width) -> str:
    """The renderables ``build(target_width)`` yields, as text; trailing blanks stripped."""
    # Rendered in memory (a Console on stdout would flush to it, and a full or closed
    # stdout must fail in one place, when the whole text is written).
    from rich.console import Console

    probe = Console()
    console = _printable_console()(highlight=False, width=width.target if width.cut else UNLIMITED,
                      file=io.StringIO(), force_terminal=probe.is_terminal,
                      color_system=probe.color_system)
    for renderable in build(width.target):
        console.print(renderable)
    return "".join(line.rstrip() + "\n" for line in console.file.getvalue().splitlines())


def target_notes(target: Target | None) -> None:
    """The release planned for and what was decided about its gates: on stderr, like the
    warnings (the JSON report has them under ``summary``)."""
    if target is None or not target.notes:
        return
    from rich.console import Console

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    for message in target.notes:
        err.print(f"note: {message}", style="dim", markup=False)


def warn(messages: Iterable[str]) -> None:
    """Warnings about the inputs: on stderr, so a redirected report holds only the report."""
    messages = list(messages)
    if not messages:
        return
    from rich.console import Console

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    for message in messages:
        err.print(f"warning: {clean(message)}", style="yellow", markup=False)


@cache
def _printable_console() -> type[Console]:
    """A console whose text segments never carry control characters: names, labels and
    messages come from inputs, and an escape sequence in one must not reach the terminal
    (style codes are added by Rich after this point, line breaks are its own)."""
    from rich.console import Console
    from rich.segment import Segment

    class PrintableConsole(Console):
        def _render_buffer(self, buffer: Iterable[Segment]) -> str:
            return super()._render_buffer(
                segment if segment.control or segment.text == "\n"
                else Segment(clean(segment.text, keep="\n"), segment.style, segment.control)
                for segment in buffer)

    return PrintableConsole
