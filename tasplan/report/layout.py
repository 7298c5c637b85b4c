"""Fitting tables into a width: optional columns go before anything is cut.

A table is described once as columns, each marked required or optional with a drop order;
``fit`` keeps every column when there is no width limit (output that is not a terminal is
rendered at content width), and otherwise drops optional columns, lowest priority first,
until the table's natural width fits. Names and numbers are never shortened here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

# Measuring needs a console; a wide one measures the natural (unwrapped) width.
_MEASURE = Console(width=1 << 16, highlight=False, color_system=None)


@dataclass(frozen=True, slots=True)
class Column:
    header: str
    justify: Literal["left", "right"] = "left"
    drop: int = 0  # 0: required; otherwise optional, the highest number is dropped first
    fold: bool = False  # long cell (node lists): wrap on a terminal instead of cutting


@dataclass(slots=True)
class Columns:
    """Column definitions and the rows that fill them (one value per column)."""

    columns: list[Column] = field(default_factory=list)
    rows: list[tuple[Sequence[str | Text], str]] = field(default_factory=list)

    def add(self, header: str, justify: Literal["left", "right"] = "left", *, drop: int = 0,
            fold: bool = False) -> None:
        self.columns.append(Column(header, justify, drop, fold))

    def row(self, *cells: str | Text, style: str = "") -> None:
        self.rows.append((cells, style))

    def table(self, keep: Sequence[int]) -> Table:
        table = _Table(box=None, pad_edge=False, header_style="bold")
        for i in keep:
            c = self.columns[i]
            table.add_column(c.header, justify=c.justify,
                             overflow="fold" if c.fold else "ellipsis")
        for cells, style in self.rows:
            table.add_row(*(cells[i] for i in keep), style=style)
        table.plain = _plain([self.columns[i].header for i in keep],
                             [[cells[i] for i in keep] for cells, _ in self.rows])
        return table

    def lines(self) -> list[str]:
        """The table as plain lines, every column kept (cells must be plain one-line text:
        markup-free, as explain's are)."""
        headers = [c.header for c in self.columns]
        rows = [[c.plain if isinstance(c, Text) else c for c in cells] for cells, _ in self.rows]
        return _layout(headers, rows, [c.justify == "right" for c in self.columns])

    def fit(self, width: int | None) -> Table:
        """All columns without a width; else drop optional ones until the table fits."""
        keep = list(range(len(self.columns)))
        table = self.table(keep)
        if width is None:
            return table
        droppable = sorted((c.drop, -i) for i, c in enumerate(self.columns) if c.drop)
        while natural_width(table) > width and droppable:
            _, neg = droppable.pop()
            keep.remove(-neg)
            table = self.table(keep)
        table.dropped = tuple(c.header for i, c in enumerate(self.columns) if i not in keep)
        return table


def dropped_note(table: Table, width: int | None) -> Text | None:
    """One line naming the optional columns a narrow width left out (None: none were)."""
    dropped = getattr(table, "dropped", ())
    if not dropped:
        return None
    return Text(f"left out to fit {width} columns: {', '.join(dropped)} (-o json has every "
                "figure)", style="dim")


def natural_width(renderable: object) -> int:
    """Columns the renderable takes when nothing wraps."""
    return Measurement.get(_MEASURE, _MEASURE.options, renderable).maximum


class _Table(Table):
    """A Rich table that, when its text is all it shows (no colour) and it fits, lays out
    its plain one-line cells itself: the same characters Rich would write, without Rich's
    per-cell rendering (seconds for the thousand-row assignment tables)."""

    plain: tuple[list[str], list[list[str]]] | None = None
    dropped: tuple[str, ...] = ()  # optional columns ``Columns.fit`` left out (headers)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.plain is None or console.color_system is not None:
            yield from super().__rich_console__(console, options)
            return
        headers, rows = self.plain
        last = len(headers) - 1
        # Padding (0, 1) with pad_edge=False: no space before the first column or after
        # the last, one on each side of every column boundary.
        pads = [(i > 0) + (i < last) for i in range(len(headers))]
        widths = [max([cell_len(h), *(cell_len(r[i]) for r in rows)])
                  for i, h in enumerate(headers)]
        if sum(widths) + sum(pads) > options.max_width:
            yield from super().__rich_console__(console, options)
            return
        for line in _layout(headers, rows, [c.justify == "right" for c in self.columns],
                            widths):
            yield Segment(line)
            yield Segment.line()


def _layout(headers: list[str], rows: list[list[str]], right: list[bool],
            widths: list[int] | None = None) -> list[str]:
    """Rich's layout of a box-less table with padding (0, 1) and pad_edge=False: no space
    before the first column or after the last, one on each side of every boundary (the
    last column is padded to its width; callers strip trailing blanks)."""
    last = len(headers) - 1
    if widths is None:
        widths = [max([cell_len(h), *(cell_len(r[i]) for r in rows)])
                  for i, h in enumerate(headers)]
    out = []
    for cells in (headers, *rows):
        line = []
        for i, text in enumerate(cells):
            gap = " " * (widths[i] - cell_len(text))
            line.append((" " if i else "") + (gap + text if right[i] else text + gap)
                        + (" " if i < last else ""))
        out.append("".join(line))
    return out


def _plain(headers: list[str], rows: list[list[str | Text]]) -> (
        tuple[list[str], list[list[str]]] | None):
    """The cells as plain text, or None when Rich would read one differently from its
    characters: markup (``[``), emoji codes (``:``), several lines, tabs or control
    characters."""
    def text(cell: str | Text) -> str | None:
        plain = cell.plain if isinstance(cell, Text) else cell
        if not plain.isprintable() or (isinstance(cell, str) and ("[" in plain or ":" in plain)):
            return None
        return plain

    out = [[text(cell) for cell in row] for row in [headers, *rows]]
    if any(cell is None for row in out for cell in row):
        return None
    return out[0], out[1:]
