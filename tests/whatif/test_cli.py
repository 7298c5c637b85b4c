"""What-if flags and files through the CLI, on the samples (samples/README.md): order across
flags, the report echo, exit codes, and lint on WhatIf files."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from typer.testing import CliRunner

from tasplan.cli.app import app

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "samples" / "cluster"
TRAIN = REPO / "samples" / "workloads" / "train-rack.yaml"
BIG = REPO / "samples" / "workloads" / "train-too-big.yaml"


def invoke(*args: str | Path):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})


def report(*args: str | Path) -> tuple[int, dict]:
    result = invoke("check", *args, "-c", CLUSTER, "-o", "json")
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "whatif.yaml"
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def test_edits_echo_in_order_across_flags() -> None:
    code, doc = report(TRAIN, "--cordon", "gpu-b1-0", "--drain", "rack=rack-b3",
                       "--cordon=gpu-b1-1", "--set", "ml/train-workers-0.minCount=3")
    ops = [(e["op"], e["target"]) for e in doc["summary"]["whatIf"]]
    assert ops == [("cordon", "gpu-b1-0"), ("drain", "rack=rack-b3"), ("cordon", "gpu-b1-1"),
                   ("set", "ml/train-workers-0.minCount=3")]
    assert doc["summary"]["whatIf"][1]["effect"].startswith(
        "cordoned 4 node(s) (gpu-b3-0, gpu-b3-1, gpu-b3-2, gpu-b3-3)")
    # rack-b1 lost two nodes and rack-b3 all four; minCount 3 fits elsewhere.
    [group] = doc["groups"]
    assert code == 0 and group["minCount"] == 3 and group["selected"] not in ("rack-b1",
                                                                               "rack-b3")


def test_without_edits_whatif_is_empty() -> None:
    _, doc = report(TRAIN)
    assert doc["summary"]["whatIf"] == []


def test_add_nodes_makes_the_big_gang_fit_in_a_new_rack() -> None:
    """train-too-big needs 5 whole 8-GPU nodes in one rack; racks have 4 nodes. Five copies
    of gpu-b1-0 in a new rack hold it."""
    code, doc = report(BIG)
    assert code == 1
    code, doc = report(BIG, "--add-nodes", "5", "--like", "gpu-b1-0", "--in", "rack-new",
                       "--label", "pool=spare")
    [group] = doc["groups"]
    assert code == 0 and group["selected"] == "rack-new"
    assert sorted(group["placements"][0]["assignments"].values()) == [
        f"gpu-b1-0-whatif-{k}" for k in range(1, 6)]


def test_table_has_a_what_if_header() -> None:
    result = invoke("check", TRAIN, "-c", CLUSTER, "--evict", "namespace=research")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == ("WHAT-IF: planned on the cluster with 1 edit(s), not the cluster as it "
                        "is:")
    assert lines[1].startswith(" 1. evict namespace=research → evicted 3 pod(s) from 3 node(s); "
                               "would violate PodDisruptionBudget research/jupyter-alice")


def test_errors_exit_2_naming_the_edit(tmp_path: Path) -> None:
    for args, message in [
        (["--drain", "rack=rack-z9"], "--drain 'rack=rack-z9': the selector matches no node"),
        (["--cordon", "gpu-nope"], "--cordon: no node named 'gpu-nope'"),
        (["--like", "gpu-a1-0"], "--like gpu-a1-0 must follow --add-nodes N"),
        (["--add-nodes", "2"], "--add-nodes 2 needs exactly one --like NODE"),
        (["--set", "ml/nope.minCount=2"], "no pod group 'ml/nope'"),
    ]:
        result = invoke("check", TRAIN, "-c", CLUSTER, *args)
        assert result.exit_code == 2, args
        assert message in result.stderr, (args, result.stderr)


def test_what_if_file_equals_the_flags(tmp_path: Path) -> None:
    path = write(tmp_path, """
        apiVersion: tasplan/v1
        kind: WhatIf
        edits:
        - {op: drain, target: "rack=rack-b3"}
        - {op: addNodes, count: 1, like: gpu-a1-0, in: rack-a3, labels: {pool: spare}}
        - {op: set, target: ml/train-workers-0.minCount=3}
    """)
    _, from_file = report(TRAIN, "--cordon", "gpu-b1-0", "--what-if", path)
    _, from_flags = report(TRAIN, "--cordon", "gpu-b1-0", "--drain", "rack=rack-b3",
                           "--add-nodes", "1", "--like", "gpu-a1-0", "--in", "rack-a3",
                           "--label", "pool=spare", "--set", "ml/train-workers-0.minCount=3")
    assert from_file == from_flags
    assert [e["op"] for e in from_file["summary"]["whatIf"]] == ["cordon", "drain", "addNodes",
                                                                "set"]


def test_what_if_file_errors(tmp_path: Path) -> None:
    path = write(tmp_path, """
        apiVersion: tasplan/v1
        kind: WhatIf
        edits:
        - {op: drain, target: "rack=rack-b3"}
        - {op: addNodes, like: gpu-a1-0}
    """)
    result = invoke("check", TRAIN, "-c", CLUSTER, "--what-if", path)
    assert result.exit_code == 2
    assert f"{path}:5: edits[1].count: required field is missing" in result.stderr
    path = write(tmp_path, """
        apiVersion: tasplan/v1
        kind: WhatIf
        edits:
        - {op: remove, target: "rack=rack-q"}
    """)
    result = invoke("check", TRAIN, "-c", CLUSTER, "--what-if", path)
    assert result.exit_code == 2
    assert f"{path}: edits[0] (remove) 'rack=rack-q': the selector matches no node" \
        in result.stderr


def test_lint_checks_what_if_files(tmp_path: Path) -> None:
    path = write(tmp_path, """
        apiVersion: tasplan/v1
        kind: WhatIf
        edits:
        - {op: drain, target: "rack in (a"}
        - {op: evict, target: "priority<100"}
        - {op: explode, target: x}
    """)
    result = invoke("lint", path, "-o", "json")
    found = {(f["rule"], f["path"]) for f in json.loads(result.stdout)["findings"]}
    assert found == {("TP210", "edits[0].target"), ("TP107", "edits[2].op")}
    assert result.exit_code == 1


def test_explain_takes_the_same_edits() -> None:
    """urgent.yaml needs 4 block-a nodes in one rack. Evicting research (rack-a2's two
    rl-sweep pods and the notebook on gpu-a3-0) frees rack-a2."""
    urgent = REPO / "samples" / "explain" / "urgent.yaml"
    result = invoke("explain", urgent, "-c", CLUSTER, "-o", "json", "--evict",
                    "namespace=research")
    doc = json.loads(result.stdout)
    assert result.exit_code == 0, result.output
    assert doc["summary"]["whatIf"][0]["op"] == "evict"
    assert doc["groups"][0]["schedulable"]


JOB = REPO / "samples" / "workloads" / "job.yaml"


def test_set_min_count_beyond_the_pods_grows_the_owning_object() -> None:
    """minCount 4 on the 2-pod Job ml/finetune waited for pods that never come (issue 26):
    the Job grows as with parallelism 4, pods numbered on; only rack-b1 and rack-b3 have 4
    free 8-GPU nodes (samples/README.md)."""
    code, doc = report(JOB, "--set", "ml/finetune.minCount=4")
    assert doc["summary"]["whatIf"][0]["effect"] == (
        "ml/finetune minCount 2 -> 4; Job ml/finetune grows by 2 pod(s) to 4 (as with "
        "spec.parallelism: 4)")
    [group] = doc["groups"]
    assert (code, group["minCount"], group["pendingPods"]) == (0, 4, 4)
    assert group["selected"] == "rack-b1"
    chosen = next(p for p in group["placements"] if p["name"] == "rack-b1")
    assert sorted(chosen["assignments"]) == [f"ml/finetune-{i}" for i in range(4)]
    text = invoke("check", JOB, "-c", CLUSTER, "--set", "ml/finetune.minCount=4").stdout
    assert "pods from Job ml/finetune: 4 synthesised from its template, 0 existing" in text
    # what it can take stays as it was: lowering minCount adds nothing
    _, lower = report(JOB, "--set", "ml/finetune.minCount=1")
    assert lower["groups"][0]["pendingPods"] == 2


def test_set_min_count_beyond_bare_pods_warns_that_the_gang_waits() -> None:
    """ml/train-workers-0's 4 pods are bare Pods: nothing in the inputs would make more."""
    result = invoke("check", TRAIN, "-c", CLUSTER, "--set", "ml/train-workers-0.minCount=6")
    assert result.exit_code == 1
    assert result.stderr == (
        "warning: --set ml/train-workers-0.minCount=6: 4 pod(s) of the group are in the "
        "inputs and no object in the inputs makes them: the gang waits for 2 more that "
        "never come\n")
    assert "minCount 4 -> 6; waits for 2 pod(s) nothing creates" in result.stdout
    assert "WAITING: " in result.stdout
