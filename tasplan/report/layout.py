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

from rich.console import Console
from rich.measure import Measurement
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
        table = Table(box=None, pad_edge=False, header_style="bold")
        for i in keep:
            c = self.columns[i]
            table.add_column(c.header, justify=c.justify,
                             overflow="fold" if c.fold else "ellipsis")
        for cells, style in self.rows:
            table.add_row(*(cells[i] for i in keep), style=style)
        return table

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
        return table


def natural_width(renderable: object) -> int:
    """Columns the renderable takes when nothing wraps."""
    return Measurement.get(_MEASURE, _MEASURE.options, renderable).maximum
