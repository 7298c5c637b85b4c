"""The edges a new user hits first, end to end through the CLI: generateName, other
projects' kinds, piped tables, warnings on stderr, snapshot file names, empty inputs,
kind-less objects, and the lint and preemption-note fixes of issue 13."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tasplan import load_inputs, plan
from tasplan.cli.app import app
from tasplan.cli.output import Width, render
from tasplan.report.table import render_plan

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
CLUSTER = REPO / "samples" / "cluster"
SAMPLES = REPO / "samples" / "workloads"


def invoke(*args: str | Path, columns: int = 80):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": str(columns)})


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


# --------------------------------------------------------------------------- generateName


def test_generate_name_jobs_and_pods_plan_with_stable_names() -> None:
    """Kueue-style Jobs and generateName Pods: `check` used to exit 2 on them."""
    for fixture, pods in (("kueue-job.yaml", ["ml/sample-job-00000-0", "ml/sample-job-00001-1"]),
                          ("generatename-pods.yaml", ["serve/infer-00000", "serve/infer-00001"])):
        first = invoke("check", FIXTURES / fixture, "-c", CLUSTER, "-o", "json")
        second = invoke("check", FIXTURES / fixture, "-c", CLUSTER, "-o", "json")
        assert first.exit_code == 0, first.output
        assert first.stdout == second.stdout  # the same names on every run
        report = json.loads(first.stdout)
        assigned = {p for g in report["groups"] for pl in g["placements"]
                    for p in pl["assignments"]}
        assert set(pods) <= assigned
        assert any("generateName" in w and "the same on every run" in w
                   for w in report["warnings"])


def test_generate_name_warning_goes_to_stderr_in_table_mode() -> None:
    result = invoke("check", FIXTURES / "kueue-job.yaml", "-c", CLUSTER)
    assert result.exit_code == 0
    assert "generateName" in result.stderr and "warning:" in result.stderr
    assert "warning" not in result.stdout
    assert "ml/sample-job-00000" in result.stdout


# --------------------------------------------------------------------------- foreign kinds


def test_other_schedulers_kinds_are_skipped_with_one_warning_per_kind() -> None:
    """KAI's scheduling.run.ai PodGroup (--scheduler kai) and Volcano's objects are read;
    the others are skipped."""
    result = invoke("check", FIXTURES / "foreign.yaml", "-c", CLUSTER, "-o", "json")
    # Volcano's PodGroup (no pods: "Not enough valid tasks") and vcjob are planned by volcano
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert {g["name"]: g["scheduler"] for g in report["groups"]
            if g["name"].startswith("ml/vc-")} == {"ml/vc-pg": "volcano", "ml/vc-job": "volcano"}
    assert [(k["kind"], k["apiVersion"], k["count"], k["checked"])
            for k in report["skipped"]] == [
        ("PodGroup", "scheduling.x-k8s.io/v1alpha1", 2, True)]
    warnings = report["warnings"]
    skipped = [w for w in warnings if w.startswith("skipped")]
    assert [re.match(r"skipped (\d+) (\w+) object\(s\) of apiVersion (\S+):", w).groups()
            for w in skipped] == [
        ("2", "PodGroup", "scheduling.x-k8s.io/v1alpha1"),
    ]
    assert all("--scheduler" in w or "coscheduling" in w for w in skipped)


@pytest.mark.parametrize("command", ["check", "explain"])
def test_other_schedulers_kinds_in_cluster_inputs_are_not_an_error(tmp_path: Path,
                                                                   command: str) -> None:
    dump = tmp_path / "dump"
    dump.mkdir()
    for f in CLUSTER.iterdir():
        (dump / f.name).write_text(f.read_text())
    (dump / "volcano.yaml").write_text((FIXTURES / "foreign.yaml").read_text())
    result = invoke(command, SAMPLES / "train-rack.yaml", "-c", dump)
    assert result.exit_code == 0, result.output
    assert "skipped 2 PodGroup object(s) of apiVersion scheduling.x-k8s.io/v1alpha1" \
        in result.stderr


def test_an_unknown_version_of_our_own_kinds_is_still_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, "pg.yaml", """
        apiVersion: scheduling.k8s.io/v1alpha9
        kind: PodGroup
        metadata: {name: pg}
        spec: {}
        """)
    result = invoke("check", path, "-c", CLUSTER)
    assert result.exit_code == 2
    assert "unsupported apiVersion 'scheduling.k8s.io/v1alpha9' for PodGroup" in result.stderr


# --------------------------------------------------------------------------- output width


def _long_names(tmp_path: Path) -> tuple[Path, list[str]]:
    """A gang whose pod and group names are longer than a narrow terminal."""
    name = "a-rather-long-distributed-training-job-name-for-the-llm-team"
    path = write(tmp_path, "job.yaml", f"""
        apiVersion: batch/v1
        kind: Job
        metadata: {{name: {name}, namespace: machine-learning-research}}
        spec:
          parallelism: 4
          template:
            spec:
              tolerations: [{{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}}]
              containers:
              - name: c
                resources: {{limits: {{nvidia.com/gpu: "8"}}}}
        """)
    return path, [f"machine-learning-research/{name}-{i}" for i in range(4)]


@pytest.mark.parametrize("width", [40, 80, 200])
@pytest.mark.parametrize("how", ["COLUMNS", "--width"])
def test_piped_tables_never_cut_names_or_numbers(tmp_path: Path, width: int, how: str) -> None:
    path, pods = _long_names(tmp_path)
    args = ["check", path, "-c", CLUSTER, "--gang", "4", "--topology-key",
            "topology.example.com/rack", "-o", "wide"]
    if how == "--width":
        args += ["--width", str(width)]
    result = invoke(*args, columns=width)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "…" not in out
    lines = out.splitlines()
    for pod in pods:  # every pod -> node row whole
        assert any(re.fullmatch(rf"{re.escape(pod)}\s+gpu-b1-\d", line) for line in lines), pod
    # the wide node lists and the free numbers, whole
    assert "gpu-b1-0,gpu-b1-1,gpu-b1-2,gpu-b1-3" in out
    assert re.search(r"▶1\s+rack-b1\s+(4\s+)?yes\s+4/4 \(min 4\)\s+100\b", out)
    assert "SCHEDULABLE: all 4 pending pods fit in rack-b1\n" in out
    header = next(line for line in lines if "PLACEMENT" in line)
    if how == "--width" and width < 100:
        assert "FREE MEM" not in header  # optional columns went first, and it says so
        assert re.search(rf"^left out to fit {width} columns: .*FREE MEM", out, re.M)
    else:
        assert "FREE MEM" in out and "PODSCOUNT" in out


def test_a_narrow_terminal_drops_optional_columns_before_cutting_names(tmp_path: Path) -> None:
    path, _ = _long_names(tmp_path)
    from tasplan.load.batch import JobOverrides
    result = plan(load_inputs([path], [CLUSTER],
                              jobs=JobOverrides(4, "topology.example.com/rack")))
    text = render(lambda target: render_plan(result, width=target), Width(60, cut=True))
    lines = text.splitlines()
    header = next(line for line in lines if "PLACEMENT" in line)
    # per-scorer parts first, then FREE columns from the last: FREE CPU still fits
    assert header.split() == ["#", "PLACEMENT", "NODES", "FEASIBLE", "PODS", "SCORE", "FREE",
                              "CPU"]
    assert all(len(line) <= 60 for line in lines)
    assert not any(line.startswith("SCORE =") for line in lines)  # no legend for dropped columns
    assert "left out to fit 60 columns: FIT, PODSCOUNT, FREE MEM, FREE GPU (-o json has " \
           "every figure)" in text.replace("\n", " ")
    assert [line.split()[1] for line in lines if re.match(r"[▶= ]\d ", line)] == [
        "rack-b1", "rack-b3", "rack-a3", "rack-a2", "rack-b2", "rack-a1"]
    wide = render(lambda target: render_plan(result, width=target), Width(200, cut=True))
    assert "FREE GPU" in wide and "PODSCOUNT" in wide


def test_table_warnings_go_to_stderr_and_json_keeps_them(tmp_path: Path) -> None:
    result = invoke("check", SAMPLES / "train-rack.yaml", "-c", CLUSTER, "-c",
                    FIXTURES / "foreign.yaml")
    assert result.exit_code == 0
    assert "warning:" not in result.stdout and "skipped" in result.stderr


# --------------------------------------------------------------------------- small things


def test_snapshot_output_file_flag_and_format_like_names(tmp_path: Path) -> None:
    target = tmp_path / "cluster.json"
    ok = invoke("snapshot", "-f", target, "-c", CLUSTER, "--quiet")
    assert ok.exit_code == 0 and json.loads(target.read_text())["kind"] == "ClusterSnapshot"
    for args in (("-o", "json"), ("-f", "yaml"), ("--output-file", "JSON")):
        refused = invoke("snapshot", *args, "-c", CLUSTER)
        assert refused.exit_code == 2
        assert "refusing to write a snapshot file named" in refused.stderr
        assert "-f cluster.json" in refused.stderr
    assert not (Path.cwd() / "json").exists()


@pytest.mark.parametrize("command", ["check", "snapshot"])
def test_objects_without_kind_are_an_error_in_every_command(tmp_path: Path,
                                                            command: str) -> None:
    node = write(tmp_path, "node.yaml", """
        apiVersion: v1
        metadata: {name: n1}
        status: {allocatable: {cpu: "4", pods: "110"}}
        """)
    args = (["check", SAMPLES / "train-rack.yaml", "-c", node] if command == "check"
            else ["snapshot", "-f", tmp_path / "out.json", "-c", node])
    result = invoke(*args)
    assert result.exit_code == 2
    assert "kind: required field is missing" in result.stderr
    assert not (tmp_path / "out.json").exists()


def test_forgetting_the_cluster_says_so() -> None:
    result = invoke("check", SAMPLES / "train-rack.yaml")
    assert result.exit_code == 2
    assert "the inputs contain no Nodes: pass the cluster with --cluster" in result.stderr


def test_lint_of_nothing_warns_and_fails_under_strict(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("no manifests here\n")
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    plain = invoke("lint", tmp_path)
    assert plain.exit_code == 0
    assert "warning: nothing to lint: the 1 file(s)" in plain.stderr
    strict = invoke("lint", "--strict", tmp_path / "nothing-here")
    assert strict.exit_code == 2  # a path that does not exist stays a usage error
    empty = tmp_path / "empty"
    empty.mkdir()
    strict = invoke("lint", "--strict", empty)
    assert strict.exit_code == 1
    assert "error: nothing to lint: no YAML or JSON files" in strict.stderr


def test_explain_takes_gang_and_topology_key() -> None:
    result = invoke("explain", FIXTURES / "jobset-plain.yaml", "-c", CLUSTER, "--gang", "5",
                    "--topology-key", "topology.example.com/rack", "-o", "json")
    assert result.exit_code == 1, result.output
    (group,) = json.loads(result.stdout)["groups"]
    assert (group["policy"], group["minCount"], group["topologyKey"]) == (
        "gang", 5, "topology.example.com/rack")
    assert group["expandedFrom"] == [{"kind": "JobSet", "name": "ml/pytorch",
                                      "synthesised": 5, "existing": 0, "via": [],
                                      "podSets": [{"name": "driver", "count": 1,
                                                   "minCount": None},
                                                  {"name": "workers", "count": 4,
                                                   "minCount": None}]}]


# --------------------------------------------------------------------------- lint fixes


def _lint_json(*args: str | Path) -> list[dict]:
    result = invoke("lint", *args, "-o", "json")
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)["findings"]


@pytest.mark.parametrize("workload_ref", [True, False])
def test_lint_topology_key_on_no_node_without_pods_or_workload(tmp_path: Path,
                                                               workload_ref: bool) -> None:
    """The controller-created case: a PodGroup pointing at a Workload that is not in the
    manifests, and no pods yet."""
    ref = ("  workloadRef: {workloadName: train, templateName: workers}\n"
           if workload_ref else "")
    path = tmp_path / "pg.yaml"
    path.write_text("apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
                    "metadata: {name: train-workers-0, namespace: ml}\nspec:\n" + ref +
                    "  schedulingPolicy: {gang: {minCount: 4}}\n"
                    "  schedulingConstraints: {topology: [{key: topology.example.com/row}]}\n")
    findings = _lint_json(path, "--cluster", CLUSTER)
    assert [f["rule"] for f in findings if f["severity"] == "error"] == ["TP301"]
    if workload_ref:
        (tp201,) = [f for f in findings if f["rule"] == "TP201"]
        assert "still scheduled from its own spec" in tp201["message"]
        assert "pending" not in tp201["message"]


def test_lint_missing_podgroup_still_says_the_pods_wait(tmp_path: Path) -> None:
    path = write(tmp_path, "pod.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: ml}
        spec: {schedulingGroup: {podGroupName: nowhere}, containers: [{name: c}]}
        """)
    (tp201,) = [f for f in _lint_json(path) if f["rule"] == "TP201"]
    assert "the pods stay pending until it exists" in tp201["message"]


# --------------------------------------------------------------------------- preemption note


def test_no_preemption_note_where_preemption_cannot_help(tmp_path: Path) -> None:
    path = write(tmp_path, "groups.yaml", """
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: nolabel, namespace: ml}
        spec:
          schedulingPolicy: {gang: {minCount: 1}}
          schedulingConstraints: {topology: [{key: topology.example.com/row}]}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: nolabel-0, namespace: ml}
        spec: {schedulingGroup: {podGroupName: nolabel}, containers: [{name: c}]}
        ---
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: waiting, namespace: ml}
        spec: {schedulingPolicy: {gang: {minCount: 3}}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: waiting-0, namespace: ml}
        spec: {schedulingGroup: {podGroupName: waiting}, containers: [{name: c}]}
        """)
    result = plan(load_inputs([path], [CLUSTER]))
    assert [(g.group.key, g.schedulable) for g in result.groups] == [
        ("ml/nolabel", False), ("ml/waiting", False)]
    assert all(n.code != "preemption" for g in result.groups for n in g.notes)
    # ... and it is still given where a cycle ran and lower-priority pods might make room,
    # when preemption is not simulated (--no-preempt; by default 1.37's is, without a note)
    inputs = load_inputs([SAMPLES / "train-too-big.yaml"], [CLUSTER])
    (big,) = plan(inputs, preempt=False).groups
    assert [n.code for n in big.notes] == ["preemption"]
    (big,) = plan(inputs).groups
    assert big.notes == () and big.preemption_message


def test_skipped_kind_names_are_shown_safely(tmp_path: Path) -> None:
    """apiVersion and kind are input text: no terminal escapes, no forged lines."""
    path = tmp_path / "odd.json"
    kind = "X\x1b[2J\nwarning: fake" + "y" * 500
    path.write_text(json.dumps({"apiVersion": "evil.example/v1", "kind": kind,
                                "metadata": {"name": "a"}}))
    result = invoke("check", SAMPLES / "train-rack.yaml", "-c", CLUSTER, "-c", path)
    assert result.exit_code == 0, result.output
    (line,) = [w for w in result.stderr.splitlines() if "evil.example" in w]
    assert "\x1b" not in result.stderr and "\\x1b[2J\\x0awarning: fake" in line
    assert len(line) < 300
