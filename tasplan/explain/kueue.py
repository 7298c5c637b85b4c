"""Why Kueue would not admit a workload, and changes that make it admit it.

Works on what ``--scheduler kueue`` recorded for the group (``KueueScheduler.records``):
the flavor's tree in the state the workload was planned in and the PodSets' requests.
Every suggestion is verified by running Kueue's placement again on the changed request or
tree: a lower pod count, ``preferred`` instead of ``required``, a coarser level, the
missing tolerations, no node selector, added nodes, more quota.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from tasplan.explain.cause import QUOTA, Cause
from tasplan.explain.result import Consumer, DomainExplanation, Explanation, Suggestion
from tasplan.model.quantity import format_quantity
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.model.taints import Toleration
from tasplan.plan.result import GroupResult, PlacementResult
from tasplan.schedulers.kueue.admission import (
    Admission,
    flavor_quotas,
    quota,
    quota_usage,
    with_nominal,
)
from tasplan.schedulers.kueue.request import PREFERRED, REQUIRED
from tasplan.schedulers.kueue.tas import FlavorSnapshot, PodSetRequest, PodSetResult
from tasplan.schedulers.kueue.tree import Domain, TopologyTree

MAX_ADDED_NODES = 64


def explain_workload(result: GroupResult, admission: Admission, snapshot: ClusterSnapshot
                     ) -> Explanation | None:
    tree = admission.tree
    if not admission.requests or (tree is None and not admission.quota_refused):
        return None
    main = max(admission.requests.values(), key=lambda ps: ps.count)
    suggestions: list[Suggestion] = []
    if admission.quota_refused:
        return _quota(result, admission, main, snapshot)
    # The domains' counts first: the trials below re-run the search on the same tree,
    # whose Domain objects (the trace holds them) they overwrite.
    domains = _domains(admission, main, admission.results.get(main.name), snapshot)
    trial = _Trial(admission)
    suggestions += _lower_count(trial, main, result)
    suggestions += _preferred(trial, main, result)
    suggestions += _coarser(trial, main, result)
    suggestions += _tolerations(trial, main, result)
    suggestions += _selectors(trial, main, result)
    suggestions += _added_nodes(trial, main, result)
    empty = trial.run(tree=_emptied(tree))
    return Explanation(result, main.count, domains, (), not _fails(empty),
                       tuple(suggestions))


def _quota(result: GroupResult, admission: Admission, main: PodSetRequest,
           snapshot: ClusterSnapshot) -> Explanation:
    """A workload the ClusterQueue's quota refuses. When a flavor's topology holds it: that
    placement's domains, and the nominal quota that admits it without borrowing or
    preemption, verified by running the quota check again on the changed ClusterQueue."""
    cq, trial = admission.cluster_queue, admission.without_quota
    if cq is None or trial is None or trial.flavor is None:
        return Explanation(result, main.count, (), (), False, (), cause=Cause(
            QUOTA, "the ClusterQueue's quota refuses it, and no TAS flavor's topology would "
            "hold it either"))
    flavor = trial.flavor.name
    requests = list(admission.requests.values())
    workloads = snapshot.kueue.workloads
    quotas = flavor_quotas(cq, flavor)
    used = quota_usage(cq, flavor, workloads)
    asked: dict[str, int] = {}
    for ps in requests:
        for res, value in ps.requests.items():
            if res in quotas:
                asked[res] = asked.get(res, 0) + value * ps.count
    raised = {res: used.get(res, 0) + ask for res, ask in sorted(asked.items())
              if used.get(res, 0) + ask > quotas[res].nominal}
    verdict = quota(with_nominal(cq, flavor, raised), flavor, requests, workloads)
    placed = _outcome(result, trial.results, main, trial.tree)
    suggestions = []
    if raised and verdict.fits and not verdict.needs_more:
        change = (f"raise the nominalQuota of ClusterQueue {cq.name} in flavor {flavor}: "
                  + ", ".join(f"{res} from {format_quantity(res, quotas[res].nominal)} to "
                              f"{format_quantity(res, value)}" for res, value in raised.items()))
        suggestions.append(Suggestion(
            "quota", change, placed,
            details={"clusterQueue": cq.name, "flavor": flavor,
                     "nominalQuota": {r: format_quantity(r, v) for r, v in raised.items()}}))
    why = (f"the topology of flavor {flavor} holds it now ({placed.selected!r}); the "
           f"quota of ClusterQueue {cq.name} stops it")
    if used:
        why += (" (its admitted Workloads in the inputs use "
                + ", ".join(f"{format_quantity(r, v)} {r}" for r, v in sorted(used.items()))
                + ")")
    if cq.cohort and raised:
        borrow = ", ".join(f"{format_quantity(r, v - quotas[r].nominal)} {r} (borrowingLimit "
                           f"{_limit(r, quotas[r].borrowing_limit)})"
                           for r, v in raised.items())
        why += (f"; borrowing from cohort {cq.cohort} instead admits it only if the queue may "
                f"borrow {borrow} and the cohort's other ClusterQueues leave that unused: "
                "their live usage is not in the inputs")
    domains = _domains(trial, main, trial.results.get(main.name), snapshot)
    return Explanation(result, main.count, domains, (), True, tuple(suggestions),
                       cause=Cause(QUOTA, why))


def _limit(resource: str, value: int | None) -> str:
    return "unset" if value is None else format_quantity(resource, value)


class _Trial:
    """Kueue's placement again on a changed request or tree."""

    def __init__(self, admission: Admission) -> None:
        self.admission = admission

    def run(self, requests: Mapping[str, PodSetRequest] | None = None,
            tree: TopologyTree | None = None) -> dict[str, PodSetResult]:
        a = self.admission
        snapshot = FlavorSnapshot(a.topology.name, tree or a.tree, a.flavor.tolerations,
                                  a.gates)
        return snapshot.find_assignments(list((requests or a.requests).values()))

    def with_request(self, ps: PodSetRequest) -> dict[str, PodSetResult]:
        return self.run({**self.admission.requests, ps.name: ps})


def _fails(results: Mapping[str, PodSetResult]) -> bool:
    return any(r.reason for r in results.values())


def _outcome(result: GroupResult, results: Mapping[str, PodSetResult], main: PodSetRequest,
             tree: TopologyTree, pending: int | None = None) -> GroupResult:
    """A GroupResult for a verified change: the domains the main PodSet lands in."""
    res = results[main.name]
    a = res.assignment
    level = res.trace.levels[-1][0] if res.trace and res.trace.levels else 0
    chosen = sorted({_values(tree, v)[:level + 1] for v, _ in a.domains}) if a else []
    name = "+".join(v[-1] for v in chosen)
    placed = a.count if a else 0
    placement = PlacementResult(name, (), True, "", placed, {}, {}, simulated=False)
    return replace(result, schedulable=True, selected=name, placements=(placement,),
                   pending=pending if pending is not None else result.pending,
                   message=f"Kueue admits it in {name!r}")


def _values(tree: TopologyTree, values: tuple[str, ...]) -> tuple[str, ...]:
    if tree.hostname_leaves and len(values) == 1:
        leaf = tree.leaves.get(values[0])
        return leaf.domain.values if leaf is not None else values
    return values


def _lower_count(trial: _Trial, main: PodSetRequest, result: GroupResult) -> list[Suggestion]:
    """The most pods of the main PodSet that Kueue admits (slices stay whole)."""
    size = _slice_size(main)
    lo, hi = 0, main.count // size - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _fails(trial.with_request(replace(main, count=mid * size))):
            hi = mid - 1
        else:
            lo = mid
    if lo == 0:
        return []
    count = lo * size
    results = trial.with_request(replace(main, count=count))
    return [Suggestion("minCount", f"lower PodSet {main.name} from {main.count} to {count} "
                       "pod(s)", _outcome(result, results, main, trial.admission.tree,
                                          count), details={"count": count})]


def _preferred(trial: _Trial, main: PodSetRequest, result: GroupResult) -> list[Suggestion]:
    tr = main.topology
    if tr is None or tr.required is None:
        return []
    changed = replace(main, topology=replace(tr, required=None, preferred=tr.required))
    results = trial.with_request(changed)
    if _fails(results):
        return []
    return [Suggestion("topologyKey", f"{PREFERRED}: {tr.required} instead of {REQUIRED}",
                       _outcome(result, results, main, trial.admission.tree),
                       details={"preferred": tr.required})]


def _coarser(trial: _Trial, main: PodSetRequest, result: GroupResult) -> list[Suggestion]:
    tr = main.topology
    levels = trial.admission.tree.levels
    if tr is None or tr.required is None or tr.required not in levels:
        return []
    for level in reversed(levels[:levels.index(tr.required)]):
        results = trial.with_request(replace(main, topology=replace(tr, required=level)))
        if not _fails(results):
            return [Suggestion("topologyKey", f"require {level} instead of {tr.required}",
                               _outcome(result, results, main, trial.admission.tree),
                               details={"topologyKey": level, "coarser": True})]
    return []


def _tolerations(trial: _Trial, main: PodSetRequest, result: GroupResult) -> list[Suggestion]:
    res = trial.admission.results.get(main.name)
    taints = sorted(res.trace.exclusions.taints) if res and res.trace else []
    if not taints:
        return []
    added = tuple(_toleration(text) for text in taints)
    results = trial.with_request(replace(main, tolerations=(*main.tolerations, *added)))
    if _fails(results):
        return []
    return [Suggestion("tolerations", "tolerate " + ", ".join(taints) + " (in the pods or the "
                       f"flavor {trial.admission.flavor.name}'s tolerations)",
                       _outcome(result, results, main, trial.admission.tree))]


def _toleration(text: str) -> Toleration:
    key_value, _, effect = text.rpartition(":")
    key, eq, value = key_value.partition("=")
    return Toleration(key, "Equal" if eq else "Exists", value, effect)


def _selectors(trial: _Trial, main: PodSetRequest, result: GroupResult) -> list[Suggestion]:
    res = trial.admission.results.get(main.name)
    stats = res.trace.exclusions if res and res.trace else None
    if stats is None or not (stats.node_selector or stats.affinity):
        return []
    results = trial.with_request(replace(main, node_selector={}, required_terms=None))
    if _fails(results):
        return []
    dropped = [f"nodeSelector ({stats.node_selector} node(s))"] if stats.node_selector else []
    dropped += [f"required node affinity ({stats.affinity} node(s))"] if stats.affinity else []
    return [Suggestion("selector", "drop the " + " and ".join(dropped),
                       _outcome(result, results, main, trial.admission.tree))]


def _added_nodes(trial: _Trial, main: PodSetRequest, result: GroupResult
                 ) -> list[Suggestion]:
    """Empty nodes shaped like the biggest node of the domain closest to fitting."""
    tree = trial.admission.tree
    res = trial.admission.results.get(main.name)
    if res is None or res.trace is None or not res.trace.levels:
        return []
    _, ordered = res.trace.levels[0]
    if not ordered:
        return []
    closest = max(ordered, key=lambda d: (d.slice_count, [-ord(c) for c in d.id]))
    nodes = [n for leaf in tree.leaves.values()
             if leaf.domain.values[:len(closest.values)] == closest.values for n in leaf.nodes]
    if not nodes:
        return []
    like = max(nodes, key=lambda n: (sorted(n.allocatable.items()), n.name))
    for copies in _powers(MAX_ADDED_NODES):
        results = trial.run(tree=tree.with_copies(like, copies))
        if not _fails(results):
            low = copies // 2 + 1 if copies > 1 else 1
            for fewer in range(low, copies):
                if not _fails(trial.run(tree=tree.with_copies(like, fewer))):
                    copies, results = fewer, trial.run(tree=tree.with_copies(like, fewer))
                    break
            where = _name(closest, ordered)
            return [Suggestion("addNodes", f"add {copies} node(s) shaped like {like.name} to "
                               f"{where!r}", _outcome(result, results, main,
                                                      tree.with_copies(like, copies)),
                               cost={"nodesAdded": copies})]
    return []


def _powers(limit: int) -> list[int]:
    out, n = [], 1
    while n <= limit:
        out.append(n)
        n *= 2
    return out


def _slice_size(ps: PodSetRequest) -> int:
    layers = ps.topology.slice_layers() if ps.topology is not None else ()
    return layers[0].size if layers and layers[0].size > 0 else 1


def _emptied(tree: TopologyTree) -> TopologyTree:
    """The tree with every pod gone: Kueue's capacity when the cluster is empty."""
    empty = tree.with_copies(next(iter(tree.leaves.values())).nodes[0], 0) \
        if tree.leaves else tree
    for leaf in empty.leaves.values():
        leaf.free = dict(leaf.capacity)
        leaf.tas_usage = {}
    return empty


def _domains(admission: Admission, main: PodSetRequest, res: PodSetResult | None,
             snapshot: ClusterSnapshot) -> tuple[DomainExplanation, ...]:
    """The requested level's domains, closest first: what each holds of the main PodSet,
    what the rest would need, and the leaves Kueue's filters excluded."""
    if res is None or res.trace is None or not res.trace.levels:
        return ()
    tree = admission.tree
    level, ordered = res.trace.levels[0]
    size = _slice_size(main)
    per_pod = {r: v for r, v in main.requests.items() if v}
    out = []
    for dom in sorted(ordered, key=lambda d: (-d.slice_count, d.values)):
        leaves = [leaf for leaf in tree.leaves.values()
                  if leaf.domain.values[:level + 1] == dom.values]
        fit = min(dom.slice_count * size, main.count)
        short = main.count - fit
        limiting = {res.trace.leaf_counts.get(leaf.domain.id, (0, ""))[1] for leaf in leaves}
        shortfall = {r: v * short for r, v in per_pod.items() if r in limiting} \
            if short else {}
        if short and not shortfall:
            shortfall = {"pods": short}
        excluded: dict[str, int] = {}
        for leaf in leaves:
            why = res.trace.excluded.get(leaf.domain.id)
            if why:
                excluded[why] = excluded.get(why, 0) + len(leaf.nodes)
        out.append(DomainExplanation(
            _name(dom, ordered), sum(len(leaf.nodes) for leaf in leaves), fit, main.count,
            shortfall, per_pod, excluded, _consumers(leaves, snapshot)))
    return tuple(out)


def _name(dom: Domain, domains: Sequence[Domain]) -> str:
    same = sum(1 for d in domains if d.values[-1] == dom.values[-1])
    return dom.values[-1] if same == 1 else "/".join(dom.values)


def _consumers(leaves, snapshot: ClusterSnapshot) -> tuple[Consumer, ...]:
    by: dict[tuple[str, int], list] = {}
    for leaf in leaves:
        for node in leaf.nodes:
            for pod in snapshot.node_usage(node.name).pods:
                entry = by.setdefault((pod.namespace, pod.priority), [0, {}])
                entry[0] += 1
                for r, v in pod.requests.items():
                    entry[1][r] = entry[1].get(r, 0) + v
    return tuple(Consumer(ns, prio, n, req) for (ns, prio), (n, req)
                 in sorted(by.items(), key=lambda kv: (kv[0][1], kv[0][0])))

