"""What workload-aware preemption decided for a group: read by renderers and explain."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Victim:
    """An evicted pod: its node, its preemption priority (its PodGroup's when it has one)
    and the group it belongs to (None for a pod of no group)."""

    pod: str
    node: str
    priority: int
    group: str | None


@dataclass(frozen=True)
class PreemptionResult:
    """The group's placement once the victims are gone, the victims (sorted by pod), and the
    node each pending pod is nominated to (pod key -> node name). ``pdb_violations``
    counts victim pods evicted beyond a PodDisruptionBudget's allowance (upstream evicts
    them only when no other choice works)."""

    placement: str
    victims: tuple[Victim, ...]
    nominated: Mapping[str, str]
    message: str
    pdb_violations: int = 0
