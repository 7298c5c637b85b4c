"""Rich renderables for ``check``: a ranked placement table and assignments per group."""

from __future__ import annotations

from collections.abc import Iterator

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tasplan.plan.result import GroupResult, PlacementResult, PlanResult
from tasplan.report.formatting import human, short_resource

# Short headers for the in-tree placement scorers; the legend line under the title says
# which plugin each one is.
SCORER_HEADERS = {"NodeResourcesFit": "FIT", "PodGroupPodsCount": "PODSCOUNT"}


def render_plan(result: PlanResult, *, wide: bool = False,
                all_assignments: bool = False) -> Iterator[RenderableType]:
    for warning in result.warnings:
        yield Text(f"warning: {warning}", style="yellow")
    if result.target is not None:
        gates = ", ".join(f"{k}={str(v).lower()}" for k, v in sorted(result.target.gates.items()))
        yield Text(f"target: Kubernetes {result.target.version} ({gates})", style="dim")
        for note in result.target.notes:
            yield Text.assemble(("note ", "yellow"), ("[target] ", "dim"), note)
    for group in result.groups:
        yield from render_group(group, wide=wide, all_assignments=all_assignments)


def render_group(g: GroupResult, *, wide: bool, all_assignments: bool) -> Iterator[RenderableType]:
    key = g.group.topology_key or "(none)"
    title = Text.assemble(
        (g.group.key, "bold"),
        f"  {g.group.kind} · {g.group.policy.value} minCount={g.group.min_count} · "
        f"topology={key} · pending={g.pending} scheduled={g.scheduled}",
    )
    parts: list[RenderableType] = [Text(""), title]
    if g.placements:
        parts.append(_placements_table(g, wide=wide))
        scorers = sorted({name for p in g.placements for name in p.scores})
        if scorers:
            legend = ", ".join(f"{SCORER_HEADERS.get(n, n)} = {n}" for n in scorers)
            parts.append(Text(f"SCORE = weighted sum of placement scores: {legend}",
                              style="dim"))
    shown = [p for p in g.placements if p.feasible] if all_assignments else \
        [p for p in g.placements if p.name == g.selected]
    for placement in shown:
        parts.append(Text(f"assignments in {placement.name!r}:", style="italic"))
        parts.append(_assignments_table(placement))
    parts.extend(verdict(g))
    for note in g.notes:
        parts.append(Text.assemble(("note ", "yellow"), (f"[{note.code}] ", "dim"), note.message))
    yield Group(*parts)


VERDICTS = {"scheduled": "SCHEDULABLE", "scheduled-after-preemption": "SCHEDULABLE AFTER "
            "PREEMPTION", "unschedulable": "UNSCHEDULABLE", "waiting": "WAITING",
            "not-planned": "NOT PLANNED", "error": "ERROR"}


def verdict(g: GroupResult) -> list[RenderableType]:
    """The outcome line, with the preemption that leads to it and the gated pods."""
    parts: list[RenderableType] = []
    if g.preemption is not None:
        parts.extend(_preemption(g))
    if g.gated:
        parts.append(Text(f"{g.gated} pending pod(s) held by scheduling gates "
                          "(spec.schedulingGates): not scheduled until the gates are removed",
                          style="yellow"))
    outcome = g.outcome
    style = "bold green" if outcome == "scheduled" else \
        "bold yellow" if outcome == "scheduled-after-preemption" else "bold red"
    parts.append(Text.assemble((f"{VERDICTS[outcome]}: ", style), g.message))
    if g.preemption_message:
        parts.append(Text(f"preemption: {g.preemption_message}",
                          style="yellow" if g.preemption else "dim"))
    return parts


def _preemption(g: GroupResult) -> Iterator[RenderableType]:
    """The disruption: who is evicted, and where the group's pods are nominated."""
    p = g.preemption
    yield Text(f"DISRUPTION: preemption evicts {len(p.victims)} pod(s) so the group fits in "
               f"{p.placement!r}" + (f" ({p.pdb_violations} beyond a PodDisruptionBudget)"
                                     if p.pdb_violations else "") + ":", style="bold yellow")
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("EVICTED POD", "NODE", "PRIORITY", "GROUP"):
        table.add_column(column, justify="right" if column == "PRIORITY" else "left")
    for v in p.victims:
        table.add_row(v.pod, v.node, str(v.priority), v.group or "-", style="yellow")
    yield table
    yield Text(f"nominated: {len(p.nominated)} pod(s) to nodes of {p.placement!r} "
               "(they bind once the victims have terminated)", style="italic")


def _placements_table(g: GroupResult, *, wide: bool) -> Table:
    scorers = sorted({name for p in g.placements for name in p.scores})
    resources = list(dict.fromkeys(r for p in g.placements for r in p.free))
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("#", justify="right")
    table.add_column("PLACEMENT")
    table.add_column("NODES", justify="right")
    table.add_column("FEASIBLE")
    table.add_column("PODS", justify="right")
    table.add_column("SCORE", justify="right")
    for name in scorers:
        table.add_column(SCORER_HEADERS.get(name, name), justify="right")
    for resource in resources:
        label = {"memory": "MEM"}.get(resource, short_resource(resource).upper())
        table.add_column(f"FREE {label}", justify="right")
    if wide:
        table.add_column("STATUS")
        table.add_column("NODE NAMES")
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
        table.add_row(*row, style=style)
    return table


def _assignments_table(p: PlacementResult) -> Table:
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("POD")
    table.add_column("NODE")
    for pod, node in p.assignments.items():
        table.add_row(pod, node)
    for pod, reason in p.unplaced.items():
        table.add_row(pod, Text(f"<none>: {reason}", style="red"))
    return table
