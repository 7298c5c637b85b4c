"""``tasplan capacity`` on the samples (samples/README.md has the per-node GPU numbers):
the JSON contract and its schema, --for, pictures, what-if edits and bad input."""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from tasplan.cli.app import app

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "samples" / "cluster"
GPU = "cpu=48,memory=256Gi,nvidia.com/gpu=8"
RACK = "topology.example.com/rack"


def invoke(*args: str | Path):
    return CliRunner().invoke(app, ["capacity", "-c", str(CLUSTER), *map(str, args)],
                              env={"COLUMNS": "200"})


def document(*args: str | Path) -> dict:
    result = invoke(*args, "-o", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def racks(doc: dict, shape: str) -> dict[str, tuple[int, int]]:
    return {d["name"]: (d["fit"][shape]["now"], d["fit"][shape]["empty"])
            for d in doc["domains"] if d["level"] == RACK}


def test_whole_gpu_nodes_per_rack_match_the_samples_readme() -> None:
    """Whole free 8-GPU nodes per rack (samples/README.md): a1 0, a2 2, a3 3, b1 4, b2 2
    (gpu-b2-1 is cordoned; its 8 GPUs are stranded), b3 4. Empty: 4 per rack but b2 (3)."""
    doc = document("--shape", GPU, "--tolerate", "nvidia.com/gpu=present:NoSchedule")
    assert racks(doc, GPU) == {"rack-a1": (0, 4), "rack-a2": (2, 4), "rack-a3": (3, 4),
                               "rack-b1": (4, 4), "rack-b2": (2, 3), "rack-b3": (4, 4)}
    b2 = next(d for d in doc["domains"] if d["name"] == "rack-b2")
    assert b2["fit"][GPU]["stranded"]["nvidia.com/gpu"] == "8"
    assert b2["parent"] == "topology.example.com/block=block-b"
    assert {(x["level"], x["now"], tuple(x["domains"])) for x in doc["largest"]
            if x["level"] == RACK} == {(RACK, 4, ("rack-b1", "rack-b3"))}
    # Without the toleration the GPU taint rules every GPU node out.
    doc = document("--shape", GPU)
    assert set(racks(doc, GPU).values()) == {(0, 0)}


def test_json_matches_its_schema_and_is_deterministic() -> None:
    schema = json.loads((REPO / "schemas" / "capacityreport-v1.json").read_text())
    first = invoke("--shape", GPU, "--shape", "cpu=1", "-o", "json").stdout
    assert first == invoke("--shape", GPU, "--shape", "cpu=1", "-o", "json").stdout
    doc = json.loads(first)
    Draft202012Validator(schema).validate(doc)
    assert [s["name"] for s in doc["shapes"]] == [GPU, "cpu=1"]
    assert doc["shapes"][0]["requests"] == {"cpu": "48", "memory": "256Gi", "nvidia.com/gpu": "8"}
    assert doc["levels"][-1] == "kubernetes.io/hostname" and doc["whatIf"] == []


def test_for_takes_shapes_from_a_workload() -> None:
    """train-rack.yaml: 4 pods of 8 GPUs that tolerate the GPU taint: the same counts as
    the whole-node shape above."""
    doc = document("--for", REPO / "samples" / "workloads" / "train-rack.yaml")
    [shape] = doc["shapes"]
    assert shape["name"] == "ml/train-workers-0"
    assert racks(doc, "ml/train-workers-0")["rack-b2"] == (2, 3)


def test_what_if_edits_apply_before_counting() -> None:
    doc = document("--shape", GPU, "--tolerate", "nvidia.com/gpu", "--drain", "rack=rack-b1")
    assert racks(doc, GPU)["rack-b1"] == (0, 0)
    assert doc["whatIf"][0]["op"] == "drain"


def test_tree_svg_and_html(tmp_path: Path) -> None:
    svg, html = tmp_path / "c.svg", tmp_path / "c.html"
    result = invoke("--shape", GPU, "--tolerate", "nvidia.com/gpu", "--svg", svg, "--html", html)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[1].startswith(f"shape A = {GPU}")
    at = next(i for i, line in enumerate(lines) if "rack rack-b1" in line)
    assert "free cpu 383.2/384 · memory 4.0Ti/4Ti · gpu 32/32" in lines[at]
    # rack-b1 and rack-b3 tie for the most (4): no ★; block-b alone holds the most blocks'.
    assert "A 4 now · 4 empty" in lines[at + 1] and "★" not in lines[at + 1]
    block_b = next(i for i, line in enumerate(lines) if "block block-b" in line)
    assert "A 10 now" in lines[block_b + 1] and "★" in lines[block_b + 1]
    assert not any("kubernetes.io/hostname" in line and "gpu-" in line for line in lines)
    assert svg.read_text().startswith("<svg") and "rack-b1" in svg.read_text()
    assert "<html" in html.read_text().lower() and "rack-b1" in html.read_text()


def test_depth_shows_nodes() -> None:
    result = invoke("--shape", "cpu=1", "--depth", "5")
    assert any("hostname gpu-a1-0" in line for line in result.stdout.splitlines())


def test_bad_input_exits_2() -> None:
    for args, message in [
        ([], "give at least one --shape"),
        (["--shape", "cpu=x"], "--shape 'cpu=x'"),
        (["--shape", "cpu=1", "--levels", "a,a"], "expected distinct label keys"),
        (["--tolerate", "gpu"], "--tolerate applies to --shape"),
        (["--shape", "cpu=1", "--drain", "rack=none"], "matches no node"),
    ]:
        result = invoke(*args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.stderr, (args, result.stderr)
