"""Rich renderables for ``explain``: per group the verdict, the failed pods, a per-domain
table (closest first) and the verified suggestions."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from rich.console import Group, RenderableType
from rich.text import Text

from tasplan.explain.composite import level_summary
from tasplan.explain.result import Consumer, DomainExplanation, ExplainResult, Explanation
from tasplan.plan.result import GroupResult
from tasplan.report.formatting import human, short_resource
from tasplan.report.group_header import group_header
from tasplan.report.layout import Columns, natural_width
from tasplan.report.table import TOP_PLACEMENTS, expansion_lines, render_composite, verdict
from tasplan.report.tree_order import report_order

FAILED_PODS_SHOWN = 3
CONSUMERS_SHOWN = 2

TIED_SHOWN = 5  # domains a suggestion names as tied; -o json lists them all


def render_explanations(result: ExplainResult, *, wide: bool = False, width: int | None = None,
                        rows: int | None = TOP_PLACEMENTS) -> Iterator[RenderableType]:
    """``width``: what the tables should fit in (None: no limit); ``rows``: domains (and
    placements) shown per group, closest first (None, or -o wide: every one). Warnings
    about the inputs are not part of the report (the CLI prints them to stderr)."""
    if not result.plan.groups:
        yield Text("no pending or unschedulable pod groups in the inputs")
    plan = result.plan
    leaves = {g.group.key: g for g in plan.groups}
    composites = {c.composite.key: c for c in plan.composites}
    for item, _ in report_order(plan):
        if isinstance(item, GroupResult):
            yield render_group(item, result.explanations.get(item.group.key), wide=wide,
                               width=width, rows=None if wide else rows)
        else:
            yield from render_composite(item, leaves, composites, width=width, rows=rows)
            tree = result.trees.get(item.composite.key)
            if tree is not None:
                yield render_tree_explanation(tree)


def _title(g: GroupResult, wide: bool) -> Text:
    return Text.assemble((g.group.key, "bold"), f"  {group_header(g, wide=wide)}")


def render_group(g: GroupResult, e: Explanation | None, *, wide: bool,
                 width: int | None = None, rows: int | None = TOP_PLACEMENTS) -> RenderableType:
    parts: list[RenderableType] = [Text(""), _title(g, wide), *expansion_lines(g),
                                   *verdict(g, width)]
    if e is None:
        return Group(*parts)
    if g.schedulable:
        parts.append(Text(f"only {e.result.selected_placement.placed}/{e.needed} pending pods "
                          f"fit in {g.selected!r}"))
    parts.append(Text(f"why: {diagnosis_text(e)}"))
    if e.unlabelled:
        parts.append(Text(f"{e.unlabelled} node(s) lack {g.group.topology_key} and belong to "
                          "no placement", style="dim"))
    if e.failures and e.domains:
        parts.append(Text(f"pods that failed in {e.domains[0].name!r} (the closest domain):",
                          style="italic"))
        for message, pods in e.failures:
            who = ", ".join(pods[:FAILED_PODS_SHOWN])
            if len(pods) > FAILED_PODS_SHOWN:
                who += f" and {len(pods) - FAILED_PODS_SHOWN} more"
            parts.append(Text(f"  {who}: {message}"))
    if e.domains:
        parts.append(domains_view(e, rows=rows, width=width))
        hidden = e.domains[rows:] if rows is not None else ()
        if hidden:
            empty = sum(1 for d in hidden if not d.fit)
            detail = f" ({empty:,} holding none of its pods)" if empty else ""
            parts.append(Text(f"and {len(hidden):,} more domains{detail}: --all-placements "
                              "lists every one", style="dim"))
    parts.append(Text("suggestions, each verified by re-planning the group:", style="italic")
                 if e.suggestions else
                 Text("no single change tried (minCount, eviction, nodes, tolerations and "
                      "selectors, topology key) makes the group fit", style="italic"))
    for n, s in enumerate(e.suggestions, 1):
        chosen = s.result.selected_placement
        placed = f"{chosen.placed}/{s.result.pending} pods" if chosen is not None else ""
        line = Text.assemble(f" {n}. {s.change} ", ("→", "bold"),
                             (f" fits in {s.result.selected!r}", "green"), f" ({placed}")
        if s.result.tied_with:
            tied = s.result.tied_with
            more = f" and {len(tied) - TIED_SHOWN} more" if len(tied) > TIED_SHOWN else ""
            line.append(f"; tied with {', '.join(tied[:TIED_SHOWN])}{more}")
        line.append(")")
        cost = ", ".join(f"{v} {COST_WORDS.get(k, k)}" for k, v in s.cost.items())
        if cost:
            line.append(f" · cost: {cost}")
        if not s.minimal:
            line.append(" · not proven minimal", style="yellow")
        parts.append(line)
    return Group(*parts)


COST_WORDS = {"podsEvicted": "pod(s) evicted", "nodesAdded": "node(s) added",
         "podsMoved": "pod(s) moved"}


def diagnosis_text(e: Explanation) -> str:
    """The one cause (tasplan.explain.cause): what else is true has lines of its own."""
    cause = e.cause
    if cause is None:  # an explanation made without one
        return ("contention: it would fit in an empty cluster, but other pods hold the capacity "
                "it needs" if e.fits_empty_cluster else
                "capacity: it does not fit even with no other pods running")
    return f"{cause.kind}: {cause.text}"


def domains_view(e: Explanation, *, rows: int | None, width: int | None) -> RenderableType:
    """The per-domain table (the ``rows`` closest); where it is wider than ``width``, the
    reasons (EXCLUDED, USED BY) are stacked under each domain's row instead of being left
    out."""
    shown = e.domains[:rows]
    table = Columns()
    table.add("DOMAIN")
    table.add("NODES", "right")
    table.add("PODS", "right")
    table.add("SHORT")
    full = Columns(list(table.columns))
    full.add("EXCLUDED")
    full.add("USED BY (priority ×pods)")
    for d in shown:
        row = (d.name if d.name else '""', str(d.nodes), f"{d.fit}/{d.needed}",
               shortfall_text(d))
        table.row(*row)
        full.row(*row, excluded_text(d.excluded),
                 "\n".join(consumer_text(c) for c in d.consumers[:CONSUMERS_SHOWN]) or "-")
    whole = full.fit(None)
    if width is None or natural_width(whole) <= width:
        return whole
    lines = table.lines()
    out = [lines[0]]
    for d, line in zip(shown, lines[1:], strict=True):
        out.append(line.rstrip())
        out += [f"  excluded: {n} {reason}" for reason, n in d.excluded.items()]
        out += [f"  used by: {consumer_text(c)}" for c in d.consumers[:CONSUMERS_SHOWN]]
    return Text("\n".join(out))


def shortfall_text(d: DomainExplanation) -> str:
    if not d.short:
        return "-"
    parts = []
    for resource, total in d.shortfall.items():
        text = f"{_amount(resource, total)} {short_resource(resource)}"
        if resource.startswith("devices/"):  # DRA devices of a DeviceClass
            text = f"{total} devices of class {resource.removeprefix('devices/')}"
        if resource in d.per_pod and resource != "pods":
            text += f" ({d.short}×{_amount(resource, d.per_pod[resource])})"
        parts.append(text)
    return ", ".join(parts) or f"{d.short} pod(s)"


def _amount(resource: str, value: int) -> str:
    return str(value) if resource == "pods" else human(resource, value)


def excluded_text(excluded: Mapping[str, int]) -> str:
    return "\n".join(f"{n} {reason}" for reason, n in excluded.items()) or "-"


def consumer_text(c: Consumer) -> str:
    used = ", ".join(f"{human(r, v)} {short_resource(r)}" for r, v in c.requests.items())
    return f"{c.namespace} p{c.priority} ×{c.pods}" + (f": {used}" if used else "")


def render_tree_explanation(e) -> RenderableType:
    """Which level of a tree is short, where, and the verified changes
    (tasplan.explain.composite.TreeExplanation)."""
    parts: list[RenderableType] = []
    for level in e.levels:
        parts.append(Text(f"{level.composite}: {level_summary(level)}"))
        if level.shortfall is None:
            parts.append(Text(f"  {level.status}", style="dim"))
    if e.first_failed_child is not None:
        name, message, domain = e.first_failed_child
        parts.append(Text(f"first child that failed in {domain!r} (the domain kube-scheduler "
                          f"reports): {name}: {message}"))
    parts.append(Text("suggestions, each verified by re-planning the whole tree:", style="italic")
                 if e.suggestions else
                 Text("no single change tried (minGroupCount, the root's constraint, "
                      "evictions, added nodes) makes the tree fit", style="italic"))
    for n, s in enumerate(e.suggestions, 1):
        parts.append(Text.assemble(f" {n}. {s.change} ", ("→", "bold"),
                                   (f" fits in {s.result.selected!r}", "green"),
                                   f" ({s.result.message})"))
    return Group(*parts)
