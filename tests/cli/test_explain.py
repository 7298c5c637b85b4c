"""``tasplan explain`` end to end on the samples: the suggestions samples/explain/urgent.yaml
documents, the JSON contract, selection by name and ``unschedulable``, errors."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tasplan.cli.app import app

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "samples" / "cluster"
URGENT = REPO / "samples" / "explain" / "urgent.yaml"
TOO_BIG = REPO / "samples" / "workloads" / "train-too-big.yaml"


def invoke(*args: str | Path):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})


def explain_json(*args: str | Path) -> tuple[int, dict]:
    result = invoke("explain", *args, "-c", CLUSTER, "-o", "json")
    assert result.stderr == ""
    return result.exit_code, json.loads(result.stdout)


def test_urgent_sample_gets_every_kind_of_suggestion() -> None:
    """See the header of samples/explain/urgent.yaml for the arithmetic."""
    code, doc = explain_json(URGENT)
    assert code == 0  # kube-scheduler 1.37 preempts for it: scheduled after preemption
    (group,) = doc["groups"]
    assert group["outcome"] == "scheduled-after-preemption"
    e = group["explanation"]
    assert e["fitsEmptyCluster"] is True
    assert e["fitsAt"] == {"topologyKey": "topology.example.com/block", "placement": "block-a"}
    assert e["unlabelledNodes"] == 3
    assert [(d["name"], d["fit"], d["needed"]) for d in e["domains"][:3]] == [
        ("rack-a3", 3, 4), ("rack-a2", 2, 4), ("rack-a1", 0, 4)]
    assert e["domains"][0]["shortfall"] == {"nvidia.com/gpu": "8", "cpu": "48"}
    assert e["domains"][3]["excluded"] == {
        "node(s) didn't match Pod's node affinity/selector": 4}
    assert e["cause"] == {"kind": "contention", "message": "it would fit in an empty "
                          "cluster, but other pods hold the capacity it needs"}
    by_kind = {s["kind"]: s for s in e["suggestions"]}
    # the suggestions that fix the cause first (issue 26), then the others in their order
    assert list(by_kind) == ["evict", "consolidate", "addNodes", "minCount", "nodeSelector",
                             "topologyKey"]
    # The same two pods can move instead, to free 8-GPU nodes of rack-a3 (samples/README.md:
    # gpu-a3-1..3 are idle; gpu-a3-0 holds the notebook).
    move = by_kind["consolidate"]
    assert move["cost"] == {"podsMoved": 2}
    assert [(m["pod"], m["from"], m["to"]) for m in move["details"]["moves"]] == [
        ("research/rl-sweep-0-6vnvt", "gpu-a2-0", "gpu-a3-1"),
        ("research/rl-sweep-1-dbrz7", "gpu-a2-1", "gpu-a3-2")]
    assert move["result"]["selected"] == "rack-a2"
    assert by_kind["minCount"]["details"] == {"minCount": 3}
    assert by_kind["minCount"]["result"]["selected"] == "rack-a3"
    # Upstream's own workload-aware preemption: every lower-priority pod goes, the gang
    # lands in rack-a2 (bin-packing), and every pod that still fits is put back. The
    # notebook in rack-a3 (protected by its PDB) is not touched; the two batch-low
    # rl-sweep pods of rack-a2 go. Evicting one of them is not enough (proven).
    evict = by_kind["evict"]
    assert evict["details"]["upstream"] is True
    assert evict["details"]["domain"] == "rack-a2"
    assert group["preemption"]["victims"] == [
        {k: v for k, v in victim.items() if k != "pdbViolations"}
        for victim in evict["details"]["victims"]]
    assert [v["pod"] for v in evict["details"]["victims"]] == [
        "research/rl-sweep-0-6vnvt", "research/rl-sweep-1-dbrz7"]
    assert evict["cost"] == {"podsEvicted": 2} and evict["minimal"] is True
    assert evict["result"]["placed"] == 4
    assert sorted(evict["result"]["assignments"].values()) == [
        "gpu-a2-0", "gpu-a2-1", "gpu-a2-2", "gpu-a2-3"]
    assert by_kind["addNodes"]["cost"] == {"nodesAdded": 1}
    assert by_kind["addNodes"]["result"]["selected"] == "rack-a3"
    assert by_kind["nodeSelector"]["result"]["selected"] == "rack-b1"
    assert by_kind["nodeSelector"]["result"]["tiedWith"] == ["rack-b3"]


def test_too_big_sample_is_a_capacity_problem() -> None:
    code, doc = explain_json("unschedulable", TOO_BIG)
    assert code == 1
    (group,) = doc["groups"]
    e = group["explanation"]
    assert e["fitsEmptyCluster"] is False
    assert [s["kind"] for s in e["suggestions"]] == ["minCount", "addNodes", "topologyKey"]
    assert e["failures"] == [{
        "message": "0/4 nodes are available: 4 Insufficient cpu, 4 Insufficient "
                   "nvidia.com/gpu.", "pods": ["ml/big-workers-4"]}]


def test_output_is_deterministic_and_keeps_the_check_contract() -> None:
    first = invoke("explain", URGENT, TOO_BIG, "-c", CLUSTER, "-o", "json").stdout
    assert first == invoke("explain", URGENT, TOO_BIG, "-c", CLUSTER, "-o", "json").stdout
    check = json.loads(invoke("check", URGENT, TOO_BIG, "-c", CLUSTER, "-o", "json").stdout)
    explained = json.loads(first)
    for group in explained["groups"]:
        group.pop("explanation")
    assert explained == check


def test_schedulable_group_needs_no_explanation() -> None:
    code, doc = explain_json(REPO / "samples" / "workloads" / "train-rack.yaml")
    assert code == 0
    assert doc["groups"][0]["explanation"] is None


def test_table_output() -> None:
    result = invoke("explain", URGENT, "-c", CLUSTER)
    assert result.exit_code == 0
    out = result.stdout
    assert "why: contention" in out
    assert "evict 2 pod(s) of lower priority: research/rl-sweep-0-6vnvt" in out
    assert "DISRUPTION: preemption evicts 2 pod(s)" in out
    no_preempt = invoke("explain", URGENT, "-c", CLUSTER, "--no-preempt")
    assert no_preempt.exit_code == 1 and "DISRUPTION" not in no_preempt.stdout
    assert "suggestions, each verified by re-planning the group:" in out


def test_unschedulable_finds_pending_groups_in_a_dump(tmp_path: Path) -> None:
    """A cluster dump holding the too-big gang: `unschedulable` selects it by itself."""
    dump = tmp_path / "dump"
    dump.mkdir()
    for path in CLUSTER.iterdir():
        (dump / path.name).write_bytes(path.read_bytes())
    (dump / "big.yaml").write_bytes(TOO_BIG.read_bytes())
    result = invoke("explain", "unschedulable", "-c", dump, "-o", "json")
    assert result.exit_code == 1
    assert [g["name"] for g in json.loads(result.stdout)["groups"]] == ["ml/big-workers"]
    by_name = invoke("explain", "ml/big-workers", "-c", dump, "-o", "json")
    assert json.loads(by_name.stdout) == json.loads(result.stdout)


def test_nothing_pending_is_not_an_error() -> None:
    result = invoke("explain", "unschedulable", "-c", CLUSTER)
    assert result.exit_code == 0
    assert "no pending or unschedulable pod groups" in result.stdout


def test_unknown_target_is_a_usage_error() -> None:
    result = invoke("explain", "ml/nope", "-c", CLUSTER)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: no pod group named 'ml/nope'")
    result = invoke("explain", "missing.yaml", "-c", CLUSTER)
    assert result.exit_code == 2
    assert "neither a file or directory" in result.stderr
