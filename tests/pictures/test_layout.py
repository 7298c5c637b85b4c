"""Where boxes go: in order, inside their rectangle, with areas in proportion to size."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tasplan.report.picture.layout import Rect, grid, layout, strips

BOX = Rect(10, 20, 800, 500)


def inside(r: Rect, box: Rect) -> bool:
    eps = 1e-6
    return (r.x >= box.x - eps and r.y >= box.y - eps and r.x + r.w <= box.x + box.w + eps
            and r.y + r.h <= box.y + box.h + eps)


def overlap(a: Rect, b: Rect) -> float:
    w = min(a.x + a.w, b.x + b.w) - max(a.x, b.x)
    h = min(a.y + a.h, b.y + b.h) - max(a.y, b.y)
    return max(w, 0) * max(h, 0)


@given(st.lists(st.integers(1, 400), min_size=1, max_size=60))
def test_every_layout_stays_inside_without_overlap(sizes: list[int]) -> None:
    rects = layout(sizes, BOX)
    assert len(rects) == len(sizes)
    assert all(inside(r, BOX) for r in rects)
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            assert overlap(a, b) < 1e-3


@given(st.lists(st.integers(1, 400), min_size=2, max_size=40))
def test_strips_keep_areas_in_proportion_and_reading_order(sizes: list[int]) -> None:
    rects = strips(sizes, BOX)
    total = BOX.w * BOX.h
    for size, r in zip(sizes, rects, strict=True):
        assert math.isclose(r.w * r.h, total * size / sum(sizes), rel_tol=1e-6)
    # Reading order: each tile is right of the one before in its strip, or below it.
    for a, b in itertools.pairwise(rects):
        assert (math.isclose(a.y, b.y) and b.x >= a.x + a.w - 1e-6) or b.y >= a.y + a.h - 1e-6


def test_alike_siblings_go_on_a_grid_with_smaller_ones_in_proportion() -> None:
    """8 racks of 32 nodes and one of 8: a grid (the short rack wastes 24/288 < 30 %) whose
    cells are equal; the short rack fills a quarter of its cell, half as wide and high."""
    sizes = [32] * 8 + [8]
    rects = layout(sizes, BOX)
    assert len({(round(r.w, 6), round(r.h, 6)) for r in rects[:8]}) == 1
    assert (rects[8].w, rects[8].h) == (pytest.approx(rects[0].w / 2),
                                        pytest.approx(rects[0].h / 2))
    rows = sorted({round(r.y, 6) for r in rects})
    columns = sorted({round(r.x, 6) for r in rects})
    assert len(rows) * len(columns) >= 9 and len(columns) > 1 and len(rows) > 1


def test_unlike_siblings_go_in_strips() -> None:
    """A 4,000-node zone beside an 80-node one: on a grid the small one would leave most of
    its cell empty, so both get their true share of the area."""
    rects = layout([4000, 80], BOX)
    assert rects[0].w * rects[0].h == pytest.approx(BOX.w * BOX.h * 4000 / 4080)


def test_grid_columns_make_cells_close_to_the_aspect() -> None:
    rects = grid([1] * 12, Rect(0, 0, 600, 200), aspect=1.2)
    # 6 x 2 cells of 100 x 100 beat 4 x 3 of 150 x 67
    assert sorted({r.y for r in rects}) == [0, 100]
    assert rects[0].w == 100
