"""Rich renderables for ``check``: a ranked placement table and assignments per group."""

from __future__ import annotations

from collections.abc import Iterator

from rich.console import Group, RenderableType
from rich.text import Text

from tasplan.plan.result import GroupResult, PlacementResult, PlanResult
from tasplan.report.formatting import human, short_resource
from tasplan.report.layout import Columns

# Short headers for the in-tree placement scorers; the legend line under the title says
# which plugin each one is.
SCORER_HEADERS = {"NodeResourcesFit": "FIT", "PodGroupPodsCount": "PODSCOUNT"}


def render_plan(result: PlanResult, *, wide: bool = False, all_assignments: bool = False,
                width: int | None = None) -> Iterator[RenderableType]:
    """The groups' tables; ``width`` (None: no limit) is what the tables should fit in.
    Warnings about the inputs are not part of the report (the CLI prints them to stderr)."""
    for group in result.groups:
        yield from render_group(group, wide=wide, all_assignments=all_assignments, width=width)


def render_group(g: GroupResult, *, wide: bool, all_assignments: bool,
                 width: int | None = None) -> Iterator[RenderableType]:
    key = g.group.topology_key or "(none)"
    title = Text.assemble(
        (g.group.key, "bold"),
        f"  {g.group.kind} · {g.group.policy.value} minCount={g.group.min_count} · "
        f"topology={key} · pending={g.pending} scheduled={g.scheduled}",
    )
    parts: list[RenderableType] = [Text(""), title]
    parts.extend(expansion_lines(g))
    if g.placements:
        table = _placements_table(g, wide=wide).fit(width)
        parts.append(table)
        shown = {str(c.header) for c in table.columns}
        scorers = [name for name in sorted({name for p in g.placements for name in p.scores})
                   if SCORER_HEADERS.get(name, name) in shown]
        if scorers:
            legend = ", ".join(f"{SCORER_HEADERS.get(n, n)} = {n}" for n in scorers)
            parts.append(Text(f"SCORE = weighted sum of placement scores: {legend}",
                              style="dim"))
    shown = [p for p in g.placements if p.feasible] if all_assignments else \
        [p for p in g.placements if p.name == g.selected]
    for placement in shown:
        parts.append(Text(f"assignments in {placement.name!r}:", style="italic"))
        parts.append(_assignments_table(placement).fit(width))
    verdict_style = "bold green" if g.schedulable else "bold red"
    verdict = "SCHEDULABLE" if g.schedulable else ("ERROR" if g.error else "UNSCHEDULABLE")
    parts.append(Text.assemble((f"{verdict}: ", verdict_style), g.message))
    for note in g.notes:
        parts.append(Text.assemble(("note ", "yellow"), (f"[{note.code}] ", "dim"), note.message))
    yield Group(*parts)


def expansion_lines(g: GroupResult) -> Iterator[Text]:
    """Which objects' templates tasplan turned into pods for this group."""
    for e in g.group.expansions:
        yield Text(f"pods from {e.kind} {e.name}: {e.synthesised} synthesised from its "
                   f"template, {e.existing} existing", style="dim")


def _placements_table(g: GroupResult, *, wide: bool) -> Columns:
    """Optional columns, dropped first to last on a narrow terminal: the per-scorer parts,
    the FREE columns (last first), STATUS, NODES."""
    scorers = sorted({name for p in g.placements for name in p.scores})
    resources = list(dict.fromkeys(r for p in g.placements for r in p.free))
    table = Columns()
    table.add("#", "right")
    table.add("PLACEMENT")
    table.add("NODES", "right", drop=1)
    table.add("FEASIBLE")
    table.add("PODS", "right")
    table.add("SCORE", "right")
    for name in scorers:
        table.add(SCORER_HEADERS.get(name, name), "right", drop=10 + len(resources))
    for i, resource in enumerate(resources):
        label = {"memory": "MEM"}.get(resource, short_resource(resource).upper())
        table.add(f"FREE {label}", "right", drop=3 + i)
    if wide:
        table.add("STATUS", drop=2)
        table.add("NODE NAMES", fold=True)
    needed = max(g.group.min_count - g.scheduled, 0)
    for rank, p in enumerate(g.placements, 1):
        selected = p.name == g.selected
        marker = "▶" if selected else ("=" if p.tied else "")
        style = "bold green" if selected else ("" if p.feasible else "dim")
        row = [
            f"{marker}{rank}",
            p.name if p.name else '""',
            str(len(p.nodes)),
            "yes" if p.feasible else "no",
            f"{p.placed}/{g.pending} (min {needed})",
            "-" if p.score is None else str(p.score),
            *[str(p.scores[s]) if s in p.scores else "-" for s in scorers],
            *[human(r, p.free[r]) if r in p.free else "-" for r in resources],
        ]
        if wide:
            row += [p.status or "-", ",".join(p.nodes)]
        table.row(*row, style=style)
    return table


def _assignments_table(p: PlacementResult) -> Columns:
    table = Columns()
    table.add("POD")
    table.add("NODE", fold=True)
    for pod, node in p.assignments.items():
        table.row(pod, node)
    for pod, reason in p.unplaced.items():
        table.row(pod, Text(f"<none>: {reason}", style="red"))
    return table
