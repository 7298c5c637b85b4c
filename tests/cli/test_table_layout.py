"""The plain-text table layout (no colour, content fits) writes exactly what Rich's own
table rendering writes, and hands every case it cannot lay out itself back to Rich."""

from __future__ import annotations

import pytest
from rich.text import Text

import tasplan.report.layout as layout
from tasplan.cli.output import Width, render
from tasplan.report.layout import Columns


def _columns(rows: list[tuple]) -> Columns:
    table = Columns()
    table.add("POD")
    table.add("COUNT", "right", drop=1)
    table.add("NODE", fold=True)
    for row in rows:
        table.row(*row, style="dim")
    return table


def _both(table: Columns, width: Width, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    fast = render(lambda target: [table.fit(target)], width)
    with monkeypatch.context() as m:
        m.setattr(layout, "_plain", lambda headers, rows: None)  # Rich lays out every cell
        slow = render(lambda target: [table.fit(target)], width)
    return fast, slow


CASES = {
    "plain": [("default/a", "1", "node-1"), ("default/long-pod-name", "12345", "n")],
    "empty cells": [("", "", ""), ("x", "7", "")],
    "wide characters": [("ns/名前", "3", "ノード"), ("ns/ascii", "10", "node")],
    "text cells": [("ns/p", "1", Text("<none>: 0/3 nodes: insufficient cpu", style="red"))],
    "markup and emoji": [("ns/[bold]x[/bold]", "1", ":smile: node"), ("ns/b", "2", "n")],
    "several lines": [("ns/a\nb", "1", "n\tx")],
    "no rows": [],
}


@pytest.mark.parametrize("rows", CASES.values(), ids=CASES.keys())
@pytest.mark.parametrize("width", [Width(None, cut=False), Width(12, cut=False),
                                   Width(12, cut=True)], ids=["unlimited", "target", "cut"])
def test_plain_layout_matches_rich(rows: list[tuple], width: Width,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow = _both(_columns(rows), width, monkeypatch)
    assert fast == slow


def test_plain_layout_is_used_for_plain_cells() -> None:
    table = _columns(CASES["plain"]).fit(None)
    assert table.plain is not None
    assert _columns(CASES["markup and emoji"]).fit(None).plain is None
