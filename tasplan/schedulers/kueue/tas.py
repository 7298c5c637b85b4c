"""Kueue's Topology-Aware Scheduling placement: how many pods of a PodSet go to which
topology domain, for one TAS ResourceFlavor.

A line-by-line port of ``pkg/cache/scheduler/tas_flavor_snapshot.go``
(``FindTopologyAssignmentsForFlavor``, ``findTopologyAssignment`` and helpers),
``tas_balanced_placement.go`` and ``scheduling_simulator_default.go``
(``FindFeasibleNodes``) of kubernetes-sigs/kueue at ff69552e (v0.19.2 agrees). Phase 1
counts how many pods (and slices) fit in every leaf and rolls the counts up the tree;
phase 2 picks the level and domains (BestFit, or LeastFreeCapacity for unconstrained
requests) and walks down level by level using as few domains as possible. Every
ordering ends in the domains' level values, so the result is deterministic, as Kueue's.
Nothing here knows the model's objects beyond Node; the caller builds the requests.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from tasplan.model.selectors import NodeSelectorTerm, PreferredTerm
from tasplan.model.taints import NO_EXECUTE, NO_SCHEDULE, Taint, Toleration
from tasplan.schedulers.kueue import gates as g
from tasplan.schedulers.kueue.request import SliceLayer, TopologyRequest
from tasplan.schedulers.kueue.tree import Domain, Leaf, TopologyTree, add, domain_id

MAX_INT32 = 2**31 - 1
PODS = "pods"


def go_quote(text: str) -> str:
    """Go's ``%q`` for the printable strings Kueue quotes (names, taints, resources)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) > 0xFF else f"\\x{ord(ch):02x}")
    return '"' + "".join(out) + '"'


@dataclass(frozen=True, slots=True)
class PodSetRequest:
    """``TASPodSetRequests``: one PodSet's count, one pod's requests (without the ``pods``
    slot) and what the leaf filters read of its template."""

    name: str
    count: int
    requests: Mapping[str, int]
    topology: TopologyRequest | None
    implied: bool = False
    tolerations: tuple[Toleration, ...] = ()
    node_selector: Mapping[str, str] = field(default_factory=dict)
    required_terms: tuple[NodeSelectorTerm, ...] | None = None
    preferred_terms: tuple[PreferredTerm, ...] = ()
    # The assignment of the workload slice this one replaces (elastic workloads).
    previous: Assignment | None = None

    @property
    def group(self) -> str | None:
        return self.topology.group if self.topology is not None else None


@dataclass(frozen=True, slots=True)
class Assignment:
    """``TopologyAssignment``: level keys and ``(values, count)`` per domain, in the
    domains' level-value order (the order the ungater hands out ranks)."""

    levels: tuple[str, ...]
    domains: tuple[tuple[tuple[str, ...], int], ...]

    @property
    def count(self) -> int:
        return sum(c for _, c in self.domains)


@dataclass(slots=True)
class Exclusions:
    """``tasExclusionStats``: why leaves held no pod."""

    total: int = 0
    node_selector: int = 0
    affinity: int = 0
    topology_domain: int = 0
    taints: dict[str, int] = field(default_factory=dict)
    resources: dict[str, int] = field(default_factory=dict)

    def any(self) -> bool:
        return bool(self.node_selector or self.affinity or self.taints
                    or self.topology_domain or self.resources)

    def reasons(self) -> str:
        items = []
        if self.node_selector:
            items.append(f"nodeSelector: {self.node_selector}")
        if self.affinity:
            items.append(f"affinity: {self.affinity}")
        if self.topology_domain:
            items.append(f"topologyDomain: {self.topology_domain}")
        items += [f"taint {go_quote(t)}: {n}" for t, n in sorted(self.taints.items())]
        items += [f"resource {go_quote(r)}: {n}" for r, n in sorted(self.resources.items())]
        return ", ".join(sorted(items))


@dataclass(slots=True)
class Trace:
    """What tasplan reports beyond Kueue's verdict: the levels searched, each with its
    domains in Kueue's order and their capacity (in slices) for this request."""

    levels: list[tuple[int, list[Domain]]] = field(default_factory=list)
    exclusions: Exclusions = field(default_factory=Exclusions)
    # Leaf id -> (pods that fit now, limiting resource) after the filters.
    leaf_counts: dict[str, tuple[int, str]] = field(default_factory=dict)
    # Leaf id -> the filter that excluded it (Kueue's exclusion names).
    excluded: dict[str, str] = field(default_factory=dict)
    balanced: bool = False


@dataclass(slots=True)
class PodSetResult:
    assignment: Assignment | None = None
    reason: str = ""
    trace: Trace | None = None


@dataclass(frozen=True, slots=True)
class Replacement:
    """An admitted workload with an unhealthy node (``status.unhealthyNodes[0]``, which
    TASFailedNodeReplacement finds a replacement for): its PodSets' topology assignments,
    and whether a single Pod owns it (``workload.OwnedBySinglePod``)."""

    node: str
    assignments: Mapping[str, Assignment]
    single_pod_owned: bool = False


@dataclass(slots=True)
class _State:
    count: int = 0
    required_domain: tuple[str, ...] = ()  # requiredReplacementDomain: leaves outside skip
    leader_count: int = 0
    slice_size: int = 1
    requested_level: int = 0
    slice_level: int = 0
    required: bool = False
    unconstrained: bool = False
    slice_size_at_level: dict[int, int] = field(default_factory=dict)
    layers: tuple[SliceLayer, ...] = ()
    stats: Exclusions = field(default_factory=Exclusions)


def count_in(requests: Mapping[str, int], capacity: Mapping[str, int]) -> tuple[int, str]:
    """``CountInWithLimitingResource``: how many times ``requests`` fit, and the resource
    that limits (ties by name)."""
    result, limiting = None, ""
    for name, value in requests.items():
        count = MAX_INT32 if value == 0 else max(0, min(capacity.get(name, 0) // value,
                                                         MAX_INT32))
        if result is None or count < result or (count == result and name < limiting):
            result, limiting = count, name
    return (result or 0), limiting


def _untolerated(taints: Iterable[Taint], tolerations: Sequence[Toleration]) -> Taint | None:
    """``FindMatchingUntoleratedTaint`` over the scheduling taints (NoSchedule,
    NoExecute): the first the tolerations do not tolerate."""
    for taint in taints:
        if taint.effect not in (NO_SCHEDULE, NO_EXECUTE):
            continue
        if not any(t.tolerates(taint) for t in tolerations):
            return taint
    return None


class FlavorSnapshot:
    """``TASFlavorSnapshot``: one flavor's tree with its usage, and the placement."""

    def __init__(self, topology_name: str, tree: TopologyTree,
                 tolerations: Iterable[Toleration] = (), gates: g.Gates | None = None) -> None:
        self.name = topology_name
        self.tree = tree
        self.tolerations = tuple(tolerations)
        self.gates = gates or g.gates_for()
        self._affinity_first = g.RESPECT_AFFINITY_PREFERRED in self.gates
        self._lfc = g.PROFILE_MIXED in self.gates

    # -- the workload level ------------------------------------------------------------

    def find_assignments(self, podsets: Sequence[PodSetRequest],
                         assumed: dict[str, dict[str, int]] | None = None,
                         simulate_empty: bool = False,
                         replacing: Replacement | None = None) -> dict[str, PodSetResult]:
        """``FindTopologyAssignmentsForFlavor``: PodSets grouped by ``podset-group-name``
        (a group of two is a leader and its workers), placed in order, each group's
        assignment assumed before the next; the first failure ends the pass. With
        ``replacing``, each PodSet that has an assignment gets it repaired instead
        (``findReplacementAssignment``); the others get no result."""
        assumed = {} if assumed is None else assumed
        order: list[str] = []
        groups: dict[str, list[PodSetRequest]] = {}
        for i, ps in enumerate(podsets):
            key = ps.group if ps.group is not None else str(i)
            if key not in groups:
                order.append(key)
                groups[key] = []
            groups[key].append(ps)
        result: dict[str, PodSetResult] = {}
        for key in order:
            members = groups[key]
            if replacing is not None:
                for ps in members:
                    existing = replacing.assignments.get(ps.name)
                    if existing is None:
                        continue
                    if g.SKIP_POD_OWNED in self.gates and replacing.single_pod_owned:
                        # The pod cannot move and its Workload cannot outlive it.
                        result[ps.name] = PodSetResult(existing)
                        continue
                    trace = Trace()
                    merged, found, reason = self._replace(ps, existing, replacing.node,
                                                          assumed, trace)
                    result[ps.name] = PodSetResult(merged, reason, trace)
                    if reason:
                        return result
                    _assume(assumed, found, ps.requests)
                continue
            leader, workers = _leader_and_workers(members)
            if g.ELASTIC_TAS in self.gates:
                elastic = self._elastic(workers, leader, assumed, simulate_empty)
                if elastic is not None:
                    result.update(elastic)
                    if elastic[workers.name].reason:
                        return result
                    continue
            trace = Trace()
            found, reason = self.find_assignment(workers, leader, assumed, simulate_empty,
                                                 trace)
            for ps in members:
                result[ps.name] = PodSetResult(found.get(ps.name), reason, trace)
            if reason:
                return result
            for ps in members:
                assignment = found.get(ps.name)
                if assignment is not None:
                    _assume(assumed, assignment, ps.requests)
        return result

    # -- one PodSet (or leader + workers) -------------------------------------------------

    def find_assignment(self, workers: PodSetRequest, leader: PodSetRequest | None,
                        assumed: Mapping[str, Mapping[str, int]], simulate_empty: bool,
                        trace: Trace | None = None, required_domain: tuple[str, ...] = ()
                        ) -> tuple[dict[str, Assignment], str]:
        trace = trace if trace is not None else Trace()
        tree = self.tree
        st = _State(count=workers.count, stats=trace.exclusions,
                    required_domain=required_domain)
        requests = dict(workers.requests)
        requests[PODS] = requests.get(PODS, 0) + 1
        leader_requests = None
        if leader is not None:
            leader_requests = dict(leader.requests)
            leader_requests[PODS] = leader_requests.get(PODS, 0) + 1
            st.leader_count = 1

        topology = workers.topology
        layers = topology.slice_layers() if topology is not None else ()
        if layers:
            if layers[0].size <= 0:
                return {}, "slice topology requested, but slice size not provided"
            st.slice_size = layers[0].size
        st.required = topology is not None and topology.required is not None
        st.unconstrained = workers.implied or (topology is not None and (
            topology.unconstrained is True or _slice_only(topology)))

        key = self._level_key(topology)
        if key is None and workers.implied:
            key = tree.levels[-1]
        if key is None:
            return {}, "topology level not specified"
        requested = tree.level_index(key)
        if requested is None:
            return {}, f"no requested topology level: {key}"
        st.requested_level = requested
        slice_key = layers[0].topology if layers else tree.levels[-1]
        slice_level = tree.level_index(slice_key)
        if slice_level is None:
            return {}, f"no requested topology level for slices: {slice_key}"
        st.slice_level = slice_level
        if st.requested_level > st.slice_level:
            return {}, (f"podset slice topology {slice_key} is above the podset topology "
                        f"{key}")
        at_level, reason = self._slice_size_at_level(layers, st.slice_size, st.slice_level)
        if reason:
            return {}, reason
        st.slice_size_at_level = at_level
        if at_level:
            st.layers = layers

        # phase 1: how many pods and slices fit in every domain
        self._fill_in_counts(workers, requests, leader_requests, assumed, simulate_empty,
                             st, trace)

        # phase 2a: the level, and the domains there that hold the request
        fit: list[Domain] | None = None
        fit_level = 0
        balanced = False
        if g.BALANCED_PLACEMENT in self.gates and not st.required and not st.unconstrained:
            fit, threshold = self._best_domains_for_balanced(st)
            balanced = threshold > 0
            if balanced:
                fit, fit_level, reason = self._apply_balanced(st, threshold, fit)
                if reason:
                    balanced = False
        trace.balanced = balanced
        if not balanced:
            fit_level, fit, reason = self._find_level(st.requested_level, st, trace)
            if reason:
                return {}, reason
        # phase 2b: down the tree, as few domains as possible at each level
        fit = self._distribute(fit, st.count, st.leader_count, st.slice_size,
                               st.unconstrained, True)
        lowest = len(tree.levels) - 1
        level = fit_level
        while level < min(lowest, st.slice_level) and not balanced:
            lower = self._sorted([c for d in fit for c in d.children], st.unconstrained)
            fit = self._distribute(lower, st.count, st.leader_count, st.slice_size,
                                   st.unconstrained, True)
            level += 1
        while level < lowest:
            size = st.slice_size
            if level >= st.slice_level:
                size = st.slice_size_at_level.get(level + 1, 1)
            next_fit: list[Domain] = []
            for dom in fit:
                kids = self._sorted(dom.children, st.unconstrained)
                if size > 1:
                    for kid in kids:
                        kid.slice_count = kid.pod_count // size
                        kid.slice_count_wl = kid.pod_count_wl // size
                next_fit += self._distribute(kids, dom.pod_count, dom.leader_count, size,
                                             st.unconstrained, size > 1)
            fit = next_fit
            level += 1

        out: dict[str, Assignment] = {}
        if leader is not None:
            leader_domains, worker_domains = [], []
            for dom in fit:
                if dom.leader_count > 0:
                    copy = dom.copy()
                    copy.pod_count = dom.leader_count
                    leader_domains.append(copy)
                if dom.pod_count > 0:
                    worker_domains.append(dom)
            out[leader.name] = self._build(leader_domains)
            fit = worker_domains
        out[workers.name] = self._build(fit)
        return out, ""

    def _level_key(self, topology: TopologyRequest | None) -> str | None:
        """``levelKey``: required, preferred, the top level for slices only, the lowest
        for unconstrained."""
        if topology is None:
            return None
        if topology.required is not None:
            return topology.required
        if topology.preferred is not None:
            return topology.preferred
        if _slice_only(topology):
            return self.tree.levels[0]
        if topology.unconstrained:
            return self.tree.levels[-1]
        return None

    def _slice_size_at_level(self, layers: Sequence[SliceLayer], size: int, slice_level: int
                             ) -> tuple[dict[int, int], str]:
        """``buildSliceSizeAtLevel``: the inner layers' sizes by level."""
        out: dict[int, int] = {}
        prev_size, prev_level = size, slice_level
        for layer in layers[1:]:
            level = self.tree.level_index(layer.topology)
            if level is None:
                return {}, f"no requested topology level for additional slice layer: " \
                           f"{layer.topology}"
            if level <= prev_level:
                return {}, (f"additional slice layer topology {layer.topology} must be at a "
                            f"lower level than {self.tree.levels[prev_level]}")
            if layer.size == 0 or prev_size % layer.size != 0:
                return {}, (f"additional slice layer size {layer.size} must evenly divide "
                            f"parent layer size {prev_size}")
            for lvl in range(prev_level + 1, level + 1):
                out[lvl] = layer.size
            prev_size, prev_level = layer.size, level
        return out, ""

    # -- elastic workload slices ---------------------------------------------------------

    def _elastic(self, workers: PodSetRequest, leader: PodSetRequest | None,
                 assumed: dict[str, dict[str, int]], simulate_empty: bool
                 ) -> dict[str, PodSetResult] | None:
        """``handleElasticWorkload`` (tas_elastic_workloads.go): a slice that replaces an
        earlier one keeps the earlier pods where they are; a scale-up places only the new
        pods, a scale-down truncates the assignment, the same count reuses it. None: no
        usable previous assignment (none, or a stale domain), placed afresh."""
        prev = workers.previous
        lead_prev = leader.previous if leader is not None else None
        if prev is None or self.stale_domain(prev) is not None or (
                lead_prev is not None and self.stale_domain(lead_prev) is not None):
            return None
        out: dict[str, PodSetResult] = {}
        if workers.count > prev.count:
            _assume(assumed, prev, workers.requests)  # the earlier pods keep their room
            placing_leader = leader
            if leader is not None and lead_prev is not None:
                _assume(assumed, lead_prev, leader.requests)
                placing_leader = None
            trace = Trace()
            delta = replace(workers, count=workers.count - prev.count, previous=None)
            found, reason = self.find_assignment(delta, placing_leader, assumed,
                                                 simulate_empty, trace)
            if reason:
                return {workers.name: PodSetResult(None, reason, trace)}
            added = found[workers.name]
            out[workers.name] = PodSetResult(self.merge(added, prev), "", trace)
            if leader is not None:
                if lead_prev is not None:
                    out[leader.name] = PodSetResult(lead_prev)
                else:
                    out[leader.name] = PodSetResult(found.get(leader.name), "", trace)
                    _assume(assumed, found[leader.name], leader.requests)
            _assume(assumed, added, workers.requests)
            return out
        kept = prev if workers.count == prev.count else _truncate(prev, workers.count)
        out[workers.name] = PodSetResult(kept)
        _assume(assumed, kept, workers.requests)
        if leader is not None:
            out[leader.name] = PodSetResult(lead_prev)
            if lead_prev is not None:
                _assume(assumed, lead_prev, leader.requests)
        return out

    # -- node replacement -----------------------------------------------------------------

    def _replace(self, ps: PodSetRequest, existing: Assignment, node: str,
                 assumed: Mapping[str, Mapping[str, int]], trace: Trace
                 ) -> tuple[Assignment | None, Assignment | None, str]:
        """``findReplacementAssignment``: the pods of the unhealthy node placed again,
        within the domain the rest of the assignment requires. Returns the merged
        assignment, the replacement alone, and Kueue's reason when there is none."""
        kept = [(v, c) for v, c in existing.domains if v[-1] != node]
        count = 0
        for values, n in existing.domains:  # deleteDomain
            if values[-1] == node:
                count = n
        existing = Assignment(existing.levels, tuple(kept))
        stale = self.stale_domain(existing)
        if stale is not None:
            return None, None, ("Cannot replace the node, because the existing "
                                "topologyAssignment is invalid, as it contains the stale "
                                f"domain {stale}")
        request = replace(ps, count=count)
        required = self._replacement_domain(request, existing)
        topology = ps.topology
        layers = topology.slice_layers() if topology is not None else ()
        if layers and layers[0].size <= 0:
            return None, None, "slice topology requested, but slice size not provided"
        if layers and required and count % layers[0].size != 0:
            # The innermost layer whose size divides the pods to replace keeps the
            # leaf-level grouping; none: single pods.
            size, level = 1, None
            for layer in reversed(layers):
                if count % layer.size == 0:
                    size, level = layer.size, layer.topology
                    break
            request = replace(request, topology=replace(
                topology, layers=(), slice_topology=level, slice_size=size))
        found, reason = self.find_assignment(request, None, assumed, False, trace,
                                             required)
        if reason:
            return None, None, reason
        replacement = found.get(ps.name)
        if replacement is None or not replacement.domains:
            return None, None, f"cannot find replacement assignment for unhealthy node: {node}"
        return self.merge(replacement, existing), replacement, ""

    def stale_domain(self, assignment: Assignment) -> str | None:
        """``IsTopologyAssignmentStale``: the first value of a domain that is not a leaf of
        the tree (its node deleted or not Ready), else None."""
        for values, _ in assignment.domains:
            if ",".join(values) not in self.tree.leaves:
                return values[0]
        return None

    def _replacement_domain(self, ps: PodSetRequest, existing: Assignment
                            ) -> tuple[str, ...]:
        """``requiredReplacementDomain``: the domain of the required level holding the
        rest of the assignment, or, for slices left incomplete, the slice domain that
        the replaced pods complete; () for none."""
        tree = self.tree
        key = self._level_key(ps.topology)
        if key is None and ps.implied:
            key = tree.levels[-1]
        level = tree.level_index(key) if key is not None else None
        if level is None or not existing.domains:
            return ()
        topology = ps.topology
        layers = topology.slice_layers() if topology is not None else ()
        if layers and layers[0].size <= 0:
            return ()
        if layers and ps.count % layers[0].size != 0:
            if len(layers) > 1:
                for layer in reversed(layers):
                    if ps.count % layer.size != 0:
                        return self._incomplete_slice(existing, ps.count, layer.size,
                                                      layer.topology)
            return self._incomplete_slice(existing, ps.count, layers[0].size,
                                          layers[0].topology)
        if topology is None or topology.required is None:
            return ()
        leaf = tree.leaves.get(",".join(existing.domains[0][0]))
        if leaf is None:
            return ()
        dom = leaf.domain
        while dom.level > level and dom.parent is not None:
            dom = dom.parent
        return dom.values

    def _incomplete_slice(self, existing: Assignment, missing: int, size: int, key: str
                          ) -> tuple[str, ...]:
        """``findIncompleteSliceDomain``: the domain at the slice level whose pods plus the
        missing ones make whole slices (the first such, in the assignment's order: Go
        ranges over a map there, which has no order)."""
        level = self.tree.level_index(key)
        if level is None:
            return ()
        usage: dict[tuple[str, ...], int] = {}
        for values, n in existing.domains:
            leaf = self.tree.leaves.get(",".join(values))
            if leaf is None:
                continue
            dom = leaf.domain
            while dom.level > level and dom.parent is not None:
                dom = dom.parent
            usage[dom.values] = usage.get(dom.values, 0) + n
        for values, n in usage.items():
            if (n + missing) % size == 0:
                return values
        return ()

    def merge(self, a: Assignment, b: Assignment) -> Assignment:
        """``mergeTopologyAssignments``: both domain lists by the leaves' full level values,
        equal neighbours summed."""
        def path(values: tuple[str, ...]) -> str:
            leaf = self.tree.leaves.get(",".join(values))
            return ",".join(leaf.domain.values) if leaf is not None else ",".join(values)

        merged: list[list] = []
        for values, n in sorted((*a.domains, *b.domains), key=lambda d: path(d[0])):
            if merged and merged[-1][0] == values:
                merged[-1][1] += n
            else:
                merged.append([values, n])
        return Assignment(a.levels, tuple((v, n) for v, n in merged))

    # -- phase 1 ----------------------------------------------------------------------------

    def _fill_in_counts(self, workers: PodSetRequest, requests: dict[str, int],
                        leader_requests: dict[str, int] | None,
                        assumed: Mapping[str, Mapping[str, int]], simulate_empty: bool,
                        st: _State, trace: Trace) -> None:
        tree = self.tree
        for dom in tree.domains:
            dom.pod_count = dom.slice_count = dom.pod_count_wl = dom.slice_count_wl = 0
            dom.leader_count = dom.affinity = 0
        stats = st.stats
        if tree.hostname_leaves:
            tolerations = (*workers.tolerations, *self.tolerations)
            selector = dict(workers.node_selector)
            for leaf in tree.leaves.values():
                stats.total += 1
                node = leaf.node
                if node is not None:
                    taint = _untolerated(node.taints, tolerations)
                    if taint is not None:
                        text = str(taint)
                        stats.taints[text] = stats.taints.get(text, 0) + 1
                        trace.excluded[leaf.domain.id] = f"taint {text}"
                        continue
                    labels = node.labels
                    if any(labels.get(k) != v or k not in labels for k, v in selector.items()):
                        stats.node_selector += 1
                        trace.excluded[leaf.domain.id] = "nodeSelector"
                        continue
                    if workers.required_terms is not None and not any(
                            t.matches(node.name, labels) for t in workers.required_terms):
                        stats.affinity += 1
                        trace.excluded[leaf.domain.id] = "affinity"
                        continue
                    if self._affinity_first and workers.preferred_terms:
                        leaf.domain.affinity += sum(
                            p.weight for p in workers.preferred_terms
                            if p.term.matches(node.name, labels))
                self._fill_leaf(leaf, requests, leader_requests, assumed, simulate_empty,
                                st, trace)
        else:
            stats.total += len(tree.leaves)
            for leaf in tree.leaves.values():
                self._fill_leaf(leaf, requests, leader_requests, assumed, simulate_empty,
                                st, trace)
        leader_required = st.leader_count > 0
        for root in tree.roots:
            _fill_helper(root, st.slice_size, st.slice_level, 0, st.slice_size_at_level,
                         leader_required)

    def _fill_leaf(self, leaf: Leaf, requests: dict[str, int],
                   leader_requests: dict[str, int] | None,
                   assumed: Mapping[str, Mapping[str, int]], simulate_empty: bool,
                   st: _State, trace: Trace) -> None:
        dom = leaf.domain
        stats = st.stats
        if dom.values[:len(st.required_domain)] != st.required_domain:  # BelongsTo
            stats.topology_domain += 1
            return
        extra = assumed.get(dom.id)
        tas = leaf.tas_usage if not simulate_empty else None
        if tas or extra or leader_requests is not None:
            remaining = dict(leaf.free)
            if tas:
                add(remaining, tas, -1)
            if extra:
                add(remaining, extra, -1)
        else:
            remaining = leaf.free  # read only
        dom.pod_count, limiting = count_in(requests, remaining)
        trace.leaf_counts[dom.id] = (dom.pod_count, limiting)
        if dom.pod_count == 0 and limiting:
            stats.resources[limiting] = stats.resources.get(limiting, 0) + 1
        if leader_requests is None:
            dom.pod_count_wl = dom.pod_count
            return
        if count_in(leader_requests, remaining)[0] > 0:
            dom.leader_count = 1
            add(remaining, leader_requests, -1)
        dom.pod_count_wl = count_in(requests, remaining)[0]

    # -- phase 2: ordering ------------------------------------------------------------------

    def _sorted(self, domains: Iterable[Domain], unconstrained: bool) -> list[Domain]:
        """``sortedDomains``: BestFit most slices first, LeastFreeCapacity fewest; then
        fewest pods; then level values."""
        sign = 1 if unconstrained and self._lfc else -1
        if self._affinity_first:
            return sorted(domains, key=lambda d: (-d.affinity, sign * d.slice_count,
                                                  d.pod_count, d.values))
        return sorted(domains, key=lambda d: (sign * d.slice_count, d.pod_count, d.values))

    def _sorted_with_leader(self, domains: Iterable[Domain], unconstrained: bool
                            ) -> list[Domain]:
        """``sortedDomainsWithLeader``: domains that hold the leader first."""
        sign = 1 if unconstrained and self._lfc else -1
        affinity = self._affinity_first
        return sorted(domains, key=lambda d: (-d.leader_count, -d.affinity if affinity else 0,
                                              sign * d.slice_count_wl, d.pod_count_wl,
                                              d.values))

    def _top_affinity_tier(self, domains: list[Domain]) -> list[Domain]:
        if not self._affinity_first or not domains:
            return domains
        score = domains[0].affinity
        for i, d in enumerate(domains):
            if d.affinity != score:
                return domains[:i]
        return domains

    def _best_fit(self, domains: list[Domain], needed: int, leaders: int, slices: bool
                  ) -> Domain:
        """``findBestFitDomainBy``: the first domain, in order, with the smallest count
        that still covers ``needed``; the first domain when none does."""
        candidates = self._top_affinity_tier(domains)
        if slices:
            attr = "slice_count_wl" if leaders > 0 else "slice_count"
        else:
            attr = "pod_count_wl" if leaders > 0 else "pod_count"
        best, best_count = None, MAX_INT32
        for d in candidates:
            if d.leader_count < leaders:
                continue
            c = getattr(d, attr)
            if needed <= c < best_count:
                best, best_count = d, c
        return best if best is not None else candidates[0]

    # -- phase 2a ---------------------------------------------------------------------------

    def _not_fit(self, level: int, fit: int, total: int, st: _State) -> str:
        if st.layers:
            return self._multi_layer_not_fit(level, st)
        unit = "pod" if st.slice_size == 1 else "slice"
        name = go_quote(self.name)
        if fit == 0:
            text = f"topology {name} doesn't allow to fit any of {total} {unit}(s)"
        else:
            text = f"topology {name} allows to fit only {fit} out of {total} {unit}(s)"
        if st.stats.any():
            text += f". Total nodes: {st.stats.total}; excluded: {st.stats.reasons()}"
        return text

    def _multi_layer_not_fit(self, level: int, st: _State) -> str:
        text = f"topology {go_quote(self.name)} doesn't allow to fit"
        best = None
        for d in self.tree.per_level[level].values():
            if best is None or d.slice_count > best.slice_count or (
                    d.slice_count == best.slice_count and d.id < best.id):
                best = d
        if best is None:
            return text
        for layer in st.layers:
            target = self.tree.level_index(layer.topology)
            if target is None:
                continue
            fit = _slices_in_subtree(best, level, target, layer.size)
            text += f"; {fit}/{st.count // layer.size} slice(s) fit on level {layer.topology}"
        if st.stats.any():
            text += f". Total nodes: {st.stats.total}; excluded: {st.stats.reasons()}"
        return text

    def _find_level(self, level: int, st: _State, trace: Trace
                    ) -> tuple[int, list[Domain], str]:
        """``findLevelWithFitDomains``: the domains at ``level`` (or, for a preferred
        request, above it) that hold every slice and leader."""
        domains = self.tree.per_level[level]
        if not domains:
            return 0, [], f"no topology domains at level: {self.tree.levels[level]}"
        ordered = self._sorted_with_leader(domains.values(), st.unconstrained)
        trace.levels.append((level, ordered))
        top = ordered[0]
        needed = st.count // st.slice_size
        lfc = st.unconstrained and self._lfc
        if not lfc and top.slice_count_wl >= needed and top.leader_count >= st.leader_count:
            top = self._best_fit(ordered, needed, st.leader_count, True)
        if lfc:
            for d in ordered:
                capacity = d.slice_count
                if st.leader_count > 0:
                    if d.leader_count < st.leader_count:
                        continue
                    capacity = d.slice_count_wl
                if capacity >= needed:
                    return level, [d], ""
            if st.required:
                return 0, [], self._not_fit(level, ordered[-1].pod_count, needed, st)
        if top.slice_count_wl < needed or top.leader_count < st.leader_count:
            if st.required:
                if self._affinity_first:
                    for i in range(1, len(ordered)):
                        d = ordered[i]
                        if d.slice_count_wl >= needed and d.leader_count >= st.leader_count:
                            return level, [self._best_fit(ordered[i:], needed,
                                                          st.leader_count, True)], ""
                return 0, [], self._not_fit(level, top.slice_count, needed, st)
            if level > 0 and not st.unconstrained:
                return self._find_level(level - 1, st, trace)
            results: list[Domain] = []
            remaining = needed
            remaining_leaders = st.leader_count
            ordered = self._prioritize_leader(ordered, st.count, st.leader_count,
                                              st.slice_size, True)
            idx = 0
            while remaining_leaders > 0 and idx < len(ordered) and \
                    ordered[idx].leader_count > 0:
                d = ordered[idx]
                if not lfc and d.slice_count_wl >= remaining:
                    d = self._best_fit(ordered[idx:], remaining, remaining_leaders, True)
                results.append(d)
                remaining_leaders -= d.leader_count
                remaining -= d.slice_count_wl
                idx += 1
            if remaining_leaders > 0:
                return 0, [], self._not_fit(level, st.leader_count - remaining_leaders,
                                            needed, st)
            rest = self._sorted(ordered[idx:], st.unconstrained)
            i = 0
            while remaining > 0 and i < len(rest):
                d = rest[i]
                if not lfc and d.slice_count >= remaining:
                    d = self._best_fit(rest[i:], remaining, 0, True)
                results.append(d)
                remaining -= d.slice_count
                i += 1
            if remaining > 0:
                return 0, [], self._not_fit(level, needed - remaining, needed, st)
            return level, results, ""
        return level, [top], ""

    # -- phase 2b ---------------------------------------------------------------------------

    def _prioritize_leader(self, domains: list[Domain], count: int, leaders: int, size: int,
                           slices: bool) -> list[Domain]:
        """``prioritizeLeaderDomain``: move first the first leader-capable domain whose
        leader penalty the total capacity can absorb."""
        if leaders == 0 or len(domains) < 2:
            return domains
        required = count
        if slices:
            required //= size
            available = sum(d.slice_count for d in domains)
        else:
            available = sum(d.pod_count for d in domains)
        for i, d in enumerate(domains):
            if d.leader_count < leaders:
                continue
            penalty = (d.slice_count - d.slice_count_wl) if slices \
                else (d.pod_count - d.pod_count_wl)
            if available - penalty < required:
                continue
            if i == 0:
                return domains
            return [d, *domains[:i], *domains[i + 1:]]
        return domains

    def _distribute(self, domains: list[Domain], count: int, leaders: int, size: int,
                    unconstrained: bool, slices: bool) -> list[Domain]:
        """``updateCountsToMinimumGeneric``: hand out ``count`` pods (or slices of ``size``)
        to the domains in order, the last one by BestFit."""
        domains = self._prioritize_leader(domains, count, leaders, size, slices)
        result: list[Domain] = []
        remaining = count // size if slices else count
        remaining_leaders = leaders
        best_fit = not (unconstrained and self._lfc)
        wl_attr, primary_attr = (("slice_count_wl", "slice_count") if slices
                                 else ("pod_count_wl", "pod_count"))
        unit = size if slices else 1
        for i, dom in enumerate(domains):
            if remaining_leaders > 0:
                d = dom
                if best_fit and getattr(d, wl_attr) >= remaining and \
                        d.leader_count >= remaining_leaders:
                    d = self._best_fit(domains[i:], remaining, remaining_leaders, slices)
                with_leader = getattr(d, wl_attr)
                result.append(d)
                if with_leader >= remaining and d.leader_count >= remaining_leaders:
                    setattr(d, primary_attr, remaining)
                    d.leader_count = remaining_leaders
                    d.pod_count = remaining * unit
                    return result
                if with_leader > remaining:
                    with_leader = remaining
                    setattr(d, wl_attr, with_leader)
                if d.leader_count > remaining_leaders:
                    d.leader_count = remaining_leaders
                setattr(d, primary_attr, with_leader)
                d.pod_count = with_leader * unit
                remaining_leaders -= d.leader_count
                remaining -= with_leader
                continue
            d = dom
            if slices:
                if best_fit and d.slice_count >= remaining:
                    d = self._best_fit(domains[i:], remaining, 0, True)
                d.leader_count = 0
                if d.slice_count >= remaining:
                    d.pod_count = remaining * size
                    d.slice_count = remaining
                    result.append(d)
                    return result
                d.pod_count = d.slice_count * size
                remaining -= d.slice_count
                result.append(d)
                continue
            if best_fit and d.pod_count >= remaining:
                d = self._best_fit(domains[i:], remaining, 0, False)
            d.leader_count = 0
            if d.pod_count >= remaining:
                d.pod_count = remaining
                result.append(d)
                return result
            remaining -= d.pod_count
            result.append(d)
        # Kueue logs "code assumptions violated" and places nothing.
        return []

    def _build(self, domains: list[Domain]) -> Assignment:
        """``buildAssignment``: domains in level-value order; hostname only when the
        lowest level is the hostname."""
        start = len(self.tree.levels) - 1 if self.tree.hostname_leaves else 0
        return Assignment(self.tree.levels[start:], tuple(
            (d.values[start:], d.pod_count)
            for d in sorted(domains, key=lambda d: d.values) if d.pod_count != 0))

    # -- balanced placement (TASBalancedPlacement) -----------------------------------------

    def _greedy(self, domains: list[Domain], slices: int, leaders: int
                ) -> tuple[bool, int, Domain | None, Domain | None]:
        """``evaluateGreedyAssignment``."""
        selected = 0
        last = last_with_leader = None
        remaining, remaining_leaders = slices, leaders
        idx = 0
        if leaders > 0:
            with_leader = self._sorted_with_leader(domains, False)
            while remaining_leaders > 0 and idx < len(with_leader) and \
                    with_leader[idx].leader_count > 0:
                selected += 1
                last_with_leader = with_leader[idx]
                remaining_leaders -= with_leader[idx].leader_count
                remaining -= with_leader[idx].slice_count_wl
                idx += 1
            without = self._sorted(with_leader[idx:], False)
        else:
            without = self._sorted(domains, False)
        if remaining_leaders > 0:
            return False, 0, None, None
        idx = 0
        while remaining > 0 and idx < len(without) and without[idx].slice_count > 0:
            selected += 1
            last = without[idx]
            remaining -= without[idx].slice_count
            idx += 1
        if remaining > 0:
            return False, 0, None, None
        return True, selected, last_with_leader, last

    def _optimal_set(self, domains: list[Domain], slices: int, leaders: int, size: int,
                     by_entropy: bool) -> list[Domain] | None:
        """``selectOptimalDomainSetToFit``: as few domains as the greedy pass needs, with
        the least capacity left over (dynamic programming over leaders and pods left)."""
        fit, optimal, _, _ = self._greedy(domains, slices, leaders)
        if not fit:
            return None
        if by_entropy:
            ordered = sorted(domains, key=lambda d: (-d.leader_count, -d.slice_count_wl,
                                                     -_entropy(d.children), d.values))
        else:
            ordered = sorted(domains, key=lambda d: d.values)
        table: list[dict[int, dict[int, list[Domain]]]] = [{} for _ in range(optimal + 1)]
        table[0][leaders] = {slices * size: []}
        for d in ordered:
            for i in range(optimal, 0, -1):
                before_table = table[i - 1]
                for before_leader in sorted(before_table):
                    row = before_table[before_leader]
                    for before_pods in sorted(row):
                        placement = row[before_pods]
                        if before_leader <= 0 and before_pods <= 0:
                            continue
                        new = [*placement, d]
                        if before_leader > 0 and d.leader_count > 0:
                            after_leader = before_leader - d.leader_count
                            after_pods = before_pods - d.pod_count_wl
                            table[i].setdefault(after_leader, {}).setdefault(after_pods, new)
                        if d.slice_count > 0:
                            after_pods = before_pods - d.pod_count
                            table[i].setdefault(before_leader, {}).setdefault(after_pods, new)
        best_row = table[optimal].get(0, {})
        best, placement = -(2**31), None
        for left in sorted(best_row):
            if best < left <= 0:
                best, placement = left, best_row[left]
        return placement

    def _place_balanced(self, domains: list[Domain], slices: int, leaders: int, size: int,
                        threshold: int) -> tuple[list[Domain] | None, str]:
        result = self._optimal_set(domains, slices, leaders, size, False)
        if result is None:
            return None, "TAS Balanced Placement: Cannot find optimal domain set to fit the " \
                         "request"
        if slices < len(result) * threshold:
            return None, "TAS Balanced Placement: Not enough slices to meet the threshold"
        result = self._sorted_with_leader(result, False)
        extra = slices - len(result) * threshold
        leaders_left = leaders
        for d in result:
            if leaders_left > 0:
                take = min(d.slice_count_wl - threshold, extra)
                d.leader_count = 1
                leaders_left -= 1
            elif extra > 0:
                take = min(d.slice_count - threshold, extra)
                d.leader_count = 0
            else:
                d.leader_count = 0
                take = 0
            d.pod_count = (threshold + take) * size
            d.slice_count = threshold + take
            d.slice_count_wl = d.slice_count
            d.pod_count_wl = d.pod_count - d.leader_count
            extra -= take
        if extra > 0 or leaders_left > 0:
            return None, "TAS Balanced Placement: Not all slices or leaders could be placed"
        return result, ""

    def _best_domains_for_balanced(self, st: _State) -> tuple[list[Domain], int]:
        """``findBestDomainsForBalancedPlacement``: one level above the preferred one, the
        domain whose children hold the request with the highest balance threshold."""
        slices = st.count // st.slice_size
        tree = self.tree
        if st.requested_level == 0:
            sibling_sets = [list(tree.per_level[0].values())]
        else:
            higher = sorted(tree.per_level[st.requested_level - 1].values(),
                            key=lambda d: d.values)
            sibling_sets = [h.children for h in higher]
        best_threshold, best_count = 0, 0
        best: list[Domain] = []
        leader_required = st.leader_count > 0
        for siblings in sibling_sets:
            candidates = _clone_all(siblings)
            lower = [c for d in candidates for c in d.children] \
                if st.requested_level < st.slice_level else candidates
            fits, selected, last_wl, last = self._greedy(lower, slices, st.leader_count)
            if not fits:
                continue
            threshold = slices // selected
            if last_wl is not None:
                threshold = min(threshold, last_wl.slice_count_wl)
            if last is not None:
                threshold = min(threshold, last.slice_count)
            with_reservation = threshold
            if st.leader_count > 0 and last is not None:
                with_reservation = min(threshold, last.slice_count_wl)
            if threshold < best_threshold:
                continue
            _prune(candidates, threshold, st.slice_size, st.slice_level, st.requested_level,
                   leader_required)
            fits_after, count, _, _ = self._greedy(candidates, slices, st.leader_count)
            if not fits_after and with_reservation < threshold:
                if with_reservation <= 0 or with_reservation < best_threshold:
                    continue
                threshold = with_reservation
                candidates = _clone_all(siblings)
                _prune(candidates, threshold, st.slice_size, st.slice_level,
                       st.requested_level, leader_required)
                fits_after, count, _, _ = self._greedy(candidates, slices, st.leader_count)
            if not fits_after:
                continue
            if threshold > best_threshold or (threshold == best_threshold
                                              and count < best_count):
                best_threshold, best_count, best = threshold, count, candidates
        return best, best_threshold

    def _apply_balanced(self, st: _State, threshold: int, fit: list[Domain]
                        ) -> tuple[list[Domain], int, str]:
        slices = st.count // st.slice_size
        if st.requested_level < st.slice_level:
            chosen = self._optimal_set(fit, slices, st.leader_count, st.slice_size, True)
            if chosen is None:
                return [], 0, "TAS Balanced Placement: Cannot find optimal domain set to " \
                              "fit the request"
            fit = [c for d in chosen for c in d.children]
            level = st.requested_level + 1
        else:
            level = st.requested_level
        placed, reason = self._place_balanced(fit, slices, st.leader_count, st.slice_size,
                                              threshold)
        if reason:
            return [], 0, reason
        return placed or [], level, ""


def _leader_and_workers(members: list[PodSetRequest]
                        ) -> tuple[PodSetRequest | None, PodSetRequest]:
    """``findLeaderAndWorkers``: in a group of two the second is the leader unless it has
    more pods than the first."""
    workers = members[0]
    if len(members) < 2:
        return None, workers
    leader = members[1]
    if leader.count > workers.count:
        leader, workers = members[0], members[1]
    return leader, workers


def _assume(assumed: dict[str, dict[str, int]], assignment: Assignment,
            requests: Mapping[str, int]) -> None:
    """``addAssumedUsage``: an earlier group's pods hold their domains for the next."""
    for values, count in assignment.domains:
        usage = assumed.setdefault(domain_id(values), {})
        for resource, value in requests.items():
            usage[resource] = usage.get(resource, 0) + value * count
        usage[PODS] = usage.get(PODS, 0) + count


def _truncate(assignment: Assignment, count: int) -> Assignment:
    """``TruncateAssignment``: the first ``count`` pods of the assignment, in order."""
    out = []
    left = count
    for values, n in assignment.domains:
        if left <= 0:
            break
        out.append((values, min(n, left)))
        left -= min(n, left)
    return Assignment(assignment.levels, tuple(out))


def _slice_only(topology: TopologyRequest) -> bool:
    return topology.required is None and topology.preferred is None and \
        bool(topology.slice_layers())


def _fill_helper(dom: Domain, size: int, slice_level: int, level: int,
                 at_level: Mapping[int, int], leader_required: bool) -> None:
    """``fillInCountsHelper``: a parent holds what its children hold (in multiples of an
    inner slice layer's size); with a leader, the cheapest child to host it decides."""
    if not dom.children:
        if level == slice_level:
            dom.slice_count = dom.pod_count // size
            dom.slice_count_wl = dom.pod_count_wl // size
        return
    pods = slices = leaders = affinity = 0
    contributor = False
    min_pod_diff = min_slice_diff = MAX_INT32
    inner = at_level.get(level + 1)
    for child in dom.children:
        _fill_helper(child, size, slice_level, level + 1, at_level, leader_required)
        child_pods, child_pods_wl = child.pod_count, child.pod_count_wl
        if inner is not None:
            child_pods = child_pods // inner * inner
            child_pods_wl = child_pods_wl // inner * inner
        pods += child_pods
        slices += child.slice_count
        if not leader_required or child.leader_count > 0:
            contributor = True
            min_pod_diff = min(child_pods - child_pods_wl, min_pod_diff)
            min_slice_diff = min(child.slice_count - child.slice_count_wl, min_slice_diff)
        leaders = max(child.leader_count, leaders)
        affinity += child.affinity
    dom.pod_count = pods
    slices_wl = 0
    if contributor:
        dom.pod_count_wl = pods - min_pod_diff
        slices_wl = slices - min_slice_diff
    else:
        dom.pod_count_wl = 0
    dom.leader_count = leaders
    dom.affinity = affinity
    if level == slice_level:
        slices = dom.pod_count // size
        slices_wl = dom.pod_count_wl // size
    dom.slice_count = slices
    dom.slice_count_wl = slices_wl


def _slices_in_subtree(dom: Domain, level: int, target: int, size: int) -> int:
    if level == target:
        return dom.pod_count // size
    return sum(_slices_in_subtree(c, level + 1, target, size) for c in dom.children)


def _go_log2(x: float) -> float:
    """Go's ``math.Log2``: exact for powers of two, else ``Log(frac)/Ln2 + exp``."""
    frac, exp = math.frexp(x)
    if frac == 0.5:
        return float(exp - 1)
    return math.log(frac) * (1 / math.log(2)) + float(exp)


def _entropy(domains: Sequence[Domain]) -> float:
    total = sum(d.pod_count for d in domains)
    if not domains or total == 0:
        return 0.0
    entropy = 0.0
    for d in domains:
        if d.pod_count > 0:
            p = d.pod_count / total
            entropy += -p * _go_log2(p)
    return entropy


def _clone(dom: Domain, parent: Domain | None) -> Domain:
    copy = dom.copy()
    copy.parent = parent
    copy.children = [_clone(c, copy) for c in dom.children]
    return copy


def _clone_all(domains: Iterable[Domain]) -> list[Domain]:
    return [_clone(d, None) for d in domains]


def _clear(dom: Domain) -> None:
    affinity = dom.affinity
    dom.reset()
    dom.affinity = affinity
    for c in dom.children:
        _clear(c)


def _clear_leader(dom: Domain) -> None:
    dom.pod_count_wl = dom.slice_count_wl = dom.leader_count = 0
    for c in dom.children:
        _clear_leader(c)


def _prune_node(dom: Domain, threshold: int, leader_required: bool) -> None:
    if dom.slice_count < threshold:
        _clear(dom)
        return
    if leader_required and dom.leader_count > 0 and dom.slice_count_wl < threshold:
        _clear_leader(dom)


def _prune(domains: list[Domain], threshold: int, size: int, slice_level: int, level: int,
           leader_required: bool) -> None:
    for d in domains:
        for c in d.children:
            _prune_node(c, threshold, leader_required)
    for d in domains:
        _fill_helper(d, size, slice_level, level, {}, leader_required)
        _prune_node(d, threshold, leader_required)
