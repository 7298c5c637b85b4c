"""Preemption what-if: which lower-priority pods to evict so the group fits.

Where kube-scheduler itself would preempt for the group (the release runs workload-aware
preemption, the profile has DefaultPreemption, the pods may preempt and the group does not
fit at all), the suggestion is upstream's own answer, from ``tasplan.preemption``: its
victims and placement, checked for minimality when that is cheap.

Otherwise (preemptionPolicy Never, preemption off, or a group that fits only in part) it
searches the fewest pods to evict in the closest domains, with upstream's victim rules:
only pods of strictly lower preemption priority (a grouped pod's is its group's), never the
group's own pods, never system-critical pods (``system-cluster-critical``/
``system-node-critical`` or priority >= 2,000,000,000), never more pods of a
PodDisruptionBudget than it allows now, and only pods on nodes the group's pods could use
at all (a taint or selector that rejects the pod is not fixed by eviction; a node short
of DRA devices is usable). Evicted pods free the devices of the input-allocated claims that
no remaining pod uses (their claims are deleted or deallocated); kube-scheduler's own
preemption does not count devices (DRA-aware preemption is KEP-5690, not yet upstream).

Search: candidates in greedy order (lowest priority, then the pod that frees the most of
what the group requests, so fewer pods go), the shortest feasible prefix by binary search
(feasibility grows with the prefix), then every victim that can be spared is spared. The
set is proven minimal when it has one pod or when no set one pod smaller works (checked
exhaustively while that is cheap); otherwise the suggestion says it may not be.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import replace
from itertools import combinations
from math import comb

from tasplan.explain.case import Case, without
from tasplan.explain.domains import first_diagnosis, short_of_devices
from tasplan.explain.result import Suggestion
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.status import Code
from tasplan.model.pod import Pod
from tasplan.plan.result import PlacementResult
from tasplan.preemption.evaluator import preempt
from tasplan.preemption.victims import units

KIND = "evict"
SYSTEM_CRITICAL_CLASSES = frozenset({"system-cluster-critical", "system-node-critical"})
SYSTEM_CRITICAL_PRIORITY = 2_000_000_000
DOMAINS_TRIED = 3
# Domain simulations spent on sparing victims and on proving minimality.
SPARE_BUDGET = 32
PROOF_BUDGET = 32


def suggest(case: Case) -> list[Suggestion]:
    """What kube-scheduler's own preemption will do where it preempts for the group, and
    next to it the fewest evictions that make the group fit when its preemption takes more
    (it clears every lower-priority pod, plans once, then reprieves: the placement it keeps
    is the best-scored on the cleared cluster, not the cheapest); elsewhere the fewest."""
    upstream = _upstream(case)
    if upstream is None:
        for domain in case.domains[:DOMAINS_TRIED]:
            suggestion = _in_domain(case, domain)
            if suggestion is not None:
                return [suggestion]
        return []
    evicts = upstream.cost["podsEvicted"]
    if evicts == 1:
        return [upstream]
    fewer = [s for domain in case.domains[:DOMAINS_TRIED]
             if (s := _in_domain(case, domain)) is not None and s.cost["podsEvicted"] < evicts]
    if not fewer:
        return [upstream]
    least = min(fewer, key=lambda s: s.cost["podsEvicted"])  # closest domain on a tie
    return [replace(upstream, minimal=False),
            replace(least, change=f"{least.change} (by hand: fewer than the {evicts} "
                    "kube-scheduler's own preemption evicts)",
                    details={**least.details, "upstreamEvicts": evicts})]


def evictable(case: Case, pod: Pod) -> bool:
    priority = case.hierarchy.priority(pod)
    return (bool(pod.node_name) and not pod.terminal and pod.group != case.group.key
            and priority < case.priority
            and pod.priority < SYSTEM_CRITICAL_PRIORITY
            and pod.priority_class_name not in SYSTEM_CRITICAL_CLASSES)


def candidates(case: Case, domain: PlacementResult) -> list[Pod]:
    """Evictable pods on the domain's usable nodes, in greedy order, within PDB budgets."""
    diagnosis = first_diagnosis(domain)
    hopeless = set() if diagnosis is None else {
        node for node, status in diagnosis.statuses.items()
        if status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE and not short_of_devices(status)}
    want = case.ctx.pending[0].requests
    pods = [pod for name in domain.nodes if name not in hopeless
            for pod in case.infos[case.node_index[name]].pods if evictable(case, pod)]

    def frees(pod: Pod) -> float:
        return sum(min(pod.requests.get(r, 0), v) / v for r, v in want.items() if v > 0)

    pods.sort(key=lambda p: (p.priority, -frees(p), p.key))
    left = {b.key: b.allowed for b in case.budgets}
    chosen = []
    for pod in pods:
        covering = [b.key for b in case.budgets if b.covers(pod)]
        if all(left[k] > 0 for k in covering):
            for k in covering:
                left[k] -= 1
            chosen.append(pod)
    return chosen


def _in_domain(case: Case, domain: PlacementResult) -> Suggestion | None:
    found = fewest(case, domain, candidates(case, domain), evict=True)
    if found is None:
        return None
    victims, minimal = found
    with case.evicted(victims):
        result = case.replan(infos=infos_without(case, victims))
    if not case.met(result):
        return None
    victims = sorted(victims, key=lambda p: p.key)
    change = (f"evict {len(victims)} pod(s) of lower priority in {domain.name!r}: "
              f"{_names(victims)}")
    if all(p.preemption_policy == "Never" for p in case.ctx.pending):
        change += " (the pods' preemptionPolicy is Never: the scheduler will not do it itself)"
    return Suggestion(
        KIND, change, result, cost={"podsEvicted": len(victims)}, minimal=minimal,
        details={"domain": domain.name,
                 "victims": [{"pod": p.key, "node": p.node_name, "priority": p.priority}
                             for p in victims]})


def _upstream(case: Case) -> Suggestion | None:
    """kube-scheduler's own preemption for the group, verified by re-planning it."""
    from tasplan.framework.statement import Statement
    from tasplan.plan.group_cycle import schedule_group
    from tasplan.schedulers.kube.preemption import preemption_enabled, preemption_never

    fw, ctx = case.fw, case.ctx
    if case.partial or not preemption_enabled(fw, fw.target, case.group):
        return None
    never = preemption_never(case.group, ctx.pending, fw.target)
    if never:
        return None
    # Only units of a lower priority may be victims (the plan's preemption builds no other).
    attempt = preempt(fw, ctx, case.infos, Statement(fw.reservers),
                      units(case.infos, case.hierarchy, case.priority),
                      case.priority, case.budgets, never=never, schedule=schedule_group)
    chosen = attempt.result
    if chosen is None:
        return None
    by_key = {p.key: p for info in case.infos for p in info.pods}
    victims = [by_key[v.pod] for v in chosen.victims]
    result = case.replan(infos=infos_without(case, victims))
    if not case.met(result):
        return None
    placement = next(p for p in case.result.placements if p.name == chosen.placement)
    minimal = len(victims) == 1 or _no_smaller_set(case, case.placement(placement), victims)
    change = (f"evict {len(victims)} pod(s) of lower priority: {_names(victims)} "
              "(kube-scheduler's own workload-aware preemption)")
    return Suggestion(
        KIND, change, result, cost={"podsEvicted": len(victims)}, minimal=minimal,
        details={"domain": chosen.placement, "upstream": True,
                 "pdbViolations": chosen.pdb_violations,
                 "victims": [v.document() for v in chosen.victims]})


def _no_smaller_set(case: Case, placement, victims: Sequence[Pod]) -> bool:
    """True when no set one pod smaller, drawn from the victims, makes the placement fit
    (checked only while that is cheap; False = not proven)."""
    if comb(len(victims), len(victims) - 1) > PROOF_BUDGET:
        return False
    return not any(case.fits(case.simulate(placement, infos_without(case, c)))
                   for c in combinations(victims, len(victims) - 1))


def infos_without(case: Case, victims: Sequence[Pod]) -> list[NodeInfo]:
    """The case's nodes with ``victims`` gone (detached copies of their nodes only)."""
    by_node: dict[str, list[Pod]] = {}
    for pod in victims:
        by_node.setdefault(pod.node_name, []).append(pod)
    infos = list(case.infos)
    for name, gone in by_node.items():
        i = case.node_index[name]
        infos[i] = without(infos[i], gone)
    return infos


def fewest(case: Case, domain: PlacementResult, pool: Sequence[Pod], *, evict: bool = False
           ) -> tuple[list[Pod], bool] | None:
    """The fewest pods of ``pool`` (in its order) whose absence lets the group fit in
    ``domain``, and whether that set is proven minimal; None when all of them are not
    enough. Shared by eviction and consolidation (moving frees the same room). ``evict``:
    the pods are deleted, so the DRA devices only they hold are freed too (consolidation
    does not count the devices of moved pods: not modelled)."""
    if not pool:
        return None
    placement = case.placement(domain)

    def works(victims: Sequence[Pod]) -> bool:
        with case.evicted(victims) if evict else nullcontext():
            return case.fits(case.simulate(placement, infos_without(case, victims)))

    if not works(pool):
        return None  # freeing every candidate is not enough here
    lo, hi = 1, len(pool)
    while lo < hi:
        mid = (lo + hi) // 2
        if works(pool[:mid]):
            hi = mid
        else:
            lo = mid + 1
    victims = list(pool[:lo])
    budget = SPARE_BUDGET
    for pod in reversed(pool[:lo]):
        if budget == 0 or len(victims) == 1:
            break
        budget -= 1
        rest = [v for v in victims if v is not pod]
        if works(rest):
            victims = rest
    minimal = len(victims) == 1
    if not minimal and comb(len(pool), len(victims) - 1) <= PROOF_BUDGET:
        smaller = next((list(c) for c in combinations(pool, len(victims) - 1) if works(c)),
                       None)
        minimal = smaller is None
        victims = smaller or victims
    return victims, minimal


def _names(pods: Sequence[Pod], limit: int = 4) -> str:
    shown = ", ".join(p.key for p in pods[:limit])
    return shown + (f" and {len(pods) - limit} more" if len(pods) > limit else "")
