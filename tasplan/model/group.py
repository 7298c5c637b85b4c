"""Pod groups: the unit of gang scheduling and of topology-aware placement."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from tasplan.model.dra import PodClaim
from tasplan.model.source import Source


class Policy(StrEnum):
    GANG = "gang"
    BASIC = "basic"


@dataclass(frozen=True, slots=True)
class Expansion:
    """Pods tasplan synthesised for a group from a pod-producing object's template (a Job,
    JobSet, LeaderWorkerSet, ...), and the pods of that object that already existed."""

    kind: str
    name: str  # namespace/name
    synthesised: int
    existing: int


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

    def __str__(self) -> str:
        return self.key
