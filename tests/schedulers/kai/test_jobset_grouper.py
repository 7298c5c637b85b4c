"""KAI's JobSet pod grouper: the PodGroup KAI makes for a JobSet when the inputs hold no
``scheduling.run.ai`` PodGroup. Mirrors ``pkg/podgrouper/podgrouper/plugins/jobset/
jobset_grouper_test.go`` of kai-scheduler/KAI-Scheduler at
d5bc503a146317e51037d89775d77172c6d12f71 case by case (the legacy-PodGroup cases need a live
PodGroup without subgroups: with one in the inputs tasplan plans that PodGroup itself)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tasplan.cli.app import app
from tasplan.model.kai import Constraint, SubGroup
from tasplan.schedulers.kai.grouper import (
    JOB_INDEX_LABEL,
    MIN_MEMBER,
    PREFERRED,
    REPLICATED_JOB_LABEL,
    REQUIRED,
    TOPOLOGY,
    GrouperError,
    jobset_pod_group,
)
from tests.builders import make_group, make_pod

CLUSTER = Path(__file__).resolve().parents[3] / "samples" / "cluster"


def base_jobset(*jobs: dict, annotations: dict | None = None, order: str | None = None
                ) -> dict:
    spec: dict = {"replicatedJobs": list(jobs)}
    if order is not None:
        spec["startupPolicy"] = {"startupPolicyOrder": order}
    meta = {"name": "js", "namespace": "default", "uid": "uid"}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": meta,
            "spec": spec}


def replicated_job(name: str, replicas: int, parallelism: int,
                   annotations: dict | None = None) -> dict:
    template: dict = {"spec": {"parallelism": parallelism}}
    if annotations is not None:
        template["metadata"] = {"annotations": annotations}
    return {"name": name, "replicas": replicas, "template": template}


def pod(name: str, job: str | None, index: str | None):
    labels = {k: v for k, v in ((REPLICATED_JOB_LABEL, job), (JOB_INDEX_LABEL, index)) if v}
    return replace(make_pod(name, 1), labels=labels)


GROUP = make_group("js", min_count=None, key=None)


def meta(obj: dict, *pods):
    """The grouper's PodGroup for ``pods`` (default: pod ``p`` of the first replicated Job's
    replica 0, as upstream's tests give one pod)."""
    jobs = obj["spec"]["replicatedJobs"]
    first = jobs[0]["name"] if jobs else "worker"
    spec, _ = jobset_pod_group(GROUP, pods or [pod("p", first, "0")], obj)
    return spec


def sub(spec, name: str) -> SubGroup:
    (found,) = [sg for sg in spec.subgroups if sg.name == name]
    return found


def test_single_replicated_job_single_replica() -> None:
    """TestSingleReplicatedJobSingleReplica"""
    spec = meta(base_jobset(replicated_job("worker", 1, 4)))
    assert spec.min_subgroup == 1 and len(spec.subgroups) == 2
    assert sub(spec, "worker") == SubGroup("worker", None, 1, None, None)
    assert sub(spec, "worker-replica-0") == SubGroup("worker-replica-0", 4, None, "worker", None)
    assert dict(spec.pod_subgroups) == {"p": "worker-replica-0"}


def test_single_replicated_job_multiple_replicas() -> None:
    """TestSingleReplicatedJobMultipleReplicas"""
    spec = meta(base_jobset(replicated_job("worker", 3, 4)), pod("p", "worker", "2"))
    assert len(spec.subgroups) == 1 + 3
    assert sub(spec, "worker").min_subgroup == 3
    assert [(sub(spec, f"worker-replica-{i}").min_member, sub(spec, f"worker-replica-{i}").parent)
            for i in range(3)] == [(4, "worker")] * 3
    assert dict(spec.pod_subgroups) == {"p": "worker-replica-2"}


@pytest.mark.parametrize(("jobs", "annotations", "order", "root"), [
    # TestMultipleReplicatedJobsAnyOrder: len(replicatedJobs)
    ([("leader", 1, 1), ("worker", 2, 4)], None, "AnyOrder", 2),
    # TestStartupPolicyInOrderRootMinSubGroup
    ([("leader", 1, 1), ("worker", 2, 4)], None, "InOrder", 1),
    # TestJobSetAnnotationOverridesRoot
    ([("a", 1, 1), ("b", 1, 1), ("c", 1, 1)], {MIN_MEMBER: "2"}, "AnyOrder", 2),
    # TestJobSetAnnotationClampedToReplicatedJobCount
    ([("a", 1, 1), ("b", 1, 1)], {MIN_MEMBER: "9"}, None, 2),
    # TestJobSetAnnotationWinsOverInOrder
    ([("a", 1, 1), ("b", 1, 1)], {MIN_MEMBER: "2"}, "InOrder", 2),
])
def test_root_min_subgroup(jobs, annotations, order, root) -> None:
    obj = base_jobset(*(replicated_job(*j) for j in jobs), annotations=annotations,
                      order=order)
    assert meta(obj).min_subgroup == root


@pytest.mark.parametrize(("obj", "pods", "error"), [
    # TestJobSetAnnotationUnparseable
    (base_jobset(replicated_job("a", 1, 1), annotations={MIN_MEMBER: "not-an-int"}), None,
     MIN_MEMBER),
    # TestJobSetAnnotationBelowOne
    (base_jobset(replicated_job("a", 1, 1), annotations={MIN_MEMBER: "0"}), None, ">= 1"),
    # TestTemplateAnnotationUnparseable
    (base_jobset(replicated_job("worker", 1, 2, {MIN_MEMBER: "abc"})), None, MIN_MEMBER),
    # TestTemplateAnnotationBelowOne
    (base_jobset(replicated_job("worker", 1, 2, {MIN_MEMBER: "0"})), None, ">= 1"),
    # TestPodMissingReplicatedJobLabel
    (base_jobset(replicated_job("worker", 1, 2)), [pod("p", None, "0")], REPLICATED_JOB_LABEL),
    # TestPodMissingJobIndexLabel
    (base_jobset(replicated_job("worker", 1, 2)), [pod("p", "worker", None)], JOB_INDEX_LABEL),
    # TestEmptyReplicatedJobs
    (base_jobset(), None, "no replicatedJobs"),
])
def test_the_grouper_refuses(obj, pods, error) -> None:
    with pytest.raises(GrouperError, match=error):
        meta(obj, *(pods or ()))


@pytest.mark.parametrize(("parallelism", "value", "leaf"), [
    (8, "5", 5),    # TestTemplateAnnotationOverridesLeafMinMember
    (2, "10", 10),  # TestTemplateAnnotationGreaterThanParallelismAccepted
])
def test_template_annotation_sets_the_leaf_minimum(parallelism, value, leaf) -> None:
    spec = meta(base_jobset(replicated_job("worker", 2 if leaf == 5 else 1, parallelism,
                                           {MIN_MEMBER: value})))
    assert sub(spec, "worker-replica-0").min_member == leaf


def test_pod_routing_finds_correct_leaf() -> None:
    """TestPodRoutingFindsCorrectLeaf"""
    obj = base_jobset(replicated_job("leader", 1, 1), replicated_job("worker", 3, 4))
    spec = meta(obj, pod("leader-pod", "leader", "0"), pod("worker-pod", "worker", "1"))
    assert dict(spec.pod_subgroups) == {"leader-pod": "leader-replica-0",
                                        "worker-pod": "worker-replica-1"}


def test_root_min_subgroup_not_min_available() -> None:
    """TestRootMinSubGroupNotMinAvailable"""
    spec = meta(base_jobset(replicated_job("worker", 1, 1)))
    assert spec.min_member is None and spec.min_subgroup is not None


def test_distinct_topologies_at_jobset_and_replicated_job_levels() -> None:
    """TestDistinctTopologiesAtJobSetAndReplicatedJobLevels"""
    obj = base_jobset(replicated_job("worker", 2, 4, {
        TOPOLOGY: "leaf-topology", REQUIRED: "rack", PREFERRED: "zone"}),
        annotations={TOPOLOGY: "root-topology", REQUIRED: "datacenter"})
    spec = meta(obj)
    assert spec.constraint == Constraint("root-topology", "datacenter", "")
    assert sub(spec, "worker").constraint is None
    assert [sub(spec, f"worker-replica-{i}").constraint for i in range(2)] == [
        Constraint("leaf-topology", "rack", "zone")] * 2


def test_replicas_defaults_to_one() -> None:
    """TestReplicasDefaultsToOne"""
    obj = base_jobset({"name": "worker", "template": {"spec": {"parallelism": 2}}})
    assert sub(meta(obj), "worker").min_subgroup == 1


JOBSET = """\
apiVersion: kai.scheduler/v1alpha1
kind: Topology
metadata: {name: dc}
spec:
  levels:
  - {nodeLabel: topology.example.com/block}
  - {nodeLabel: topology.example.com/rack}
---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: js
  namespace: ml
  annotations: {kai.scheduler/topology: dc,
                kai.scheduler/topology-required-placement: topology.example.com/block}
spec:
  replicatedJobs:
  - name: workers
    replicas: 2
    template:
      metadata:
        annotations: {kai.scheduler/topology: dc,
                      kai.scheduler/topology-required-placement: topology.example.com/rack}
      spec:
        parallelism: 2
        completions: 2
        template:
          spec:
            schedulerName: kai-scheduler
            restartPolicy: Never
            tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
            containers:
            - {name: t, image: x, resources: {requests: {cpu: "1", nvidia.com/gpu: "8"}}}
"""


def test_a_jobset_planned_as_kais_grouper_makes_it(tmp_path: Path) -> None:
    """End to end: the whole JobSet in one block (its annotations), each replica of two pods
    in one rack (its Job template's), all four pods a gang."""
    path = tmp_path / "js.yaml"
    path.write_text(JOBSET)
    result = CliRunner().invoke(app, ["check", str(path), "-c", str(CLUSTER), "-o", "json"])
    assert result.exit_code == 0, result.output
    (group,) = json.loads(result.stdout)["groups"]
    assert group["scheduler"] == "kai"
    (chosen,) = [p for p in group["placements"] if p["name"] == group["selected"]]
    racks = {}
    for name, node in chosen["assignments"].items():
        racks.setdefault(name.rsplit("-", 1)[0], set()).add(node.rsplit("-", 1)[0])
    assert sorted(racks) == ["ml/js-workers-0", "ml/js-workers-1"]
    assert all(len(r) == 1 for r in racks.values())
    assert len({r.split("-")[1][0] for rs in racks.values() for r in rs}) == 1  # one block
    codes = [n["code"] for n in group["notes"]]
    assert "kai-podgrouper" in codes and "kai-subgroups" in codes
    # a leaf needs more pods than a rack holds: KAI's grouper PodGroup does not fit
    path.write_text(JOBSET.replace("parallelism: 2", "parallelism: 5").replace(
        "completions: 2", "completions: 5"))
    result = CliRunner().invoke(app, ["check", str(path), "-c", str(CLUSTER), "-o", "json"])
    assert result.exit_code == 1, result.output


def test_a_refused_jobset_is_an_error_and_does_not_translate(tmp_path: Path) -> None:
    path = tmp_path / "js.yaml"
    path.write_text(JOBSET.replace(
        "kai.scheduler/topology-required-placement: topology.example.com/block}",
        "kai.scheduler/topology-required-placement: topology.example.com/block,\n"
        "                kai.scheduler/batch-min-member: \"0\"}"))
    result = CliRunner().invoke(app, ["check", str(path), "-c", str(CLUSTER), "-o", "json",
                                      "--compare"])
    document = json.loads(result.stdout)
    (group,) = document["groups"]
    assert group["outcome"] == "error" and "value 0 must be >= 1" in group["message"]
    (compared,) = document["comparisons"]
    assert {r["message"] for r in compared["schedulers"] if not r["native"]} == {
        "does not translate: KAI's pod grouper makes no PodGroup: invalid "
        f"{MIN_MEMBER} annotation on JobSet: value 0 must be >= 1"}
