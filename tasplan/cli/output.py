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

from tasplan.errors import UsageError
from tasplan.untrusted import clean

if TYPE_CHECKING:  # Rich is imported when something is printed through it
    from rich.console import Console, RenderableType

    from tasplan.report.jsonpath import Template
    from tasplan.target import Target

# What -o takes for the commands that plan (kubectl's names; jsonpath=TEMPLATE as kubectl).
FORMATS = ("table", "wide", "json", "yaml", "name")
JSONPATH = ("jsonpath", "jsonpath-as-json", "jsonpath-file")


@dataclass(frozen=True)
class OutputFormat:
    """``-o``: ``kind`` is a name of FORMATS or ``jsonpath`` (then ``template``)."""

    kind: str
    template: Template | None = None

    @property
    def table(self) -> bool:
        return self.kind in ("table", "wide")

    def render_document(self, document: dict) -> str:
        """The report document as JSON, YAML or a JSONPath template's text."""
        from tasplan.report.serialize import to_json, to_yaml

        if self.kind == "json":
            return to_json(document)
        if self.kind == "yaml":
            return to_yaml(document)
        from tasplan.report.jsonpath import JSONPathError

        assert self.template is not None
        try:
            return self.template.render(document)
        except JSONPathError as exc:
            raise UsageError(f"--output jsonpath={self.template.source}: {exc}") from None


def parse_output(text: str, formats: tuple[str, ...] = FORMATS) -> OutputFormat:
    """``-o`` as kubectl reads it: a format name, or ``jsonpath=TEMPLATE``,
    ``jsonpath-as-json=TEMPLATE`` or ``jsonpath-file=FILE``."""
    kind, eq, rest = text.partition("=")
    if kind in JSONPATH:
        from tasplan.report.jsonpath import JSONPathError, parse

        if not eq or not rest:
            raise UsageError(f"--output {kind} needs a template: -o {kind}="
                             + ("FILE" if kind == "jsonpath-file" else "'{.groups[*].name}'"))
        if kind == "jsonpath-file":
            try:
                with open(rest, encoding="utf-8") as file:
                    rest = file.read(1 << 20)
            except (OSError, UnicodeDecodeError) as exc:
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
                raise UsageError(f"--output jsonpath-file={rest}: {reason}") from None
        try:
            return OutputFormat("jsonpath", parse(rest, as_json=kind == "jsonpath-as-json"))
        except JSONPathError as exc:
            raise UsageError(f"--output {text}: {exc}") from None
    if text in formats:
        return OutputFormat(text)
    raise UsageError(f"--output {text!r}: expected {', '.join(formats)} or jsonpath=TEMPLATE")

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
