"""Kubeflow training-operator v1 jobs (kubeflow.org/v1 PyTorchJob, TFJob, MPIJob,
XGBoostJob, PaddleJob, JAXJob) -> the pods the operator creates (see ``producers``).

Mirrors kubeflow/trainer release-1.9 (3a3a1da8d5287f9f96e1b2d3be6a4b6ad756566d),
``pkg/controller.v1/common/pod.go`` (``createNewPod``), ``common/job.go`` (the PodGroup)
and ``mpi/mpijob_controller.go`` (the v1 MPIJob's own launcher and workers):

- each replica type of ``<kind>ReplicaSpecs`` (input order) keeps ``replicas`` pods (default
  1) named ``<job>-<type>-<index>`` (the type lowercased), labelled
  ``training.kubeflow.org/operator-name`` (the controller's name), ``job-name``,
  ``replica-type``, ``replica-index`` and ``job-role: master`` for the pod its ``IsMasterRole``
  picks; the v1 MPIJob's launcher is ``<job>-launcher`` (no index);
- the names are fixed: a failed pod is recreated under its name, so existing pods are found
  by name;
- gang scheduling is the operator's (``--gang-scheduler-name`` volcano or scheduler-plugins),
  not the object's: a job with ``runPolicy.schedulingPolicy`` gets the PodGroup ``<job>``
  with ``minMember`` = ``minAvailable``, else all replicas, which tasplan plans as a
  kube-scheduler gang with a note saying so; without ``schedulingPolicy`` the pods are a
  basic group (``--gang`` applies).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from tasplan.load.fields import ObjectFields
from tasplan.load.producers import (
    Overrides,
    PodBatch,
    Producer,
    check_expansion,
    identity,
    pod_template,
    replicas,
)
from tasplan.load.scheduling import GroupSpec
from tasplan.model.group import Policy
from tasplan.model.source import Source

GROUP = "kubeflow.org"
API_VERSION = f"{GROUP}/v1"
_LABEL = "training.kubeflow.org/"
OPERATOR_NAME = f"{_LABEL}operator-name"
JOB_NAME = f"{_LABEL}job-name"
REPLICA_TYPE = f"{_LABEL}replica-type"
REPLICA_INDEX = f"{_LABEL}replica-index"
JOB_ROLE = f"{_LABEL}job-role"

# kind -> (replica specs field, controller name)
KINDS: Mapping[str, tuple[str, str]] = {
    "PyTorchJob": ("pytorchReplicaSpecs", "pytorchjob-controller"),
    "TFJob": ("tfReplicaSpecs", "tfjob-controller"),
    "MPIJob": ("mpiReplicaSpecs", "mpijob-controller"),
    "XGBoostJob": ("xgbReplicaSpecs", "xgboostjob-controller"),
    "PaddleJob": ("paddleReplicaSpecs", "paddlejob-controller"),
    "JAXJob": ("jaxReplicaSpecs", "jaxjob-controller"),
}


def _is_master(kind: str, types: list[str], rtype: str, index: int) -> bool:
    """Each controller's ``IsMasterRole`` (types lowercased)."""
    if kind == "PyTorchJob":
        return rtype == "master" if "master" in types else (rtype == "worker" and index == 0)
    if kind == "TFJob":
        if "chief" in types or "master" in types:
            return rtype in ("chief", "master")
        return rtype == "worker" and index == 0
    if kind == "MPIJob":
        return rtype == "launcher"
    if kind in ("XGBoostJob", "PaddleJob"):
        return rtype == "master"
    return index == 0  # JAXJob


def _pod(job: str, rtype: str, common: Mapping[str, str], master: Any, launcher: bool,
         i: int) -> tuple[str, Mapping[str, str]]:
    labels = {**common, REPLICA_TYPE: rtype}
    if launcher:  # the v1 MPIJob's launcher: one pod, no index label
        return f"{job}-launcher", {**labels, JOB_ROLE: "master"}
    labels[REPLICA_INDEX] = str(i)
    if master(i):
        labels[JOB_ROLE] = "master"
    return f"{job}-{rtype}-{i}", labels


def scheduling_policy(f: ObjectFields, spec: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """``runPolicy.schedulingPolicy``, None when absent."""
    run_policy = f.mapping(spec.get("runPolicy"), "spec.runPolicy")
    policy = run_policy.get("schedulingPolicy")
    return None if policy is None else f.mapping(policy, "spec.runPolicy.schedulingPolicy")


def min_available(f: ObjectFields, policy: Mapping[str, Any]) -> int | None:
    value = policy.get("minAvailable")
    path = "spec.runPolicy.schedulingPolicy.minAvailable"
    return None if value is None else f.int32(value, path, minimum=1)


def decode_kubeflow(source: Source, obj: Mapping[str, Any], overrides: Overrides) -> Producer:
    f = ObjectFields(source, obj)
    kind = obj["kind"]
    field_name, controller = KINDS[kind]
    namespace, name, spec = identity(f)
    if spec.get(field_name) is None:
        raise f.error(f"spec.{field_name}", "required field is missing")
    raw_specs = f.mapping(spec.get(field_name), f"spec.{field_name}")
    decoded = []
    for rtype_raw, raw in raw_specs.items():
        path = f"spec.{field_name}.{rtype_raw}"
        rs = f.mapping(raw, path)
        count = replicas(f, rs, f"{path}.replicas")
        decoded.append((str(rtype_raw).lower(), rs, count, path))
    total = sum(count for _, _, count, _ in decoded)
    check_expansion(f, f"spec.{field_name}", total)  # before listing them
    types = [rtype for rtype, _, _, _ in decoded]
    common = {OPERATOR_NAME: controller, JOB_NAME: name.replace("/", "-")}
    batches = []
    for rtype, rs, count, path in decoded:
        template = pod_template(f, rs.get("template"), f"{path}.template")
        launcher = kind == "MPIJob" and rtype == "launcher"
        master = partial(_is_master, kind, types, rtype)
        batches.append(PodBatch(
            template, f"{path}.template", 1 if launcher and count else count,
            partial(_pod, name, rtype, common, master, launcher), (), name, pod_set=rtype,
            labels={**common, REPLICA_TYPE: rtype}))

    policy = scheduling_policy(f, spec)
    if policy is None:
        return Producer(kind, API_VERSION, namespace, name, source, obj, tuple(batches),
                        overrides.group_spec(), False, count_field=f"spec.{field_name}")
    minimum = min_available(f, policy)
    size = minimum if minimum is not None else total
    what = f"minAvailable {minimum}" if minimum is not None else f"all {total} replicas"
    note = ("gang-assumed", f"{kind} {namespace}/{name} sets runPolicy.schedulingPolicy: the "
            "training operator, run with --gang-scheduler-name (volcano or scheduler-plugins), "
            f"creates PodGroup {name} with minMember {size} ({what}); planned as a "
            "kube-scheduler gang of that size (that scheduler's queue and minResources are "
            "not modelled)")
    return Producer(kind, API_VERSION, namespace, name, source, obj, tuple(batches),
                    GroupSpec(Policy.GANG, max(size, 1), overrides.topology_key), True,
                    count_field=f"spec.{field_name}", notes=(note,))
