"""PodTopologySpread: ``DoNotSchedule`` constraints filter, ``ScheduleAnyway`` constraints score.

Upstream ``plugins/podtopologyspread``. Matching pods are counted per topology domain over
the whole cluster, not only the placement's nodes: a node counts for a constraint when it
carries every topology key of the pod's constraints of that kind and passes the
constraint's ``nodeAffinityPolicy`` / ``nodeTaintsPolicy``; a pod counts when it is in the
incoming pod's namespace, is not being deleted and matches the selector.

Filter: ``matching pods in the node's domain + (1 if the pod matches itself) - global
minimum > maxSkew`` rejects the node; the minimum is 0 while there are fewer eligible
domains than ``minDomains``. A node lacking a topology key is rejected as unresolvable.

Score: per node, ``sum(count * log(domains + 2) + maxSkew - 1)`` over the constraints whose
key the node has, rounded; then ``100 * (max + min - score) / max`` so fewer matching pods
score higher. Domains and the hostname weight are counted over the feasible nodes (upstream
PreScore), so the whole score is computed in ``normalize_score``, which sees them;
``score`` itself returns 0. Feasible nodes lacking a key score 0.

Pods without constraints get the profile's default constraints (``defaultingType: System``:
hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway) with the selector of the
Services and controller that select them (``Pod.default_spread_selector``); without such a
selector they are not spread.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from tasplan.errors import ProfileError
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.status import Status, unschedulable
from tasplan.framework.types import MAX_NODE_SCORE, CycleState, Scope
from tasplan.model.node import Node
from tasplan.model.pod import Pod
from tasplan.model.pod_affinity import (
    DO_NOT_SCHEDULE,
    HONOR,
    IGNORE,
    SCHEDULE_ANYWAY,
    SpreadConstraint,
)
from tasplan.model.selectors import valid_label_key
from tasplan.model.taints import NO_EXECUTE, NO_SCHEDULE, tolerated
from tasplan.plugins import names
from tasplan.plugins.node_affinity import required_affinity_matches

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
SYSTEM_DEFAULT_CONSTRAINTS = (
    SpreadConstraint(3, HOSTNAME, SCHEDULE_ANYWAY, None),
    SpreadConstraint(5, ZONE, SCHEDULE_ANYWAY, None),
)
SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"

# A node's place for each constraint of one kind: the domain it counts in, or None when a
# policy excludes it. Nodes lacking a key of the kind are left out.
Domains = tuple[str | None, ...]


def _counts(selector, namespace: str, pod: Pod) -> bool:
    """Does ``pod`` count as a matching pod (upstream ``countPodsMatchSelector``)?"""
    return (selector is not None and not pod.deleting and pod.namespace == namespace
            and selector.matches(pod.labels))


def _included(c: SpreadConstraint, pod: Pod, node: Node) -> bool:
    """``nodeAffinityPolicy`` / ``nodeTaintsPolicy``: may this node's pods count?"""
    if c.node_affinity_policy == HONOR and not required_affinity_matches(pod, node):
        return False
    if c.node_taints_policy == HONOR:
        for taint in node.taints:
            if taint.effect in (NO_SCHEDULE, NO_EXECUTE) and not tolerated(taint, pod.tolerations):
                return False
    return True


def _domains(constraints: tuple[SpreadConstraint, ...], pod: Pod, cluster: Sequence[NodeInfo],
             require_all: bool) -> dict[int, Domains]:
    """Node index -> Domains for the nodes that count (all keys present when
    ``require_all``; a missing key's domain is then ``""``, as upstream reads it)."""
    keys = [c.topology_key for c in constraints]
    out = {}
    for info in cluster:
        node = info.node
        labels = node.labels
        if require_all and not all(k in labels for k in keys):
            continue
        out[info.index] = tuple(labels.get(c.topology_key, "") if _included(c, pod, node)
                                else None for c in constraints)
    return out


class _Hard:
    """Filter state (upstream preFilterState): matching pods per domain for each
    DoNotSchedule constraint, and the global minimum kept current through a histogram of
    the counts (count -> number of domains), so adding or removing a pod is O(1)."""

    __slots__ = ("constraints", "counts", "domains", "histograms", "mins", "self_match")

    def __init__(self, constraints, domains, self_match, counts, histograms, mins) -> None:
        self.constraints: tuple[SpreadConstraint, ...] = constraints
        self.domains: dict[int, Domains] = domains  # shared by copies: it never changes
        self.self_match: tuple[int, ...] = self_match
        self.counts: list[dict[str, int]] = counts
        self.histograms: list[dict[int, int]] = histograms
        self.mins: list[int] = mins

    @classmethod
    def build(cls, constraints, pod: Pod, cluster: Sequence[NodeInfo]) -> _Hard:
        domains = _domains(constraints, pod, cluster, require_all=True)
        counts: list[dict[str, int]] = [{} for _ in constraints]
        for info in cluster:
            places = domains.get(info.index)
            if places is None:
                continue
            for k, value in enumerate(places):
                if value is not None:
                    selector = constraints[k].selector
                    counts[k][value] = counts[k].get(value, 0) + sum(
                        1 for p in info.pods if _counts(selector, pod.namespace, p))
        histograms = []
        for per_domain in counts:
            histogram: dict[int, int] = {}
            for n in per_domain.values():
                histogram[n] = histogram.get(n, 0) + 1
            histograms.append(histogram)
        self_match = tuple(int(c.selector is not None and c.selector.matches(pod.labels))
                           for c in constraints)
        return cls(constraints, domains, self_match, counts, histograms,
                   [min(h, default=0) for h in histograms])

    def copy(self) -> _Hard:
        return _Hard(self.constraints, self.domains, self.self_match,
                     [dict(c) for c in self.counts], [dict(h) for h in self.histograms],
                     list(self.mins))

    def update(self, namespace: str, changed: Pod, node_index: int, delta: int) -> None:
        places = self.domains.get(node_index)
        if places is None:
            return
        for k, value in enumerate(places):
            if value is None or not _counts(self.constraints[k].selector, namespace, changed):
                continue
            counts, histogram = self.counts[k], self.histograms[k]
            old = counts[value]
            new = counts[value] = old + delta
            histogram[old] -= 1
            if not histogram[old]:
                del histogram[old]
            histogram[new] = histogram.get(new, 0) + 1
            # The minimum falls with the domain, or rises with it when it was the last one
            # at the minimum (counts change by one).
            if new < self.mins[k] or (old == self.mins[k] and old not in histogram):
                self.mins[k] = new

    def filter(self, node: Node) -> Status | None:
        labels = node.labels
        for k, c in enumerate(self.constraints):
            value = labels.get(c.topology_key)
            if value is None:
                return unschedulable(ERR_REASON_NODE_LABEL_NOT_MATCH, unresolvable=True)
            counts = self.counts[k]
            # Fewer eligible domains than minDomains: the global minimum is taken as 0.
            minimum = self.mins[k] if len(counts) >= (c.min_domains or 1) else 0
            if counts.get(value, 0) + self.self_match[k] - minimum > c.max_skew:
                return unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH)
        return None


class _Soft:
    """Score state (upstream preScoreState, before the feasible nodes are known): matching
    pods per domain for each ScheduleAnyway constraint, and per node for hostname
    constraints (upstream counts those on the node itself, whatever its policies)."""

    __slots__ = ("constraints", "counts", "domains", "require_all")

    def __init__(self, constraints, require_all, domains, counts) -> None:
        self.constraints: tuple[SpreadConstraint, ...] = constraints
        self.require_all: bool = require_all
        self.domains: dict[int, Domains] = domains  # shared by copies
        # Per constraint: domain -> count, or node index -> count for hostname keys.
        self.counts: list[dict] = counts

    @classmethod
    def build(cls, constraints, pod: Pod, cluster: Sequence[NodeInfo],
              require_all: bool) -> _Soft:
        soft = cls(constraints, require_all, _domains(constraints, pod, cluster, require_all),
                   [{} for _ in constraints])
        for info in cluster:
            for p in info.pods:
                soft.update(pod.namespace, p, info.index, 1)
        return soft

    def copy(self) -> _Soft:
        return _Soft(self.constraints, self.require_all, self.domains,
                     [dict(c) for c in self.counts])

    def update(self, namespace: str, changed: Pod, node_index: int, delta: int) -> None:
        places = self.domains.get(node_index)
        for k, c in enumerate(self.constraints):
            if not _counts(c.selector, namespace, changed):
                continue
            if c.topology_key == HOSTNAME:
                key = node_index
            elif places is None or places[k] is None:
                continue
            else:
                key = places[k]
            counts = self.counts[k]
            counts[key] = counts.get(key, 0) + delta

    def scores(self, nodes: Sequence[NodeInfo]) -> list[int | None]:
        """Raw upstream Score of each feasible node; None for nodes upstream ignores."""
        keys = [c.topology_key for c in self.constraints]
        scored = [info for info in nodes
                  if not self.require_all or all(k in info.node.labels for k in keys)]
        weights = []
        for c in self.constraints:
            if c.topology_key == HOSTNAME:
                size = len(scored)
            else:
                size = len({info.node.labels.get(c.topology_key, "") for info in scored})
            weights.append(math.log(size + 2))
        ok = {info.index for info in scored}
        out: list[int | None] = []
        for info in nodes:
            if info.index not in ok:
                out.append(None)
                continue
            labels, score = info.node.labels, 0.0
            for k, c in enumerate(self.constraints):
                value = labels.get(c.topology_key)
                if value is None:
                    continue
                key = info.index if c.topology_key == HOSTNAME else value
                score += self.counts[k].get(key, 0) * weights[k] + (c.max_skew - 1)
            out.append(_round(score))
        return out


def _round(x: float) -> int:
    """Go's ``math.Round`` (half away from zero) for x >= 0."""
    whole = math.floor(x)
    return int(whole) + (1 if x - whole >= 0.5 else 0)


class SpreadSummary:
    """Both states of one pod class; either may be None when it has no such constraint."""

    __slots__ = ("hard", "soft")

    def __init__(self, hard: _Hard | None, soft: _Soft | None) -> None:
        self.hard = hard
        self.soft = soft

    def copy(self) -> SpreadSummary:
        return SpreadSummary(self.hard and self.hard.copy(), self.soft and self.soft.copy())


class PodTopologySpread:
    name = names.POD_TOPOLOGY_SPREAD
    scope = Scope.CLUSTER

    def __init__(self, default_constraints: tuple[SpreadConstraint, ...] = (),
                 system_defaulted: bool = False) -> None:
        self.default_constraints = default_constraints
        self.system_defaulted = system_defaulted

    def _constraints(self, pod: Pod) -> tuple[SpreadConstraint, ...]:
        if pod.spread_constraints:
            return pod.spread_constraints
        selector = pod.default_spread_selector
        if not self.default_constraints or selector is None:
            return ()
        return tuple(replace(c, selector=selector) for c in self.default_constraints)

    # -- ClusterStatePlugin ----------------------------------------------------------------

    def prepare(self, pod: Pod, cluster: Sequence[NodeInfo]) -> SpreadSummary | None:
        constraints = self._constraints(pod)
        if not constraints:
            return None
        hard = tuple(c for c in constraints if c.when_unsatisfiable == DO_NOT_SCHEDULE)
        soft = tuple(c for c in constraints if c.when_unsatisfiable == SCHEDULE_ANYWAY)
        # Upstream requires every soft key on a node only for the pod's own constraints or
        # listed defaults, so nodes without a zone label still get hostname spreading.
        require_all = bool(pod.spread_constraints) or not self.system_defaulted
        return SpreadSummary(
            _Hard.build(hard, pod, cluster) if hard else None,
            _Soft.build(soft, pod, cluster, require_all) if soft else None,
        )

    def add_pod(self, summary: SpreadSummary, pod: Pod, added: Pod, node: NodeInfo) -> None:
        self._update(summary, pod, added, node, 1)

    def remove_pod(self, summary: SpreadSummary, pod: Pod, removed: Pod, node: NodeInfo) -> None:
        self._update(summary, pod, removed, node, -1)

    @staticmethod
    def _update(summary: SpreadSummary, pod: Pod, changed: Pod, node: NodeInfo,
                delta: int) -> None:
        if summary.hard is not None:
            summary.hard.update(pod.namespace, changed, node.index, delta)
        if summary.soft is not None:
            summary.soft.update(pod.namespace, changed, node.index, delta)

    # -- Filter / Score --------------------------------------------------------------------

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        hard = state[self.name].hard
        return None if hard is None else hard.filter(node.node)

    def pre_score(self, state: CycleState, pod: Pod) -> bool:
        return state[self.name].soft is not None

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        return 0  # computed over all feasible nodes in normalize_score

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[int],
                        nodes: list[NodeInfo]) -> None:
        raw = state[self.name].soft.scores(nodes)
        valid = [s for s in raw if s is not None]
        low, high = min(valid, default=0), max(valid, default=0)
        for i, s in enumerate(raw):
            if s is None:
                scores[i] = 0
            elif high == 0:
                scores[i] = MAX_NODE_SCORE
            else:
                scores[i] = MAX_NODE_SCORE * (high + low - s) // high


def _default_constraints(raw: object) -> tuple[SpreadConstraint, ...]:
    """``PodTopologySpreadArgs.defaultConstraints``, validated as upstream
    ``ValidatePodTopologySpreadArgs`` does (no selector: it comes from each pod)."""
    path = "PodTopologySpread.args.defaultConstraints"
    if not isinstance(raw, list):
        raise ProfileError("<profile>", "expected a list", field=path)
    out: list[SpreadConstraint] = []
    seen: set[tuple[str, str]] = set()
    for i, c in enumerate(raw):
        p = f"{path}[{i}]"
        if not isinstance(c, dict):
            raise ProfileError("<profile>", "expected a mapping", field=p)
        skew = c.get("maxSkew")
        if type(skew) is not int or skew <= 0:
            raise ProfileError("<profile>", f"not in valid range (0, inf): {skew!r}",
                               field=f"{p}.maxSkew")
        key = c.get("topologyKey")
        if not isinstance(key, str) or not valid_label_key(key):
            raise ProfileError("<profile>", f"expected a label name, got {key!r}",
                               field=f"{p}.topologyKey")
        when = c.get("whenUnsatisfiable")
        if when not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            raise ProfileError("<profile>", f"expected {DO_NOT_SCHEDULE} or {SCHEDULE_ANYWAY},"
                               f" got {when!r}", field=f"{p}.whenUnsatisfiable")
        if c.get("labelSelector") is not None:
            raise ProfileError("<profile>", "constraint must not define a selector, as they "
                               "deduced for each pod", field=f"{p}.labelSelector")
        if (key, when) in seen:
            raise ProfileError("<profile>", f"duplicate {{{key}, {when}}}", field=p)
        seen.add((key, when))
        min_domains = c.get("minDomains")
        if min_domains is not None and (type(min_domains) is not int or min_domains < 1):
            raise ProfileError("<profile>", f"expected an integer >= 1, got {min_domains!r}",
                               field=f"{p}.minDomains")
        policies = {}
        for field, default in (("nodeAffinityPolicy", HONOR), ("nodeTaintsPolicy", IGNORE)):
            value = c.get(field) or default
            if value not in (HONOR, IGNORE):
                raise ProfileError("<profile>", f"expected {HONOR} or {IGNORE}, got {value!r}",
                                   field=f"{p}.{field}")
            policies[field] = value
        out.append(SpreadConstraint(skew, key, when, None, min_domains,
                                    policies["nodeAffinityPolicy"],
                                    policies["nodeTaintsPolicy"]))
    return tuple(out)


def new(args: Mapping[str, Any]) -> PodTopologySpread:
    """``defaultingType`` defaults to System (kubescheduler.config.k8s.io/v1), which may not
    be combined with ``defaultConstraints``."""
    defaulting = args.get("defaultingType") or SYSTEM_DEFAULTING
    constraints = _default_constraints(args.get("defaultConstraints") or [])
    if defaulting not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        raise ProfileError("<profile>", f"expected {SYSTEM_DEFAULTING} or {LIST_DEFAULTING}, "
                           f"got {defaulting!r}", field="PodTopologySpread.args.defaultingType")
    if defaulting == SYSTEM_DEFAULTING:
        if constraints:
            raise ProfileError("<profile>", "System may not be combined with "
                               "defaultConstraints (set defaultingType: List)",
                               field="PodTopologySpread.args.defaultingType")
        return PodTopologySpread(SYSTEM_DEFAULT_CONSTRAINTS, system_defaulted=True)
    return PodTopologySpread(constraints)
