"""KAI's Kubeflow pod groupers: the PodGroup KAI makes for a TFJob, PyTorchJob, XGBoostJob,
JAXJob or MPIJob when the inputs hold no ``scheduling.run.ai`` PodGroup. Mirrors
``pkg/podgrouper/podgrouper/plugins/kubeflow/pytorch/pytorch_grouper_test.go`` (the cases
before segments) and ``kubeflow/distributed_common_test.go`` of kai-scheduler/KAI-Scheduler
at d5bc503a146317e51037d89775d77172c6d12f71."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tasplan.cli.app import app
from tasplan.model.kai import SubGroup
from tasplan.schedulers.kai.grouper import (
    REPLICA_TYPE_LABEL,
    GrouperError,
    kubeflow_pod_group,
)
from tests.builders import make_group, make_pod

CLUSTER = Path(__file__).resolve().parents[3] / "samples" / "cluster"
GROUP = make_group("job", min_count=None, key=None)
MIN_REPLICAS, MIN_AVAILABLE, WORKERS, MASTERS = 66, 33, 4, 2


def pytorch(master: bool = True, worker: bool = True, min_replicas: int | None = None,
            min_available: int | None = None) -> dict:
    specs = {}
    if master:
        specs["Master"] = {"replicas": MASTERS}
    if worker:
        specs["Worker"] = {"replicas": WORKERS}
    spec: dict = {"pytorchReplicaSpecs": specs}
    if min_replicas is not None:
        spec["elasticPolicy"] = {"minReplicas": min_replicas}
    if min_available is not None:
        spec["runPolicy"] = {"schedulingPolicy": {"minAvailable": min_available}}
    return {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
            "metadata": {"name": "test_job", "namespace": "test_namespace"}, "spec": spec}


def pod(name: str, replica_type: str | None = None):
    return replace(make_pod(name, 1), labels={REPLICA_TYPE_LABEL: replica_type}
                   if replica_type else {})


def meta(obj: dict, *pods, kind: str = "PyTorchJob"):
    spec, _ = kubeflow_pod_group(GROUP, pods, obj, kind)
    return spec


@pytest.mark.parametrize(("obj", "minimum"), [
    (pytorch(), WORKERS + MASTERS),                                 # _OnlyReplicas
    (pytorch(min_replicas=MIN_REPLICAS), MIN_REPLICAS),             # _OnlyMinReplicas
    (pytorch(min_available=MIN_AVAILABLE), MIN_AVAILABLE),          # _OnlyMinAvailable
    (pytorch(min_replicas=MIN_REPLICAS, min_available=MIN_AVAILABLE),
     MIN_AVAILABLE),                                                # _MinAvailableAndMinReplicas
    (pytorch(worker=False), MASTERS),                               # _OnlyMasterReplicas
    (pytorch(master=False), WORKERS),                               # _OnlyWorkerReplicas
    (pytorch(worker=False, min_replicas=MIN_REPLICAS), MIN_REPLICAS),  # _OnlyMasterWithMinReplicas
    (pytorch(master=False, min_replicas=MIN_REPLICAS), MIN_REPLICAS),  # _OnlyWorkerWithMinReplicas
    (pytorch(worker=False, min_available=MIN_AVAILABLE),
     MIN_AVAILABLE),                                                # _OnlyMasterWithMinAvailable
    (pytorch(master=False, min_available=MIN_AVAILABLE),
     MIN_AVAILABLE),                                                # _OnlyWorkerWithMinAvailable
], ids=["only-replicas", "only-min-replicas", "only-min-available",
        "min-available-and-min-replicas", "only-master", "only-worker",
        "only-master-min-replicas", "only-worker-min-replicas", "only-master-min-available",
        "only-worker-min-available"])
def test_pytorch_min_member(obj: dict, minimum: int) -> None:
    """TestGetPodGroupMetadata_Only*/_MinAvailableAndMinReplicas"""
    assert meta(obj).min_member == minimum


@pytest.mark.parametrize(("obj", "pods", "subgroups", "routed"), [
    # _SubGroups_MasterAndWorker: the master pod references the master subgroup
    (pytorch(), [pod("test-pod-master-0", "master")],
     [SubGroup("master", MASTERS, None, None, None),
      SubGroup("worker", WORKERS, None, None, None)], {"test-pod-master-0": "master"}),
    # _SubGroups_WorkerPod
    (pytorch(), [pod("test-pod-worker-0", "worker")],
     [SubGroup("master", MASTERS, None, None, None),
      SubGroup("worker", WORKERS, None, None, None)], {"test-pod-worker-0": "worker"}),
    # _SubGroups_OnlyMaster
    (pytorch(worker=False), [pod("test-pod-master-0", "master")],
     [SubGroup("master", MASTERS, None, None, None)], {"test-pod-master-0": "master"}),
    # _SubGroups_OnlyWorker
    (pytorch(master=False), [pod("test-pod-worker-0", "worker")],
     [SubGroup("worker", WORKERS, None, None, None)], {"test-pod-worker-0": "worker"}),
    # _SubGroups_PodWithoutReplicaTypeLabel: no subgroup references it
    (pytorch(), [pod("test-pod-0")],
     [SubGroup("master", MASTERS, None, None, None),
      SubGroup("worker", WORKERS, None, None, None)], {}),
])
def test_pytorch_subgroups(obj: dict, pods: list, subgroups: list, routed: dict) -> None:
    """TestGetPodGroupMetadata_SubGroups_*: the worker subgroup needs the rest of the
    job's minimum after the masters."""
    spec = meta(obj, *pods)
    assert list(spec.subgroups) == subgroups and dict(spec.pod_subgroups) == routed


def distributed(specs: dict, min_available: int | None = None) -> dict:
    spec: dict = {"xReplicaSpecs": specs}
    if min_available is not None:
        spec["runPolicy"] = {"schedulingPolicy": {"minAvailable": min_available}}
    return {"apiVersion": "kubeflow.org/v1", "kind": "TFJob",
            "metadata": {"name": "job", "namespace": "ns"}, "spec": spec}


def test_distributed_common(monkeypatch) -> None:
    """distributed_common_test.go: TestGetPodGroupMetadataRunPolicy (minAvailable wins over
    a replica spec of 0), _NoPods (0 replicas is an error), _NoMastersAllowed (the job's
    replicas without a Master), _NoMastersForbiden (a mandatory Master missing)."""
    from tasplan.schedulers.kai import grouper

    monkeypatch.setitem(grouper.KUBEFLOW, "TFJob", ("xReplicaSpecs", ("Master",)))
    assert meta(distributed({"Master": {"replicas": 0}}, 5), kind="TFJob").min_member == 5
    with pytest.raises(GrouperError, match="doesn't allow for 0 Master pods"):
        meta(distributed({"Master": {"replicas": 0}}), kind="TFJob")
    with pytest.raises(GrouperError, match="doesn't have a Master replica spec"):
        meta(distributed({"Worker": {"replicas": 2}}), kind="TFJob")
    monkeypatch.setitem(grouper.KUBEFLOW, "TFJob", ("xReplicaSpecs", ()))
    assert meta(distributed({"Worker": {"replicas": 2}}), kind="TFJob").min_member == 2


PYTORCHJOB = """\
apiVersion: kai.scheduler/v1alpha1
kind: Topology
metadata: {name: dc}
spec:
  levels:
  - {nodeLabel: topology.example.com/block}
  - {nodeLabel: topology.example.com/rack}
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: pt
  namespace: ml
  annotations: {kai.scheduler/topology: dc,
                kai.scheduler/topology-required-placement: topology.example.com/rack}
spec:
  runPolicy: {schedulingPolicy: {minAvailable: 3}}
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          schedulerName: kai-scheduler
          tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
          containers:
          - {name: pytorch, image: x, resources: {requests: {cpu: "1", nvidia.com/gpu: "8"}}}
    Worker:
      replicas: 3
      template:
        spec:
          schedulerName: kai-scheduler
          tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
          containers:
          - {name: pytorch, image: x, resources: {requests: {cpu: "1", nvidia.com/gpu: "8"}}}
"""


def test_a_pytorchjob_planned_as_kais_grouper_makes_it(tmp_path: Path) -> None:
    """End to end: a gang of minAvailable 3 (master 1 + 2 workers) in one rack, the fourth
    pod after it; schedulingPolicy.minAvailable draws no 'not honoured by kai' warning."""
    path = tmp_path / "pt.yaml"
    path.write_text(PYTORCHJOB)
    result = CliRunner().invoke(app, ["check", str(path), "-c", str(CLUSTER), "-o", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    (group,) = report["groups"]
    assert group["scheduler"] == "kai" and group["schedulable"]
    (note,) = [n["message"] for n in group["notes"] if n["code"] == "kai-podgrouper"]
    assert "PyTorchJob grouper makes: minMember 3, subgroups master (minMember 1), worker " \
        "(minMember 2)" in note
    assert not [w for w in report["warnings"] if "minAvailable" in w]
    (chosen,) = [p for p in group["placements"] if p["name"] == group["selected"]]
    assert len({node.rsplit("-", 1)[0] for node in chosen["assignments"].values()}) == 1
