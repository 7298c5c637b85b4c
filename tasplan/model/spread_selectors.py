"""The selectors of Services and controllers, from which a pod without topology spread
constraints gets the selector of its default constraints (upstream
``helper.DefaultSelector``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tasplan.model.pod import Pod
from tasplan.model.pod_affinity import LabelSelector
from tasplan.model.selectors import Requirement

REPLICATION_CONTROLLER = ("v1", "ReplicationController")
REPLICA_SET = ("apps/v1", "ReplicaSet")
STATEFUL_SET = ("apps/v1", "StatefulSet")


@dataclass(frozen=True, slots=True)
class ControllerRef:
    """The pod's ``ownerReferences`` entry with ``controller: true``."""

    api_version: str
    kind: str
    name: str


@dataclass(frozen=True)
class SpreadSelectors:
    """``services``: namespace -> the ``spec.selector`` maps of its Services (those without a
    selector select nothing and are left out). ``controllers``: (apiVersion, kind,
    namespace, name) -> the ReplicationController's selector map, or the ReplicaSet's or
    StatefulSet's label selector (None: it selects nothing)."""

    services: Mapping[str, tuple[Mapping[str, str], ...]] = field(default_factory=dict)
    controllers: Mapping[tuple[str, str, str, str], Mapping[str, str] | LabelSelector | None] \
        = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.services or self.controllers)

    def default_selector(self, pod: Pod, owner: ControllerRef | None) -> LabelSelector | None:
        """The labels every Service selecting the pod requires, plus the selector of its
        controller when that is a ReplicationController, ReplicaSet or StatefulSet. None when
        that leaves no requirement (then no default constraint applies)."""
        labels = pod.labels
        merged: dict[str, str] = {}
        for selector in self.services.get(pod.namespace, ()):
            if all(k in labels and labels[k] == v for k, v in selector.items()):
                merged.update(selector)
        extra: tuple[Requirement, ...] = ()
        if owner is not None:
            selector = self.controllers.get(
                (owner.api_version, owner.kind, pod.namespace, owner.name))
            if isinstance(selector, LabelSelector):
                extra = selector.requirements
            elif selector is not None:
                merged.update(selector)
        requirements = tuple(Requirement(k, "In", (v,)) for k, v in sorted(merged.items()))
        requirements += extra
        return LabelSelector(requirements) if requirements else None
