"""Eviction units and their order (upstream ``getWorkloadPreemptionVictims``,
``MoreImportantVictim``, ``FilterVictimsWithPDBViolation``, ``prepareDomainVictims``).

A pod of a group whose ``disruptionMode`` is all is evicted with every scheduled pod of
that group; any other pod alone. In a CompositePodGroup tree the highest ancestor whose
``disruptionMode`` is all bounds the unit: every scheduled pod of its subtree goes at once
(upstream ``getHighestAllAncestor``; an all composite overrides single below it). A pod that
belongs to a group has the group's priority (upstream: the PodGroup's priority is
authoritative, whatever the pod's own).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tasplan.framework.node_info import NodeInfo
from tasplan.model.composite import CompositePodGroup
from tasplan.model.group import PodGroup
from tasplan.model.pod import Pod
from tasplan.preemption.budgets import DisruptionBudget


@dataclass(frozen=True)
class Unit:
    """Pods evicted together, each with the index of the node it is on. ``in_group``: the
    pods belong to a pod group (upstream ranks those above lone pods of equal priority)."""

    pods: tuple[tuple[Pod, int], ...]
    priority: int
    group: str | None
    whole_group: bool

    @property
    def in_group(self) -> bool:
        return self.group is not None

    @property
    def first_seen(self) -> int:
        # Upstream compares start times; the input order stands in for them.
        return min(p.order for p, _ in self.pods)

    def importance(self) -> tuple:
        """Sort key, most important first: higher priority, group pods before lone pods,
        then lone pods by start (earlier first) and whole groups by size (larger first),
        then start."""
        size = -len(self.pods) if self.whole_group else 0
        return (-self.priority, not self.in_group, size, self.first_seen)


def atomic_ancestors(groups: Iterable[PodGroup], composites: Iterable[CompositePodGroup]
                     ) -> dict[str, str]:
    """PodGroup key -> key of its highest ancestor CompositePodGroup whose disruptionMode
    is all, for the PodGroups that have one. Walks are bounded (cycles and dangling parents
    end them)."""
    by_key = {c.key: c for c in composites}
    out = {}
    for g in groups:
        key, highest, steps = g.parent, None, 0
        while key is not None and key in by_key and steps <= len(by_key):
            c = by_key[key]
            if c.disrupt_all:
                highest = c.key
            key, steps = c.parent, steps + 1
        if highest is not None:
            out[g.key] = highest
    return out


def units(infos: Sequence[NodeInfo], groups: Mapping[str, PodGroup],
          priorities: Mapping[str, int], atomic: Mapping[str, str] | None = None
          ) -> list[Unit]:
    """Every pod on a node as an eviction unit (whole groups for disruptionMode all, whole
    subtrees of ``atomic``: PodGroup key -> the composite bounding its unit), in node
    order. ``priorities``: a group's priority by key."""
    whole: dict[str, list[tuple[Pod, int]]] = {}
    out: list[Unit] = []
    atomic = atomic or {}
    for info in infos:
        for pod in info.pods:
            group = groups.get(pod.group) if pod.group is not None else None
            priority = priorities.get(pod.group, pod.priority) if group else pod.priority
            bound = None if group is None else atomic.get(group.key) or (
                group.key if group.disrupt_all else None)
            if bound is not None:
                members = whole.get(bound)
                if members is None:
                    members = whole[bound] = []
                    out.append(Unit((), priority, bound, True))
                members.append((pod, info.index))
            else:
                out.append(Unit(((pod, info.index),), priority,
                                group.key if group else None, False))
    return [Unit(tuple(whole[u.group]), u.priority, u.group, True) if u.whole_group else u
            for u in out]


def reprieve_order(candidates: Sequence[Unit], budgets: Sequence[DisruptionBudget]
                   ) -> list[tuple[Unit, int]]:
    """(unit, PDB violations) in the order upstream tries to reprieve them: units whose
    eviction would break a budget first, then the others, each most important first.
    Budgets are spent in importance order, as upstream counts them."""
    ordered = sorted(candidates, key=Unit.importance)
    left = {b.key: b.allowed for b in budgets}
    violating, other = [], []
    for unit in ordered:
        violations = 0
        for pod, _ in unit.pods:
            broken = False
            for b in budgets:
                if b.covers(pod):
                    left[b.key] -= 1
                    broken |= left[b.key] < 0
            violations += broken
        (violating if violations else other).append((unit, violations))
    return violating + other
