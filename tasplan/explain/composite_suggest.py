"""Changes that make a whole group tree fit, each verified by re-planning every input with
that one change (the planner's verdict on the root, without preemption):

- ``minGroupCount``: the largest value below the root's that fits (bisected);
- ``dropConstraint``: the tree without the root's topology constraint;
- ``evict``: the lower-priority pods whose removal makes the tree fit. They are
  kube-scheduler's own choice (workload-aware preemption for the tree, run with the tree's
  pods allowed to preempt when the inputs say Never or preemption is off), then removed from
  the inputs and the tree re-planned. No suggestion when preemption finds nothing or the
  tree does not fit with its victims gone. Then, when fewer pods in one of the root's
  closest domains do it, those (``_fewer_evictions``);
- ``addNodes``: the fewest copies of a node of the root's closest domains (tried in order)
  that make the tree fit: the largest count tried first (so a domain no count helps costs
  one re-plan), then bisection, each count a re-plan.

Every re-plan is a whole plan: groups of higher priority still come first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from tasplan.explain.counterfactuals.eviction import (
    SYSTEM_CRITICAL_CLASSES,
    SYSTEM_CRITICAL_PRIORITY,
)
from tasplan.model.composite import CompositePodGroup
from tasplan.model.node import Node
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.result import PlanResult
from tasplan.plan.tree_result import CompositeResult
from tasplan.preemption.evaluator import NO_VICTIMS, NOT_ENOUGH
from tasplan.preemption.victims import Hierarchy
from tasplan.whatif.apply import apply_edits
from tasplan.whatif.draft import Draft
from tasplan.whatif.edits import Edit

# replan(snapshot, preempt=...) -> the planner's result on the changed inputs
Replan = Callable[..., PlanResult]
DOMAINS_TRIED = 3
MAX_NODES = 256
# Re-plans spent looking for fewer evictions than upstream's preemption takes.
EVICT_REPLANS = 24


@dataclass(frozen=True)
class TreeSuggestion:
    """``kind``: minGroupCount, dropConstraint, evict or addNodes; ``result``: the root's
    verdict after the change; ``details``: what the change is, as data."""

    change: str
    result: CompositeResult
    kind: str = ""
    details: dict = field(default_factory=dict)


def root_of(result: PlanResult, key: str) -> CompositeResult | None:
    return next((c for c in result.composites if c.composite.key == key), None)


def tree_leaves(snapshot: ClusterSnapshot, root: str) -> set[str]:
    """Keys of the PodGroups under ``root``."""
    parent = {c.key: c.parent for c in snapshot.composites}

    def under(key: str | None) -> bool:
        seen = 0
        while key is not None and seen <= len(parent):
            if key == root:
                return True
            key, seen = parent.get(key), seen + 1
        return False

    return {g.key for g in snapshot.groups if under(g.parent)}


def suggestions(snapshot: ClusterSnapshot, root: CompositeResult, replan: Replan
                ) -> Iterator[TreeSuggestion]:
    cpg = root.composite

    def fits(changed: ClusterSnapshot) -> CompositeResult | None:
        found = root_of(replan(changed, preempt=False), cpg.key)
        return found if found is not None and found.schedulable else None

    def with_root(changed: CompositePodGroup) -> ClusterSnapshot:
        return replace(snapshot, composites=tuple(changed if c.key == cpg.key else c
                                                  for c in snapshot.composites))

    # A lower minGroupCount never makes the tree fit less (the children are planned the
    # same way; only the count they must reach drops): if 1 does not fit, none does, else
    # bisect for the largest that fits.
    count, found = _largest(lambda n: fits(with_root(replace(cpg, min_group_count=n))),
                            cpg.min_group_count - 1)
    if found is not None:
        yield TreeSuggestion(f"set minGroupCount of {cpg.key} to {count}", found,
                             "minGroupCount", {"minGroupCount": count})
    if cpg.topology_key:
        found = fits(with_root(replace(cpg, topology_key=None)))
        if found is not None:
            yield TreeSuggestion(f"drop the constraint {cpg.topology_key} of {cpg.key}",
                                 found, "dropConstraint", {"topologyKey": cpg.topology_key})
    evict = _evictions(snapshot, root, replan, fits)
    if evict is not None:
        yield evict
        fewer = _fewer_evictions(snapshot, root, len(evict.details["victims"]), fits)
        if fewer is not None:
            yield fewer
    added = _add_nodes(snapshot, root, fits)
    if added is not None:
        yield added


def _evictions(snapshot: ClusterSnapshot, root: CompositeResult, replan: Replan,
               fits: Callable[[ClusterSnapshot], CompositeResult | None]
               ) -> TreeSuggestion | None:
    found = root.preemption
    # Preemption already ran and found nothing to take, or nothing that helps: a re-run
    # with the tree's pods allowed to preempt would say the same.
    if found is None and root.preemption_message not in (NO_VICTIMS, NOT_ENOUGH):
        leaves = tree_leaves(snapshot, root.composite.key)
        key = root.composite.key
        allowed = replace(snapshot, pods=tuple(
            replace(p, preemption_policy="PreemptLowerPriority")
            if p.group in leaves and not p.node_name else p for p in snapshot.pods),
            composites=tuple(replace(c, preemption_policy=None) if c.key == key else c
                             for c in snapshot.composites))
        again = root_of(replan(allowed, preempt=True), root.composite.key)
        found = again.preemption if again is not None else None
    if found is None or not found.victims:
        return None
    keys = {v.pod for v in found.victims}
    draft = Draft.of(snapshot)
    violated = draft.evict([p for p in draft.bound_pods() if p.key in keys])
    result = fits(draft.snapshot())
    if result is None:
        return None
    names = [v.pod for v in found.victims]
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    return TreeSuggestion(
        f"evict {len(names)} lower-priority pod(s): {shown}", result, "evict",
        {"victims": [{"pod": v.pod, "node": v.node, "priority": v.priority, "group": v.group}
                     for v in found.victims], "pdbViolations": violated})


def _fewer_evictions(snapshot: ClusterSnapshot, root: CompositeResult, evicts: int,
                     fits: Callable[[ClusterSnapshot], CompositeResult | None]
                     ) -> TreeSuggestion | None:
    """Fewer than the ``evicts`` pods upstream's preemption takes (it clears every
    lower-priority pod, plans once and reprieves: it keeps the best-scored domain, not the
    cheapest), in the root's closest domains: the shortest prefix of the domain's
    lower-priority pods (lowest priority first, then the largest) that lets the tree fit,
    then every pod of it that can be spared; each check a re-plan of every input (at most
    ``EVICT_REPLANS`` in all)."""
    if evicts < 2:
        return None
    cpg = root.composite
    key, priority = cpg.topology_key, cpg.priority or 0
    mine = tree_leaves(snapshot, cpg.key)
    hierarchy = Hierarchy(snapshot.group_index, snapshot.composites)
    domains: list[str | None] = [p.name for p in sorted(
        root.placements, key=lambda p: (-p.scheduled, p.name))][:DOMAINS_TRIED] if key else [None]
    labels = {n.name: n.labels for n in snapshot.nodes}
    budget = [EVICT_REPLANS]
    best: tuple[list, CompositeResult, list[str], str | None] | None = None

    def works(pods: Sequence) -> tuple[CompositeResult, list[str]] | None:
        if budget[0] <= 0:
            return None
        budget[0] -= 1
        draft = Draft.of(snapshot)
        keys = {p.key for p in pods}
        violated = draft.evict([p for p in draft.bound_pods() if p.key in keys])
        result = fits(draft.snapshot())
        return None if result is None else (result, violated)

    for domain in domains:
        pool = sorted((p for p in snapshot.pods if p.node_name and not p.terminal
                       and p.group not in mine and hierarchy.priority(p) < priority
                       and p.priority < SYSTEM_CRITICAL_PRIORITY
                       and p.priority_class_name not in SYSTEM_CRITICAL_CLASSES
                       and (domain is None or labels.get(p.node_name, {}).get(key) == domain)),
                      key=lambda p: (hierarchy.priority(p), -sum(p.requests.values()), p.key))
        limit = evicts - 1 if best is None else len(best[0]) - 1
        found = works(pool) if pool and limit >= 1 else None
        if found is None:
            continue
        low, high = 0, len(pool)
        while high - low > 1:  # the shortest prefix that fits
            mid = (low + high) // 2
            if (shorter := works(pool[:mid])) is not None:
                high, found = mid, shorter
            else:
                low = mid
        victims = list(pool[:high])
        for pod in reversed(pool[:high]):  # spare what can be spared
            if len(victims) == 1:
                break
            rest = [v for v in victims if v is not pod]
            if (spared := works(rest)) is not None:
                victims, found = rest, spared
        if len(victims) <= limit:
            best = (victims, *found, domain)
    if best is None:
        return None
    victims, result, violated, domain = best
    names = [p.key for p in victims]
    where = f" in {domain!r}" if domain is not None else ""
    return TreeSuggestion(
        f"evict {len(names)} lower-priority pod(s){where}: {', '.join(names[:4])}"
        + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        + f" (by hand: fewer than the {evicts} kube-scheduler's own preemption evicts)",
        result, "evict",
        {"victims": [{"pod": p.key, "node": p.node_name, "priority": hierarchy.priority(p),
                      "group": p.group} for p in victims],
         "pdbViolations": violated, "upstreamEvicts": evicts})


def _add_nodes(snapshot: ClusterSnapshot, root: CompositeResult,
               fits: Callable[[ClusterSnapshot], CompositeResult | None]
               ) -> TreeSuggestion | None:
    cpg = root.composite
    key = cpg.topology_key
    domains: list[str | None] = [p.name for p in sorted(
        root.placements, key=lambda p: (-p.scheduled, p.name))][:DOMAINS_TRIED] if key else [None]
    pending = sum(1 for p in snapshot.pods if not p.node_name
                  and p.group in tree_leaves(snapshot, cpg.key))
    limit = min(max(pending, 1), MAX_NODES)
    for domain in domains:
        like = _template(snapshot.nodes, key, domain)
        if like is None:
            continue

        def grown(n: int, like: Node = like) -> ClusterSnapshot:
            return apply_edits(snapshot, [Edit("addNodes", count=n, like=like.name,
                                               origin="explain")]).snapshot

        n, result = _fewest(lambda n: fits(grown(n)), limit)
        if result is None:
            continue
        where = f" to {domain!r}" if domain is not None else ""
        return TreeSuggestion(f"add {n} node(s) shaped like {like.name}{where}", result,
                              "addNodes", {"domain": domain, "template": like.name,
                                           "nodesAdded": n})
    return None


def _template(nodes: Sequence[Node], key: str | None, domain: str | None) -> Node | None:
    """The schedulable node of the domain with the most allocatable (extended resources
    first, then CPU, then memory), first by name on a tie."""
    members = [n for n in nodes if not n.unschedulable
               and (domain is None or n.labels.get(key or "") == domain)]
    if not members:
        return None

    def size(n: Node) -> tuple:
        extended = sum(v for r, v in n.allocatable.items() if "/" in r)
        return (-extended, -n.allocatable.get("cpu", 0), -n.allocatable.get("memory", 0),
                n.name)

    return min(members, key=size)


def _fewest(works: Callable[[int], CompositeResult | None], limit: int
            ) -> tuple[int, CompositeResult | None]:
    """The smallest n in 1..limit for which ``works`` gives a result (more nodes never make
    a fitting tree unfit): ``limit`` first (a domain no count helps costs one re-plan), then
    bisection; n - 1 is proven not to work."""
    if limit < 1:
        return 0, None
    found = works(limit)
    if found is None:
        return 0, None
    low, high = 0, limit
    while high - low > 1:
        mid = (low + high) // 2
        result = works(mid)
        if result is not None:
            high, found = mid, result
        else:
            low = mid
    return high, found


def _largest(works: Callable[[int], CompositeResult | None], limit: int
             ) -> tuple[int, CompositeResult | None]:
    """The largest n in 1..limit for which ``works`` gives a result, when ``works`` holds
    for every n below one that works: 1 first, then bisection."""
    if limit < 1:
        return 0, None
    found = works(1)
    if found is None:
        return 0, None
    low, high = 1, limit + 1
    while high - low > 1:
        mid = (low + high) // 2
        result = works(mid)
        if result is not None:
            low, found = mid, result
        else:
            high = mid
    return low, found
