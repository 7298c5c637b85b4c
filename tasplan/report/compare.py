"""``check --compare``: one group's intent, planned by each scheduler, side by side (table)
and as the report's ``comparisons`` (JSON/YAML)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from tasplan.report.layout import Columns
from tasplan.schedulers.compare import Comparison, Row

PER_DOMAIN_SHOWN = 3
VERDICT = {"scheduled": "fits", "scheduled-after-preemption": "after preemption",
           "unschedulable": "does not fit", "waiting": "waiting", "not-planned": "not planned",
           "error": "error", "not-translated": "-"}


def render_comparisons(comparisons: Sequence[Comparison], width: int | None = None
                       ) -> Iterator[RenderableType]:
    for c in comparisons:
        read = next((r.scheduler for r in c.rows if r.native), c.intent.source)
        said = f"{c.intent.describe()} (read as {read})" if c.stated else \
            f"{c.intent.source} states no intent: its own plan, translated to no other"
        title = Text.assemble(("\nCOMPARE ", "bold"), (c.group, "bold"), f"  {said}")
        table = Columns()
        table.add("SCHEDULER")
        table.add("VERDICT")
        table.add("DOMAIN")
        table.add("PODS PER DOMAIN", drop=2)
        table.add("WHY", fold=True, drop=1)
        for row in c.rows:
            style = "" if row.result is None else (
                "green" if row.result.schedulable else "red")
            table.row(row.scheduler + (" *" if row.native else ""), VERDICT[row.outcome],
                      _domain(row), _per_domain(row), _why(row), style=style)
        level = c.level
        legend = "* = the group's own scheduler" + (
            f"; domains are {level} values" if level else "")
        yield Group(title, table.fit(width), Text(legend, style="dim"))


def _domain(row: Row) -> str:
    if row.result is None or row.result.selected is None:
        return "-"
    return row.result.selected


def _per_domain(row: Row) -> str:
    items = list(row.per_domain.items())
    shown = ", ".join(f"{d} ×{n}" for d, n in items[:PER_DOMAIN_SHOWN])
    if len(items) > PER_DOMAIN_SHOWN:
        shown += f" +{len(items) - PER_DOMAIN_SHOWN} more"
    return shown or "-"


def _why(row: Row) -> str:
    """Why not, in words that compare across schedulers: the domain that came closest."""
    result = row.result
    if result is None:
        return row.reason
    if result.schedulable:
        return "-"
    closest = max(result.placements, key=lambda p: p.placed, default=None)
    if closest is None or not closest.nodes or not closest.placed:
        return result.message
    return (f"closest: {closest.name!r} holds {closest.placed} of {result.group.min_count} "
            "pod(s)")


def comparisons_document(comparisons: Sequence[Comparison]) -> list[dict[str, Any]]:
    return [{
        "group": c.group,
        "intent": {"minCount": c.intent.min_count, "required": c.intent.required,
                   "preferred": c.intent.preferred, "readAs": c.intent.source}
        if c.stated else None,
        "schedulers": [_row(r) for r in c.rows],
    } for c in comparisons]


def _row(row: Row) -> dict[str, Any]:
    result = row.result
    return {
        "scheduler": row.scheduler,
        "native": row.native,
        "outcome": row.outcome,
        "selected": None if result is None else result.selected,
        "placed": 0 if result is None or result.selected_placement is None
        else result.selected_placement.placed,
        "pending": None if result is None else result.pending,
        "podsPerDomain": dict(row.per_domain),
        "message": row.reason if result is None else result.message,
    }
