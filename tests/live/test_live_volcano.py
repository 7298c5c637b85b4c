"""Volcano's objects read from a live cluster (get/list only) and kept by snapshots:
HyperNodes, ``scheduling.volcano.sh`` PodGroups and vcjobs, through the loopback API server
(tests/live/apiserver.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from tasplan import load_inputs
from tasplan.cli.app import app
from tasplan.load.documents import read_documents
from tests.live.apiserver import Cluster
from tests.live.conftest import REPO, SAMPLE_CLUSTER

VOLCANO = REPO / "samples" / "volcano"
VCJOB = VOLCANO / "train-vcjob.yaml"
GROUP = "scheduling.k8s.io/group-name"
ALLOCATED = "volcano.sh/job-allocated-hypernode"


def invoke(*args: str | Path):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})


def _objects() -> list[dict]:
    """A running Volcano job (its PodGroup, one pod bound in rack-b1 naming it), a vcjob
    whose PodGroup is still Pending (no pods yet) and one already running."""
    running_pg = {
        "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
        "metadata": {"name": "serve-7f3a", "namespace": "ml", "uid": "u-1",
                     "annotations": {ALLOCATED: "rack-b1", "unrelated/noise": "x"}},
        "spec": {"minMember": 1, "queue": "default",
                 "networkTopology": {"mode": "hard", "highestTierAllowed": 1}},
        "status": {"phase": "Running"}}
    pod = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "serve-0", "namespace": "ml", "uid": "p-1",
                     "annotations": {GROUP: "serve-7f3a", "unrelated/noise": "x"}},
        "spec": {"nodeName": "gpu-b1-0", "schedulerName": "volcano",
                 "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
        "status": {"phase": "Running"}}

    def vcjob(name: str, uid: str, phase: str) -> dict:
        return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                "metadata": {"name": name, "namespace": "ml", "uid": uid},
                "spec": {"minAvailable": 1, "tasks": [{"name": "w", "replicas": 2, "template": {
                    "spec": {"containers": [{"name": "c"}]}}}]},
                "status": {"state": {"phase": phase}}}

    waiting_pg = {
        "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
        "metadata": {"name": "queued-u-2", "namespace": "ml"},
        "spec": {"minMember": 2}, "status": {"phase": "Pending"}}
    hypernodes = [d.obj for d in read_documents(VOLCANO / "hypernodes.yaml", workload=False)]
    return [*hypernodes, running_pg, pod, vcjob("queued", "u-2", "Pending"), waiting_pg,
            vcjob("done", "u-3", "Completed")]


@pytest.fixture
def volcano(cluster: Cluster, tmp_path: Path) -> Path:
    """Volcano installed in the served cluster; returns the same objects as a file."""
    objects = _objects()
    cluster.add(*objects)
    cluster.volcano = True
    path = tmp_path / "volcano-objects.yaml"
    path.write_text(yaml.safe_dump_all(objects))
    return path


def test_check_live_plans_volcano_as_the_same_objects_as_files(
        kubeconfig: Path, cluster: Cluster, volcano: Path) -> None:
    """HyperNodes, PodGroups and vcjobs are listed (GETs only) and planned exactly as the
    same objects given as files: the same JSON report, byte for byte."""
    live = invoke("check", VCJOB, "--live", "-o", "json")
    files = invoke("check", VCJOB, "-c", SAMPLE_CLUSTER, "-c", volcano, "-o", "json")
    assert live.exit_code == files.exit_code == 0, live.stderr
    assert live.stdout == files.stdout
    (group,) = json.loads(live.stdout)["groups"]
    assert group["scheduler"] == "volcano" and group["selected"].startswith("rack-")
    assert {r.method for r in cluster.requests} == {"GET"}
    listed = {r.path for r in cluster.requests if "limit" in r.query}
    assert {"/apis/topology.volcano.sh/v1alpha1/hypernodes",
            "/apis/scheduling.volcano.sh/v1beta1/podgroups",
            "/apis/batch.volcano.sh/v1alpha1/jobs"} <= listed


def test_snapshot_keeps_volcano_objects_and_annotations(
        kubeconfig: Path, cluster: Cluster, volcano: Path, tmp_path: Path) -> None:
    out = tmp_path / "s.json"
    result = invoke("snapshot", "-o", out, "--live", "-q")
    assert result.exit_code == 0, result.output
    snapshot = load_inputs([], [out])
    assert set(snapshot.volcano.hypernodes) == {
        "rack-a1", "rack-a2", "rack-a3", "rack-b1", "rack-b2", "rack-b3", "block-a", "block-b"}
    running = snapshot.volcano.podgroups["ml/serve-7f3a"]
    assert running.allocated_hypernode == "rack-b1" and running.phase == "Running"
    document = json.loads(out.read_text())
    (pg,) = [i for i in document["items"] if i["metadata"]["name"] == "serve-7f3a"]
    assert pg["metadata"]["annotations"] == {ALLOCATED: "rack-b1"}  # noise dropped
    assert {i["metadata"]["name"] for i in document["items"] if i["kind"] == "Job"} == {
        "queued", "done"}
    metas = [document["pods"]["metadata"][m] for m, name in
             zip(document["pods"]["meta"], document["pods"]["name"], strict=True)
             if name == "serve-0"]
    assert metas[0]["annotations"] == {GROUP: "serve-7f3a"}
    # a snapshot of the files keeps the same objects
    files = tmp_path / "f.json"
    assert invoke("snapshot", "-o", files, "-c", SAMPLE_CLUSTER, "-c", volcano,
                  "-q").exit_code == 0
    from_files = load_inputs([], [files]).volcano
    assert from_files.podgroups == snapshot.volcano.podgroups

    def shape(inputs):  # HyperNodes without where they were read from
        return {n: (h.tier, h.tier_name, h.members) for n, h in inputs.hypernodes.items()}

    assert shape(from_files) == shape(snapshot.volcano)


def test_a_vcjob_waiting_for_enqueue_is_named_in_a_warning(
        kubeconfig: Path, cluster: Cluster, volcano: Path) -> None:
    """Its PodGroup is Pending: Volcano's job controller has not created its pods, so they
    are not planned, and tasplan says so (the completed vcjob is not named)."""
    result = invoke("check", VCJOB, "--live", "-o", "json")
    assert result.exit_code == 0, result.stderr
    (warning,) = [w for w in json.loads(result.stdout)["warnings"] if "vcjob" in w]
    assert warning.startswith("1 vcjob(s) of the cluster wait for Volcano's enqueue action "
                              "('ml/queued'): their PodGroup is Pending")
    table = invoke("check", VCJOB, "--live")
    assert "warning: 1 vcjob(s) of the cluster wait" in table.stderr


def test_forbidden_volcano_lists_are_a_warning(kubeconfig: Path, cluster: Cluster,
                                               volcano: Path) -> None:
    cluster.forbidden = {"/apis/topology.volcano.sh/v1alpha1/hypernodes"}
    result = invoke("check", VCJOB, "--live", "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert ("RBAC does not allow listing hypernodes.topology.volcano.sh: Volcano's objects "
            "are planned without it") in result.stderr
    # without HyperNodes the job's hard networkTopology has only the cluster to go to
    (group,) = json.loads(result.stdout)["groups"]
    assert group["scheduler"] == "volcano"


def test_the_sample_role_grants_the_volcano_lists(kubeconfig: Path, cluster: Cluster,
                                                  volcano: Path, tmp_path: Path) -> None:
    role = next(yaml.safe_load_all((REPO / "samples/rbac/tasplan-reader.yaml").read_text()))
    granted = {(g, r) for rule in role["rules"] for g in rule["apiGroups"]
               for r in rule["resources"]}
    assert invoke("snapshot", "-o", tmp_path / "s.json", "--live", "-q").exit_code == 0
    listed = {(r.path.split("/")[2], r.path.rsplit("/", 1)[-1]) for r in cluster.requests
              if r.path.startswith("/apis/") and "volcano.sh" in r.path and "limit" in r.query}
    assert listed == {("topology.volcano.sh", "hypernodes"),
                      ("scheduling.volcano.sh", "podgroups"), ("batch.volcano.sh", "jobs")}
    assert listed <= granted


def test_without_volcano_nothing_of_it_is_listed(kubeconfig: Path, cluster: Cluster) -> None:
    """A cluster without Volcano: discovery says so, no list is sent, no warning."""
    result = invoke("check", VCJOB, "--live", "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert not [r for r in cluster.requests if "volcano.sh" in r.path and "limit" in r.query]
    assert "volcano" not in result.stderr.lower()
