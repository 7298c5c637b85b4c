"""Pod groups: the unit of gang scheduling and of topology-aware placement."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from tasplan.model.dra_inputs import PodClaim
from tasplan.model.source import Source


class Policy(StrEnum):
    GANG = "gang"
    BASIC = "basic"


Pairs = tuple[tuple[str, str], ...]  # a label or annotation map, sorted: hashable and frozen


def pairs(mapping: object) -> Pairs:
    """A str->str mapping as sorted pairs (anything else: none)."""
    if not isinstance(mapping, dict):
        return ()
    return tuple(sorted((k, v) for k, v in mapping.items()
                        if isinstance(k, str) and isinstance(v, str)))


@dataclass(frozen=True, slots=True)
class PodSet:
    """One pod template of an expanded object and the pods made from it, named as Kueue
    names the object's PodSets (``main`` for a Job, the replicated Job of a JobSet, the
    replica type of a Kubeflow job, ``head`` and the worker groups of a RayCluster, ...).

    Enough for another scheduler to rebuild its own grouping from the model (a Kueue
    Workload with several PodSets, a KAI PodGroup with subgroups): ``labels`` and
    ``annotations`` are those of the pods (template plus what the controller adds, without
    the per-pod index labels), ``pods`` the names of its pods in the group's namespace
    (existing ones first), ``min_count`` a minimum the object sets for this template
    (Grove's clique ``minAvailable``), ``template_path`` the template's field path.
    """

    name: str
    count: int
    pods: tuple[str, ...]
    labels: Pairs = ()
    annotations: Pairs = ()
    scheduler_name: str = "default-scheduler"
    min_count: int | None = None
    template_path: str = ""

    def annotation(self, key: str) -> str | None:
        return dict(self.annotations).get(key)

    def label(self, key: str) -> str | None:
        return dict(self.labels).get(key)


@dataclass(frozen=True, slots=True)
class Expansion:
    """Pods tasplan synthesised for a group from a pod-producing object's template (a Job,
    JobSet, LeaderWorkerSet, TrainJob, ...), and the pods of that object that already
    existed; the object's own labels and annotations (a Kueue ``queue-name``, KAI's
    topology annotations) and its PodSets in this group. ``via`` names the objects it was
    expanded through (an AppWrapper's component, a TrainJob's JobSet: ``AppWrapper
    ns/name``), outermost first."""

    kind: str
    name: str  # namespace/name
    synthesised: int
    existing: int
    api_version: str = ""
    labels: Pairs = ()
    annotations: Pairs = ()
    pod_sets: tuple[PodSet, ...] = ()
    via: tuple[str, ...] = ()

    def annotation(self, key: str) -> str | None:
        return dict(self.annotations).get(key)

    def label(self, key: str) -> str | None:
        return dict(self.labels).get(key)


@dataclass(frozen=True, slots=True)
class PodGroup:
    """One schedulable group, whatever API it came from.

    ``key`` is what reports print: ``<ns>/<podgroup>`` for PodGroups and Jobs,
    ``<ns>/<workload>/<podGroup>[/<replicaKey>]`` for v1alpha1 Workloads.
    ``min_count`` is 1 for basic groups, as upstream's PlacementFeasible treats them.
    ``kind`` names the object that defined it (PodGroup, Workload, Job).
    """

    key: str
    namespace: str
    policy: Policy
    min_count: int
    topology_key: str | None
    kind: str
    api_version: str
    source: Source
    order: int
    priority: int | None = None
    priority_class_name: str = ""
    # Planned groups are those the user asked about: defined in, or with pending pods in, a
    # workload input. Groups that only appear in --cluster inputs are part of the world.
    planned: bool = False
    # status.conditions of a PodGroup object: False when PodGroupScheduled (or
    # PodGroupInitiallyScheduled) is False, True when it is True, None when neither is set.
    scheduled_condition: bool | None = None
    # spec.parentCompositePodGroupName as a key (``<ns>/<name>``): the group is a leaf of a
    # CompositePodGroup tree (KEP-6012).
    parent: str | None = None
    # DRA claims of the whole group (KEP-5729) and status.resourceClaimStatuses.
    claims: tuple[PodClaim, ...] = ()
    claim_statuses: tuple[tuple[str, str], ...] = ()
    # The pod-producing objects whose pods tasplan created for this group.
    expansions: tuple[Expansion, ...] = ()
    # spec.preemptionPolicy of a PodGroup (v1alpha3+; read with PodGroupPreemptionPolicy),
    # None when not set.
    preemption_policy: str | None = None
    # spec.disruptionMode: True when the group is evicted as a whole ("all" / "PodGroup"),
    # False when pod by pod (the default).
    disrupt_all: bool = False
    # (code, message) notes the loader attaches: what tasplan assumed about the object
    # that made the group (a gang its operator would create, ...). Reported with the
    # group's other fidelity notes.
    notes: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        return self.key
