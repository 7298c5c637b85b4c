"""Eviction units ("victims") and their order of importance, as upstream builds and sorts
them (kubernetes/kubernetes ``pkg/scheduler/framework/preemption``: ``types.go``
``getCrossNodesVictims``, ``NewPodVictim``, ``getHighestAllAncestor``; ``util.go``
``getPodPriority``, ``MoreImportantVictim``, ``FilterVictimsWithPDBViolation``; main at
1d54bff3 / 06e67ba2).

- A pod is evicted with every scheduled pod of its highest ancestor (its PodGroup, or a
  CompositePodGroup above it) whose ``disruptionMode`` is all; otherwise alone.
- Its priority is the root's of its group tree (the PodGroup's without the
  CompositePodGroup gate, its own when it belongs to no PodGroup object); a PodGroup or
  composite without a priority has priority 0.
- Its kind ranks it: a composite's unit outranks a PodGroup's, which outranks a lone pod;
  a pod alone of a pod group (``single`` mode) ranks as a PodGroup (``NewPodVictim``).
- Most important first: higher priority, higher rank, more pods, earlier start
  (``status.startTime``; a pod not started yet is newer than any that has), smaller UID.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from tasplan.framework.node_info import NodeInfo
from tasplan.model import timestamp
from tasplan.model.composite import CompositePodGroup
from tasplan.model.group import PodGroup
from tasplan.model.pod import Pod
from tasplan.preemption.budgets import DisruptionBudget

POD, POD_GROUP, COMPOSITE = "Pod", "PodGroup", "CompositePodGroup"
RANK = {POD: 1, POD_GROUP: 2, COMPOSITE: 3}
# schedulingv1beta1.WorkloadMaxTreeDepth: upstream walks at most this many levels up.
MAX_DEPTH = 4
_NOT_STARTED = (1 << 62, 0)  # upstream: a fixed far-future time (PR kubernetes#139210)


@dataclass(eq=True)
class Unit:
    """Pods evicted together, each with the index of the node it is on. ``kind`` is
    upstream's victim type; ``key`` the group or composite whose pods all go at once (None
    for a pod evicted alone, whatever its kind).

    Not frozen, on purpose (as ``Pod``): one is built per candidate pod (130k at 5k nodes)
    and a frozen dataclass's ``__init__`` costs 8x as much. Treat it as immutable."""

    pods: tuple[tuple[Pod, int], ...]
    priority: int
    kind: str
    key: str | None = None

    @cached_property
    def start(self) -> tuple[int, int]:
        """The earliest start of its pods (upstream ``EarliestStartTime``)."""
        return min((timestamp.sort_key(p.start_time) for p, _ in self.pods if p.start_time),
                   default=_NOT_STARTED)

    @cached_property
    def uid(self) -> str:
        """The identity upstream breaks the last tie with: its first pod's UID. A unit's
        pods come from a set upstream (any of them may be first): the smallest here."""
        return min(p.uid for p, _ in self.pods)

    @cached_property
    def importance(self) -> tuple:
        """Sort key, most important first; the pod keys make the order total where
        upstream's is not (see ``decided``)."""
        return (*self._decided_prefix, self.uid, min(p.key for p, _ in self.pods))

    @property
    def _decided_prefix(self) -> tuple:
        return (-self.priority, -RANK[self.kind], -len(self.pods), self.start)

    def decided(self, uid_tiebreak: bool) -> tuple:
        """The part of ``importance`` upstream decides by: the UID only where the release
        compares UIDs (``uid_tiebreak``) and the unit's first pod is not a matter of
        chance (one pod with a UID). Units equal here are ordered arbitrarily upstream."""
        if uid_tiebreak and len(self.pods) == 1 and self.uid:
            return (*self._decided_prefix, self.uid)
        return self._decided_prefix


def ranked(unit: Unit, uid_tiebreak: bool) -> tuple[tuple, tuple]:
    """``(unit.decided(uid_tiebreak), unit.importance)`` without caching anything on the
    unit: cheap for the one-pod units a whole cluster of candidates mostly is."""
    if len(unit.pods) != 1:
        return unit.decided(uid_tiebreak), unit.importance
    pod = unit.pods[0][0]
    start = timestamp.sort_key(pod.start_time) if pod.start_time else _NOT_STARTED
    prefix = (-unit.priority, -RANK[unit.kind], -1, start)
    return ((*prefix, pod.uid) if uid_tiebreak and pod.uid else prefix,
            (*prefix, pod.uid, pod.key))


class Hierarchy:
    """The pod groups and composites of the cluster as kube-scheduler's preemption sees
    them. ``composites`` only with the CompositePodGroup gate (upstream: no composite
    lister without it). Only PodGroup objects count: groups tasplan made up for other
    objects (a Job's pods, a Workload's v1alpha1 groups) are invisible to the scheduler."""

    def __init__(self, groups: Mapping[str, PodGroup],
                 composites: Iterable[CompositePodGroup] = ()) -> None:
        self.groups = groups
        self.composites = {c.key: c for c in composites}
        self._chains: dict[str, tuple[PodGroup | CompositePodGroup, ...]] = {}

    def member(self, pod: Pod) -> bool:
        """The pod names a PodGroup (``spec.schedulingGroup``), found or not."""
        if pod.group is None:
            return False
        group = self.groups.get(pod.group)
        return group is None or group.kind == "PodGroup"

    def chain(self, pod: Pod) -> tuple[PodGroup | CompositePodGroup, ...]:
        """The pod's PodGroup and the composites above it, bottom up (upstream
        ``traverseHierarchyUp``: stops at a missing parent, a cycle or four levels)."""
        if not self.member(pod) or pod.group not in self.groups:
            return ()
        found = self._chains.get(pod.group)
        if found is None:
            group = self.groups[pod.group]
            links: list = [group]
            key, seen = group.parent if self.composites else None, {group.key}
            while key is not None and key not in seen and len(links) < MAX_DEPTH:
                parent = self.composites.get(key)
                if parent is None:
                    break
                links.append(parent)
                seen.add(key)
                key = parent.parent
            found = self._chains[pod.group] = tuple(links)
        return found

    def priority(self, pod: Pod) -> int:
        """Upstream ``getPodPriority``: the root's of the pod's tree."""
        chain = self.chain(pod)
        return (chain[-1].priority or 0) if chain else pod.priority

    def bound(self, pod: Pod) -> PodGroup | CompositePodGroup | None:
        """Upstream ``getHighestAllAncestor``: the highest link whose disruptionMode is
        all, None when the pod is evicted alone."""
        return next((g for g in reversed(self.chain(pod)) if g.disrupt_all), None)


def units(infos: Sequence[NodeInfo], hierarchy: Hierarchy, below: int | None = None
          ) -> list[Unit]:
    """Every pod on a node as an eviction unit, in node order (upstream
    ``getCrossNodesVictims``): a pod under a disruptionMode-all link goes with every
    scheduled pod under that link, wherever it runs. ``below``: only the units of a lower
    priority (the only ones a preemptor of that priority may evict)."""
    whole: dict[str, list[tuple[Pod, int]]] = {}
    out: list[Unit] = []
    # pod.group -> (its highest disruptionMode-all link or None, kind alone, the tree's
    # priority or None: the pod's own): the same for every pod of a group.
    seen: dict[str, tuple[PodGroup | CompositePodGroup | None, str, int | None]] = {}
    for info in infos:
        index = info.index
        for pod in info.pods:
            if pod.group is None:  # no hierarchy: evicted alone, at its own priority
                if below is None or pod.priority < below:
                    out.append(Unit(((pod, index),), pod.priority, POD))
                continue
            found = seen.get(pod.group)
            if found is None:
                chain = hierarchy.chain(pod)
                found = seen[pod.group] = (hierarchy.bound(pod), POD_GROUP if
                                           hierarchy.member(pod) else POD,
                                           (chain[-1].priority or 0) if chain else None)
            bound, kind, priority = found
            if priority is None:
                priority = pod.priority
            if below is not None and priority >= below:
                continue  # a whole unit shares its root's priority: all its pods go here
            if bound is None:
                out.append(Unit(((pod, index),), priority, kind))
                continue
            members = whole.get(bound.key)
            if members is None:
                members = whole[bound.key] = []
                out.append(Unit((), priority, bound.kind, bound.key))
            members.append((pod, index))
    return [Unit(tuple(whole[u.key]), u.priority, u.kind, u.key) if u.key is not None
            else u for u in out]


def reprieve_order(candidates: Sequence[Unit], budgets: Sequence[DisruptionBudget], *,
                   legacy_selectors: bool = False) -> list[tuple[Unit, int]]:
    """(unit, its pods that break a budget) in the order upstream tries to reprieve them:
    units whose eviction would break a budget first, then the others, each most important
    first. Budgets are spent in that order (``FilterVictimsWithPDBViolation``): a pod the
    budget lists in ``status.disruptedPods`` spends nothing; a pod is violating at the
    first budget it takes below zero (later budgets are not spent for it).
    ``legacy_selectors``: releases before kubernetes#141785 skip unlabelled pods and
    budgets with an empty selector."""
    left = {b.key: b.allowed for b in budgets}
    violating, other = [], []
    for unit in sorted(candidates, key=lambda u: u.importance):
        broken = sum(_violates(pod, budgets, left, legacy_selectors) for pod, _ in unit.pods)
        (violating if broken else other).append((unit, broken))
    return violating + other


def _violates(pod: Pod, budgets: Sequence[DisruptionBudget], left: dict[str, int],
              legacy: bool) -> bool:
    if legacy and not pod.labels:
        return False
    for b in budgets:
        if not b.covers(pod) or (legacy and b.selector is not None and b.selector.empty):
            continue
        if pod.name in b.disrupted:
            continue
        left[b.key] -= 1
        if left[b.key] < 0:
            return True
    return False
