"""The bundled DRA sample (samples/dra): a rack-level interconnect shared by a gang."""

from __future__ import annotations

from pathlib import Path

from tasplan.load.loader import load_inputs
from tasplan.schedulers.planner import plan

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "dra"


def test_shared_fabric_claim_picks_the_only_rack_with_a_free_fabric_and_four_free_nodes():
    snap = load_inputs([SAMPLES / "workloads" / "train-fabric.yaml"], [SAMPLES / "cluster"])
    assert len(snap.dra.slices) == 15 and len(snap.dra.claims) == 2
    result = plan(snap).groups[0]
    assert result.schedulable and result.selected == "rack-3"
    by_name = {p.name: p for p in result.placements}
    # rack-1: its fabric is held by research/sweep-fabric
    assert by_name["rack-1"].unplaced["ml/train-fabric-0"] == \
        "0/4 nodes are available: 4 cannot allocate all claims."
    # rack-2: dra-r2-0 has only 4 free GPUs (research/notebook-gpus), the 4th pod fails
    assert by_name["rack-2"].placed == 3
    chosen = result.selected_placement
    assert chosen.allocations["ml/train-fabric/fabric"] == [
        {"request": "fabric", "driver": "fabric.example.com", "pool": "rack-3",
         "device": "nvlink-domain"}]
    assert [d["device"] for d in chosen.allocations["ml/train-fabric-0/gpus"]] == \
        [f"gpu-{i}" for i in range(8)]
    assert len({d["pool"] for k, v in chosen.allocations.items() if k.endswith("/gpus")
                for d in v}) == 4


def test_snapshot_keeps_the_dra_objects(tmp_path):
    """``tasplan snapshot`` keeps DeviceClasses, ResourceSlices and (pruned) claims: the
    plan from the snapshot equals the plan from the files, byte for byte."""
    from typer.testing import CliRunner

    from tasplan.cli.app import app

    def invoke(*args):
        return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})

    target = tmp_path / "snap.json"
    assert invoke("snapshot", "-f", target, "-c", SAMPLES / "cluster", "--quiet").exit_code == 0
    workload = SAMPLES / "workloads" / "train-fabric.yaml"
    from_snapshot = invoke("check", workload, "-c", target, "-o", "json")
    from_files = invoke("check", workload, "-c", SAMPLES / "cluster", "-o", "json")
    assert from_snapshot.exit_code == from_files.exit_code == 0, from_snapshot.stderr
    assert from_snapshot.stdout == from_files.stdout
    kinds = {i["kind"] for i in __import__("json").loads(target.read_text())["items"]}
    assert {"DeviceClass", "ResourceSlice", "ResourceClaim"} <= kinds


def test_table_shows_devices_per_pod_and_free_devices_per_domain():
    from typer.testing import CliRunner

    from tasplan.cli.app import app
    out = CliRunner().invoke(app, ["check", str(SAMPLES / "workloads" / "train-fabric.yaml"),
                                   "-c", str(SAMPLES / "cluster")],
                             env={"COLUMNS": "200"}).stdout
    assert "FREE gpu.example.com" in out and "FREE fabric.example.com" in out
    rack2 = next(line for line in out.splitlines() if " rack-2 " in line)
    assert rack2.split()[-2:] == ["4", "0"]  # 4 GPUs of dra-r2-0 left; the fabric taken
    assert "ml/train-fabric-0  dra-r3-0  8× gpu.example.com, 1× fabric.example.com" in out
    assert "dra-greedy" not in out  # the gang fits: nothing to say about greedy choices


def _big_gang(tmp_path):
    """A 5-pod gang of 8-GPU pods (racks hold 4 nodes of 8 GPUs) with the sample cluster."""
    docs = ["apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: big, "
            "namespace: ml}\nspec:\n  schedulingPolicy: {gang: {minCount: 5}}\n"
            "  schedulingConstraints: {topology: [{key: topology.example.com/rack}]}\n"]
    docs += [f"apiVersion: v1\nkind: Pod\nmetadata: {{name: big-{i}, namespace: ml}}\nspec:\n"
             "  schedulingGroup: {podGroupName: big}\n  containers: [{name: w, image: i}]\n"
             "  resourceClaims: [{name: gpus, resourceClaimTemplateName: eight-h100}]\n"
             for i in range(5)]
    path = tmp_path / "big.yaml"
    path.write_text("---\n".join(docs))
    return load_inputs([path, SAMPLES / "workloads" / "train-fabric.yaml"],
                       [SAMPLES / "cluster"])


def test_explain_names_the_device_shortfall_per_domain(tmp_path):
    """explain: a 5-pod gang of 8-GPU pods in 4-node racks is short one node's devices in
    racks 1 and 3, two in rack-2 (dra-r2-0 has 4 GPUs left); the nodes are not excluded."""
    from tasplan.explain.explainer import explain

    explanation = explain(_big_gang(tmp_path)).explanations["ml/big"]
    rows = {d.name: d for d in explanation.domains}
    assert rows["rack-1"].shortfall == {"devices/gpu.example.com": 8}
    assert rows["rack-2"].shortfall == {"devices/gpu.example.com": 16}
    assert rows["rack-2"].per_pod == {"devices/gpu.example.com": 8}
    assert not rows["rack-1"].excluded


def test_explain_add_nodes_copies_the_template_nodes_devices(tmp_path):
    """The gang is short of GPUs, not of cpu: the add-nodes suggestion adds one node like
    dra-r1-0 with a copy of its ResourceSlice (pool named after the new node, as
    ``check --add-nodes --like`` does), and the verified re-plan gives the fifth pod the new
    node's eight GPUs. Without the copied slice no number of new nodes would fit the gang."""
    from tasplan.explain.explainer import explain

    explanation = explain(_big_gang(tmp_path)).explanations["ml/big"]
    add = next(s for s in explanation.suggestions if s.kind == "addNodes")
    assert add.cost == {"nodesAdded": 1}
    assert add.details["template"] == "dra-r1-0"
    chosen = add.result.selected_placement
    assert add.result.schedulable and chosen.placed == 5
    new_node = add.details["nodes"][0]
    assert new_node in chosen.nodes
    pod = next(p for p, n in chosen.assignments.items() if n == new_node)
    assert chosen.allocations[f"{pod}/gpus"] == [
        {"request": "gpus", "driver": "gpu.example.com", "pool": new_node, "device": f"gpu-{i}"}
        for i in range(8)]


def _rack2_gang(tmp_path, extra: str = ""):
    """A 4-pod gang of 8-GPU pods kept to rack-2 at priority 1000, and ``extra``."""
    docs = ["apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\n"
            "value: 1000\n",
            "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: r2, "
            "namespace: ml}\nspec:\n  priorityClassName: high\n"
            "  schedulingPolicy: {gang: {minCount: 4}}\n"
            "  schedulingConstraints: {topology: [{key: topology.example.com/rack}]}\n"]
    docs += [f"apiVersion: v1\nkind: Pod\nmetadata: {{name: r2-{i}, namespace: ml}}\nspec:\n"
             "  priorityClassName: high\n  schedulingGroup: {podGroupName: r2}\n"
             "  nodeSelector: {topology.example.com/rack: rack-2}\n"
             "  containers: [{name: w, image: i}]\n"
             "  resourceClaims: [{name: gpus, resourceClaimTemplateName: eight-h100}]\n"
             for i in range(4)]
    path = tmp_path / "r2.yaml"
    path.write_text("---\n".join(docs + ([extra] if extra else [])))
    return load_inputs([path, SAMPLES / "workloads" / "train-fabric.yaml"],
                       [SAMPLES / "cluster"])


def test_explain_eviction_keeps_a_claim_another_pod_still_uses(tmp_path):
    """Same gang, but a second running pod (priority 1000: not evictable) shares the claim
    research/notebook-gpus: evicting notebook-0 frees no GPU, so no eviction is offered."""
    from tasplan.explain.explainer import explain

    sharer = ("apiVersion: v1\nkind: Pod\nmetadata: {name: notebook-1, namespace: research}\n"
              "spec:\n  nodeName: dra-r2-1\n  priorityClassName: high\n"
              "  containers: [{name: nb, image: i}]\n"
              "  resourceClaims: [{name: gpus, resourceClaimName: notebook-gpus}]\n"
              "status: {phase: Running}\n")
    explanation = explain(_rack2_gang(tmp_path, sharer)).explanations["ml/r2"]
    assert not [s for s in explanation.suggestions if s.kind == "evict"]
    assert [s for s in explanation.suggestions if s.kind == "addNodes"]


def test_explain_eviction_frees_the_devices_the_victims_hold(tmp_path):
    """A 4-pod gang of 8-GPU pods kept to rack-2, at a priority above notebook-0's (which
    holds 4 of dra-r2-0's GPUs through the claim research/notebook-gpus): only 3 pods fit.
    Evicting notebook-0 deallocates its claim, so the eviction suggestion names it and the
    verified re-plan gives a pod dra-r2-0's GPUs, the 4 the claim held included."""
    from tasplan.explain.explainer import explain

    explanation = explain(_rack2_gang(tmp_path)).explanations["ml/r2"]
    evict = next(s for s in explanation.suggestions if s.kind == "evict")
    assert [v["pod"] for v in evict.details["victims"]] == ["research/notebook-0"]
    assert evict.cost == {"podsEvicted": 1} and evict.minimal
    chosen = evict.result.selected_placement
    assert evict.result.schedulable and chosen.placed == 4
    pod = next(p for p, n in chosen.assignments.items() if n == "dra-r2-0")
    assert sorted(d["device"] for d in chosen.allocations[f"{pod}/gpus"]) == \
        sorted(f"gpu-{i}" for i in range(8))
