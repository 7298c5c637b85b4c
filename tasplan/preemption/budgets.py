"""PodDisruptionBudgets (policy/v1) reduced to what an eviction what-if needs: which pods a
budget covers and how many of them may be disrupted now.

kube-scheduler's preemption starts from each budget's ``status.disruptionsAllowed`` (0 when
the budget has no status yet: the disruption controller has not computed it) and spends
nothing for the pods in ``status.disruptedPods`` (upstream ``FilterVictimsWithPDBViolation``).
That is the default here. ``COMPUTED`` instead derives the allowance of a budget without a
status from its spec and the inputs' pods, as the disruption controller will: for a
budget submitted together with the workload, to see the plan once the controller has run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tasplan.model.disruption import PodDisruptionBudget
from tasplan.model.pod import Pod
from tasplan.model.pod_affinity import LabelSelector
from tasplan.model.snapshot import ClusterSnapshot

STATUS, COMPUTED = "status", "computed"
ALLOWANCES = (STATUS, COMPUTED)


@dataclass(frozen=True, slots=True)
class DisruptionBudget:
    namespace: str
    name: str
    selector: LabelSelector | None  # None: the budget selects no pod
    allowed: int  # disruptions allowed now
    disrupted: frozenset[str] = frozenset()  # pod names in status.disruptedPods
    status: bool = True  # the input has status.disruptionsAllowed
    computed: bool = False  # ``allowed`` derived from the spec (no status, COMPUTED)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def covers(self, pod: Pod) -> bool:
        return (self.selector is not None and pod.namespace == self.namespace
                and self.selector.matches(pod.labels))


def disruption_budgets(snapshot: ClusterSnapshot, allowance: str = STATUS
                       ) -> tuple[DisruptionBudget, ...]:
    """Every PodDisruptionBudget of the inputs, in input order, with the disruptions it
    allows now (``allowance``: STATUS or COMPUTED, see the module)."""
    if allowance not in ALLOWANCES:
        raise ValueError(f"allowance {allowance!r}: expected one of {ALLOWANCES}")
    out = []
    for pdb in snapshot.disruption_budgets:
        allowed, computed = pdb.disruptions_allowed, False
        if allowed is None:
            allowed, computed = 0, allowance == COMPUTED
            if computed:
                covered = [p for p in snapshot.pods if not p.terminal and pdb.covers(p)]
                allowed = _allowed(pdb, covered)
        out.append(DisruptionBudget(pdb.namespace, pdb.name, pdb.selector, max(allowed, 0),
                                    pdb.disrupted_pods, pdb.disruptions_allowed is not None,
                                    computed))
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
