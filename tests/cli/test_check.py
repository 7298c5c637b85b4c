"""``tasplan check`` end to end through Typer's CliRunner, on the samples and on bad input:
exit codes, the PlanReport contract, determinism and one-line errors."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from tasplan import __version__
from tasplan.cli.app import app

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples"
CLUSTER = SAMPLES / "cluster"
WORKLOADS = SAMPLES / "workloads"
LEGACY = SAMPLES / "legacy" / "v1alpha1-workload.yaml"

GROUP_KEYS = {"name", "policy", "minCount", "topologyKey", "pendingPods", "scheduledPods",
              "schedulable", "selected", "tiedWith", "message", "placements"}
PLACEMENT_KEYS = {"name", "nodes", "feasible", "score", "scores", "assignments", "unplaced"}

EXPECTED_EXIT = {
    "train-too-big.yaml": 1,
    "train-rack.yaml": 0,
    "serve-basic.yaml": 0,
    "job.yaml": 0,
    "pinned.yaml": 0,
}


def invoke(*args: str | Path):
    runner = CliRunner()
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})


def check_json(*workloads: str | Path, cluster: Path = CLUSTER) -> tuple[int, dict, str]:
    result = invoke("check", *workloads, "-c", cluster, "-o", "json")
    return result.exit_code, json.loads(result.stdout), result.stdout


def groups(document: dict) -> dict[str, dict]:
    return {g["name"]: g for g in document["groups"]}


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def test_sample_files_exist() -> None:
    assert sorted(p.name for p in WORKLOADS.glob("*.yaml")) == sorted(EXPECTED_EXIT)


# --------------------------------------------------------------------------- samples


@pytest.mark.parametrize(("name", "code"), sorted(EXPECTED_EXIT.items()))
def test_each_sample_alone(name: str, code: int) -> None:
    result = invoke("check", WORKLOADS / name, "-c", CLUSTER)
    assert result.exit_code == code, result.stdout + result.stderr
    assert result.stderr == ""
    assert ("UNSCHEDULABLE" in result.stdout) == (code == 1)
    assert "SCHEDULABLE" in result.stdout


def test_all_samples_together() -> None:
    code, document, _ = check_json(WORKLOADS)
    assert code == 1  # train-too-big never fits
    by_name = groups(document)
    assert set(by_name) == {"ml/finetune", "ml/resume", "ml/train-workers-0", "ml/big-workers",
                            "serving/web"}
    assert {n: g["schedulable"] for n, g in by_name.items()} == {
        "ml/finetune": True, "ml/resume": True, "ml/train-workers-0": True,
        "ml/big-workers": False, "serving/web": True}
    assert {k: document["summary"][k] for k in ("nodes", "pods", "groups", "schedulable",
                                                 "whatIf")} \
        == {"nodes": 27, "pods": 111, "groups": 5, "schedulable": 4, "whatIf": []}
    assert document["summary"]["kubeVersion"] == "1.37"


def test_directory_and_files_give_the_same_report() -> None:
    files = sorted(WORKLOADS.glob("*.yaml"))
    _, from_dir, text_dir = check_json(WORKLOADS)
    _, from_files, text_files = check_json(*files)
    assert text_dir == text_files
    assert from_dir == from_files


@pytest.mark.parametrize("name", sorted(EXPECTED_EXIT))
def test_json_contract(name: str) -> None:
    code, document, _ = check_json(WORKLOADS / name)
    assert code == EXPECTED_EXIT[name]
    assert document["apiVersion"] == "tasplan/v1"
    assert document["kind"] == "PlanReport"
    assert isinstance(document["warnings"], list)
    assert document["summary"]["nodes"] == 27
    assert document["groups"], "every sample defines a group"
    for group in document["groups"]:
        assert set(group) >= GROUP_KEYS, GROUP_KEYS - set(group)
        assert isinstance(group["tiedWith"], list)
        assert group["policy"] in ("gang", "basic")
        assert isinstance(group["minCount"], int) and group["minCount"] >= 1
        assert isinstance(group["schedulable"], bool)
        assert group["placements"]
        for placement in group["placements"]:
            assert set(placement) >= PLACEMENT_KEYS, PLACEMENT_KEYS - set(placement)
            assert isinstance(placement["nodes"], int)
            assert isinstance(placement["assignments"], dict)
            assert isinstance(placement["unplaced"], dict)
        feasible = [p for p in group["placements"] if p["feasible"]]
        for placement in group["placements"]:
            if placement["feasible"] and len(feasible) > 1:
                assert isinstance(placement["score"], int)
                assert placement["scores"]
            else:  # upstream takes a lone feasible placement without scoring it
                assert placement["score"] is None and placement["scores"] == {}
        names = [p["name"] for p in group["placements"]]
        assert len(names) == len(set(names))
        if group["schedulable"]:
            assert group["selected"] in names
        else:
            assert group["selected"] is None
        assert set(group["tiedWith"]) <= set(names) - {group["selected"]}
    summary = document["summary"]
    assert summary["groups"] == len(document["groups"])
    assert summary["schedulable"] == sum(g["schedulable"] for g in document["groups"])


def test_json_is_byte_identical_across_runs() -> None:
    first = invoke("check", WORKLOADS, "-c", CLUSTER, "-o", "json")
    second = invoke("check", WORKLOADS, "-c", CLUSTER, "-o", "json")
    assert first.stdout == second.stdout
    assert first.stdout.endswith("\n")


def test_yaml_output_is_the_same_document_as_json() -> None:
    as_json = invoke("check", WORKLOADS, "-c", CLUSTER, "-o", "json")
    as_yaml = invoke("check", WORKLOADS, "-c", CLUSTER, "-o", "yaml")
    assert as_json.exit_code == as_yaml.exit_code == 1
    assert yaml.safe_load(as_yaml.stdout) == json.loads(as_json.stdout)


def test_train_rack_alone_selects_rack_b1_tied_with_rack_b3() -> None:
    code, document, _ = check_json(WORKLOADS / "train-rack.yaml")
    assert code == 0
    (group,) = document["groups"]
    assert group["name"] == "ml/train-workers-0"
    assert (group["policy"], group["minCount"]) == ("gang", 4)
    assert group["topologyKey"] == "topology.example.com/rack"
    assert (group["pendingPods"], group["scheduledPods"]) == (4, 0)
    assert group["selected"] == "rack-b1"
    assert group["tiedWith"] == ["rack-b3"]
    feasible = {p["name"] for p in group["placements"] if p["feasible"]}
    assert feasible == {"rack-b1", "rack-b3"}
    assert len(group["placements"]) == 6
    b1 = next(p for p in group["placements"] if p["name"] == "rack-b1")
    assert b1["assignments"] == {f"ml/train-workers-0-{i}": f"gpu-b1-{i}" for i in range(4)}
    assert b1["unplaced"] == {}


def test_train_too_big_alone() -> None:
    code, document, _ = check_json(WORKLOADS / "train-too-big.yaml")
    assert code == 1
    (group,) = document["groups"]
    assert group["schedulable"] is False
    assert group["selected"] is None
    assert len(group["placements"]) == 6
    assert not any(p["feasible"] for p in group["placements"])
    assert all(p["unplaced"] for p in group["placements"])


def test_serve_basic_alone() -> None:
    code, document, _ = check_json(WORKLOADS / "serve-basic.yaml")
    assert code == 0
    (group,) = document["groups"]
    assert group["policy"] == "basic"
    assert {p["name"]: (p["nodes"], p["feasible"]) for p in group["placements"]} == {
        "block-a": (12, True), "block-b": (12, True)}


def test_job_alone() -> None:
    code, document, _ = check_json(WORKLOADS / "job.yaml")
    assert code == 0
    (group,) = document["groups"]
    assert (group["name"], group["policy"], group["minCount"]) == ("ml/finetune", "gang", 2)
    assert {p["name"] for p in group["placements"] if p["feasible"]} == {
        "rack-a2", "rack-a3", "rack-b1", "rack-b2", "rack-b3"}
    selected = next(p for p in group["placements"] if p["name"] == group["selected"])
    assert set(selected["assignments"]) == {"ml/finetune-0", "ml/finetune-1"}


def test_pinned_alone() -> None:
    code, document, _ = check_json(WORKLOADS / "pinned.yaml")
    assert code == 0
    (group,) = document["groups"]
    assert (group["pendingPods"], group["scheduledPods"]) == (2, 2)
    assert group["selected"] == "rack-a3"
    assert [p["name"] for p in group["placements"]] == ["rack-a3"]
    (placement,) = group["placements"]
    assert set(placement["assignments"]) == {"ml/resume-2", "ml/resume-3"}
    assert set(placement["assignments"].values()) <= {f"gpu-a3-{i}" for i in range(4)}


def test_the_first_run_prints_no_note() -> None:
    """The README's first command: the bundled samples are one API release, so nothing
    on stderr (the legacy v1alpha1 sample, moved aside, made tasplan say no release serves
    v1alpha1 and v1beta1 together)."""
    result = invoke("check", WORKLOADS, "--cluster", CLUSTER)
    assert result.exit_code == 1  # train-too-big never fits
    assert result.stderr == ""
    mixed = invoke("check", WORKLOADS, LEGACY, "--cluster", CLUSTER)
    assert mixed.stderr.startswith("note: no Kubernetes release serves all of "
                                   "scheduling.k8s.io/v1alpha1, scheduling.k8s.io/v1beta1")


def test_v1alpha1_alone() -> None:
    # A v1alpha1 Workload is served by 1.35 only: the target follows it and says so.
    result = invoke("check", LEGACY, "-c", CLUSTER)
    assert result.stderr == ("note: targeting Kubernetes 1.35: the inputs use "
                             "scheduling.k8s.io/v1alpha1, which 1.37 does not serve\n")
    code, document, _ = check_json(LEGACY)
    assert code == 0
    (group,) = document["groups"]
    assert group["name"] == "ml/legacy/workers"
    assert group["topologyKey"] is None
    selected = next(p for p in group["placements"] if p["name"] == group["selected"])
    assert set(selected["assignments"]) == {"ml/legacy-workers-0", "ml/legacy-workers-1"}
    assert all(node.startswith("cpu-") for node in selected["assignments"].values())


# --------------------------------------------------------------------------- table output


def test_table_output() -> None:
    result = invoke("check", WORKLOADS / "train-rack.yaml", "-c", CLUSTER)
    assert result.exit_code == 0
    out = result.stdout
    assert "ml/train-workers-0" in out
    assert "PLACEMENT" in out and "FEASIBLE" in out
    assert "assignments in 'rack-b1':" in out
    assert "assignments in 'rack-b3':" not in out
    assert "gpu-b1-0" in out
    assert "NODE NAMES" not in out


def test_wide_output_lists_node_names() -> None:
    result = invoke("check", WORKLOADS / "train-rack.yaml", "-c", CLUSTER, "-o", "wide")
    assert result.exit_code == 0
    out = result.stdout
    assert "NODE NAMES" in out and "STATUS" in out
    assert "gpu-b3-0,gpu-b3-1,gpu-b3-2,gpu-b3-3" in out
    assert "gpu-a1-0,gpu-a1-1,gpu-a1-2,gpu-a1-3" in out


def test_all_shows_assignments_for_every_feasible_placement() -> None:
    result = invoke("check", WORKLOADS / "train-rack.yaml", "-c", CLUSTER, "--all")
    assert result.exit_code == 0
    out = result.stdout
    assert "assignments in 'rack-b1':" in out
    assert "assignments in 'rack-b3':" in out
    assert "assignments in 'rack-a1':" not in out  # infeasible
    for i in range(4):
        assert re.search(rf"ml/train-workers-0-{i}\s+gpu-b3-{i}", out)


def test_unschedulable_table_has_no_assignments() -> None:
    result = invoke("check", WORKLOADS / "train-too-big.yaml", "-c", CLUSTER, "--all")
    assert result.exit_code == 1
    assert "assignments in" not in result.stdout
    assert "UNSCHEDULABLE" in result.stdout


# --------------------------------------------------------------------------- errors


def assert_one_line_error(result, *needles: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    err = result.stderr
    assert err.startswith("error: "), err
    assert "Traceback" not in err + result.stdout
    assert err.count("\n") == 1 and err.endswith("\n"), repr(err)
    for needle in needles:
        assert needle in err, (needle, err)
    assert result.stdout == ""
    return err


def test_bad_input_file(tmp_path: Path) -> None:
    bad = write(tmp_path, "bad-pod.yaml", """
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
          namespace: ml
        spec:
          tolerations:
          - key: nvidia.com/gpu
            operator: Equals
        """)
    result = invoke("check", bad, "-c", CLUSTER)
    assert_one_line_error(result, "bad-pod.yaml:9:", "Pod ml/p",
                          "spec.tolerations[0].operator", "expected Equal or Exists",
                          "got 'Equals'")


def test_malformed_yaml(tmp_path: Path) -> None:
    bad = write(tmp_path, "broken.yaml", """
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
           oops: 1
        """)
    result = invoke("check", bad, "-c", CLUSTER)
    assert_one_line_error(result, "broken.yaml:5:", "invalid YAML")


def test_bad_cluster_file(tmp_path: Path) -> None:
    bad = write(tmp_path, "nodes.yaml", """
        apiVersion: v1
        kind: Node
        metadata:
          name: n1
        status:
          allocatable:
            cpu: lots
        """)
    result = invoke("check", WORKLOADS / "train-rack.yaml", "-c", bad)
    assert_one_line_error(result, "nodes.yaml:7:", "Node n", "status.allocatable.cpu", "lots")


def test_missing_file(tmp_path: Path) -> None:
    result = invoke("check", tmp_path / "nope.yaml", "-c", CLUSTER)
    assert_one_line_error(result, "nope.yaml", "no such file")


def test_missing_cluster(tmp_path: Path) -> None:
    result = invoke("check", WORKLOADS / "job.yaml", "-c", tmp_path / "nope")
    assert_one_line_error(result, "nope", "no such file")


def test_odd_shapes_are_invalid_input_not_internal_errors(tmp_path: Path) -> None:
    """A wrongly shaped field is the input's fault: exit 2 naming the field, not exit 3."""
    weird = write(tmp_path, "pod.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: ml}
        status: [not, a, mapping]
        spec:
          nodeName: n1
        """)
    result = invoke("check", weird, "-c", CLUSTER)
    assert "Traceback" not in result.stderr + result.stdout
    assert_one_line_error(result, "pod.yaml:4:", "status")


def test_alias_bomb_is_exit_2(tmp_path: Path) -> None:
    lines = ["a: &a [" + ", ".join(['"lol"'] * 9) + "]"]
    for prev, cur in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\n")
    result = invoke("check", bomb, "-c", CLUSTER)
    assert_one_line_error(result, "bomb.yaml", "alias")


def test_no_groups_in_the_workload_inputs(tmp_path: Path) -> None:
    only_pod = write(tmp_path, "pod.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: loner, namespace: ml}
        spec:
          containers: [{name: c}]
        """)
    result = invoke("check", only_pod, "-c", CLUSTER)
    # Valid input that holds nothing to plan: not "invalid input" (2) but "could not
    # check" (4), with the report saying what was skipped and what would plan it.
    assert result.exit_code == 4, (result.stdout, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr
    assert "nothing to plan" in result.stdout
    assert ("skipped 1 Pod (v1) ml/loner: pending pods in no pod group (no schedulingGroup, "
            "workloadRef or group label) → --gang MINCOUNT --topology-key KEY") in result.stdout
    for output in ("json", "yaml"):
        out = invoke("check", only_pod, "-c", CLUSTER, "-o", output)
        assert out.exit_code == 4
        document = json.loads(out.stdout) if output == "json" else yaml.safe_load(out.stdout)
        assert document["groups"] == []
        assert [(k["kind"], k["names"], k["checked"]) for k in document["skipped"]] == [
            ("Pod", ["ml/loner"], True)]
        assert isinstance(document["warnings"], list)
    # --gang plans the bare pod: one gang of the namespace's pending pods.
    out = invoke("check", only_pod, "-c", CLUSTER, "--gang", "1", "-o", "json")
    assert out.exit_code == 0, out.stdout
    document = json.loads(out.stdout)
    assert [(g["name"], g["kind"], g["minCount"]) for g in document["groups"]] == [
        ("ml/pods", "Pod", 1)]
    assert document["skipped"] == []


def test_no_groups_mentions_dangling_references(tmp_path: Path) -> None:
    pod = write(tmp_path, "pod.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: ml}
        spec:
          schedulingGroup: {podGroupName: ghost}
        """)
    result = invoke("check", pod, "-c", CLUSTER)
    assert result.exit_code == 4
    assert "nothing to plan" in result.stdout
    assert "reference pod group ml/ghost, which is not in the inputs" in result.stderr


def test_cluster_only_groups_are_not_planned(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = invoke("check", empty, "-c", CLUSTER)
    assert result.exit_code == 4
    assert "nothing to plan" in result.stdout


def test_bad_output_format() -> None:
    result = invoke("check", WORKLOADS / "job.yaml", "-c", CLUSTER, "-o", "xml")
    assert result.exit_code == 2
    assert "Traceback" not in result.stderr + result.stdout


def test_no_workload_argument() -> None:
    result = invoke("check", "-c", CLUSTER)
    assert result.exit_code == 2
    assert "Traceback" not in result.stderr + result.stdout


def test_gang_and_topology_key_flags(tmp_path: Path) -> None:
    job = write(tmp_path, "job.yaml", """
        apiVersion: batch/v1
        kind: Job
        metadata: {name: plain, namespace: ml}
        spec:
          parallelism: 2
          template:
            spec:
              tolerations:
              - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
              containers:
              - name: c
                resources:
                  requests: {nvidia.com/gpu: "8", cpu: "8"}
        """)
    basic = invoke("check", job, "-c", CLUSTER, "-o", "json")
    assert basic.exit_code == 0
    (group,) = json.loads(basic.stdout)["groups"]
    assert (group["policy"], group["minCount"], group["topologyKey"]) == ("basic", 1, None)

    gang = invoke("check", job, "-c", CLUSTER, "-o", "json", "--gang", "2",
                  "--topology-key", "topology.example.com/rack")
    assert gang.exit_code == 0, gang.stderr
    (group,) = json.loads(gang.stdout)["groups"]
    assert (group["policy"], group["minCount"], group["topologyKey"]) == (
        "gang", 2, "topology.example.com/rack")
    assert len(group["placements"]) == 6

    zero = invoke("check", job, "-c", CLUSTER, "--gang", "0")
    assert zero.exit_code == 2


# --------------------------------------------------------------------------- misc commands


def test_help() -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    assert "check" in result.stdout and "version" in result.stdout
    check_help = invoke("check", "--help")
    assert check_help.exit_code == 0
    for flag in ("--cluster", "--output", "--all", "--gang", "--topology-key", "--width",
                 "--traceback"):
        assert flag in check_help.stdout
    for command in ("explain", "snapshot", "lint"):
        assert "--traceback" in invoke(command, "--help").stdout, command
    assert "--version" in result.stdout


def test_help_text_is_reflowed_not_cut_at_docstring_line_breaks() -> None:
    """A docstring's line breaks are source layout: at 80 columns a sentence runs on."""
    result = CliRunner().invoke(app, ["lint", "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0
    assert "with --cluster also topology keys" in result.stdout
    top = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "80"})
    assert "kubectl dumps (--cluster)" in top.stdout


def test_pdb_allowance_counts_budgets_without_a_status(tmp_path: Path) -> None:
    """A budget over the rl-sweep pods submitted without a status (the disruption
    controller has not run): kube-scheduler reads it as allowing nothing, so both victims
    break it; ``--pdb-allowance computed`` reads what the controller will write (2 running,
    minAvailable 0: both may go). The report says which was used."""
    pdb = tmp_path / "pdb.yaml"
    pdb.write_text("apiVersion: policy/v1\nkind: PodDisruptionBudget\n"
                   "metadata: {name: sweep, namespace: research}\n"
                   "spec: {minAvailable: 0, selector: {matchLabels: {job-name: rl-sweep}}}\n")
    runs = {}
    for allowance in ("status", "computed"):
        result = invoke("check", URGENT, "-c", CLUSTER, "-c", pdb, "-o", "json",
                        "--pdb-allowance", allowance)
        assert result.exit_code == 0, result.stdout + result.stderr
        doc = json.loads(result.stdout)
        runs[allowance] = doc["groups"][0]
        assert doc["summary"]["pdbAllowance"] == allowance
    assert [v["pod"] for v in runs["status"]["preemption"]["victims"]] == [
        "research/rl-sweep-0-6vnvt", "research/rl-sweep-1-dbrz7"]
    assert runs["status"]["preemption"]["pdbViolations"] == 2
    assert runs["computed"]["preemption"]["pdbViolations"] == 0
    codes = {allowance: {n["code"]: n["message"] for n in g["notes"]}
             for allowance, g in runs.items()}
    assert "research/sweep has no status: kube-scheduler reads it as allowing no " \
        "disruption" in codes["status"]["pdb-status"]
    assert "computed from its spec" in codes["computed"]["pdb-status"]


def test_a_v1alpha2_basic_group_that_fits_nowhere_gets_a_verdict(tmp_path: Path) -> None:
    """Every verdict path ends in a verdict: 1.36 (the inputs' v1alpha2), a basic group
    whose pods fit no rack. It was an InternalError (exit 3) from PodGroupPodsCount
    scoring placements that placed nothing."""
    path = tmp_path / "basic.yaml"
    path.write_text(textwrap.dedent("""
        apiVersion: scheduling.k8s.io/v1alpha2
        kind: PodGroup
        metadata: {name: svc, namespace: ml}
        spec:
          schedulingPolicy: {basic: {}}
          schedulingConstraints: {topology: [{key: topology.example.com/rack}]}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: svc-0, namespace: ml}
        spec:
          schedulingGroup: {podGroupName: svc}
          containers: [{name: c, image: x, resources: {requests: {cpu: "500"}}}]
        """))
    result = invoke("check", path, "-c", CLUSTER, "-o", "json")
    assert result.exit_code == 1, result.stdout + result.stderr
    (group,) = json.loads(result.stdout)["groups"]
    assert group["outcome"] == "unschedulable"
    assert group["message"] == ("0/6 placements are available, first placement status: pod "
                                "group is unschedulable")


def test_version() -> None:
    for args in (("version",), ("--version",)):
        result = invoke(*args)
        assert result.exit_code == 0
        assert result.stdout == f"tasplan {__version__}\n"
    assert __version__ == "0.1.0"


URGENT = SAMPLES / "explain" / "urgent.yaml"


def test_preemption_in_json_table_and_exit_status() -> None:
    """samples/explain/urgent.yaml does not fit as the cluster is; kube-scheduler 1.37's
    workload-aware preemption evicts the two batch-low pods of rack-a2 (priority 1000 <
    100000). Scheduled after preemption: exit 0, ``schedulable`` stays false."""
    result = invoke("check", URGENT, "-c", CLUSTER, "-o", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    (group,) = json.loads(result.stdout)["groups"]
    assert (group["outcome"], group["schedulable"]) == ("scheduled-after-preemption", False)
    assert group["preemption"] == {
        "placement": "rack-a2",
        "victims": [{"pod": "research/rl-sweep-0-6vnvt", "node": "gpu-a2-0", "priority": 1000,
                     "group": None, "unit": None},
                    {"pod": "research/rl-sweep-1-dbrz7", "node": "gpu-a2-1", "priority": 1000,
                     "group": None, "unit": None}],
        "nominated": {"ml/urgent-0": "gpu-a2-0", "ml/urgent-1": "gpu-a2-1",
                      "ml/urgent-2": "gpu-a2-2", "ml/urgent-3": "gpu-a2-3"},
        "pdbViolations": 0}
    table = invoke("check", URGENT, "-c", CLUSTER).stdout
    assert "DISRUPTION: preemption evicts 2 pod(s) so the group fits in 'rack-a2'" in table
    assert "research/rl-sweep-0-6vnvt" in table
    assert "SCHEDULABLE AFTER PREEMPTION:" in table
    assert json.loads(result.stdout)["summary"]["pdbAllowance"] == "status"
    plain = invoke("check", URGENT, "-c", CLUSTER, "--no-preempt", "-o", "json")
    assert plain.exit_code == 1
    (group,) = json.loads(plain.stdout)["groups"]
    assert (group["outcome"], group["preemption"]) == ("unschedulable", None)
    assert [n["code"] for n in group["notes"]] == ["preemption"]


def test_kube_version_and_feature_gates_in_the_summary() -> None:
    result = invoke("check", WORKLOADS / "train-rack.yaml", "-c", CLUSTER, "-o", "json",
                    "--kube-version", "v1.38.1",
                    "--feature-gates", "PodGroupPreemptionPolicy=true")
    summary = json.loads(result.stdout)["summary"]
    assert summary["kubeVersion"] == "1.38"
    assert summary["featureGates"]["PodGroupPreemptionPolicy"] is True
    assert summary["featureGates"]["GenericWorkload"] is True  # assumed: the input needs it


@pytest.mark.parametrize(("args", "message"), [
    (["--kube-version", "1.30"], "tasplan models Kubernetes 1.35, 1.36, 1.37, 1.38"),
    (["--feature-gates", "GenericWorkload"], "expected Name=true or Name=false"),
    (["--kube-version", "1.36"], "scheduling.k8s.io/v1beta1 is not served by Kubernetes 1.36"),
])
def test_release_options_errors_exit_2(args: list[str], message: str) -> None:
    result = invoke("check", WORKLOADS / "train-rack.yaml", "-c", CLUSTER, *args)
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr
