"""Which scheduling.k8s.io version to read Workloads and PodGroups through, and the server
version. A server serves the same objects under every enabled version; each is read once,
through the newest version tasplan understands."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tasplan.live.lister import NotServed, Reader
from tasplan.load.scheduling import GROUP, LEGACY, TEMPLATED

UNDERSTOOD = (*reversed(TEMPLATED), LEGACY)  # newest first
WORKLOAD_RESOURCES = ("workloads", "podgroups", "compositepodgroups")


@dataclass(frozen=True)
class SchedulingAPI:
    """``version`` (e.g. ``scheduling.k8s.io/v1beta1``) is None when no understood version
    serves Workloads; ``resources`` are the Workload API resources it serves; ``served``
    every version of the group the server has enabled."""

    version: str | None
    resources: tuple[str, ...]
    served: tuple[str, ...]

    def warning(self) -> str | None:
        if self.version is not None:
            return None
        others = [v for v in self.served if v.split("/")[-1] != "v1"]
        if others:
            return (f"the server serves {', '.join(others)}, none of which tasplan reads "
                    f"(it reads {', '.join(UNDERSTOOD)}); no Workloads or PodGroups were read")
        return ("the Workload API (scheduling.k8s.io Workload and PodGroup) is not enabled on "
                "this cluster; no pod groups were read from it (enable the GenericWorkload "
                "feature gate and a scheduling.k8s.io alpha/beta version to use it)")


def scheduling_api(reader: Reader) -> SchedulingAPI:
    try:
        group = reader.get(f"/apis/{GROUP}", resource=f"API group {GROUP}")
    except NotServed:
        return SchedulingAPI(None, (), ())
    served = tuple(v.get("groupVersion", "") for v in group.get("versions") or ()
                   if isinstance(v, dict))
    for version in UNDERSTOOD:
        if version not in served:
            continue
        resources = _served(reader, version, WORKLOAD_RESOURCES)
        if resources:
            return SchedulingAPI(version, resources, served)
    return SchedulingAPI(None, (), served)


def _served(reader: Reader, version: str, wanted: Iterable[str]) -> tuple[str, ...]:
    """Those of ``wanted`` that the server lists under ``/apis/<version>``, in their order."""
    try:
        listing = reader.get(f"/apis/{version}", resource=f"API {version}")
    except NotServed:
        return ()
    names = {r.get("name") for r in listing.get("resources") or () if isinstance(r, dict)}
    return tuple(r for r in wanted if r in names)


DRA_VERSIONS = ("resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1")
DRA_RESOURCES = {"deviceclasses": "DeviceClass", "resourceslices": "ResourceSlice",
                 "devicetaintrules": "DeviceTaintRule", "resourceclaims": "ResourceClaim",
                 "resourceclaimtemplates": "ResourceClaimTemplate"}
DRA_NAMESPACED = frozenset({"resourceclaims", "resourceclaimtemplates"})


def resource_api(reader: Reader) -> tuple[str, tuple[str, ...]] | None:
    """The newest resource.k8s.io version tasplan reads that the server serves, and the DRA
    resources it lists (DeviceTaintRules may be served by another version only); None
    when DRA is not served."""
    for version in DRA_VERSIONS:
        resources = _served(reader, version, DRA_RESOURCES)
        if resources:
            return version, resources
    return None


KUEUE_VERSIONS = ("kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1beta1")
KUEUE_RESOURCES = {"topologies": "Topology", "resourceflavors": "ResourceFlavor",
                   "clusterqueues": "ClusterQueue", "cohorts": "Cohort",
                   "localqueues": "LocalQueue", "workloads": "Workload"}
KUEUE_NAMESPACED = frozenset({"localqueues", "workloads"})


def kueue_api(reader: Reader) -> tuple[str, tuple[str, ...]] | None:
    """The newest kueue.x-k8s.io version tasplan reads that the server serves, and the
    Kueue resources it lists; None when Kueue is not installed."""
    for version in KUEUE_VERSIONS:
        resources = _served(reader, version, KUEUE_RESOURCES)
        if resources:
            return version, resources
    return None


def server_version(reader: Reader) -> str:
    """``gitVersion`` from /version, or "" when the server does not say."""
    try:
        version = reader.get("/version", resource="the server version")
    except NotServed:
        return ""
    value = version.get("gitVersion") if isinstance(version, dict) else None
    return value if isinstance(value, str) else ""


# KAI-Scheduler's objects (--scheduler kai): (apiVersion, resource, kind, namespaced).
KAI_RESOURCES = (("kai.scheduler/v1alpha1", "topologies", "Topology", False),
                 ("scheduling.run.ai/v2alpha2", "podgroups", "PodGroup", True))


def kai_api(reader: Reader) -> tuple[tuple[str, str, str, bool], ...]:
    """The KAI resources the server serves (none on a cluster without KAI)."""
    return tuple(entry for entry in KAI_RESOURCES
                 if _served(reader, entry[0], (entry[1],)))

# Volcano's objects (--scheduler volcano): (apiVersion, resource, kind, namespaced). vcjobs
# are read for the pods their controller has not created yet (it waits for the PodGroup to
# leave Pending).
VOLCANO_RESOURCES = (("topology.volcano.sh/v1alpha1", "hypernodes", "HyperNode", False),
                     ("scheduling.volcano.sh/v1beta1", "podgroups", "PodGroup", True),
                     ("batch.volcano.sh/v1alpha1", "jobs", "Job", True))


def volcano_api(reader: Reader) -> tuple[tuple[str, str, str, bool], ...]:
    """The Volcano resources the server serves (none on a cluster without Volcano)."""
    return tuple(entry for entry in VOLCANO_RESOURCES
                 if _served(reader, entry[0], (entry[1],)))
