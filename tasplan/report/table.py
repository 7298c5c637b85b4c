"""Rich renderables for ``check``: a ranked placement table and assignments per group."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from rich.console import Group, RenderableType
from rich.text import Text
from rich.tree import Tree

from tasplan.model.skipped import Skipped
from tasplan.plan.preemption_result import PreemptionResult
from tasplan.plan.result import GroupResult, PlacementResult, PlanResult
from tasplan.plan.tree_result import CompositeResult
from tasplan.report.formatting import human, short_resource
from tasplan.report.group_header import group_header, pods_cell
from tasplan.report.layout import Columns, dropped_note
from tasplan.report.tree_order import report_order
from tasplan.report.verdict import (
    composite_reason,
    composite_sentence,
    composite_status,
    group_reason,
    group_sentence,
    placement_status,
)

# Short headers for the in-tree placement scorers; the legend line under the title says
# which plugin each one is.
SCORER_HEADERS = {"NodeResourcesFit": "FIT", "PodGroupPodsCount": "PODSCOUNT"}
# Placement rows a table shows (--all-placements: every one; JSON always lists them all).
TOP_PLACEMENTS = 10
# FREE columns every table shows; other resources only where the group requests them.
SUMMARY_RESOURCES = ("cpu", "memory")


def render_plan(result: PlanResult, *, wide: bool = False, all_assignments: bool = False,
                width: int | None = None, rows: int | None = TOP_PLACEMENTS
                ) -> Iterator[RenderableType]:
    """The groups' tables; ``width`` (None: no limit) is what the tables should fit in,
    ``rows`` how many placements each shows (None: all). Warnings about the inputs are not
    part of the report (the CLI prints them to stderr)."""
    leaves = {g.group.key: g for g in result.groups}
    composites = {c.composite.key: c for c in result.composites}
    for item, _ in report_order(result):
        if isinstance(item, GroupResult):
            yield from render_group(item, wide=wide, all_assignments=all_assignments,
                                    width=width, rows=rows)
        else:
            yield from render_composite(item, leaves, composites, width=width, rows=rows)


def more_rows(hidden: Sequence) -> Text:
    """"and 4,990 more placements (4,990 tied)": the rows a table leaves out, and what
    they are (tied with the selected one, else feasible or not)."""
    tied = sum(1 for p in hidden if p.tied)
    feasible = sum(1 for p in hidden if p.feasible and not p.tied)
    infeasible = len(hidden) - tied - feasible
    detail = ", ".join(f"{n:,} {kind}" for n, kind in (
        (tied, "tied"), (feasible, "feasible"), (infeasible, "infeasible")) if n)
    return Text(f"and {len(hidden):,} more placements ({detail}): --all-placements lists "
                "every one", style="dim")


NOTHING_TO_PLAN = ("nothing to plan: the workload inputs hold no pod group (PodGroups, "
                   "Workloads, pods that name a group, or objects that make pods: see "
                   "docs/inputs.md)")


def skipped_lines(skipped: Sequence[Skipped], nothing: bool) -> Iterator[Text]:
    """What the workload inputs hold that was not planned, one line per kind and reason,
    with what would plan it; first that nothing was, when so."""
    if nothing:
        yield Text("")
        yield Text(NOTHING_TO_PLAN, style="bold yellow")
    elif skipped:
        yield Text("")
    for k in skipped:
        names = ", ".join(k.names) + (f" and {k.count - len(k.names)} more"
                                      if k.count > len(k.names) else "")
        text = f"skipped {k.count} {k.kind} ({k.api_version}) {names}: {k.reason}"
        if k.hint:
            text += f" → {k.hint}"
        yield Text(text, style="yellow" if not k.checked else "dim")


def render_composite(c: CompositeResult, leaves: dict, composites: dict,
                     width: int | None = None, rows: int | None = TOP_PLACEMENTS
                     ) -> Iterator[RenderableType]:
    """A composite's placements (children scheduled per domain) and, for a root, the whole
    tree with the domain each level chose."""
    cpg = c.composite
    title = Text.assemble(
        (cpg.key, "bold"),
        f"  CompositePodGroup · {cpg.policy.value} minGroupCount={cpg.min_group_count} · "
        f"topology={cpg.topology_key or '(none)'} · children={len(c.children)}"
        + (f" · parent={cpg.parent}" if cpg.parent else ""),
    )
    parts: list[RenderableType] = [Text(""), title]
    if c.placements:
        table = Columns()
        for header, justify in (("#", "right"), ("PLACEMENT", "left"), ("NODES", "right"),
                                ("FEASIBLE", "left"), ("CHILDREN", "right"),
                                ("SCORE", "right"), ("STATUS", "left")):
            table.add(header, justify, drop=1 if header == "NODES" else 0)
        for rank, p in enumerate(c.placements[:rows], 1):
            selected = p.name == c.selected
            marker = "▶" if selected else ("~" if p.name == c.closest else (
                "=" if p.tied else ""))
            table.row(f"{marker}{rank}", p.name or '""', str(p.nodes),
                      "yes" if p.feasible else "no",
                      f"{p.scheduled}/{p.children} (min {cpg.min_group_count})",
                      "-" if p.score is None else str(p.score), composite_status(p),
                      style="bold green" if selected else ("" if p.feasible else "dim"))
        parts.append(table.fit(width))
        hidden = c.placements[rows:] if rows is not None else ()
        if hidden:
            parts.append(more_rows(hidden))
    if cpg.parent is None or cpg.parent not in composites:
        parts.append(_tree(c, leaves, composites))
    if c.preemption is not None:
        parts.extend(_disruption(c.preemption, "tree", width))
    outcome = c.outcome
    style = "bold green" if outcome == "scheduled" else (
        "bold yellow" if outcome == "scheduled-after-preemption" else "bold red")
    parts.append(Text.assemble((f"{VERDICTS[outcome]}: ", style), composite_sentence(c)))
    reason = composite_reason(c)
    if reason:
        parts.append(Text(f"  {reason}", style="dim"))
    if c.preemption_message:
        parts.append(Text(f"preemption: {c.preemption_message}",
                          style="yellow" if c.preemption else "dim"))
    for note in c.notes:
        parts.append(Text.assemble(("note ", "yellow"), (f"[{note.code}] ", "dim"), note.message))
    yield Group(*parts)


def _tree(root: CompositeResult, leaves: dict, composites: dict) -> Tree:
    def label(item: object) -> Text:
        if isinstance(item, GroupResult):
            p = item.selected_placement or item.closest_placement
            where = f" → {p.name} · {p.placed}/{item.pending} pod(s)" if p else ""
            if item.closest is not None:
                where += " (not bound)"
            ok = item.outcome.fits  # binds now, or once its victims are gone
            return Text.assemble((item.group.key, "bold"), where,
                                 ("  ✓" if ok else "  ✗", "green" if ok else "red"))
        name = item.selected or item.closest
        where = f" → {name}" if name is not None else ""
        if item.closest is not None:
            where += " (not bound)"
        ok = item.outcome.fits
        return Text.assemble((item.composite.key, "bold"), " (composite)", where,
                             ("  ✓" if ok else "  ✗", "green" if ok else "red"))

    tree = Tree(label(root))
    stack = [(root, tree)]
    while stack:
        node, branch = stack.pop(0)
        for kind, key in node.children:
            child = composites.get(key) if kind == "CompositePodGroup" else leaves.get(key)
            if child is None:
                branch.add(Text(f"{key} ({kind}, no result)", style="dim"))
                continue
            sub = branch.add(label(child))
            if kind == "CompositePodGroup":
                stack.append((child, sub))
    return tree


def render_group(g: GroupResult, *, wide: bool, all_assignments: bool,
                 width: int | None = None, rows: int | None = TOP_PLACEMENTS
                 ) -> Iterator[RenderableType]:
    title = Text.assemble((g.group.key, "bold"), f"  {group_header(g, wide=wide)}")
    parts: list[RenderableType] = [Text(""), title]
    parts.extend(expansion_lines(g))
    if g.placements:
        table = _placements_table(g, wide=wide, rows=rows).fit(width)
        parts.append(table)
        hidden = g.placements[rows:] if rows is not None else ()
        if hidden:
            parts.append(more_rows(hidden))
        note = dropped_note(table, width)
        if note is not None:
            parts.append(note)
        shown = {str(c.header) for c in table.columns}
        scorers = [name for name in sorted({name for p in g.placements for name in p.scores})
                   if SCORER_HEADERS.get(name, name) in shown]
        if scorers:
            legend = ", ".join(f"{SCORER_HEADERS.get(n, n)} = {n}" for n in scorers)
            parts.append(Text(f"SCORE = weighted sum of placement scores: {legend}",
                              style="dim"))
    # Assignments only of a group that binds as planned (one that will not has none).
    shown = [p for p in g.placements if p.feasible and g.schedulable] if all_assignments \
        else [p for p in g.placements if p.name == g.selected]
    for placement in shown:
        parts.append(Text(f"assignments in {placement.name!r}:", style="italic"))
        parts.append(_assignments_table(placement).fit(width))
    parts.extend(verdict(g, width))
    for note in g.notes:
        parts.append(Text.assemble(("note ", "yellow"), (f"[{note.code}] ", "dim"), note.message))
    yield Group(*parts)


VERDICTS = {"scheduled": "SCHEDULABLE", "scheduled-after-preemption": "SCHEDULABLE AFTER "
            "PREEMPTION", "unschedulable": "UNSCHEDULABLE", "waiting": "WAITING",
            "not-planned": "NOT PLANNED", "error": "ERROR"}


def verdict(g: GroupResult, width: int | None = None) -> list[RenderableType]:
    """The outcome line, with the preemption that leads to it and the gated pods."""
    parts: list[RenderableType] = []
    if g.preemption is not None:
        parts.extend(_preemption(g, width))
    if g.gated:
        parts.append(Text(f"{g.gated} pending pod(s) held by scheduling gates "
                          "(spec.schedulingGates): not scheduled until the gates are removed",
                          style="yellow"))
    outcome = g.outcome
    style = "bold green" if outcome == "scheduled" else \
        "bold yellow" if outcome == "scheduled-after-preemption" else "bold red"
    parts.append(Text.assemble((f"{VERDICTS[outcome]}: ", style), group_sentence(g)))
    reason = group_reason(g)
    if reason:
        parts.append(Text(f"  {reason}", style="dim"))
    if g.preemption_message:
        parts.append(Text(f"preemption: {g.preemption_message}",
                          style="yellow" if g.preemption else "dim"))
    return parts


def _preemption(g: GroupResult, width: int | None) -> Iterator[RenderableType]:
    """The disruption: who is evicted, and where the group's pods are nominated."""
    return _disruption(g.preemption, "group", width)


def _disruption(p: PreemptionResult, what: str, width: int | None
                ) -> Iterator[RenderableType]:
    yield Text(f"DISRUPTION: preemption evicts {len(p.victims)} pod(s) so the {what} fits in "
               f"{p.placement!r}" + (f" ({p.pdb_violations} beyond a PodDisruptionBudget)"
                                     if p.pdb_violations else "") + ":", style="bold yellow")
    table = Columns()
    table.add("EVICTED POD", fold=True)
    table.add("NODE", fold=True)
    table.add("PRIORITY", "right")
    table.add("GROUP", drop=1, fold=True)
    units = any(v.unit for v in p.victims)
    if units:  # pods that go with their whole PodGroup / CompositePodGroup
        table.add("EVICTED WITH", drop=2, fold=True)
    for v in p.victims:
        cells = [v.pod, v.node, str(v.priority), v.group or "-"]
        if units:
            cells.append(f"{v.unit_kind} {v.unit} ({v.unit_pods} pods)" if v.unit else "-")
        table.row(*cells, style="yellow")
    yield table.fit(width)
    yield Text(f"nominated: {len(p.nominated)} pod(s) to nodes of {p.placement!r} "
               "(they bind once the victims have terminated)", style="italic")


def expansion_lines(g: GroupResult) -> Iterator[Text]:
    """Which objects' templates tasplan turned into pods for this group."""
    for e in g.group.expansions:
        if e.kind == "Pod":  # pods that name the group by a label or annotation
            continue
        via = f" (in {', '.join(e.via)})" if e.via else ""
        yield Text(f"pods from {e.kind} {e.name}{via}: {e.synthesised} synthesised from its "
                   f"template, {e.existing} existing", style="dim")


def _placements_table(g: GroupResult, *, wide: bool, rows: int | None) -> Columns:
    """Optional columns, dropped first to last on a narrow terminal: the per-scorer parts,
    the FREE columns (last first), STATUS, NODES. FREE columns: cpu, memory, devices and
    what the group requests (a node's other extended resources are not its business)."""
    shown = g.placements[:rows]
    scorers = sorted({name for p in shown for name in p.scores})
    resources = [r for r in dict.fromkeys(r for p in shown for r in p.free)
                 if r in SUMMARY_RESOURCES or r in g.requested or r.startswith("devices/")
                 or not g.requested]
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
        if resource.startswith("devices/"):  # DRA devices of a DeviceClass
            label = resource.removeprefix("devices/")
        table.add(f"FREE {label}", "right", drop=3 + i)
    if wide:
        table.add("STATUS", drop=2)
        table.add("NODE NAMES", fold=True)
    needed = max(g.group.min_count - g.scheduled, 0)
    for rank, p in enumerate(shown, 1):
        selected = p.name == g.selected
        marker = "▶" if selected else ("~" if p.name == g.closest else (
            "=" if p.tied else ""))
        style = "bold green" if selected else ("" if p.feasible else "dim")
        row = [
            f"{marker}{rank}",
            p.name if p.name else '""',
            str(len(p.nodes)),
            "yes" if p.feasible else "no",
            pods_cell(g, p),
            "-" if p.score is None else str(p.score),
            *[str(p.scores[s]) if s in p.scores else "-" for s in scorers],
            *[human(r, p.free[r]) if r in p.free else "-" for r in resources],
        ]
        if wide:
            row += [placement_status(p, max(needed, 1)), ",".join(p.nodes)]
        table.row(*row, style=style)
    return table


def _assignments_table(p: PlacementResult) -> Columns:
    table = Columns()
    table.add("POD")
    table.add("NODE", fold=True)
    if p.devices:
        table.add("DEVICES", fold=True)
    for pod, node in p.assignments.items():
        if p.devices:
            devices = p.devices.get(pod, {})
            table.row(pod, node, ", ".join(f"{n}× {c}" for c, n in devices.items()) or "-")
        else:
            table.row(pod, node)
    for pod, reason in p.unplaced.items():
        table.row(pod, Text(f"<none>: {reason}", style="red"))
    return table
