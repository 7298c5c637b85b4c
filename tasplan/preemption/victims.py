"""Eviction units and their order (upstream ``getWorkloadPreemptionVictims``,
``MoreImportantVictim``, ``FilterVictimsWithPDBViolation``, ``prepareDomainVictims``).

A pod of a group whose ``disruptionMode`` is all is evicted with every scheduled pod of
that group; any other pod alone. A pod that belongs to a group has the group's priority
(upstream: the PodGroup's priority is authoritative, whatever the pod's own).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tasplan.framework.node_info import NodeInfo
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


def units(infos: Sequence[NodeInfo], groups: Mapping[str, PodGroup],
          priorities: Mapping[str, int]) -> list[Unit]:
    """Every pod on a node as an eviction unit (whole groups for disruptionMode all), in
    node order. ``priorities``: a group's priority by key."""
    whole: dict[str, list[tuple[Pod, int]]] = {}
    out: list[Unit] = []
    for info in infos:
        for pod in info.pods:
            group = groups.get(pod.group) if pod.group is not None else None
            priority = priorities.get(pod.group, pod.priority) if group else pod.priority
            if group is not None and group.disrupt_all:
                members = whole.get(group.key)
                if members is None:
                    members = whole[group.key] = []
                    out.append(Unit((), priority, group.key, True))
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
