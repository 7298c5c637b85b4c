"""``check --html`` and ``explain --html``: the plan (and explanations) as one page.

Per group: the verdict, the topology map with the group's candidate placements drawn on
it (selected, tied, feasible, infeasible with its reason), the ranked placement table, the
pod assignments, and for explain the per-domain shortfall and the verified suggestions;
what-if edits are marked on the map. The whole text report closes the page, so nothing
the terminal shows is missing. Everything is read from the PlanResult / ExplainResult and
the CapacityReport the map draws (``capacity.view.plan_capacity``); nothing is computed.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence

from rich.console import Console, RenderableType

from tasplan.capacity.report import CapacityReport
from tasplan.explain.result import ExplainResult, Explanation
from tasplan.model.topology import HOSTNAME
from tasplan.plan.result import GroupResult, PlacementResult, PlanResult
from tasplan.report.explain_table import (
    COST_WORDS,
    consumer_text,
    diagnosis_text,
    excluded_text,
    render_explanations,
    shortfall_text,
)
from tasplan.report.formatting import human, short_resource
from tasplan.report.group_header import group_header, pods_cell
from tasplan.report.picture.capacity_page import edits_overlay
from tasplan.report.picture.measure import Measure
from tasplan.report.picture.page import items, page, paragraph, table, what_if
from tasplan.report.picture.svg import esc, esc_lines
from tasplan.report.picture.topology_map import Mark, topology_map
from tasplan.report.table import SCORER_HEADERS, VERDICTS, render_plan
from tasplan.report.verdict import group_reason, group_sentence
from tasplan.whatif.edits import AppliedEdit

NODES_DRAWN = 200  # clusters up to this size draw every node on the maps


def plan_html(result: PlanResult, report: CapacityReport | None,
              applied: Sequence[AppliedEdit] = (), *, all_assignments: bool = False,
              command: str = "check") -> str:
    """``check --html``: ``report`` is the capacity view the maps draw (None: no maps)."""
    text = _plain(render_plan(result, all_assignments=all_assignments))
    return page(f"tasplan {command}", _body(result, report, applied, {}, all_assignments,
                                            command, text))


def explain_html(result: ExplainResult, report: CapacityReport | None,
                 applied: Sequence[AppliedEdit] = ()) -> str:
    text = _plain(render_explanations(result))
    return page("tasplan explain", _body(result.plan, report, applied, result.explanations,
                                         False, "explain", text))


def _body(result: PlanResult, report: CapacityReport | None, applied: Sequence[AppliedEdit],
          explanations: Mapping[str, Explanation], all_assignments: bool, command: str,
          text: str) -> Iterator[str]:
    groups = result.groups
    yield f"<h1>tasplan {command}</h1>\n"
    outcomes = Counter(g.outcome for g in groups)
    yield paragraph(f"{len(groups)} pod group(s) on {result.nodes:,} node(s): "
                    + ", ".join(f"{n} {VERDICTS[o].lower()}" for o, n in outcomes.items()),
                    "muted")
    yield what_if(applied)
    if result.warnings:
        yield items(f"warning: {w}" for w in result.warnings)
    if len(groups) > 1:
        yield table(["group", "outcome", "placement", "pods"], (
            [g.group.key, VERDICTS[g.outcome], g.selected or "-",
             f"{g.selected_placement.placed}/{g.pending}" if g.selected_placement else "-"]
            for g in groups))
    for i, g in enumerate(groups, 1):
        yield from _group(i, g, report, applied, explanations.get(g.group.key),
                          all_assignments)
    yield "<h2>The report as text</h2>\n"
    yield f"<pre>{esc_lines(text)}</pre>\n"


def _group(i: int, g: GroupResult, report: CapacityReport | None,
           applied: Sequence[AppliedEdit], e: Explanation | None,
           all_assignments: bool) -> Iterator[str]:
    group = g.group
    yield f'<section id="group-{i}">\n<h2>{esc(group.key)}</h2>\n'
    yield paragraph(group_header(g, wide=True), "muted")
    for x in group.expansions:
        yield paragraph(f"pods from {x.kind} {x.name}: {x.synthesised} synthesised from its "
                        f"template, {x.existing} existing", "muted")
    ok = g.outcome in ("scheduled", "scheduled-after-preemption")
    yield paragraph(f"{VERDICTS[g.outcome]}: {group_sentence(g)}",
                    f"verdict {'ok' if ok else 'bad'}")
    reason = group_reason(g)
    if reason:
        yield paragraph(reason)
    if g.gated:
        yield paragraph(f"{g.gated} pending pod(s) held by scheduling gates")
    if g.preemption_message:
        yield paragraph(f"preemption: {g.preemption_message}")
    if e is not None:
        yield paragraph(f"why: {diagnosis_text(e)}")
    if report is not None:
        yield from _map(i, g, report, applied, e)
    if g.placements:
        yield "<h3>Placements</h3>\n"
        yield _placements(g)
    if g.preemption is not None:
        p = g.preemption
        yield (f"<h3>Disruption: {len(p.victims)} pod(s) evicted so the group fits in "
               f"{esc(repr(p.placement))}</h3>\n")
        yield table(["evicted pod", "node", "priority", "group", "evicted with"],
                    ([v.pod, v.node, str(v.priority), v.group or "-",
                      f"{v.unit_kind} {v.unit} ({v.unit_pods} pods)" if v.unit else "-"]
                     for v in p.victims), numeric=[2])
    # Assignments only of a group that binds as planned (issue 24: never pods that won't).
    shown = ([p for p in g.placements if p.feasible and g.schedulable] if all_assignments
             else [p for p in g.placements if p.name == g.selected])
    for p in shown:
        yield f"<h3>Assignments in {esc(repr(p.name))}</h3>\n"
        yield _assignments(p)
    if e is not None:
        yield from _explanation(e)
    if g.notes:
        yield items(f"note [{n.code}] {n.message}" for n in g.notes)
    yield "</section>\n"


def _map(i: int, g: GroupResult, report: CapacityReport, applied: Sequence[AppliedEdit],
         e: Explanation | None) -> Iterator[str]:
    key = g.group.key
    if key in report.gangs or any(name == key for name, _ in report.shapes):
        measure = Measure("now", shape=key, gang=report.gangs.get(key))
    else:  # no pending pod to take a shape from: free resources
        resource = next((r for r in sorted(report.total.allocatable) if "/" in r), "cpu")
        measure = Measure("free", resource=resource)
    level = g.group.topology_key or ""
    short = {d.name: shortfall_text(d) for d in e.domains} if e is not None else {}
    marks = {p.name: _mark(rank, g, p, short.get(p.name))
             for rank, p in enumerate(g.placements, 1) if level}
    chosen = g.selected_placement
    pods = Counter(chosen.assignments.values()) if chosen is not None else Counter()
    overlay = edits_overlay(applied, level, marks, dict(sorted(pods.items())))
    depth = len(report.levels) if report.total.nodes <= NODES_DRAWN else None
    if depth is None and level == HOSTNAME:
        depth = len(report.levels)
    yield topology_map(report, measure, depth, overlay, f"{key}: placements on the topology",
                       ids=f"g{i}", heading=False, focus=True)


def _mark(rank: int, g: GroupResult, p: PlacementResult, short: str | None) -> Mark:
    if p.name == g.selected:
        state = "selected"
    elif p.tied:
        state = "tied"
    else:
        state = "feasible" if p.feasible else "infeasible"
    note = p.status or ("feasible" + (f", score {p.score}" if p.score is not None else ""))
    text = f"{p.placed}/{g.pending} pods" + (f" · short {short}" if short and short != "-"
                                               else "")
    return Mark(rank, state, text, note)


def _placements(g: GroupResult) -> str:
    scorers = sorted({name for p in g.placements for name in p.scores})
    resources = list(dict.fromkeys(r for p in g.placements for r in p.free))
    headers = ["#", "placement", "nodes", "feasible", "pods", "score",
               *(SCORER_HEADERS.get(s, s).lower() for s in scorers),
               *(f"free {short_resource(r)}" for r in resources), "status"]
    rows, classes = [], []
    for rank, p in enumerate(g.placements, 1):
        selected = p.name == g.selected
        marker = "▶" if selected else ("=" if p.tied else "")
        rows.append([f"{marker}{rank}", p.name or '""', str(len(p.nodes)),
                     "yes" if p.feasible else "no", pods_cell(g, p),
                     "-" if p.score is None else str(p.score),
                     *(str(p.scores[s]) if s in p.scores else "-" for s in scorers),
                     *(human(r, p.free[r]) if r in p.free else "-" for r in resources),
                     p.status or "-"])
        classes.append("selected" if selected else ("" if p.feasible else "infeasible"))
    numeric = [0, 2, 5, *range(6, 6 + len(scorers) + len(resources))]
    return table(headers, rows, numeric, classes)


def _assignments(p: PlacementResult) -> str:
    headers = ["pod", "node", *(["devices"] if p.devices else [])]
    rows = []
    for pod, node in p.assignments.items():
        devices = p.devices.get(pod, {})
        rows.append([pod, node, *([", ".join(f"{n}× {c}" for c, n in devices.items()) or "-"]
                                  if p.devices else [])])
    rows.extend([pod, f"<none>: {reason}", *(["-"] if p.devices else [])]
                for pod, reason in p.unplaced.items())
    return table(headers, rows)


def _explanation(e: Explanation) -> Iterator[str]:
    if e.failures and e.domains:
        yield f"<h3>Pods that failed in {esc(repr(e.domains[0].name))} (the closest)</h3>\n"
        yield items(f"{', '.join(pods)}: {message}" for message, pods in e.failures)
    if e.domains:
        yield "<h3>Per domain: what is short</h3>\n"
        yield table(["domain", "nodes", "pods", "short", "excluded", "used by (priority ×pods)"],
                    ([d.name or '""', str(d.nodes), f"{d.fit}/{d.needed}", shortfall_text(d),
                      excluded_text(d.excluded).replace("\n", "; "),
                      "; ".join(consumer_text(c) for c in d.consumers) or "-"]
                     for d in e.domains), numeric=[1, 2])
    yield "<h3>Suggestions, each verified by re-planning the group</h3>\n"
    if not e.suggestions:
        yield paragraph("no single change tried (minCount, eviction, nodes, tolerations and "
                        "selectors, topology key) makes the group fit")
        return
    lines = []
    for s in e.suggestions:
        chosen = s.result.selected_placement
        placed = f"{chosen.placed}/{s.result.pending} pods" if chosen is not None else ""
        line = f"{s.change} → fits in {s.result.selected!r} ({placed}"
        if s.result.tied_with:
            line += f"; tied with {', '.join(s.result.tied_with)}"
        line += ")"
        cost = ", ".join(f"{v} {COST_WORDS.get(k, k)}" for k, v in s.cost.items())
        if cost:
            line += f" · cost: {cost}"
        if not s.minimal:
            line += " · not proven minimal"
        lines.append(line)
    yield items(lines, ordered=True)


def _plain(renderables: Iterable[RenderableType]) -> str:
    """The terminal report without colour, at its content's width."""
    console = Console(width=1 << 16, file=io.StringIO(), color_system=None,
                      force_terminal=False, highlight=False)
    for renderable in renderables:
        console.print(renderable)
    return "".join(line.rstrip() + "\n" for line in console.file.getvalue().splitlines())

