"""MPI Operator kubeflow.org/v2beta1 MPIJob -> the launcher and workers it creates (see
``producers``).

Mirrors kubeflow/mpi-operator caa3c47fc42eb762635f78045ec0fcd1a89eb038
``pkg/controller/mpi_job_controller.go`` (``newWorker``, ``newLauncherJob``,
``newLauncherPodTemplate``, ``defaultLabels``), ``pkg/controller/podgroup.go``
(``calculateMinAvailable``) and ``pkg/apis/kubeflow/v2beta1/default.go``:

- ``Worker.replicas`` (default 0) pods ``<job>-worker-<i>``, labelled
  ``training.kubeflow.org/operator-name: mpi-operator``, ``job-name``, ``job-role: worker``
  and ``replica-index`` (``i + 1`` with ``runLauncherAsWorker``);
- the launcher is a batch Job ``<job>-launcher`` of one pod (``Launcher.replicas`` defaults
  to 1), its template labelled ``job-role: launcher`` (and ``replica-index: 0`` with
  ``runLauncherAsWorker``) plus the Job controller's labels; tasplan names its pod
  ``<job>-launcher-0`` (the Job controller adds a random suffix);
- the gang is the operator's, with ``--gang-scheduling`` (volcano or scheduler-plugins):
  PodGroup ``<job>`` with ``minMember`` = ``runPolicy.schedulingPolicy.minAvailable``, else
  workers + 1. A job that sets ``schedulingPolicy`` is planned as a kube-scheduler gang of
  that size, with a note; one without is a basic group (``--gang`` applies).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from tasplan.load.batch import job_batch
from tasplan.load.fields import ObjectFields
from tasplan.load.kubeflow import (
    JOB_NAME,
    JOB_ROLE,
    OPERATOR_NAME,
    REPLICA_INDEX,
    min_available,
    scheduling_policy,
)
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

API_VERSION = "kubeflow.org/v2beta1"
OPERATOR = "mpi-operator"


def _worker(job: str, common: Mapping[str, str], offset: int, i: int
            ) -> tuple[str, Mapping[str, str]]:
    return f"{job}-worker-{i}", {**common, REPLICA_INDEX: str(i + offset)}


def decode_mpijob(source: Source, obj: Mapping[str, Any], overrides: Overrides) -> Producer:
    f = ObjectFields(source, obj)
    namespace, name, spec = identity(f)
    specs = f.mapping(spec.get("mpiReplicaSpecs"), "spec.mpiReplicaSpecs")
    if "Launcher" not in specs:
        raise f.error("spec.mpiReplicaSpecs.Launcher", "required field is missing")
    for key in specs:
        if key not in ("Launcher", "Worker"):
            raise f.expected(f"spec.mpiReplicaSpecs.{key}", "Launcher or Worker", key)
    launcher = f.mapping(specs["Launcher"], "spec.mpiReplicaSpecs.Launcher")
    launchers = replicas(f, launcher, "spec.mpiReplicaSpecs.Launcher.replicas")
    worker = f.mapping(specs.get("Worker"), "spec.mpiReplicaSpecs.Worker")
    workers = replicas(f, worker, "spec.mpiReplicaSpecs.Worker.replicas", default=0) \
        if "Worker" in specs else 0
    check_expansion(f, "spec.mpiReplicaSpecs", workers + min(launchers, 1))
    as_worker = spec.get("runLauncherAsWorker")
    if as_worker is not None and not isinstance(as_worker, bool):
        raise f.expected("spec.runLauncherAsWorker", "true or false", as_worker)

    batches = []
    launcher_labels = {OPERATOR_NAME: OPERATOR, JOB_NAME: name, JOB_ROLE: "launcher"}
    if as_worker:
        launcher_labels[REPLICA_INDEX] = "0"
    if launchers:
        template = pod_template(f, launcher.get("template"),
                                "spec.mpiReplicaSpecs.Launcher.template")
        batch, _ = job_batch(f, f"{name}-launcher", {"template": template},
                             "spec.mpiReplicaSpecs.Launcher", name, launcher_labels)
        batches.append(PodBatch(batch.template, batch.template_path, 1, batch.pod,
                                batch.selectors, name, pod_set="launcher",
                                labels=launcher_labels))
    if workers:
        template = pod_template(f, worker.get("template"), "spec.mpiReplicaSpecs.Worker.template")
        common = {OPERATOR_NAME: OPERATOR, JOB_NAME: name, JOB_ROLE: "worker"}
        batches.append(PodBatch(template, "spec.mpiReplicaSpecs.Worker.template", workers,
                                partial(_worker, name, common, 1 if as_worker else 0), (),
                                name, pod_set="worker", labels=common))

    policy = scheduling_policy(f, spec)
    if policy is None:
        return Producer("MPIJob", API_VERSION, namespace, name, source, obj, tuple(batches),
                        overrides.group_spec(), False, count_field="spec.mpiReplicaSpecs")
    minimum = min_available(f, policy)
    size = minimum if minimum is not None else workers + 1
    what = f"minAvailable {minimum}" if minimum is not None else f"{workers} workers + 1"
    note = ("gang-assumed", f"MPIJob {namespace}/{name} sets runPolicy.schedulingPolicy: the "
            "MPI Operator, run with --gang-scheduling (volcano or scheduler-plugins), creates "
            f"PodGroup {name} with minMember {size} ({what}); planned as a kube-scheduler "
            "gang of that size (that scheduler's queue and minResources are not modelled)")
    return Producer("MPIJob", API_VERSION, namespace, name, source, obj, tuple(batches),
                    GroupSpec(Policy.GANG, max(size, 1), overrides.topology_key), True,
                    count_field="spec.mpiReplicaSpecs", notes=(note,), takes_topology_key=True)
