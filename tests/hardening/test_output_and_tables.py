"""Untrusted text in output, names by the API server's rules, and snapshot tables validated
by every reader (issue 16)."""

from __future__ import annotations

import json
import os
import xml.dom.minidom
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tasplan.cli.app import app
from tasplan.cli.output import Width, render
from tasplan.untrusted import clean, quote

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "samples" / "cluster"
TRAIN = REPO / "samples" / "workloads" / "train-rack.yaml"


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})


def one_line_error(result, *needles: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    err = result.stderr
    assert err.count("\n") == 1 and err.startswith("error: "), err
    for needle in needles:
        assert needle in err, err
    return err


# ------------------------------------------------------------------ untrusted text


def test_clean_and_quote_escape_controls_and_cut_long_values() -> None:
    assert clean("a\x1b[31mb\nc\u202ed\ud800") == "a\\x1b[31mb\\x0ac\\u202ed\\ud800"
    assert clean("a\nb", keep="\n") == "a\nb"
    assert quote("x" * 1000).startswith("'" + "x" * 60 + "'…") and "1000 chars" in quote("x" * 1000)


def test_a_pod_group_name_cannot_forge_a_verdict_line(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    path.write_text(json.dumps({
        "apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
        "metadata": {"name": "g\x1b[31mred\nSCHEDULABLE: forged", "namespace": "ml"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 1}}}}))
    err = one_line_error(invoke("check", path, "-c", CLUSTER), "metadata.name",
                         "DNS subdomain")
    assert "\x1b" not in err and "\\x0aSCHEDULABLE" in err


def test_control_characters_of_a_topology_key_never_reach_the_terminal(
        tmp_path: Path) -> None:
    """A topology key with control characters is not a label key: the API server refuses
    it, and so does tasplan (issue 25; it used to reach the table, escaped), quoting it
    escaped."""
    path = tmp_path / "g.yaml"
    path.write_text('apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n'
                    'metadata: {name: g, namespace: ml}\nspec:\n'
                    '  schedulingPolicy: {gang: {minCount: 1}}\n'
                    '  schedulingConstraints: {topology: [{key: "k\\e[2J\\rSCHEDULABLE"}]}\n')
    err = one_line_error(invoke("check", path, "-c", CLUSTER), "topology[0].key",
                         "expected a label key")
    assert "\x1b" not in err and "\r" not in err and "k\\x1b[2J\\x0dSCHEDULABLE" in err


def test_render_escapes_segments_but_keeps_its_own_line_breaks() -> None:
    from rich.text import Text

    text = render(lambda width: [Text("a\x1b]0;title\x07b"), Text("c")], Width(None, False))
    assert text == "a\\x1b]0;titleb\nc\n"  # Rich drops BEL itself


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "sarif", "github"])
def test_lint_formats_stay_valid_for_any_file_name(tmp_path: Path, fmt: str) -> None:
    directory = tmp_path / "d"
    directory.mkdir()
    name = os.fsencode(directory) + b"/bad\xff\nname\x1b[31m\x01.yaml"
    with open(name, "w") as fh:
        fh.write("kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n")
    result = CliRunner().invoke(app, ["lint", str(directory), "-o", fmt])
    assert result.exit_code == 1, result.stderr
    out = result.stdout
    assert "\x1b" not in out and "\x01" not in out
    assert ("%5Cx1b%5B31m" if fmt == "sarif" else "\\x1b[31m") in out
    if fmt in ("json", "sarif"):
        json.loads(out)
    elif fmt == "junit":
        xml.dom.minidom.parseString(out.encode())
    else:
        assert all("\\x0aname" in line for line in out.splitlines() if "bad" in line)


def test_error_lines_quote_a_short_prefix(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\n"
                    f"spec: {{priorityClassName: 5, schedulerName: [{'x' * 100_000}], "
                    "containers: [{name: c}]}\n")
    err = one_line_error(invoke("check", path, "-c", CLUSTER))
    assert len(err) < 1100


# ------------------------------------------------------------------ names


@pytest.mark.parametrize(("meta", "needle"), [
    ({"name": "Bad_Name", "namespace": "ml"}, "metadata.name"),
    ({"name": "ok", "namespace": "a/b"}, "metadata.namespace"),
    ({"name": "a/b", "namespace": "ml"}, "metadata.name"),
    ({"name": "p", "namespace": "ml", "labels": {"bad key!": "v"}}, "invalid label key"),
    ({"name": "p", "namespace": "ml", "labels": {"k": "v" * 64}}, "invalid label value"),
])
def test_names_namespaces_and_labels_follow_the_api_server(tmp_path: Path, meta: dict,
                                                            needle: str) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                                "spec": {"schedulingGroup": {"podGroupName": "g"},
                                         "containers": [{"name": "c"}]}}))
    one_line_error(invoke("check", path, "-c", CLUSTER), needle)


# ------------------------------------------------------------------ snapshot tables


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("snap") / "s.json"
    result = invoke("snapshot", "-c", CLUSTER, "-o", out, "-q")
    assert result.exit_code == 0, result.stderr
    return json.loads(out.read_text())


def _tamper(table: dict, how: str) -> None:
    if how == "bool-index":
        table["meta"][0] = True
    elif how == "float-index":
        table["spec"][0] = 0.0
    elif how == "bool-spec-index":
        table["spec"][1] = True
    elif how == "negative-index":
        table["meta"][0] = -1
    elif how == "out-of-range":
        table["spec"][0] = 10**6
    elif how == "short-column":
        table["phase"].pop()
    elif how == "null-column":
        table["nodeName"] = None
    elif how == "missing-specs":
        del table["specs"]
    elif how == "extra-key":
        table["extra"]["not-a-row"] = {"status": {}}
    elif how == "extra-beyond":
        table["extra"]["100000"] = {"status": {}}
    elif how == "unknown-column":
        table["surprise"] = []
    elif how == "name-number":
        table["name"][0] = 7


@pytest.mark.parametrize("how", ["bool-index", "float-index", "bool-spec-index",
                                 "negative-index", "out-of-range", "short-column",
                                 "null-column", "missing-specs", "extra-key", "extra-beyond",
                                 "unknown-column", "name-number"])
def test_malformed_snapshot_tables_are_refused_by_every_reader(
        tmp_path: Path, snapshot: dict, how: str) -> None:
    document = json.loads(json.dumps(snapshot))
    _tamper(document["pods"], how)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    one_line_error(invoke("check", TRAIN, "-c", path), "pods")
    one_line_error(invoke("snapshot", "-c", path, "-o", tmp_path / "again.json"), "pods")
    assert not (tmp_path / "again.json").exists()


def test_a_snapshot_inside_a_list_is_refused(tmp_path: Path, snapshot: dict) -> None:
    path = tmp_path / "list.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [snapshot]}))
    one_line_error(invoke("check", TRAIN, "-c", path), "snapshot inside a List")
