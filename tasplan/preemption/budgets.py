"""PodDisruptionBudgets (policy/v1) reduced to what an eviction what-if needs: which pods a
budget covers and how many of them may be disrupted now.

The loader decodes the budgets (``model.disruption``); this adds the disruptions each
allows now.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tasplan.model.disruption import PodDisruptionBudget
from tasplan.model.pod import Pod
from tasplan.model.pod_affinity import LabelSelector
from tasplan.model.snapshot import ClusterSnapshot


@dataclass(frozen=True, slots=True)
class DisruptionBudget:
    namespace: str
    name: str
    selector: LabelSelector | None  # None: the budget selects no pod
    allowed: int  # disruptions allowed now

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def covers(self, pod: Pod) -> bool:
        return (self.selector is not None and pod.namespace == self.namespace
                and self.selector.matches(pod.labels))


def disruption_budgets(snapshot: ClusterSnapshot) -> tuple[DisruptionBudget, ...]:
    """Every PodDisruptionBudget of the inputs, in input order, with the disruptions it
    allows now: its status, or the disruption controller's arithmetic over the inputs' pods
    when the status is missing."""
    out = []
    for pdb in snapshot.disruption_budgets:
        allowed = pdb.disruptions_allowed
        if allowed is None:
            covered = [p for p in snapshot.pods if not p.terminal and pdb.covers(p)]
            allowed = _allowed(pdb, covered)
        out.append(DisruptionBudget(pdb.namespace, pdb.name, pdb.selector, max(allowed, 0)))
    return tuple(out)


def _allowed(pdb: PodDisruptionBudget, covered: list[Pod]) -> int:
    """The disruption controller's arithmetic without a status: expected = the covered
    pods, healthy = those running on a node; percentages round up. A budget with neither
    field counts as ``minAvailable: 1`` (the conservative reading)."""
    expected = len(covered)
    healthy = sum(1 for p in covered if p.node_name and p.phase == "Running")
    if pdb.max_unavailable is not None:
        return healthy - (expected - _int_or_percent(pdb.max_unavailable, expected))
    minimum = pdb.min_available if pdb.min_available is not None else 1
    return healthy - _int_or_percent(minimum, expected)


def _int_or_percent(value: int | str, total: int) -> int:
    """The loader has checked the form: an integer or digits followed by ``%``."""
    if isinstance(value, int):
        return value
    return math.ceil(int(value[:-1]) * total / 100)
