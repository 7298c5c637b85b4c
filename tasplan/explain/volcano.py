"""Why Volcano would not allocate a job, and changes that make it allocate it.

Read from what ``--scheduler volcano`` reported for the group: the HyperNodes Volcano
dry-ran (and those its ``minResources`` ruled out), how many pods each held and Volcano's
own reason. Every suggestion is verified by planning again with the change (the groups
planned before this one planned as before): a higher ``highestTierAllowed``, ``mode: soft``,
a lower ``minMember``, nodes added to the HyperNode that came closest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from tasplan.explain.result import Consumer, DomainExplanation, Explanation, Suggestion
from tasplan.model.node import Node
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.model.volcano import (
    HARD,
    MEMBER_NODE,
    SOFT,
    Member,
    NetworkTopology,
    VolcanoInputs,
    VolcanoPodGroup,
)
from tasplan.plan.result import GroupResult, PlacementResult
from tasplan.schedulers.volcano.cluster import ClusterSim, task_of
from tasplan.schedulers.volcano.hypernodes import ROOT, build_tree

# Replans the snapshot with the groups planned before the explained one; returns its result.
Replan = Callable[[ClusterSnapshot], GroupResult]
MAX_ADDED_NODES = 64
TOP_DOMAINS = 3  # the closest HyperNodes list who uses them
TOP_CONSUMERS = 3
HOSTNAME = "kubernetes.io/hostname"


def explain_job(result: GroupResult, snapshot: ClusterSnapshot,
                before: Sequence[GroupResult], replan: Replan) -> Explanation:
    key = result.group.key
    spec = snapshot.volcano.podgroups.get(key) or VolcanoPodGroup(key, result.group.min_count)
    needed = max(result.group.min_count - result.scheduled, 1)
    pods = [p for p in snapshot.pods_by_group.get(key, []) if not p.node_name and not p.terminal]
    # a job without a network topology is placed over the whole cluster (no HyperNode)
    candidates = result.placements or (PlacementResult(
        "cluster", tuple(n.name for n in snapshot.nodes), False, "", 0, {}, {}),)
    domains = _domains(result, candidates, snapshot, before, pods[:needed], needed)
    by_name = {p.name: p for p in candidates}
    closest = by_name[domains[0].name] if domains else None
    trial = _Trial(snapshot, spec, replan)
    suggestions = [*_tiers(trial), *_soft(trial), *_min_member(trial, result, pods),
                   *_added_nodes(trial, closest, pods)]
    empty = replace(snapshot, pods=tuple(p for p in snapshot.pods if p.group == key),
                    usage=None)
    return Explanation(result, needed, domains, _failures(closest, pods),
                       replan(empty).schedulable, tuple(suggestions))


class _Trial:
    """The job planned again with another PodGroup spec or other nodes and HyperNodes."""

    def __init__(self, snapshot: ClusterSnapshot, spec: VolcanoPodGroup,
                 replan: Replan) -> None:
        self.snapshot, self.spec, self._replan = snapshot, spec, replan

    def run(self, spec: VolcanoPodGroup | None = None, nodes: tuple[Node, ...] | None = None,
            hypernodes: Mapping | None = None) -> GroupResult | None:
        """The result when the job is allocated, else None."""
        s = self.snapshot
        volcano = VolcanoInputs(s.volcano.hypernodes if hypernodes is None else hypernodes,
                                {**s.volcano.podgroups, self.spec.key: spec or self.spec})
        changed = replace(s, volcano=volcano) if nodes is None else \
            replace(s, volcano=volcano, nodes=nodes, usage=None)
        result = self._replan(changed)
        return result if result.schedulable else None


def _tier(trial: _Trial) -> int | None:
    """The job's highest allowed tier (a tier name resolved), None without a hard one."""
    nt = trial.spec.network_topology
    if nt is None or nt.mode != HARD:
        return None
    if nt.highest_tier_allowed is not None:
        return nt.highest_tier_allowed
    names = {h.tier_name: h.tier for h in trial.snapshot.volcano.hypernodes.values()
             if h.tier_name}
    return names.get(nt.highest_tier_name)


def _tiers(trial: _Trial) -> list[Suggestion]:
    """The lowest higher tier of the HyperNodes under which the job fits now."""
    tier = _tier(trial)
    if tier is None:
        return []
    names = {h.tier: h.tier_name for h in trial.snapshot.volcano.hypernodes.values()}
    for higher in sorted(t for t in names if t > tier):
        found = trial.run(replace(trial.spec, network_topology=NetworkTopology(HARD, higher)))
        if found is not None:
            said = f" ({names[higher]})" if names[higher] else ""
            return [Suggestion("highestTierAllowed", f"raise networkTopology.highestTierAllowed "
                               f"from {tier} to {higher}{said}", found,
                               details={"highestTierAllowed": higher})]
    return []


def _soft(trial: _Trial) -> list[Suggestion]:
    """``mode: soft``: the newest Volcano walks the tiers up to the whole cluster."""
    if _tier(trial) is None:
        return []
    found = trial.run(replace(trial.spec, network_topology=NetworkTopology(SOFT)))
    if found is None:
        return []
    return [Suggestion("networkTopologyMode", "set networkTopology.mode to soft (the job may "
                       "span HyperNodes up to the whole cluster)", found,
                       details={"mode": SOFT})]


def _min_member(trial: _Trial, result: GroupResult, pods: Sequence) -> list[Suggestion]:
    """The largest minMember the job reaches now (feasibility is monotone in it: a smaller
    gang is ready sooner in every dry run). ``minResources`` follows: a vcjob's controller
    recomputes it (the first minAvailable pods, ``calcPGMinResources``); a PodGroup's is
    lowered with it, to what the first pods request."""
    spec = trial.spec
    lo, hi = max(result.scheduled, 1), spec.min_member - 1
    best: tuple[int, GroupResult] | None = None

    def smaller(m: int) -> VolcanoPodGroup:
        if spec.min_resources is None:
            return replace(spec, min_member=m)
        total: dict[str, int] = {}
        for p in pods[:max(m - result.scheduled, 0)]:
            for r, v in p.requests.items():
                total[r] = total.get(r, 0) + v
        return replace(spec, min_member=m, min_resources=total)

    while lo <= hi:
        mid = (lo + hi + 1) // 2
        found = trial.run(smaller(mid))
        if found is not None:
            best, lo = (mid, found), mid + 1
        else:
            hi = mid - 1
    if best is None:
        return []
    m, found = best
    if spec.from_vcjob:
        change = f"lower the vcjob's spec.minAvailable from {spec.min_member} to {m}"
    else:
        change = f"lower minMember from {spec.min_member} to {m}" + (
            " and minResources to what that many pods request"
            if spec.min_resources is not None else "")
    return [Suggestion("minMember", change, found, details={"minMember": m})]


def _added_nodes(trial: _Trial, closest: PlacementResult | None,
                 pods: Sequence) -> list[Suggestion]:
    """The fewest copies of a node of the closest HyperNode that, added to it, let the job
    fit (the node that holds the most of the job's pods is copied)."""
    if closest is None or not pods:
        return []
    snapshot = trial.snapshot
    by_name = {n.name: n for n in snapshot.nodes}
    model = max((by_name[n] for n in closest.nodes if n in by_name),
                key=lambda n: (_fits(n, pods[0].requests), n.name), default=None)
    if model is None:
        return []
    tree = build_tree(snapshot.volcano.hypernodes.values(),
                      [(n.name, n.labels) for n in snapshot.nodes])
    leaf = tree.leaf_of.get(model.name, "")
    leaf = "" if leaf == ROOT else leaf  # in no HyperNode: the virtual root only

    def attempt(count: int) -> GroupResult | None:
        added = [_copy(model, f"{model.name}-added-{i}") for i in range(count)]
        hypernodes = dict(snapshot.volcano.hypernodes)
        if leaf in hypernodes:  # members by exact name or pattern: name the copies too
            hn = hypernodes[leaf]
            hypernodes[leaf] = replace(hn, members=(*hn.members, *(
                Member(MEMBER_NODE, exact=n.name) for n in added)))
        nodes = tuple(sorted((*snapshot.nodes, *added), key=lambda n: n.name))
        return trial.run(nodes=nodes, hypernodes=hypernodes)

    lo, hi, best = 1, MAX_ADDED_NODES, None
    if attempt(hi) is None:
        return []
    while lo <= hi:  # the fewest: feasibility only grows with nodes
        mid = (lo + hi) // 2
        found = attempt(mid)
        if found is not None:
            best, hi = (mid, found), mid - 1
        else:
            lo = mid + 1
    count, found = best
    where = f"HyperNode {leaf}" if leaf else "the cluster"
    return [Suggestion("addNodes", f"add {count} node(s) like {model.name} to {where}", found,
                       cost={"nodesAdded": count},
                       details={"nodes": count, "like": model.name, "hyperNode": leaf})]


def _fits(node: Node, requests: Mapping[str, int]) -> int:
    """How many pods of ``requests`` an empty ``node`` holds (a node to copy)."""
    counts = [node.allocatable.get(r, 0) // v for r, v in requests.items() if v > 0]
    return min(counts, default=0)


def _copy(node: Node, name: str) -> Node:
    labels = dict(node.labels)
    if HOSTNAME in labels:
        labels[HOSTNAME] = name
    return replace(node, name=name, labels=labels)


def _domains(result: GroupResult, candidates: Sequence[PlacementResult],
             snapshot: ClusterSnapshot, before: Sequence[GroupResult], pods: Sequence[Pod],
             needed: int) -> tuple[DomainExplanation, ...]:
    """tasplan's count per HyperNode Volcano considered: nodes the needed pods may not use
    (Volcano's predicates, by reason), how many of them the others hold by resources and pod
    slots (nodes' allocatable minus what their pods and the groups planned before this one
    hold), and what the missing ones request of the resources that run out. Pods of
    different shapes are not counted: their domains show Volcano's own placed count."""
    extra = _planned_before(snapshot, before)
    need: dict[str, int] = {}
    for p in pods:
        for r, v in p.requests.items():
            need[r] = need.get(r, 0) + v
    uniform = bool(pods) and len({tuple(sorted(p.requests.items())) for p in pods}) == 1
    sim = ClusterSim(snapshot) if uniform else None
    task = task_of(pods[0]) if uniform else None
    out = []
    for p in candidates:
        excluded: dict[str, int] = {}
        idle: dict[str, int] = {}
        count = 0
        for name in p.nodes:
            if name not in snapshot.node_index:
                continue
            free = _free(snapshot, name, extra.get(name, {}))
            if sim is not None:
                reasons = sim.predicate(task, name)
                if reasons:
                    excluded[reasons[0]] = excluded.get(reasons[0], 0) + 1
                    continue
                count += min([free.get(r, 0) // v for r, v in pods[0].requests.items()
                              if v > 0] + [free.get("pods", 0)])
            for r in need:
                idle[r] = idle.get(r, 0) + free.get(r, 0)
        fit = min(count if sim is not None else p.placed, needed)
        missing = needed - fit
        short = {}
        if missing and uniform:
            short = {r: missing * v for r, v in pods[0].requests.items()
                     if v > 0 and idle.get(r, 0) < need.get(r, 0)}
        out.append(DomainExplanation(p.name, len(p.nodes), fit, needed, short,
                                     dict(pods[0].requests) if short else {}, excluded))
    # closest first: the most pods held, then Volcano's walk order (sorted is stable)
    ranked = sorted(out, key=lambda d: -d.fit)
    nodes = {p.name: p.nodes for p in candidates}
    return tuple(replace(d, consumers=_consumers(snapshot, result.group.key, nodes[d.name], d))
                 if i < TOP_DOMAINS else d for i, d in enumerate(ranked))


def _planned_before(snapshot: ClusterSnapshot, before: Sequence[GroupResult]
                    ) -> dict[str, dict[str, int]]:
    """Node -> what the pods the groups planned before this one were given hold there."""
    by_key = {p.key: p for p in snapshot.pods}
    used: dict[str, dict[str, int]] = {}
    for g in before:
        chosen = g.selected_placement
        for pod_key, node in (chosen.assignments.items() if chosen is not None else ()):
            acc = used.setdefault(node, {})
            acc["pods"] = acc.get("pods", 0) + 1
            for r, v in by_key[pod_key].requests.items() if pod_key in by_key else ():
                acc[r] = acc.get(r, 0) + v
    return used


def _free(snapshot: ClusterSnapshot, name: str, extra: Mapping[str, int]) -> dict[str, int]:
    node = snapshot.nodes[snapshot.node_index[name]]
    usage = snapshot.node_usage(name)
    taken = {**usage.requested, "pods": len(usage.pods)}
    return {r: max(v - taken.get(r, 0) - extra.get(r, 0), 0)
            for r, v in node.allocatable.items()}


def _consumers(snapshot: ClusterSnapshot, own: str, nodes: Sequence[str],
               d: DomainExplanation) -> tuple[Consumer, ...]:
    """The other pods on a HyperNode's nodes that use its short resources (cpu when none is
    short), by namespace and priority, largest users first."""
    resources = list(d.shortfall) or ["cpu"]
    totals: dict[tuple[str, int], list] = {}
    for name in nodes:
        for pod in snapshot.node_usage(name).pods:
            if pod.group == own:
                continue
            entry = totals.setdefault((pod.namespace, pod.priority), [0, {}])
            entry[0] += 1
            for r in resources:
                entry[1][r] = entry[1].get(r, 0) + pod.requests.get(r, 0)
    ranked = sorted(((k, v) for k, v in totals.items() if any(v[1].values())),
                    key=lambda kv: (*(-kv[1][1][r] for r in resources), kv[0][1], kv[0][0]))
    return tuple(Consumer(ns, prio, n, {r: v for r, v in req.items() if v})
                 for (ns, prio), (n, req) in ranked[:TOP_CONSUMERS])


def _failures(closest: PlacementResult | None,
              pods: Sequence) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Volcano's reason in the closest HyperNode it tried: ``<task>: <fit errors>``."""
    if closest is None:
        return ()
    names = {p.name: p.key for p in pods}
    task, _, message = closest.status.partition(": ")
    return ((message, (names[task],)),) if task in names and message else ()
