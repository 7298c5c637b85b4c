"""Where boxes go on a map: siblings keep their order (names read left to right, top to
bottom) and get an area in proportion to their size.

Alike siblings (racks of one model usually are) go on a grid, so that names line up in
rows and columns; a smaller sibling fills part of its cell in proportion, as long as that
leaves at most WASTE of the grid empty. Unlike siblings go in strips (Bederson, Shneiderman and
Wattenberg's ordered strip treemap, 2002): rows that grow while their tiles get squarer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

WASTE = 0.3  # the share of a grid siblings may leave empty (smaller ones fill part of a cell)
ASPECT = 1.5  # the width / height a tile should have, for a name over a number


@dataclass(frozen=True, slots=True)
class Rect:
    x: float
    y: float
    w: float
    h: float

    def inset(self, left: float, top: float, right: float, bottom: float) -> Rect:
        return Rect(self.x + left, self.y + top, max(self.w - left - right, 0.0),
                    max(self.h - top - bottom, 0.0))


def layout(sizes: Sequence[float], rect: Rect, aspect: float = ASPECT) -> list[Rect]:
    """One rectangle per size, in order, inside ``rect``; sizes must be positive."""
    if not sizes:
        return []
    top = max(sizes)
    if sum(top - s for s in sizes) <= WASTE * top * len(sizes):
        return grid(sizes, rect, aspect)
    return strips(sizes, rect)


def grid(sizes: Sequence[float], rect: Rect, aspect: float = ASPECT) -> list[Rect]:
    """Columns chosen so that cells come closest to ``aspect``; the largest tiles fill their
    cells, a smaller one the top left of its cell, shrunk alike in both directions to its
    share of the area (a short rack keeps the rack's shape and room for its name)."""
    n = len(sizes)
    best = min(range(1, n + 1), key=lambda c: (
        abs(math.log((rect.w / c) / (rect.h / math.ceil(n / c)) / aspect)), c))
    rows = math.ceil(n / best)
    cw, ch = rect.w / best, rect.h / rows
    top = max(sizes)
    out = []
    for i, size in enumerate(sizes):
        scale = math.sqrt(size / top)
        out.append(Rect(rect.x + (i % best) * cw, rect.y + (i // best) * ch, cw * scale,
                        ch * scale))
    return out


def strips(sizes: Sequence[float], rect: Rect) -> list[Rect]:
    """Ordered strips across the rectangle's width, stacked down its height."""
    scale = rect.w * rect.h / sum(sizes)
    areas = [s * scale for s in sizes]
    rows: list[list[float]] = []
    for area in areas:
        if rows and _worst(rows[-1] + [area], rect.w) <= _worst(rows[-1], rect.w):
            rows[-1].append(area)
        else:
            rows.append([area])
    out = []
    y = rect.y
    for row in rows:
        h = sum(row) / rect.w
        x = rect.x
        for area in row:
            w = area / h
            out.append(Rect(x, y, w, h))
            x += w
        y += h
    return out


def _worst(row: list[float], width: float) -> float:
    """The mean aspect ratio (long side / short side) of a strip's tiles."""
    h = sum(row) / width
    return sum(max(a / h / h, h * h / a) for a in row) / len(row)
