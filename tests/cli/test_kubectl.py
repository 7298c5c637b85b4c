"""kubectl habits (issue 26): ``-o=json``, ``-f FILE``, ``-o name``, ``-o jsonpath=…``,
``-n`` without ``--live``, ``--evict`` that matches nothing."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tasplan.cli.app import app
from tasplan.cli.kubectl import split_short_values

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "samples" / "cluster"
WORKLOADS = REPO / "samples" / "workloads"
TRAIN = WORKLOADS / "train-rack.yaml"
BIG = WORKLOADS / "train-too-big.yaml"


def invoke(*args: str | Path):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})


@pytest.mark.parametrize("command", [
    ("check", TRAIN, "-c", CLUSTER), ("explain", BIG, "-c", CLUSTER),
    ("capacity", "-c", CLUSTER, "--shape", "cpu=1"), ("lint", TRAIN)])
def test_short_option_equals_value_as_kubectl(command: tuple) -> None:
    """pflag reads ``-o=json`` as the value json; so does every command."""
    with_equals = invoke(*command, "-o=json")
    assert with_equals.exit_code in (0, 1), with_equals.output
    assert with_equals.stdout == invoke(*command, "-o", "json").stdout
    assert json.loads(with_equals.stdout)["apiVersion"].startswith("tasplan/")


def test_equals_split_only_for_value_options_and_not_in_values() -> None:
    options = {"-o", "--output", "-n", "--label"}
    assert split_short_values(["-o=json", "-n=ml", "-q=x"], options) == [
        "-o", "json", "-n", "ml", "-q=x"]
    # a value that looks like an option stays a value; nothing after -- is touched
    assert split_short_values(["--label", "-o=x", "--", "-o=y"], options) == [
        "--label", "-o=x", "--", "-o=y"]


def test_filename_option_as_kubectl() -> None:
    """``kubectl tasplan check -f train.yaml``: -f/--filename is a workload input."""
    as_argument = invoke("check", TRAIN, "-c", CLUSTER, "-o", "json")
    for flag in (["-f", TRAIN], [f"-f={TRAIN}"], ["--filename", TRAIN]):
        result = invoke("check", *flag, "-c", CLUSTER, "-o", "json")
        assert result.exit_code == 0, result.output
        assert result.stdout == as_argument.stdout
    explained = invoke("explain", "-f", BIG, "-c", CLUSTER, "-o", "json")
    assert explained.exit_code == 1
    assert [g["name"] for g in json.loads(explained.stdout)["groups"]] == ["ml/big-workers"]
    missing = invoke("check", "-c", CLUSTER)
    assert missing.exit_code == 2 and "an argument or -f" in missing.stderr


def test_output_name_prints_kind_group_and_name() -> None:
    result = invoke("check", WORKLOADS, "-c", CLUSTER, "-o", "name")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "job.batch/finetune",
        "podgroup.scheduling.k8s.io/resume",
        "podgroup.scheduling.k8s.io/train-workers-0",
        "podgroup.scheduling.k8s.io/big-workers",
        "podgroup.scheduling.k8s.io/web",
    ]
    legacy = invoke("check", REPO / "samples" / "legacy", "-c", CLUSTER, "-o", "name")
    assert legacy.stdout == "workload.scheduling.k8s.io/legacy\n"
    pending = invoke("explain", "unschedulable", "-c", CLUSTER, "-f", BIG, "-o", "name")
    assert pending.stdout == "podgroup.scheduling.k8s.io/big-workers\n"


def test_output_jsonpath_as_kubectl(tmp_path: Path) -> None:
    template = '{range .groups[*]}{.name}{"\\t"}{.outcome}{"\\n"}{end}'
    result = invoke("check", WORKLOADS, "-c", CLUSTER, "-o", f"jsonpath={template}")
    assert result.exit_code == 1, result.output
    assert "ml/big-workers\tunschedulable\n" in result.stdout
    assert result.stdout.count("\n") == 5
    selected = invoke("check", TRAIN, "-c", CLUSTER, "-o=jsonpath={.groups[0].selected}")
    assert selected.stdout == "rack-b1"  # no newline added, as kubectl
    file = tmp_path / "t.jsonpath"
    file.write_text("{.groups[0].placements[*].name}")
    from_file = invoke("check", TRAIN, "-c", CLUSTER, "-o", f"jsonpath-file={file}")
    assert from_file.stdout.split() == ["rack-b1", "rack-b3", "rack-a3", "rack-a2", "rack-b2",
                                        "rack-a1"]
    as_json = invoke("check", TRAIN, "-c", CLUSTER, "-o",
                     "jsonpath-as-json={.groups[0].minCount}")
    assert json.loads(as_json.stdout) == [4]
    capacity = invoke("capacity", "-c", CLUSTER, "--shape", "cpu=48",
                      "-o", "jsonpath={.total.nodes}")
    assert capacity.exit_code == 0 and capacity.stdout == "27", capacity.output


@pytest.mark.parametrize(("output", "message"), [
    ("jsonpath", "needs a template"),
    ("jsonpath={.groups", "unclosed action"),
    ("jsonpath={.groups[7]}", "array index out of bounds"),
    ("xml", "expected table, wide, json, yaml, name or jsonpath=TEMPLATE"),
    ("jsonpath-file=/nonexistent/t", "No such file"),
])
def test_bad_output_is_a_usage_error(output: str, message: str) -> None:
    result = invoke("check", TRAIN, "-c", CLUSTER, "-o", output)
    assert result.exit_code == 2, result.output
    assert message in result.stderr


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


POD_GROUP = """
    apiVersion: scheduling.k8s.io/v1beta1
    kind: PodGroup
    metadata: {name: pair%s}
    spec:
      schedulingPolicy: {gang: {minCount: 2}}
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: pair-0%s}
    spec:
      schedulingGroup: {podGroupName: pair}
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: pair-1}
    spec:
      schedulingGroup: {podGroupName: pair}
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""


def test_namespace_without_live_is_the_namespace_of_the_manifests(tmp_path: Path) -> None:
    """``-n ml`` as ``kubectl apply -n ml -f``: objects without a namespace get ml; one
    that sets another namespace is an error naming the file, line and field."""
    plain = write(tmp_path, "pair.yaml", POD_GROUP % ("", ""))
    result = invoke("check", plain, "-c", CLUSTER, "-n", "ml", "-o", "jsonpath={.groups[*].name}")
    assert result.exit_code == 0, result.output
    assert result.stdout == "ml/pair"
    default = invoke("check", plain, "-c", CLUSTER, "-o", "jsonpath={.groups[*].name}")
    assert default.stdout == "default/pair"
    other = write(tmp_path, "other.yaml", POD_GROUP % ("", ", namespace: team-a"))
    clash = invoke("check", other, "-c", CLUSTER, "-n", "ml")
    assert clash.exit_code == 2
    assert clash.stderr.startswith(f"error: {other}:9: Pod pair-0: metadata.namespace: "
                                   "'team-a' is not the namespace -n gives ('ml')")


def test_namespace_scopes_explain_and_names_a_bare_group() -> None:
    """``explain unschedulable -n ml`` explains ml's pending groups only, and ``explain
    big-workers -n ml`` the group ml/big-workers, as kubectl reads a name with -n."""
    others = invoke("explain", "unschedulable", "-c", CLUSTER, "-f", BIG, "-n", "research",
                    "-o", "name")
    assert others.exit_code == 2  # -n research: the ml manifest sets another namespace
    scoped = invoke("explain", "unschedulable", "-c", CLUSTER, "-n", "research", "-o", "name")
    assert scoped.exit_code == 0, scoped.output
    assert scoped.stdout == ""
    bare = invoke("explain", "big-workers", "-c", CLUSTER, "-c", BIG, "-n", "ml",
                  "-o", "jsonpath={.groups[*].name}")
    assert bare.stdout == "ml/big-workers", bare.output
    snapshot = invoke("snapshot", "-c", CLUSTER, "-f", "-", "-n", "ml")
    assert snapshot.exit_code == 2 and "--namespace only apply with --live" in snapshot.stderr


def test_evict_matching_nothing_warns_and_plans() -> None:
    result = invoke("check", TRAIN, "-c", CLUSTER, "--evict", "app=nothing-has-this")
    assert result.exit_code == 0, result.output
    assert "warning: --evict 'app=nothing-has-this': matches no running pod; nothing " \
           "evicted" in result.stderr
    assert " 1. evict app=nothing-has-this → matches no running pod: nothing evicted" in \
        result.stdout


@pytest.mark.parametrize("args", [
    ["check", "-f", "samples/workloads/job.yaml", "-c", "samples/cluster",
     "-o=jsonpath={.groups[*].selected}"],                              # Typer's path
    ["check", "samples/workloads/job.yaml", "--filename", "samples/workloads/pinned.yaml",
     "-c", "samples/cluster", "-o", "jsonpath={.groups[*].selected}"],  # the fast parser's
])
def test_the_console_script_reads_kubectl_forms(args: list[str]) -> None:
    """The installed command (tasplan.cli.main: the fast parser, else Typer) reads them as
    the Typer app does."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "tasplan", *args], capture_output=True,
                          text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stderr
    expected = "rack-a2" if len(args) == 6 else "rack-a2 rack-a3"
    assert proc.stdout == expected
