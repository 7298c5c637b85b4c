"""The published JSON Schemas of tasplan's own documents (schemas/planreport-v1.json,
schemas/clustersnapshot-v1.json) hold for what the CLI really writes."""

from __future__ import annotations

import copy
import json
import textwrap
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from tasplan.cli.app import app
from tasplan.lint.engine import lint

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "schemas"
CLUSTER = REPO / "samples" / "cluster"
FIXTURES = Path(__file__).parent / "fixtures"


def validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS / name).read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


REPORT = validator("planreport-v1.json")
SNAPSHOT = validator("clustersnapshot-v1.json")


def run(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def errors(v: Draft202012Validator, doc: object) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in v.iter_errors(doc)]


@pytest.mark.parametrize("args", [
    ("check", REPO / "samples" / "workloads", "-c", CLUSTER, "-o", "json"),
    ("check", REPO / "samples" / "workloads" / "train-rack.yaml", "-c", CLUSTER, "-o", "json",
     "--all"),
    ("check", *(FIXTURES / f for f in ("jobset-podgroup.yaml", "lws-podgroup.yaml", "apps.yaml",
                                       "kueue-job.yaml", "generatename-pods.yaml",
                                       "foreign.yaml")), "-c", CLUSTER, "-o", "json"),
    ("check", REPO / "samples" / "workloads" / "job.yaml", "-c", CLUSTER, "-o", "json",
     "--cordon", "gpu-a2-0"),
    ("explain", REPO / "samples" / "explain" / "urgent.yaml", "-c", CLUSTER, "-o", "json"),
    ("check", REPO / "samples" / "composite" / "train-2level.yaml", "-c", CLUSTER, "-o", "json"),
    ("check", REPO / "samples" / "workloads", "-c", CLUSTER, "-o", "json", "--compare"),
    ("check", REPO / "samples" / "kueue", "-c", CLUSTER, "-o", "json", "--compare"),
    ("check", REPO / "samples" / "kai", "-c", CLUSTER, "-o", "json", "--compare"),
    ("explain", "unschedulable", "-c", CLUSTER, "-c", REPO / "samples" / "workloads",
     "-o", "json"),
])
def test_real_reports_match_the_schema(args: tuple) -> None:
    doc = json.loads(run(*args))
    assert errors(REPORT, doc) == []


def test_yaml_reports_are_the_same_document() -> None:
    doc = yaml.safe_load(run("check", FIXTURES / "jobset-podgroup.yaml", "-c", CLUSTER,
                             "-o", "yaml"))
    assert errors(REPORT, doc) == []
    assert doc["groups"][0]["expandedFrom"][0]["kind"] == "JobSet"


def test_the_report_schema_is_not_vacuous() -> None:
    doc = json.loads(run("check", REPO / "samples" / "workloads" / "job.yaml", "-c", CLUSTER,
                         "-o", "json"))
    for damage in (lambda d: d.pop("groups"),
                   lambda d: d["groups"][0].__setitem__("policy", "strict"),
                   lambda d: d["groups"][0]["placements"][0].__setitem__("nodes", "4"),
                   lambda d: d["groups"][0]["expandedFrom"][0].pop("synthesised"),
                   lambda d: d.__setitem__("kind", "LintReport")):
        broken = copy.deepcopy(doc)
        damage(broken)
        assert errors(REPORT, broken), damage


def test_the_victims_schema_is_not_vacuous() -> None:
    doc = json.loads(run("check", REPO / "samples" / "explain" / "urgent.yaml", "-c", CLUSTER,
                         "-o", "json"))
    assert doc["groups"][0]["preemption"]["victims"] and errors(REPORT, doc) == []
    for damage in (lambda v: v.pop("unit"),
                   lambda v: v.__setitem__("unit", {"kind": "Pod", "name": "x", "pods": 1}),
                   lambda v: v.__setitem__("group", 3)):
        broken = copy.deepcopy(doc)
        damage(broken["groups"][0]["preemption"]["victims"][0])
        assert errors(REPORT, broken), damage
    broken = copy.deepcopy(doc)
    broken["groups"][0]["outcome"] = "bound"
    assert errors(REPORT, broken)


def test_real_snapshots_match_the_schema(tmp_path: Path) -> None:
    extra = tmp_path / "pods.yaml"
    extra.write_text(textwrap.dedent("""
        apiVersion: v1
        kind: Pod
        metadata: {name: leaving, namespace: ml, deletionTimestamp: "2026-05-11T09:30:00Z"}
        spec: {nodeName: gpu-a1-0, containers: [{name: c}]}
        status: {phase: Running}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: nominated, namespace: ml}
        spec: {containers: [{name: c}]}
        status: {phase: Pending, nominatedNodeName: gpu-b1-2}
        """))
    target = tmp_path / "snap.json"
    run("snapshot", "-f", target, "-c", CLUSTER, "-c", extra, "--quiet")
    doc = json.loads(target.read_text())
    assert errors(SNAPSHOT, doc) == []
    assert len(doc["pods"]["extra"]) == 2  # both per-pod leftovers were exercised
    broken = copy.deepcopy(doc)
    broken["pods"]["meta"][0] = -1
    assert errors(SNAPSHOT, broken)


def test_lint_does_not_treat_output_documents_as_manifests(tmp_path: Path) -> None:
    target = tmp_path / "snap.json"
    run("snapshot", "-f", target, "-c", CLUSTER, "--quiet")
    report = lint([target])
    assert not any(r.checked for r in report.resources)
