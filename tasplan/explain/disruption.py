"""PodDisruptionBudgets (policy/v1) reduced to what an eviction what-if needs: which pods a
budget covers and how many of them may be disrupted now.

The loader keeps every parsed input object with the snapshot, so budgets are decoded from
there; nothing else in tasplan reads them yet.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tasplan.load.fields import ObjectFields
from tasplan.load.pod_affinity import label_selector
from tasplan.model.pod import Pod
from tasplan.model.pod_affinity import LabelSelector
from tasplan.model.snapshot import ClusterSnapshot

API_VERSION = "policy/v1"
KIND = "PodDisruptionBudget"


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
    """Every policy/v1 PodDisruptionBudget in the inputs, in input order."""
    out = []
    for doc in snapshot.documents:
        obj = doc.obj
        if obj.get("kind") == KIND and obj.get("apiVersion") == API_VERSION:
            out.append(decode_budget(ObjectFields(doc.source, obj), snapshot.pods))
    return tuple(out)


def decode_budget(f: ObjectFields, pods: Iterable[Pod]) -> DisruptionBudget:
    obj = f.obj
    meta = f.mapping(obj.get("metadata"), "metadata")
    name = f.string(meta.get("name"), "metadata.name", required=True)
    namespace = f.string(meta.get("namespace"), "metadata.namespace") or "default"
    spec = f.mapping(obj.get("spec"), "spec")
    selector = label_selector(f, spec.get("selector"), "spec.selector")
    status = f.mapping(obj.get("status"), "status")
    if status.get("disruptionsAllowed") is not None:
        allowed = f.integer(status["disruptionsAllowed"], "status.disruptionsAllowed")
    else:
        budget = DisruptionBudget(namespace, name, selector, 0)
        covered = [p for p in pods if not p.terminal and budget.covers(p)]
        allowed = _allowed(f, spec, covered)
    return DisruptionBudget(namespace, name, selector, max(allowed, 0))


def _allowed(f: ObjectFields, spec: Mapping, covered: list[Pod]) -> int:
    """The disruption controller's arithmetic without a status: expected = the covered
    pods, healthy = those running on a node; percentages round up. A budget with neither
    field counts as ``minAvailable: 1`` (the conservative reading)."""
    expected = len(covered)
    healthy = sum(1 for p in covered if p.node_name and p.phase == "Running")
    if spec.get("maxUnavailable") is not None:
        unavailable = _int_or_percent(f, spec["maxUnavailable"], "spec.maxUnavailable", expected)
        return healthy - (expected - unavailable)
    minimum = spec.get("minAvailable", 1)
    return healthy - _int_or_percent(f, minimum, "spec.minAvailable", expected)


def _int_or_percent(f: ObjectFields, value: object, field: str, total: int) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.endswith("%") and value[:-1].isdigit():
        return math.ceil(int(value[:-1]) * total / 100)
    raise f.expected(field, 'an integer or a percentage such as "50%"', value)
