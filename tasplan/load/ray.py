"""KubeRay ray.io/v1 RayCluster, RayJob and RayService -> the Ray cluster's pods (see
``producers``).

Mirrors ray-project/kuberay v1.7.0 (feeaf72facab4881ba2b179248bb67315634e229 on master):
``controllers/ray/common/pod.go`` (``DefaultHeadPodTemplate``, ``DefaultWorkerPodTemplate``,
``labelPod``, ``BuildAutoscalerContainer``), ``utils/util.go`` (``PodName``,
``GetWorkerGroupDesiredReplicas``, ``CalculateDesiredReplicas``), ``rayjob_controller.go``
(``constructRayClusterForRayJob``) and the batch schedulers
(``batchscheduler/kubernetes-was/v1alpha2``, ``volcano``, ``scheduler-plugins``):

- the head pod (tasplan names it ``<cluster>-head``; KubeRay adds a random suffix unless
  ENABLE_DETERMINISTIC_HEAD_POD_NAME) and, per worker group, ``replicas`` (clamped to
  ``minReplicas``/``maxReplicas``, 0 when suspended) × ``numOfHosts`` workers
  ``<cluster>-<group>-worker-<i>`` (prefix cut at 50 characters), with ``labelPod``'s
  labels (the template's and the group's ``labels`` may override all but ``ray.io/cluster``,
  ``node-type`` and ``group``) and RayMultiHostIndexing's replica labels (beta, on by
  default);
- what KubeRay adds to the pods' requests: the autoscaler sidecar of the head with
  ``enableInTreeAutoscaling`` (500m / 512Mi unless ``autoscalerOptions.resources``), the
  ``wait-gcs-ready`` init container of every worker (200m / 256Mi);
- ``ray.io/gang-scheduling-enabled: "true"`` (without autoscaling): one gang of the head and
  every desired worker, as KubeRay's kubernetes-was-v1alpha2 batch scheduler writes it
  (Workload ``<cluster>``, PodGroup ``<cluster>-cluster`` with ``minCount`` 1 + workers; the
  Volcano and scheduler-plugins batch schedulers give their PodGroup the same minMember).
  The whole cluster is one gang, multi-host replicas included: KubeRay's controller keeps a
  multi-host replica whole (it deletes incomplete ones) but writes no gang per replica. Each
  worker group is one PodSet, and each multi-host replica's pods share
  ``ray.io/worker-group-replica-name``, for schedulers that group them;
- a RayJob (K8sJobMode by default) or a RayService creates a RayCluster
  ``<name>-<5 random characters>``: tasplan names it ``<name>-00000`` (the generateName
  rule) and gives it the object's labels, as ``constructRayClusterForRayJob``. The RayJob's
  submitter Job is created once the cluster is ready and is not planned (a note says so);
  in SidecarMode the submitter is a container of the head. A RayJob with
  ``clusterSelector`` runs on an existing cluster: nothing to create.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from typing import Any

from tasplan.load.fields import ObjectFields
from tasplan.load.producers import (
    Overrides,
    PodBatch,
    Producer,
    Unplannable,
    check_expansion,
    identity,
    pod_template,
)
from tasplan.load.scheduling import GroupSpec
from tasplan.model.group import Policy
from tasplan.model.source import Source

GROUP = "ray.io"
VERSIONS = (f"{GROUP}/v1",)
KINDS = ("RayCluster", "RayJob", "RayService")
GANG_LABEL = "ray.io/gang-scheduling-enabled"
CLUSTER = "ray.io/cluster"
NODE_TYPE = "ray.io/node-type"
NODE_GROUP = "ray.io/group"
_FIXED = (CLUSTER, NODE_TYPE, NODE_GROUP)  # labelPod: not overridable
REPLICA_INDEX = "ray.io/worker-group-replica-index"
REPLICA_NAME = "ray.io/worker-group-replica-name"
HOST_INDEX = "ray.io/replica-host-index"
_MAX_PREFIX = 50
_INT32_MAX = 2**31 - 1
_AUTOSCALER = {"requests": {"cpu": "500m", "memory": "512Mi"},
               "limits": {"cpu": "500m", "memory": "512Mi"}}
_WAIT_GCS = {"requests": {"cpu": "200m", "memory": "256Mi"},
             "limits": {"cpu": "200m", "memory": "256Mi"}}
_SUBMITTER = {"requests": {"cpu": "500m", "memory": "200Mi"},
              "limits": {"cpu": "1", "memory": "1Gi"}}


def _labels(cluster: str, node_type: str, group: str, override: Mapping[str, str]
            ) -> dict[str, str]:
    labels = {"ray.io/is-ray-node": "yes", CLUSTER: cluster, NODE_TYPE: node_type,
              NODE_GROUP: group, "ray.io/identifier": _check_label(f"{cluster}-{node_type}"),
              "app.kubernetes.io/name": "kuberay",
              "app.kubernetes.io/created-by": "kuberay-operator"}
    labels.update((k, v) for k, v in override.items() if k not in _FIXED)
    return labels


def _check_label(value: str) -> str:
    """``utils.CheckLabel``: the last 63 characters, a leading punctuation made ``r``."""
    value = value[-63:]
    return "r" + value[1:] if value and not value[0].isalnum() else value


def _with_container(template: Mapping[str, Any], name: str, resources: Mapping[str, Any],
                    init: bool = False) -> Mapping[str, Any]:
    """The template with one more (init) container of these resources."""
    spec = template.get("spec")
    field = "initContainers" if init else "containers"
    if not isinstance(spec, dict) or not isinstance(spec.get(field) or [], list):
        return template  # malformed: decoding the template reports it
    container = {"name": name, "resources": dict(resources)}
    return {**template, "spec": {**spec, field: [*(spec.get(field) or []), container]}}


def _head(name: str, labels: Mapping[str, str], _: int) -> tuple[str, Mapping[str, str]]:
    return name, labels


def _worker(prefix: str, labels: Mapping[str, str], hosts: int, group: str, i: int
            ) -> tuple[str, Mapping[str, str]]:
    replica, host = divmod(i, hosts)
    out = {**labels, REPLICA_INDEX: str(replica)}
    if hosts > 1:
        out[REPLICA_NAME] = f"{group}-{replica:05d}"  # KubeRay: <group>-<5 random>
        out[HOST_INDEX] = str(host)
    return f"{prefix}-{i}", out


def _bool(f: ObjectFields, value: object, field: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise f.expected(field, "true or false", value)
    return value


def cluster_batches(f: ObjectFields, cluster: str, spec: Mapping[str, Any], path: str,
                    group: str, sidecar: bool = False) -> tuple[list[PodBatch], int, bool]:
    """The pods of a RayCluster spec at ``path``: batches, desired workers, autoscaling."""
    autoscaling = _bool(f, spec.get("enableInTreeAutoscaling"),
                        f"{path}.enableInTreeAutoscaling")
    if _bool(f, spec.get("suspend"), f"{path}.suspend"):
        return [], 0, autoscaling
    head_spec = f.mapping(spec.get("headGroupSpec"), f"{path}.headGroupSpec")
    if not head_spec:
        raise f.error(f"{path}.headGroupSpec", "required field is missing")
    workers = []
    total = 0
    for i, raw in enumerate(f.sequence(spec.get("workerGroupSpecs"),
                                       f"{path}.workerGroupSpecs")):
        wp = f"{path}.workerGroupSpecs[{i}]"
        w = f.mapping(raw, wp)
        name = f.string(w.get("groupName"), f"{wp}.groupName", required=True)
        count = _desired(f, w, wp)
        hosts = w.get("numOfHosts")
        hosts = 1 if hosts is None else max(f.int32(hosts, f"{wp}.numOfHosts", minimum=0), 1)
        workers.append((name, w, wp, count, hosts))
        total += count * hosts
    check_expansion(f, f"{path}.workerGroupSpecs", total + 1)  # before listing them

    head_path = f"{path}.headGroupSpec.template"
    head = pod_template(f, head_spec.get("template"), head_path)
    head_labels = _labels(cluster, "head", "headgroup", {
        **((head.get("metadata") or {}).get("labels") or {}),
        **f.string_map(head_spec.get("labels"), f"{path}.headGroupSpec.labels")})
    if autoscaling:
        options = f.mapping(spec.get("autoscalerOptions"), f"{path}.autoscalerOptions")
        resources = f.mapping(options.get("resources"), f"{path}.autoscalerOptions.resources")
        head = _with_container(head, "autoscaler", resources or _AUTOSCALER)
    if sidecar:
        head = _with_container(head, "ray-job-submitter", _SUBMITTER)
    cluster_selector = {CLUSTER: cluster}
    batches = [PodBatch(head, head_path, 1, partial(_head, f"{cluster}-head", head_labels),
                        ({**cluster_selector, NODE_TYPE: "head"},), group, pod_set="head",
                        labels=head_labels)]
    for name, w, wp, count, hosts in workers:
        template = pod_template(f, w.get("template"), f"{wp}.template")
        labels = _labels(cluster, "worker", name, {
            **((template.get("metadata") or {}).get("labels") or {}),
            **f.string_map(w.get("labels"), f"{wp}.labels")})
        prefix = f"{cluster}-{name}"[:_MAX_PREFIX].lower() + "-worker"
        batches.append(PodBatch(
            _with_container(template, "wait-gcs-ready", _WAIT_GCS, init=True),
            f"{wp}.template", count * hosts, partial(_worker, prefix, labels, hosts, name),
            ({**cluster_selector, NODE_TYPE: "worker", NODE_GROUP: name},), group,
            pod_set=name.lower(), labels=labels))
    return batches, total, autoscaling


def _desired(f: ObjectFields, w: Mapping[str, Any], path: str) -> int:
    """``GetWorkerGroupDesiredReplicas`` without numOfHosts: replicas within min/max."""
    if _bool(f, w.get("suspend"), f"{path}.suspend"):
        return 0
    low = w.get("minReplicas")
    low = 0 if low is None else f.int32(low, f"{path}.minReplicas", minimum=0)
    high = w.get("maxReplicas")
    high = _INT32_MAX if high is None else f.int32(high, f"{path}.maxReplicas", minimum=0)
    count = w.get("replicas")
    count = 0 if count is None else f.int32(count, f"{path}.replicas", minimum=0)
    return low if count < low else min(count, high)


def decode_ray(source: Source, obj: Mapping[str, Any], overrides: Overrides) -> Producer:
    f = ObjectFields(source, obj)
    kind = obj["kind"]
    namespace, name, spec = identity(f)
    meta = f.mapping(obj.get("metadata"), "metadata")
    labels = f.string_map(meta.get("labels"), "metadata.labels")
    notes: list[tuple[str, str]] = []
    sidecar = False
    if kind == "RayCluster":
        cluster, path, cluster_spec = name, "spec", spec
    else:
        field = "rayClusterSpec" if kind == "RayJob" else "rayClusterConfig"
        if kind == "RayJob" and f.mapping(spec.get("clusterSelector"), "spec.clusterSelector"):
            raise Unplannable("it runs on an existing RayCluster (spec.clusterSelector): "
                              "nothing to create", "plan that cluster's pods from the dump")
        cluster_spec = f.mapping(spec.get(field), f"spec.{field}")
        if not cluster_spec:
            raise f.error(f"spec.{field}", "required field is missing")
        cluster, path = f"{name}-00000", f"spec.{field}"
        mode = f.string(spec.get("submissionMode"), "spec.submissionMode") or "K8sJobMode"
        sidecar = kind == "RayJob" and mode == "SidecarMode"
        if kind == "RayJob" and mode == "K8sJobMode":
            notes.append(("ray-submitter", f"RayJob {namespace}/{name}: the submitter Job "
                          f"{name} (one pod) is created once the cluster is ready and is not "
                          "planned"))
        notes.append(("ray-cluster-name", f"{kind} {namespace}/{name} creates RayCluster "
                      f"{name}-<5 random characters>; tasplan names it {cluster}"))
    group = cluster
    gang = labels.get(GANG_LABEL, "").lower() == "true"
    batches, workers, autoscaling = cluster_batches(f, cluster, cluster_spec, path, group,
                                                    sidecar)
    if gang and not autoscaling:
        group = f"{cluster}-cluster"
        batches = [replace(b, group=group) for b in batches]
        notes.append(("gang-assumed", f"{GANG_LABEL}: KubeRay's kubernetes-was-v1alpha2 batch "
                      f"scheduler writes Workload {cluster} and PodGroup {group}, a gang of "
                      f"{workers + 1} (the head and {workers} worker(s)); the volcano and "
                      "scheduler-plugins batch schedulers give their PodGroup the same "
                      "minMember"))
        return Producer(kind, obj["apiVersion"], namespace, name, source, obj, tuple(batches),
                        GroupSpec(Policy.GANG, workers + 1, overrides.topology_key), True,
                        count_field=f"{path}.workerGroupSpecs", notes=tuple(notes),
                        takes_topology_key=True)
    if gang:
        notes.append(("gang-assumed", f"{GANG_LABEL} with enableInTreeAutoscaling: KubeRay's "
                      "kubernetes-was batch scheduler writes no gang for an autoscaling "
                      "cluster; planned as a basic group"))
    return Producer(kind, obj["apiVersion"], namespace, name, source, obj, tuple(batches),
                    overrides.group_spec(), False, count_field=f"{path}.workerGroupSpecs",
                    notes=tuple(notes))
