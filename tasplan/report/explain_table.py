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
from tasplan.report.layout import Columns
from tasplan.report.table import expansion_lines, render_composite, verdict
from tasplan.report.tree_order import report_order

DOMAIN_ROWS = 8  # closest domains shown; -o wide / -o json show every domain
FAILED_PODS_SHOWN = 3
CONSUMERS_SHOWN = 2

TIED_SHOWN = 5  # domains a suggestion names as tied; -o json lists them all


def render_explanations(result: ExplainResult, *, wide: bool = False, width: int | None = None
                        ) -> Iterator[RenderableType]:
    """``width``: what the tables should fit in (None: no limit). Warnings about the inputs
    are not part of the report (the CLI prints them to stderr)."""
    if not result.plan.groups:
        yield Text("no pending or unschedulable pod groups in the inputs")
    plan = result.plan
    leaves = {g.group.key: g for g in plan.groups}
    composites = {c.composite.key: c for c in plan.composites}
    for item, _ in report_order(plan):
        if isinstance(item, GroupResult):
            yield render_group(item, result.explanations.get(item.group.key), wide=wide,
                               width=width)
        else:
            yield from render_composite(item, leaves, composites, width=width)
            tree = result.trees.get(item.composite.key)
            if tree is not None:
                yield render_tree_explanation(tree)


def _title(g: GroupResult, wide: bool) -> Text:
    return Text.assemble((g.group.key, "bold"), f"  {group_header(g, wide=wide)}")


def render_group(g: GroupResult, e: Explanation | None, *, wide: bool,
                 width: int | None = None) -> RenderableType:
    parts: list[RenderableType] = [Text(""), _title(g, wide), *expansion_lines(g),
                                   *verdict(g, width)]
    if e is None:
        return Group(*parts)
    if g.schedulable:
        parts.append(Text(f"only {e.result.selected_placement.placed}/{e.needed} pending pods "
                          f"fit in {g.selected!r}"))
    parts.append(Text(f"why: {diagnosis_text(e)}"))
    if e.failures and e.domains:
        parts.append(Text(f"pods that failed in {e.domains[0].name!r} (the closest domain):",
                          style="italic"))
        for message, pods in e.failures:
            who = ", ".join(pods[:FAILED_PODS_SHOWN])
            if len(pods) > FAILED_PODS_SHOWN:
                who += f" and {len(pods) - FAILED_PODS_SHOWN} more"
            parts.append(Text(f"  {who}: {message}"))
    if e.domains:
        parts.append(_domains_table(e, wide=wide).fit(width))
        hidden = len(e.domains) - DOMAIN_ROWS
        if hidden > 0 and not wide:
            parts.append(Text(f"… {hidden} more domain(s): -o wide or -o json lists them",
                              style="dim"))
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
    """Capacity or contention, where it fits now, and the nodes no placement has."""
    if e.why:
        return e.why
    if e.fits_empty_cluster:
        text = ("contention: it would fit in an empty cluster; other pods hold the capacity "
                "it needs")
    else:
        text = "capacity: it does not fit even in an empty cluster"
    fits_at = e.fits_at
    if fits_at is not None:
        text += (f"; it fits now within one {fits_at.details['topologyKey']} "
                 f"({fits_at.result.selected!r})")
    if e.unlabelled:
        text += (f"; {e.unlabelled} node(s) lack {e.result.group.topology_key} and belong to "
                 "no placement")
    return text


def _domains_table(e: Explanation, *, wide: bool) -> Columns:
    """On a narrow terminal USED BY goes first, then NODES, then EXCLUDED."""
    table = Columns()
    table.add("DOMAIN")
    table.add("NODES", "right", drop=2)
    table.add("PODS", "right")
    table.add("SHORT")
    table.add("EXCLUDED", drop=1)
    table.add("USED BY (priority ×pods)", drop=3)
    for d in e.domains if wide else e.domains[:DOMAIN_ROWS]:
        table.row(d.name if d.name else '""', str(d.nodes), f"{d.fit}/{d.needed}",
                      shortfall_text(d), excluded_text(d.excluded),
                      "\n".join(consumer_text(c) for c in d.consumers[:CONSUMERS_SHOWN]) or "-")
    return table


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
