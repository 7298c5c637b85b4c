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
from tasplan.model.pod import Pod
from tasplan.model.selectors import Requirement
from tasplan.model.snapshot import ClusterSnapshot

API_VERSION = "policy/v1"
KIND = "PodDisruptionBudget"
_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """A metav1.LabelSelector: ``matchLabels`` and ``matchExpressions`` ANDed. An empty
    selector matches every pod (policy/v1 semantics)."""

    match_labels: Mapping[str, str]
    match_expressions: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        return (all(labels.get(k) == v for k, v in self.match_labels.items())
                and all(r.matches(labels) for r in self.match_expressions))


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
    raw = spec.get("selector")
    selector = None if raw is None else _selector(f, raw)
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


def _selector(f: ObjectFields, raw: object) -> LabelSelector:
    raw = f.mapping(raw, "spec.selector")
    labels = f.string_map(raw.get("matchLabels"), "spec.selector.matchLabels")
    exprs = []
    for i, item in enumerate(f.sequence(raw.get("matchExpressions"),
                                        "spec.selector.matchExpressions")):
        path = f"spec.selector.matchExpressions[{i}]"
        item = f.mapping(item, path)
        op = f.string(item.get("operator"), f"{path}.operator", required=True)
        if op not in _SELECTOR_OPERATORS:
            raise f.expected(f"{path}.operator", " or ".join(_SELECTOR_OPERATORS), op)
        values = f.sequence(item.get("values"), f"{path}.values")
        exprs.append(Requirement(f.string(item.get("key"), f"{path}.key", required=True), op,
                                 tuple(f.string(v, f"{path}.values") for v in values)))
    return LabelSelector(labels, tuple(exprs))
