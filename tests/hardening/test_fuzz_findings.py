"""Defects the long fuzz runs found (tests/fuzz), each reduced to its smallest input: all
of them were internal errors (exit 3) before (issue 16)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tasplan.cli.app import app

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "samples" / "cluster"
TRAIN = REPO / "samples" / "workloads" / "train-rack.yaml"

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml"},
       "spec": {"schedulingGroup": {"podGroupName": "g"}, "containers": [{"name": "c"}]}}


def _with(path: tuple, value: object) -> dict:
    pod = json.loads(json.dumps(POD))
    node = pod
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = value
    return pod


@pytest.mark.parametrize(("path", "value", "field"), [
    (("metadata", "ownerReferences"), 2.5, None),  # lenient: not a field tasplan reads
    (("spec", "priorityClassName"), ["a"], "spec.priorityClassName"),
    (("spec", "nodeName"), ["n1"], "spec.nodeName"),
    (("status", "phase"), {"a": 1}, "status.phase"),
])
def test_odd_types_in_pod_fields(tmp_path: Path, path: tuple, value: object,
                                 field: str | None) -> None:
    file = tmp_path / "p.json"
    file.write_text(json.dumps(_with(path, value)))
    for args in (["check", str(file), "-c", str(CLUSTER)],
                 ["snapshot", "-c", str(file), "-o", str(tmp_path / "s.json"), "-q"]):
        result = CliRunner().invoke(app, args)
        if field is None:
            assert result.exit_code in (0, 1, 2, 4) and "internal" not in result.stderr
        else:
            assert result.exit_code == 2, result.stderr
            assert field in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.parametrize("obj", [
    {"apiVersion": "v1", "kind": "Service", "metadata": ["x"], "spec": {"selector": {}}},
    {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "r"},
     "spec": {"template": ["x"]}},
    {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "r"},
     "spec": {"template": {"metadata": 3}}},
])
def test_snapshot_of_malformed_objects_never_crashes(tmp_path: Path, obj: dict) -> None:
    file = tmp_path / "c.json"
    file.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [obj]}))
    out = tmp_path / "s.json"
    result = CliRunner().invoke(app, ["snapshot", "-c", str(file), "-o", str(out), "-q"])
    assert result.exit_code in (0, 2), result.stderr
    if result.exit_code == 0:  # and what it wrote, check reads
        again = CliRunner().invoke(app, ["check", str(TRAIN), "-c", str(out)])
        assert again.exit_code in (0, 1, 2) and "internal error" not in again.stderr


@pytest.mark.parametrize("labels", [{"app": ["x"]}, {"app": {"a": 1}}, {"1": 2}])
def test_label_values_of_other_types(tmp_path: Path, labels: dict) -> None:
    file = tmp_path / "p.json"
    file.write_text(json.dumps(_with(("metadata", "labels"), labels)))
    result = CliRunner().invoke(app, ["check", str(file), "-c", str(CLUSTER)])
    assert result.exit_code == 2, result.stderr
    assert "metadata.labels" in result.stderr and result.stderr.count("\n") == 1
