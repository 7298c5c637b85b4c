"""PodDisruptionBudgets: what eviction what-ifs (tasplan explain) must respect."""

from __future__ import annotations

from dataclasses import dataclass

from tasplan.model.pod import Pod
from tasplan.model.pod_affinity import LabelSelector
from tasplan.model.source import Source


@dataclass(frozen=True, slots=True)
class PodDisruptionBudget:
    """policy/v1. ``selector`` None selects no pods, an empty one every pod of the
    namespace (as upstream); ``min_available`` / ``max_unavailable`` are an integer or a
    percentage string such as ``"50%"``; ``disruptions_allowed`` is the disruption
    controller's status, None when the input has none; ``disrupted_pods`` the pods its
    ``status.disruptedPods`` lists (evictions the API server has admitted, not yet seen by
    the controller: kube-scheduler spends nothing of the budget for them)."""

    namespace: str
    name: str
    selector: LabelSelector | None
    min_available: int | str | None
    max_unavailable: int | str | None
    disruptions_allowed: int | None
    source: Source
    disrupted_pods: frozenset[str] = frozenset()

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def covers(self, pod: Pod) -> bool:
        return (self.selector is not None and pod.namespace == self.namespace
                and self.selector.matches(pod.labels))
