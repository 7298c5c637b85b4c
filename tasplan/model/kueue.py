"""Kueue's objects (``kueue.x-k8s.io`` v1beta1 and v1beta2), reduced to what its
Topology-Aware Scheduling and a static quota check read. Its API versions and the snapshot's
container (``KueueInputs``) are in ``kueue_inputs``, re-exported here: a run imports this module
only when an input holds a Kueue kind."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tasplan.model.group import PodGroup
from tasplan.model.kueue_inputs import (  # noqa: F401 (re-exported)
    GROUP,
    NO_KUEUE,
    VERSIONS,
    KueueInputs,
)
from tasplan.model.pod import Pod
from tasplan.model.selectors import NodeSelectorTerm, PreferredTerm
from tasplan.model.source import Source
from tasplan.model.taints import Taint, Toleration


@dataclass(frozen=True, slots=True)
class Topology:
    """``spec.levels[].nodeLabel``, top level first."""

    name: str
    levels: tuple[str, ...]
    source: Source


@dataclass(frozen=True, slots=True)
class ResourceFlavor:
    """A TAS flavor when ``topology_name`` is set; ``node_labels`` select its nodes and
    ``tolerations`` are added to its pods' when filtering nodes."""

    name: str
    node_labels: Mapping[str, str]
    node_taints: tuple[Taint, ...]
    tolerations: tuple[Toleration, ...]
    topology_name: str | None
    source: Source


@dataclass(frozen=True, slots=True)
class Quota:
    nominal: int
    borrowing_limit: int | None = None  # None: unlimited (within the cohort)
    lending_limit: int | None = None


@dataclass(frozen=True, slots=True)
class FlavorQuotas:
    name: str
    resources: Mapping[str, Quota]


@dataclass(frozen=True, slots=True)
class ResourceGroup:
    covered: tuple[str, ...]
    flavors: tuple[FlavorQuotas, ...]  # in preference order


@dataclass(frozen=True, slots=True)
class ClusterQueue:
    name: str
    cohort: str
    resource_groups: tuple[ResourceGroup, ...]
    admission_checks: tuple[str, ...]
    queueing_strategy: str
    stop_policy: str
    source: Source

    def flavor_names(self) -> tuple[str, ...]:
        return tuple(f.name for g in self.resource_groups for f in g.flavors)


@dataclass(frozen=True, slots=True)
class LocalQueue:
    namespace: str
    name: str
    cluster_queue: str
    source: Source


@dataclass(frozen=True, slots=True)
class Cohort:
    name: str
    parent: str
    resource_groups: tuple[ResourceGroup, ...]
    source: Source


@dataclass(frozen=True, slots=True)
class DomainCount:
    values: tuple[str, ...]
    count: int


@dataclass(frozen=True, slots=True)
class PodSetAssignment:
    name: str
    flavors: Mapping[str, str]  # resource -> flavor
    count: int | None
    levels: tuple[str, ...] = ()
    domains: tuple[DomainCount, ...] = ()


@dataclass(frozen=True, slots=True)
class WorkloadPodSet:
    """A PodSet of a Workload object: its count, one pod's requests, what the leaf
    filters read of its template, and its topology request as stored in the Workload."""

    name: str
    count: int
    min_count: int | None
    requests: Mapping[str, int]
    node_selector: Mapping[str, str] = field(default_factory=dict)
    tolerations: tuple[Toleration, ...] = ()
    required_terms: tuple[NodeSelectorTerm, ...] | None = None
    preferred_terms: tuple[PreferredTerm, ...] = ()
    # kueue.PodSetTopologyRequest fields, as read (request.TopologyRequest is built from them)
    topology: Mapping[str, object] | None = None


@dataclass(frozen=True, slots=True)
class Workload:
    """A Kueue Workload; ``admission`` is set once quota is reserved."""

    namespace: str
    name: str
    queue_name: str
    priority: int | None
    pod_sets: tuple[WorkloadPodSet, ...]
    cluster_queue: str | None
    assignments: tuple[PodSetAssignment, ...]
    quota_reserved: bool
    admitted: bool
    finished: bool
    source: Source
    api_version: str = VERSIONS[0]
    # metadata.ownerReferences as (kind, name): the object (a Job, JobSet, ...; every pod
    # of a plain-pod group) its job integration made it for.
    owners: tuple[tuple[str, str], ...] = ()
    # status.unhealthyNodes: nodes Kueue replaces in the topology assignment
    # (TASFailedNodeReplacement), and ``workload.OwnedBySinglePod``.
    unhealthy_nodes: tuple[str, ...] = ()
    single_pod_owned: bool = False

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def holds_capacity(self) -> bool:
        """Kueue counts an admission's topology assignment as TAS usage from quota
        reservation until the Workload finishes."""
        return self.quota_reserved and not self.finished and bool(self.assignments)


PREBUILT_WORKLOAD = "kueue.x-k8s.io/prebuilt-workload-name"


def owner_index(workloads: Mapping[str, Workload]) -> dict[tuple[str, str], Workload]:
    """(owner kind, ``ns/name``) -> the Workload made for that object, finished ones left
    out (a Job's finished Workload is history)."""
    out: dict[tuple[str, str], Workload] = {}
    for wl in workloads.values():
        if not wl.finished:
            for kind, name in wl.owners:
                out.setdefault((kind, f"{wl.namespace}/{name}"), wl)
    return out


def workload_for(group: PodGroup, pods: Iterable[Pod], workloads: Mapping[str, Workload],
                 owners: Mapping[tuple[str, str], Workload]) -> Workload | None:
    """The Workload object of a group, if the inputs hold it: the group is the Workload
    itself, or one of the group's objects names it (``kueue.x-k8s.io/prebuilt-workload-
    name``) or owns it (``owners``: ``owner_index``), or its pods name it
    (``kueue.x-k8s.io/workload``, written when Kueue starts them)."""
    for e in group.expansions:
        if e.kind == "Workload" and e.api_version in VERSIONS:
            return workloads.get(e.name)
        prebuilt = e.label(PREBUILT_WORKLOAD) if hasattr(e, "label") else None
        if prebuilt:  # the job names the Workload made for it beforehand
            found = workloads.get(f"{group.namespace}/{prebuilt}")
            if found is not None and not found.finished:
                return found
        found = owners.get((e.kind, e.name))
        if found is not None:
            return found
    for pod in pods:
        if pod.kueue_workload:
            found = workloads.get(f"{pod.namespace}/{pod.kueue_workload}")
            if found is not None and not found.finished:
                return found
        found = owners.get(("Pod", pod.key))
        if found is not None:
            return found
    return None
