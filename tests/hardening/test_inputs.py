"""Hostile and malformed inputs: every one ends in exit 2 with one line naming the file,
never a traceback, a hang or an internal error (issue 16)."""

from __future__ import annotations

import gzip
import os
import stat
import textwrap
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from tasplan.cli.app import app
from tasplan.errors import InputError
from tasplan.load import documents, yaml_loader
from tasplan.load.documents import parse_bytes
from tasplan.load.loader import load_inputs
from tasplan.load.yaml_loader import needs_guarded_loader

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "samples" / "cluster"
TRAIN = REPO / "samples" / "workloads" / "train-rack.yaml"


def invoke(*args: object, env: dict | None = None):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200", **(env or {})})


def one_line_error(result, *needles: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    err = result.stderr
    assert err.count("\n") == 1 and err.startswith("error: "), err
    for needle in needles:
        assert needle in err, err
    return err


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


JOB = """\
    apiVersion: batch/v1
    kind: Job
    metadata: {{name: j}}
    spec:
      parallelism: {parallelism}
      template:
        spec:
          containers: [{{name: c, command: [sh, -c, "a && b"]}}]
    """


# ------------------------------------------------------------------ unbounded work


def test_job_parallelism_beyond_int32_is_refused(tmp_path: Path) -> None:
    """The API server stores parallelism as int32."""
    job = write(tmp_path / "job.yaml", JOB.format(parallelism=2**31))
    one_line_error(invoke("check", job, "-c", CLUSTER), "spec.parallelism", "2147483647")


def test_job_expansion_is_capped_by_the_shared_controller_limit(tmp_path: Path) -> None:
    job = write(tmp_path / "job.yaml", JOB.format(parallelism=100_000_000))
    err = one_line_error(invoke("check", job, "-c", CLUSTER), "job.yaml:5",
                         "TASPLAN_MAX_CONTROLLER_PODS")
    assert "100,000,000 pods" in err


def test_controller_limit_counts_all_jobs_together(tmp_path: Path) -> None:
    docs = "---\n".join(textwrap.dedent(JOB).replace("name: j", f"name: j{i}").format(
        parallelism=6) for i in range(3))
    path = tmp_path / "jobs.yaml"
    path.write_text(docs)
    os.environ["TASPLAN_MAX_CONTROLLER_PODS"] = "15"
    try:
        with pytest.raises(InputError, match="with 12 pods of earlier controllers"):
            load_inputs([path], [CLUSTER])
        os.environ["TASPLAN_MAX_CONTROLLER_PODS"] = "18"
        assert len(load_inputs([path], [CLUSTER]).pods_by_group["default/j2"]) == 6
    finally:
        del os.environ["TASPLAN_MAX_CONTROLLER_PODS"]


def test_double_ampersand_in_a_command_is_not_an_anchor() -> None:
    """``&&`` in a shell command used to send whole dumps to the pure-Python loader."""
    assert not needs_guarded_loader(b'command: [sh, -c, "make && make install"]\n')
    assert not needs_guarded_loader(b"args:\n  - a && b\n  - x &&y\n")
    for anchored in (b"a: &x 1\n", b"- &x 1\n", b"a: !!str &x 1\n", b"[&x 1]\n",
                     b"&x a: 1\n", b"a:\n  &x\n  b: 1\n", b"{a: 1, b: &x 2}\n"):
        assert needs_guarded_loader(anchored), anchored


def test_v1alpha1_workload_groups_without_pods_are_found_for_thousands_of_workloads(
        tmp_path: Path) -> None:
    """One group per declared podGroup that no pod names (the lookup is a set now)."""
    docs = [{"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
             "metadata": {"name": f"w{i}", "namespace": "ml"},
             "spec": {"podGroups": [{"name": "g", "policy": {"gang": {"minCount": 1}}}]}}
            for i in range(3000)]
    docs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml"},
                 "spec": {"workloadRef": {"name": "w7", "podGroup": "g", "podGroupReplicaKey": "r"},
                          "containers": [{"name": "c"}]}})
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    keys = {g.key for g in load_inputs([path]).groups}
    assert len(keys) == 3000
    assert "ml/w7/g/r" in keys and "ml/w7/g" not in keys and "ml/w8/g" in keys


def test_error_lines_are_not_looked_up_in_files_above_the_locate_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path / "pod.yaml", """\
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec: {priority: "high", containers: [{name: c}]}
        """)
    with pytest.raises(InputError) as info:
        load_inputs([path])
    assert info.value.line == 4
    monkeypatch.setenv("TASPLAN_MAX_LOCATE_BYTES", "10")
    yaml_loader._composed.cache_clear()
    with pytest.raises(InputError) as info:
        load_inputs([path])
    assert info.value.line is None and info.value.field == "spec.priority"


# ------------------------------------------------------------------ strict decoding


@pytest.mark.parametrize(("name", "content", "needle"), [
    ("dup.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, name: q}\n",
     "dup.yaml:3: duplicate key 'name'"),
    ("dup.json", '{"apiVersion": "v1", "kind": "Pod", "kind": "Pod", "metadata": {}}',
     "dup.json:1: duplicate key 'kind'"),
    ("nested.json", '{"a": {"b": 1,\n "b": 2}}', "nested.json:2: duplicate key 'b'"),
    ("merge.yaml", "base: &b {a: 1}\nm:\n  <<: *b\n  c: 3\n  c: 4\n",
     "merge.yaml:5: duplicate key 'c'"),
    ("bigint.yaml", "a: 1" + "0" * 5000 + "\n", "5001 digits"),
    ("int64.yaml", "a: 9223372036854775808\n", "out of range (int64)"),
    ("bigfloat.yaml", "a: 1" + "0" * 5000 + ".5\n", "5003 digits"),
    ("bigint.json", '{"a": 1' + "0" * 5000 + "}", "invalid JSON"),
    ("nul.yaml", 'apiVersion: v1\nkind: Pod\nmetadata: {name: "a\\0b"}\n', "NUL character"),
    ("nul.json", '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a\\u0000"}}',
     "NUL character"),
    ("surrogate.yaml", 'x: &a 1\na: "\\ud800"\n', "lone surrogate"),  # pure-Python loader
    ("surrogate-c.yaml", 'a: "\\ud800"\n', "invalid Unicode"),  # libyaml refuses it itself
])
def test_strict_decoding_refuses(tmp_path: Path, name: str, content: str, needle: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    one_line_error(invoke("check", path, "-c", CLUSTER), needle)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32",
                                      "utf-32-le", "utf-32-be"])
def test_utf16_and_utf32_inputs_are_named(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "pod.yaml"
    path.write_bytes("apiVersion: v1\nkind: Pod\n".encode(encoding))
    family = encoding[:6].upper()
    one_line_error(invoke("check", path, "-c", CLUSTER), f"is {family}", "pod.yaml")


def test_yaml_scalars_resolve_as_kubernetes_does() -> None:
    """go-yaml v2 (sigs.k8s.io/yaml): no base 60; Go's ParseInt prefixes; 1e3 a number."""
    (doc,) = parse_bytes("x", b"a: 2:30\nb: 0777\nc: 0o17\nd: 1_000\ne: 0x1F\nf: 1e3\n"
                         b"g: 08\nh: -0b11\ni: 1:20.5\nj: '0777'\n")
    assert doc == {"a": "2:30", "b": 511, "c": 15, "d": 1000, "e": 31, "f": 1000.0,
                   "g": 8, "h": -3, "i": "1:20.5", "j": "0777"}


def test_numbers_without_digits_are_strings_not_crashes() -> None:
    """go-yaml drops underscores before ParseInt / ParseFloat: ``0x_`` and ``._`` hold no
    digit and stay strings (they used to resolve as numbers and fail to convert)."""
    (doc,) = parse_bytes("x", b"a: ._\nb: +._\nc: 0x_\nd: 0b_\ne: 0o__\nf: ._5\ng: 0x1_F\n")
    assert doc == {"a": "._", "b": "+._", "c": "0x_", "d": "0b_", "e": "0o__", "f": 0.5,
                   "g": 31}


def test_json_without_duplicates_passes_even_with_colons_in_strings() -> None:
    (doc,) = parse_bytes("x.json", b'{"a": "x:y", "b": {"c": "\\":"}, "d": [":"]}', ".json")
    assert doc == {"a": "x:y", "b": {"c": '":'}, "d": [":"]}
    (doc,) = parse_bytes("x.json", b'{"a\\u003a": 1, "b": 2}', ".json")  # escaped colon
    assert doc == {"a:": 1, "b": 2}


def test_two_objects_of_one_kind_and_name_are_refused_with_both_places(tmp_path: Path) -> None:
    pods = write(tmp_path / "pods.yaml", """\
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: ml}
        spec: {schedulingGroup: {podGroupName: g}, containers: [{name: c}]}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: ml}
        spec: {schedulingGroup: {podGroupName: g}, containers: [{name: c}]}
        """)
    err = one_line_error(invoke("check", pods, "-c", CLUSTER), "pods.yaml:6",
                         "Pod ml/p is defined twice", "line 1")
    assert "(document 2)" not in err.split("also at")[0]



def test_two_pods_of_one_name_in_cluster_dumps_are_refused(tmp_path: Path) -> None:
    """Two dumps that both hold a bound pod ml/p: the cluster cannot hold both."""
    dumps = tmp_path / "dump"
    dumps.mkdir()
    pod = """\
        apiVersion: v1
        kind: Pod
        metadata: {{name: p, namespace: ml}}
        spec: {{nodeName: {node}, containers: [{{name: c}}]}}
        """
    write(dumps / "a.yaml", pod.format(node="n1"))
    write(dumps / "b.yaml", pod.format(node="n2"))
    write(dumps / "nodes.yaml", """\
        apiVersion: v1
        kind: Node
        metadata: {name: n1}
        status: {allocatable: {cpu: "8", pods: "110"}}
        ---
        apiVersion: v1
        kind: Node
        metadata: {name: n2}
        status: {allocatable: {cpu: "8", pods: "110"}}
        """)
    workload = write(tmp_path / "w.yaml", """\
        apiVersion: v1
        kind: Pod
        metadata: {name: q, namespace: ml}
        spec: {containers: [{name: c}]}
        """)
    one_line_error(invoke("check", workload, "-c", dumps), "b.yaml", "Pod ml/p is defined twice",
                   "a.yaml")

def test_a_job_and_a_pod_group_of_one_name_cannot_merge(tmp_path: Path) -> None:
    path = write(tmp_path / "both.yaml", """\
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: j, namespace: default}
        spec: {schedulingPolicy: {gang: {minCount: 1}}}
        ---
        apiVersion: batch/v1
        kind: Job
        metadata: {name: j}
        spec: {template: {spec: {containers: [{name: c}]}}}
        """)
    one_line_error(invoke("check", path, "-c", CLUSTER), "pod group (", "default/j",
                   "defined twice")


# ------------------------------------------------------------------ files


def test_empty_or_comment_only_workload_file_is_named(tmp_path: Path) -> None:
    path = write(tmp_path / "empty.yaml", "# nothing here\n")
    result = invoke("check", path, "-c", CLUSTER)
    # Nothing to plan is "could not check" (4), with the report and the file named.
    assert result.exit_code == 4, result.stderr
    assert "empty.yaml: no Kubernetes objects" in result.stderr
    assert "nothing to plan" in result.stdout


def test_directory_symlink_loop_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "manifests"
    (root / "a").mkdir(parents=True)
    (root / "a" / "back").symlink_to(root)
    (root / "a" / "train.yaml").write_text(TRAIN.read_text())
    snapshot = load_inputs([root], [CLUSTER])
    assert [g.key for g in snapshot.groups if g.planned]
    (warning,) = [w for w in snapshot.warnings if "symlink" in w]
    assert str(root / "a" / "back") in warning and "loop" in warning


def test_gzip_bomb_stops_at_the_limit_without_inflating_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "bomb.json.gz"
    path.write_bytes(gzip.compress(b"[" + b" " * 50_000_000 + b"]"))
    monkeypatch.setenv("TASPLAN_MAX_INPUT_BYTES", "1000000")
    reads: list[int] = []
    real = documents.read_limited

    def spy(stream, label, limit, what="input"):
        read = stream.read

        def counted(n=-1):
            reads.append(n)
            return read(n)
        stream.read = counted
        return real(stream, label, limit, what)

    monkeypatch.setattr(documents, "read_limited", spy)
    one_line_error(invoke("check", TRAIN, "-c", path), "decompressed input is larger than the "
                   "limit of 1000000 bytes", "TASPLAN_MAX_INPUT_BYTES")
    assert reads and max(reads) <= 1_000_001


# ------------------------------------------------------------------ output targets


def test_snapshot_refuses_fifos_devices_and_symlinks(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    one_line_error(invoke("snapshot", "-c", CLUSTER, "-o", fifo), "not a regular file")
    one_line_error(invoke("snapshot", "-c", CLUSTER, "-o", "/dev/null"), "not a regular file")
    target = tmp_path / "real.json"
    target.write_text("keep")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    one_line_error(invoke("snapshot", "-c", CLUSTER, "-o", link), "symbolic link")
    assert target.read_text() == "keep" and link.is_symlink()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_snapshot_keeps_the_mode_of_the_file_it_replaces(tmp_path: Path) -> None:
    out = tmp_path / "snap.json"
    out.write_text("{}")
    out.chmod(0o600)
    result = invoke("snapshot", "-c", CLUSTER, "-o", out, "-q")
    assert result.exit_code == 0, result.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert out.read_text().startswith('{"apiVersion":"tasplan/v1"')


@pytest.mark.parametrize("args", [("check", TRAIN, "-c", CLUSTER),
                                  ("snapshot", "-c", CLUSTER, "-o", "-")])
def test_full_or_closed_stdout_is_one_line_exit_2(args: tuple) -> None:
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "tasplan", *map(str, args)]
    with open("/dev/full", "w") as full:
        result = subprocess.run(cmd, stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "No space left" in result.stderr
    result = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            timeout=60, preexec_fn=lambda: os.close(1))
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "standard output" in result.stderr


@pytest.mark.parametrize(("field", "value"), [("requests", '"-1"'), ("limits", "-5"),
                                              ("requests", '"-100m"')])
def test_negative_requests_and_limits_are_refused(tmp_path: Path, field: str,
                                                  value: str) -> None:
    """ValidateNonnegativeQuantity: the API server refuses them (and the fast path must
    not sum them away)."""
    path = write(tmp_path / "p.yaml", f"""\
        apiVersion: v1
        kind: Pod
        metadata: {{name: p, namespace: ml}}
        spec:
          schedulingGroup: {{podGroupName: g}}
          containers:
          - {{name: a, resources: {{{field}: {{cpu: {value}}}}}}}
          - {{name: b, resources: {{requests: {{cpu: "4"}}}}}}
        """)
    one_line_error(invoke("check", path, "-c", CLUSTER), f"resources.{field}.cpu",
                   "greater than or equal to 0")


def test_negative_node_allocatable_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "nodes.json"
    path.write_text('{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", '
                    '"kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": '
                    '{"cpu": "-4", "pods": "110"}}}]}')
    one_line_error(invoke("check", TRAIN, "-c", path), "status.allocatable.cpu",
                   "greater than or equal to 0")
