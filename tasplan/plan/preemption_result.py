"""What workload-aware preemption decided for a group: read by renderers and explain."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Victim:
    """An evicted pod: its node, its preemption priority (its group tree's root's when it
    has one), the group it belongs to (None for a pod of no group), and the unit it was
    evicted with: the PodGroup or CompositePodGroup (``unit_kind``) whose ``disruptionMode``
    all takes ``unit_pods`` pods at once, None when it was evicted alone."""

    pod: str
    node: str
    priority: int
    group: str | None
    unit: str | None = None
    unit_kind: str | None = None
    unit_pods: int = 1


    def document(self) -> dict:
        """The report's ``victims[]`` entry (shared by the plan and explain's details)."""
        return {"pod": self.pod, "node": self.node, "priority": self.priority,
                "group": self.group, "unit": None if self.unit is None else {
                    "kind": self.unit_kind, "name": self.unit, "pods": self.unit_pods}}


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
    # Fidelity notes (code, message) on what the choice of victims may get wrong.
    notes: tuple[tuple[str, str], ...] = ()
