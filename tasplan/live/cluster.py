"""Read a cluster into a snapshot document: the objects scheduling needs, pruned as they
arrive, then encoded in the snapshot format. ``check --live`` and ``tasplan snapshot``
both go through here, so what a live check sees is exactly what a snapshot keeps."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from tasplan.gc_pause import gc_paused
from tasplan.live.config import Connection
from tasplan.live.discovery import (
    DRA_NAMESPACED,
    DRA_RESOURCES,
    KUEUE_NAMESPACED,
    KUEUE_RESOURCES,
    kai_api,
    kueue_api,
    resource_api,
    scheduling_api,
    server_version,
    volcano_api,
)
from tasplan.live.errors import ClusterError, Forbidden
from tasplan.live.lister import ListProgress, NotServed, Reader
from tasplan.snapshot.format import Origin, encode
from tasplan.snapshot.prune import prune, prune_node, prune_pod
from tasplan.version import __version__


def read_cluster(connection: Connection, *, namespace: str = "",
                 timeout: float | None = None,
                 progress: Callable[[ListProgress], None] | None = None,
                 ) -> tuple[dict[str, Any], list[str]]:
    """The snapshot document of the cluster behind ``connection`` and warnings for the
    user. ``namespace`` limits the namespaced lists (pods, PDBs, groups); nodes and
    PriorityClasses are cluster-wide."""
    started = time.monotonic()
    taken_at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    reader = Reader(connection, timeout=timeout, progress=progress)
    version = server_version(reader)
    api = scheduling_api(reader)
    scope = f"/namespaces/{namespace}" if namespace else ""
    within = f" in namespace {namespace}" if namespace else ""  # for namespaced lists
    lists: list[tuple[str, str, str, str, Callable]] = [
        ("/api/v1/nodes", "Node", "v1", "nodes", prune_node),
        ("/apis/scheduling.k8s.io/v1/priorityclasses", "PriorityClass",
         "scheduling.k8s.io/v1", "priorityclasses.scheduling.k8s.io", prune),
        (f"/apis/policy/v1{scope}/poddisruptionbudgets", "PodDisruptionBudget", "policy/v1",
         f"poddisruptionbudgets.policy{within}", prune),
        # Namespace labels serve pod affinity namespaceSelectors; Services and controllers
        # select the pods PodTopologySpread spreads by default.
        ("/api/v1/namespaces", "Namespace", "v1", "namespaces", prune),
        (f"/api/v1{scope}/services", "Service", "v1", f"services{within}", prune),
        (f"/api/v1{scope}/replicationcontrollers", "ReplicationController", "v1",
         f"replicationcontrollers{within}", prune),
        (f"/apis/apps/v1{scope}/replicasets", "ReplicaSet", "apps/v1",
         f"replicasets.apps{within}", prune),
        (f"/apis/apps/v1{scope}/statefulsets", "StatefulSet", "apps/v1",
         f"statefulsets.apps{within}", prune),
    ]
    if api.version:
        for resource, kind in (("workloads", "Workload"), ("podgroups", "PodGroup"),
                               ("compositepodgroups", "CompositePodGroup")):
            if resource in api.resources:
                lists.append((f"/apis/{api.version}{scope}/{resource}", kind, api.version,
                              f"{resource}.scheduling.k8s.io{within}", prune))
    dra = resource_api(reader)
    optional: set[str] = set()
    if dra is not None:  # DRA: devices, classes, claims (the allocated ones hold devices)
        version, resources = dra
        for resource in resources:
            where, said = (scope, within) if resource in DRA_NAMESPACED else ("", "")
            lists.append((f"/apis/{version}{where}/{resource}", DRA_RESOURCES[resource],
                          version, f"{resource}.resource.k8s.io{said}", prune))
            optional.add(lists[-1][3])
    kueue = kueue_api(reader)
    if kueue is not None:  # Kueue: topologies, flavors, queues, admitted Workloads
        version, resources = kueue
        for resource in resources:
            where, said = (scope, within) if resource in KUEUE_NAMESPACED else ("", "")
            lists.append((f"/apis/{version}{where}/{resource}", KUEUE_RESOURCES[resource],
                          version, f"{resource}.kueue.x-k8s.io{said}", prune))
            optional.add(lists[-1][3])
    for version, resource, kind, namespaced in kai_api(reader):  # KAI (--scheduler kai)
        where, said = (scope, within) if namespaced else ("", "")
        group = version.split("/")[0]
        lists.append((f"/apis/{version}{where}/{resource}", kind, version,
                      f"{resource}.{group}{said}", prune))
        optional.add(lists[-1][3])
    for version, resource, kind, namespaced in volcano_api(reader):  # --scheduler volcano
        where, said = (scope, within) if namespaced else ("", "")
        lists.append((f"/apis/{version}{where}/{resource}", kind, version,
                      f"{resource}.{version.split('/')[0]}{said}", prune))
        optional.add(lists[-1][3])
    lists.append((f"/api/v1{scope}/pods", "Pod", "v1", f"pods{within}", prune_pod))
    objects: list[dict[str, Any]] = []
    warnings: list[str] = []
    with gc_paused(freeze=True):  # as when loading: 150k pods' dicts would trigger scan after scan
        for path, kind, api_version, resource, transform in lists:
            try:
                objects.extend(reader.list(path, kind=kind, api_version=api_version,
                                           resource=resource, transform=transform))
            except Forbidden:
                if resource not in optional:
                    raise
                what = _without(resource)
                warnings.append(f"RBAC does not allow listing {resource}: {what} (see "
                                "samples/rbac)")
            except NotServed:
                if resource not in optional:
                    raise ClusterError(connection.server, f"404 Not Found for list {resource}:"
                                       " the server does not serve it, and tasplan cannot "
                                       "plan without it (is this a Kubernetes API "
                                       "server?)") from None
                what = _without(resource)
                warnings.append(f"the server does not serve {resource} (404): {what}")
        origin = Origin(
            taken_at=taken_at, duration_seconds=round(time.monotonic() - started, 3),
            tasplan_version=__version__, server=connection.server, server_version=version,
            context=connection.context, cluster=connection.cluster, namespace=namespace,
            scheduling_version=api.version or "")
        document = encode(objects, origin)
    warning = api.warning()
    return document, ([warning] if warning else []) + warnings


def _without(resource: str) -> str:
    """What a plan lacks when an optional list cannot be read."""
    if "kueue.x-k8s.io" in resource:
        return "Kueue's objects are planned without it (--scheduler kueue)"
    if "volcano.sh" in resource:
        return "Volcano's objects are planned without it (--scheduler volcano)"
    if "kai.scheduler" in resource or "scheduling.run.ai" in resource:
        return "KAI's Topologies and PodGroups are planned without it (--scheduler kai)"
    return "DRA devices and claims are planned without it"
