"""The headline names the real cause, one per sentence, and the first suggestion fixes it
(issue 26): a TPU JobSet on a GPU cluster is a selector problem, a Job on tainted nodes a
taint problem, a gang too big for any rack a capacity problem (its coarser level is a
suggestion, not glued onto the sentence)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tasplan.cli.app import app
from tasplan.explain.cause import CAPACITY, SELECTOR, TAINT, static_cause
from tasplan.model.taints import Taint, Toleration
from tests.builders import make_node, make_pod

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "samples" / "cluster"

TPU_JOBSET = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: tpu-train, namespace: ml}
spec:
  replicatedJobs:
  - name: slice
    replicas: 2
    template:
      spec:
        parallelism: 4
        completions: 4
        template:
          spec:
            nodeSelector:
              cloud.google.com/gke-tpu-accelerator: tpu-v5p-slice
              cloud.google.com/gke-tpu-topology: 2x2x4
            containers:
            - name: t
              image: x
              resources:
                requests: {cpu: "8", google.com/tpu: "4"}
                limits: {google.com/tpu: "4"}
"""

UNTOLERATED_JOB = """
apiVersion: batch/v1
kind: Job
metadata: {name: cpu-train, namespace: ml}
spec:
  parallelism: 4
  completions: 4
  template:
    spec:
      containers:
      - {name: t, image: x, resources: {requests: {cpu: "8"}}}
"""


def explain(tmp_path: Path, text: str, *args: str) -> tuple[str, dict]:
    path = tmp_path / "w.yaml"
    path.write_text(textwrap.dedent(text))
    runner = CliRunner()
    common = ["explain", str(path), "-c", str(CLUSTER), "--gang", "4", "--topology-key",
              "topology.example.com/rack", *args]
    table = runner.invoke(app, common, env={"COLUMNS": "200"})
    doc = runner.invoke(app, [*common, "-o", "json"], env={"COLUMNS": "200"})
    assert table.exit_code == 1, table.output
    return table.stdout, json.loads(doc.stdout)


def why(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("why: "))


def test_tpu_jobset_on_a_gpu_cluster_is_a_selector_problem(tmp_path: Path) -> None:
    """Upstream's diagnosis names the GPU taint first (TaintToleration runs before
    NodeAffinity): the headline still names the selector that matches no node."""
    out, doc = explain(tmp_path, TPU_JOBSET)
    assert why(out) == ("why: selector: no node matches nodeSelector "
                        "cloud.google.com/gke-tpu-accelerator=tpu-v5p-slice, "
                        "cloud.google.com/gke-tpu-topology=2x2x4")
    for group in doc["groups"]:
        assert group["explanation"]["cause"]["kind"] == SELECTOR


def test_a_job_on_tainted_nodes_is_a_taint_problem_fixed_first(tmp_path: Path) -> None:
    """Every rack node carries nvidia.com/gpu=present:NoSchedule (and one is cordoned
    too): the cause is the taint, and the first suggestion adds the toleration."""
    out, doc = explain(tmp_path, UNTOLERATED_JOB)
    assert why(out) == ("why: taint: every node has a taint the pods do not tolerate "
                        "(nvidia.com/gpu=present:NoSchedule on 24)")
    e = doc["groups"][0]["explanation"]
    assert e["cause"]["kind"] == TAINT
    assert e["suggestions"][0]["kind"] == "toleration"


def test_capacity_is_one_cause_in_one_sentence() -> None:
    """It said "capacity: it does not fit even in an empty cluster; it fits now within one
    … block": the coarser level is suggestion 3, the unlabelled nodes a line of their own."""
    result = CliRunner().invoke(app, ["explain", str(REPO / "samples" / "workloads" /
                                                    "train-too-big.yaml"), "-c", str(CLUSTER)],
                                env={"COLUMNS": "200"})
    lines = result.stdout.splitlines()
    assert why(result.stdout) == ("why: capacity: no rack holds 5 pods even with no other pods "
                                  "running")
    assert lines[lines.index(why(result.stdout)) + 1] == (
        "3 node(s) lack topology.example.com/rack and belong to no placement")
    suggestions = [line for line in lines if line.startswith(" 1. ")]
    assert suggestions == [" 1. lower minCount from 5 to 4 → fits in 'rack-b1' (4/5 pods; "
                           "tied with rack-b3)"]


@pytest.mark.parametrize("workload", sorted((REPO / "samples").glob("*/*.yaml")))
def test_no_headline_glues_two_causes(workload: Path) -> None:
    result = CliRunner().invoke(app, ["explain", str(workload), "-c", str(CLUSTER)],
                                env={"COLUMNS": "200"})
    for line in result.stdout.splitlines():
        if line.startswith("why: "):
            kind = line.removeprefix("why: ").split(":")[0]
            assert kind in ("selector", "affinity", "taint", "cordon", "topology key",
                            "capacity", "contention", "quota"), line
            assert ";" not in line.split(": ", 2)[2], line


def test_each_constraint_is_judged_on_its_own() -> None:
    """Not in filter order: a taint on every node and a selector that matches none name the
    selector; a taint the pod tolerates is no cause; some node left is no static cause."""
    gpu = Taint("nvidia.com/gpu", "present", "NoSchedule")
    nodes = [make_node(f"n{i}", 8, labels={"rack": "r1"}, taints=(gpu,)) for i in range(3)]
    pod = make_pod("p", 1)
    assert static_cause(pod, nodes, {}).kind == TAINT
    from dataclasses import replace

    picky = replace(pod, node_selector={"accelerator": "tpu"})
    assert static_cause(picky, nodes, {}).text == "no node matches nodeSelector accelerator=tpu"
    tolerant = replace(pod, tolerations=(Toleration("nvidia.com/gpu", "Exists"),))
    assert static_cause(tolerant, nodes, {}) is None
    cordoned = [replace(n, unschedulable=True) for n in nodes]
    assert static_cause(tolerant, cordoned, {}).text == "every node is cordoned"
    assert CAPACITY == "capacity"
