"""Keep what scheduling reads, drop the rest (managedFields, annotations, status noise).

What is kept, per kind, is what a kube-scheduler plugin (in tree, modelled or not yet)
reads of that object, plus the identity fields reports name:

- Node: name, labels; ``spec.taints``, ``spec.unschedulable``; ``status.allocatable``,
  ``status.capacity``, ``status.images`` (ImageLocality).
- Pod: name, namespace, uid, labels, ownerReferences, deletionTimestamp; the spec without
  volumes that no plugin reads (configMap, secret, projected, downwardAPI, emptyDir) and
  containers reduced to name, image, resources, host ports and restartPolicy; ``status``
  phase, startTime, nominatedNodeName and the PodScheduled condition (the scheduler's last
  verdict). uid and startTime order preemption victims (upstream ``MoreImportantVictim``).
  A bound pod keeps no node affinity, node selector, tolerations, spread constraints,
  scheduling gates or container images: plugins read those of the pod being scheduled
  only, and running pods matter to it through their requests, ports, labels, volumes and
  inter-pod (anti-)affinity. (Dropping them also lets the pods of one controller share a
  spec in the snapshot's pod table.)
- PriorityClass, PodGroup, CompositePodGroup, Workload, PodDisruptionBudget, DeviceClass,
  ResourceSlice, ResourceClaimTemplate, DeviceTaintRule: everything but the noisy metadata.
- ResourceClaim: spec and ``status.allocation``. Pods keep ``status.resourceClaimStatuses``.
Annotations are dropped: no in-tree plugin reads them. The exceptions: a mirror pod's
``kubernetes.io/config.mirror`` (drain what-ifs leave mirror pods in place, as kubectl does),
Kueue's ``kueue.x-k8s.io/workload`` (the admitted Workload a pod runs for), KAI's
``pod-group-name`` (the KAI PodGroup a pod belongs to), Volcano's
``scheduling.k8s.io/group-name`` / ``scheduling.volcano.sh/group-name`` (a pod's PodGroup)
and ``volcano.sh/job-allocated-hypernode`` (on a PodGroup). A Node keeps its Ready condition
(Kueue's TAS counts only Ready nodes); Kueue's objects are kept whole.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tasplan.model.kai_inputs import (
    POD_GROUP_ANNOTATION,
    PREFERRED_ANNOTATION,
    REQUIRED_ANNOTATION,
    TOPOLOGY_ANNOTATION,
)
from tasplan.model.pod import KUEUE_WORKLOAD_ANNOTATION, MIRROR_ANNOTATION
from tasplan.model.volcano_inputs import ALLOCATED_HYPERNODE_ANNOTATION, VOLCANO_GROUP_ANNOTATIONS

# Volcano: the PodGroup a pod belongs to, and the HyperNode a PodGroup was allocated in.
# KAI: a bare kai-scheduler pod's own topology constraint (its default pod grouper reads it).
_KEPT_ANNOTATIONS = (MIRROR_ANNOTATION, KUEUE_WORKLOAD_ANNOTATION, POD_GROUP_ANNOTATION,
                     *VOLCANO_GROUP_ANNOTATIONS, ALLOCATED_HYPERNODE_ANNOTATION,
                     TOPOLOGY_ANNOTATION, REQUIRED_ANNOTATION, PREFERRED_ANNOTATION)

_META = ("name", "namespace", "labels", "ownerReferences", "deletionTimestamp", "uid")
_NODE_META = ("name", "labels")
_IGNORED_VOLUMES = frozenset({"configMap", "secret", "projected", "downwardAPI", "emptyDir"})
_PENDING_ONLY = ("nodeSelector", "tolerations", "topologySpreadConstraints",
                 "schedulingGates")
_SPEC_DROP = frozenset({
    "containers", "initContainers", "ephemeralContainers", "volumes", "affinity",
    "serviceAccount", "serviceAccountName", "automountServiceAccountToken", "dnsPolicy",
    "dnsConfig", "enableServiceLinks", "securityContext", "terminationGracePeriodSeconds",
    "activeDeadlineSeconds", "hostname", "subdomain", "setHostnameAsFQDN", "imagePullSecrets",
    "readinessGates", "shareProcessNamespace", "hostAliases", "restartPolicy",
})


def _dict(value: Any) -> dict[str, Any]:
    """A part the loader reads as a mapping, or an empty one: pruning never fails on a
    malformed part (the loader has refused what it reads; the rest is dropped)."""
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _pick(obj: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(obj, dict):  # a part the loader does not read: not kept
        return {}
    return {k: obj[k] for k in keys if obj.get(k) not in (None, {}, [])}


def _metadata(obj: Mapping[str, Any], keys: tuple[str, ...] = _META) -> dict[str, Any]:
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    out = _pick(meta, keys)
    annotations = meta.get("annotations")
    if isinstance(annotations, dict):
        kept = {k: annotations[k] for k in _KEPT_ANNOTATIONS if k in annotations}
        if kept:
            out["annotations"] = kept
    return out


def prune_node(obj: Mapping[str, Any]) -> dict[str, Any]:
    status = _dict(obj.get("status"))
    kept = _pick(status, ("allocatable", "capacity", "images"))
    ready = [_pick(c, ("type", "status")) for c in _list(status.get("conditions"))
             if isinstance(c, dict) and c.get("type") == "Ready"][:1]
    if ready:
        kept["conditions"] = ready  # Kueue's TAS counts only Ready nodes
    return {
        "apiVersion": obj.get("apiVersion", "v1"), "kind": "Node",
        "metadata": _metadata(obj, _NODE_META),
        "spec": _pick(_dict(obj.get("spec")), ("taints", "unschedulable")),
        "status": kept,
    }


def _container(c: Mapping[str, Any], bound: bool) -> dict[str, Any]:
    out = _pick(c, ("name", "resources", "restartPolicy") if bound
                else ("name", "image", "resources", "restartPolicy"))
    ports = [p for p in _list(c.get("ports")) if isinstance(p, dict) and p.get("hostPort")]
    if ports:
        out["ports"] = ports
    return out


def prune_pod(obj: Mapping[str, Any]) -> dict[str, Any]:
    spec = _dict(obj.get("spec"))
    status = _dict(obj.get("status"))
    bound = bool(spec.get("nodeName"))
    out = {k: v for k, v in spec.items()
           if k not in _SPEC_DROP and not (bound and k in _PENDING_ONLY)}
    for key in ("containers", "initContainers"):
        if _list(spec.get(key)):
            out[key] = [_container(c, bound) if isinstance(c, dict) else c for c in spec[key]]
    volumes = [v for v in _list(spec.get("volumes"))
               if not (isinstance(v, dict) and _IGNORED_VOLUMES.intersection(v))]
    if volumes:
        out["volumes"] = volumes
    affinity = _dict(spec.get("affinity"))
    if bound:  # running pods matter to others only through inter-pod (anti-)affinity
        affinity = _pick(affinity, ("podAffinity", "podAntiAffinity"))
    if affinity:
        out["affinity"] = affinity
    kept = _pick(status, ("phase", "startTime", "nominatedNodeName",
                          "resourceClaimStatuses"))
    scheduled = [c for c in _list(status.get("conditions"))
                 if isinstance(c, dict) and c.get("type") == "PodScheduled"
                 and c.get("status") != "True"]
    if scheduled:
        kept["conditions"] = [_pick(c, ("type", "status", "reason", "message"))
                              for c in scheduled]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": _metadata(obj), "spec": out}
    if kept:
        pod["status"] = kept
    return pod


def prune_other(obj: Mapping[str, Any]) -> dict[str, Any]:
    """Objects whose spec is small and read whole: keep all but metadata noise."""
    out = {k: v for k, v in obj.items() if k != "metadata"}
    out["metadata"] = _metadata(obj)
    return out


def prune_selector_owner(obj: Mapping[str, Any]) -> dict[str, Any]:
    """Services and workload controllers matter only through the pods they select
    (PodTopologySpread's system default spreading): keep the selector, and a
    ReplicationController's template labels, which default its selector."""
    spec = _dict(obj.get("spec"))
    kept: dict[str, Any] = {}
    if "selector" in spec:
        kept["selector"] = spec["selector"]
    labels = _dict(_dict(spec.get("template")).get("metadata")).get("labels")
    if obj.get("kind") == "ReplicationController" and labels:
        kept["template"] = {"metadata": {"labels": labels}}
    return {"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"),
            "metadata": _metadata(obj), "spec": kept}


def prune_claim(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A ResourceClaim: its spec, and of its status the allocation (the devices it holds
    and where it can be used); reservedFor and device status are not read."""
    out = {"apiVersion": obj.get("apiVersion"), "kind": "ResourceClaim",
           "metadata": _metadata(obj), "spec": _dict(obj.get("spec"))}
    allocation = _dict(obj.get("status")).get("allocation")
    if allocation:
        out["status"] = {"allocation": allocation}
    return out


PRUNERS: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "Node": prune_node, "Pod": prune_pod, "Service": prune_selector_owner,
    "ReplicaSet": prune_selector_owner, "StatefulSet": prune_selector_owner,
    "ReplicationController": prune_selector_owner, "ResourceClaim": prune_claim,
}


def prune(obj: Mapping[str, Any]) -> dict[str, Any]:
    return PRUNERS.get(obj.get("kind", ""), prune_other)(obj)
