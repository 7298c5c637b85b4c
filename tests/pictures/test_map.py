"""The topology map and the HTML reports: well-formed, self-contained, deterministic to the
byte (goldens, and across hash seeds), escaped, and saying what the result says.

Regenerate the goldens after an intended change with::

    TASPLAN_UPDATE_GOLDEN=1 .venv/bin/pytest tests/pictures/test_map.py
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tasplan.capacity.shapes import parse_shape
from tasplan.capacity.view import capacity
from tasplan.cli.app import app
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.report.picture.measure import parse_measure
from tasplan.report.picture.topology_map import Mark, Overlay, topology_map
from tests.builders import make_node

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden"
UPDATE = os.environ.get("TASPLAN_UPDATE_GOLDEN") == "1"
GPU = ["--shape", "cpu=48,memory=256Gi,nvidia.com/gpu=8", "--tolerate", "nvidia.com/gpu"]
SVG = "{http://www.w3.org/2000/svg}"

# golden file -> the command that writes it (FILE: the output path)
CASES = {
    "capacity-map.svg": ["capacity", "-c", "samples/cluster", *GPU, "--gang", "4",
                         "--svg", "FILE"],
    "capacity-nodes.svg": ["capacity", "-c", "samples/cluster", *GPU, "--depth", "5",
                           "--drain", "gpu-b2-0", "--color-by", "free:nvidia.com/gpu",
                           "--svg", "FILE"],
    "capacity.html": ["capacity", "-c", "samples/cluster", *GPU, "--gang", "4",
                      "--html", "FILE"],
    "check-train-rack.html": ["check", "samples/workloads/train-rack.yaml", "-c",
                              "samples/cluster", "--html", "FILE"],
    "explain-train-too-big.html": ["explain", "samples/workloads/train-too-big.yaml", "-c",
                                   "samples/cluster", "--cordon", "gpu-b3-0", "--html", "FILE"],
}


def run(args: list[str], target: Path) -> bytes:
    result = CliRunner().invoke(app, [str(target) if a == "FILE" else a for a in args])
    assert result.exit_code in (0, 1), result.output
    return target.read_bytes()


@pytest.mark.parametrize("golden", sorted(CASES))
def test_golden(golden: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    got = run(CASES[golden], tmp_path / golden)
    path = GOLDEN / golden
    if UPDATE:
        path.write_bytes(got)
    assert path.exists(), f"{path} is missing: run with TASPLAN_UPDATE_GOLDEN=1"
    assert got == path.read_bytes(), (
        f"output differs from {path.relative_to(REPO)}; if the change is intended, "
        "regenerate with TASPLAN_UPDATE_GOLDEN=1 and review the diff")


@pytest.mark.parametrize("golden", ["capacity-nodes.svg", "explain-train-too-big.html"])
def test_the_same_bytes_whatever_the_hash_seed(golden: str, tmp_path: Path) -> None:
    """Sets and dicts of strings iterate in an order Python's hash seed decides: two fresh
    processes with different seeds must still write the same bytes."""
    outputs = []
    for seed in ("1", "2"):
        target = tmp_path / f"{seed}-{golden}"
        args = [str(target) if a == "FILE" else a for a in CASES[golden]]
        subprocess.run([sys.executable, "-m", "tasplan", *args], cwd=REPO, check=False,
                       env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True)
        outputs.append(target.read_bytes())
    assert outputs[0] == outputs[1] and outputs[0]


@pytest.mark.parametrize("golden", sorted(CASES))
def test_self_contained(golden: str) -> None:
    """Nothing fetched: no scripts, no external references, no fonts or styles to load; the
    only URL is the SVG namespace (and the HTML's own policy forbids any other)."""
    text = (GOLDEN / golden).read_text()
    assert not re.search(r"<script|@import|@font-face|<link|<img|<iframe|href=", text, re.I)
    assert set(re.findall(r"url\(([^)]*)\)", text)) <= {f"#{p}-hatch" for p in ("tp", "g1")}
    assert set(re.findall(r"https?://[^\s\"')]+", text)) <= {"http://www.w3.org/2000/svg"}
    if golden.endswith(".html"):
        assert "Content-Security-Policy\" content=\"default-src 'none'" in text


@pytest.mark.parametrize("golden", [g for g in sorted(CASES) if g.endswith(".svg")])
def test_svg_is_well_formed(golden: str) -> None:
    root = ET.fromstring((GOLDEN / golden).read_bytes())
    assert root.tag == f"{SVG}svg"
    assert int(root.get("width")) == 1400  # fits a 1,400-pixel screen


def texts(svg: str) -> list[str]:
    return ["".join(t.itertext()) for t in ET.fromstring(svg).iter(f"{SVG}text")]


def titles(svg: str) -> list[str]:
    return ["".join(t.itertext()) for t in ET.fromstring(svg).iter(f"{SVG}title")]


def test_the_sample_map_says_what_the_report_says() -> None:
    """Racks b1 and b3 hold the 4-pod gang (✓) and tie: neither gets the ★; block-b alone
    holds the most blocks'; the three system nodes are drawn apart; every tile has its
    figures in a tooltip."""
    svg = (GOLDEN / "capacity-map.svg").read_text()
    shown = texts(svg)
    assert "4 ✓" in shown and "4 ✓ ★" not in shown
    assert any(t.startswith("block block-b") and t.endswith("10 ✓ ★") for t in shown)
    assert "no block label" in shown
    tips = titles(svg)
    b1 = next(t for t in tips if t.startswith("rack rack-b1"))
    assert b1.splitlines() == [
        "rack rack-b1", "4 node(s)", "free cpu 383.2/384 · memory 4.0Ti/4Ti · gpu 32/32",
        "shape A: 4 now · 4 empty · holds a gang of 4"]
    assert any(t.startswith("3 node(s) without topology.example.com/block") for t in tips)


def test_what_if_edits_and_nodes_on_the_map() -> None:
    """--depth 5 draws every node; the drained node carries the what-if corner and says
    which edit changed it; colours follow free GPUs."""
    svg = (GOLDEN / "capacity-nodes.svg").read_text()
    tips = titles(svg)
    drained = next(t for t in tips if t.startswith("hostname gpu-b2-0"))
    assert "what-if on gpu-b2-0: drain gpu-b2-0" in drained
    assert "colour: free gpu" in " ".join(texts(svg))
    assert svg.count('fill="#c51b8a"') == 2  # the legend's swatch and the one node


def test_placements_on_the_map() -> None:
    """check --html: rack-b1 selected (▶, rank 1), rack-b3 tied (=), the other racks
    infeasible with their reason in the tooltip; pods drawn on the nodes that get them."""
    html = (GOLDEN / "check-train-rack.html").read_text()
    svg = html[html.index("<svg"):html.index("</svg>") + 6]
    shown = texts(svg)
    assert any(t.startswith("rack rack-b1 · #1▶ 4/4 pods") for t in shown)
    assert any(t.startswith("rack rack-b3 · #2= 4/4 pods") for t in shown)
    tips = titles(svg)
    a1 = next(t for t in tips if t.startswith("rack rack-a1"))
    assert ("placement #6 (infeasible): minCount (4) cannot be satisfied: 0 scheduled, "
            "3 remaining") in a1
    assert svg.count("<circle") == 1 + 4  # the legend's dot and gpu-b1-0..3
    assert '<tr class="selected"><td class="n">▶1</td><td>rack-b1</td>' in html


def test_explain_shows_shortfall_suggestions_and_the_edit() -> None:
    html = (GOLDEN / "explain-train-too-big.html").read_text()
    assert "WHAT-IF: planned on the cluster with 1 edit(s)" in html
    assert "<td>rack-b1</td><td class=\"n\">4</td><td class=\"n\">4/5</td><td>8 gpu (1×8), " \
           "48 cpu (1×48)</td>" in html
    assert "<li>lower minCount from 5 to 4 → fits in &#x27;rack-b1&#x27;" in html
    assert "<h2>The report as text</h2>" in html


def test_untrusted_names_are_escaped() -> None:
    """Names come from inputs: markup and control characters never reach the SVG raw."""
    evil = "r<script>alert(1)</script>&\x1b[31m"
    nodes = (make_node("n1", 4, labels={"topology.example.com/rack": evil}),
             make_node("n2", 4, labels={"topology.example.com/rack": "r2"}))
    report = capacity(ClusterSnapshot(nodes, (), ()), [parse_shape("cpu=1")])
    overlay = Overlay("topology.example.com/rack",
                      {evil: Mark(1, "infeasible", "0/1 pods", 'a "quoted" <reason>')})
    svg = topology_map(report, parse_measure(None, report), overlay=overlay, title=evil)
    assert "<script" not in svg and "\x1b" not in svg
    root = ET.fromstring(svg)  # still well-formed
    assert any("<script>" in "".join(t.itertext()) for t in root.iter(f"{SVG}title"))


def test_measures_and_their_errors(tmp_path: Path) -> None:
    def invoke(*args: str):
        return CliRunner().invoke(app, ["capacity", "-c", str(REPO / "samples" / "cluster"),
                                        *args])

    target = tmp_path / "m.svg"
    for measure, legend in [("free-fraction:cpu", "free cpu / allocatable"),
                            ("empty", "pods of shape A that fit in an empty domain"),
                            ("now:B", "pods of shape B that fit now")]:
        result = invoke(*GPU, "--shape", "cpu=1", "--color-by", measure, "--svg", str(target))
        assert result.exit_code == 0, result.output
        assert legend in " ".join(texts(target.read_text()))
    for args, message in [
        (["--color-by", "hot", "--svg", str(target)], "--color-by 'hot': expected one of"),
        (["--color-by", "now:C", "--svg", str(target)], "no shape 'C' (shapes: A)"),
        (["--color-by", "free:example.com/fpga", "--svg", str(target)],
         "no node has 'example.com/fpga'"),
        (["--color-by", "now"], "--color-by colours the map: give --svg or --html"),
    ]:
        result = invoke("--shape", "cpu=1", *args)
        assert result.exit_code == 2 and message in result.stderr, (args, result.stderr)
    result = invoke("--for", str(REPO / "samples" / "workloads" / "train-rack.yaml"),
                    "--gang", "3")
    assert result.exit_code == 2 and "--gang applies to --shape shapes" in result.stderr


def test_html_targets_are_checked_before_any_work(tmp_path: Path) -> None:
    for command in (["check", "samples/workloads/train-rack.yaml"],
                    ["explain", "samples/workloads/train-too-big.yaml"]):
        result = CliRunner().invoke(app, [*command, "-c", "no-such-cluster", "--html",
                                          str(tmp_path)])
        assert result.exit_code == 2 and f"--html {tmp_path}: is a directory" in result.stderr


def test_five_nodes_without_topology_labels_are_the_map() -> None:
    """A small cluster with only hostnames: the nodes are the tiles, and where one node
    holds the gang (2 pods of 4 GPUs on 8) it is marked like any domain."""
    nodes = tuple(make_node(f"gpu-{i}", 64, **{"nvidia.com/gpu": 8 if i else 2})
                  for i in range(5))
    report = capacity(ClusterSnapshot(nodes, (), ()), [parse_shape("nvidia.com/gpu=4", gang=2)])
    svg = topology_map(report, parse_measure(None, report))
    shown = texts(svg)
    assert [t for t in shown if t.startswith("gpu-")] == [f"gpu-{i}" for i in range(5)]
    # gpu-1..4 hold the gang (and the legend names their class); gpu-0 fits no 4-GPU pod.
    assert shown.count("2 ✓") == 4 + 1 and shown.count("0") == 1 + 1


def test_250_racks_fit_one_screen_with_every_name_and_number() -> None:
    """5,000 nodes in 5 blocks of 50 racks of 20 (the issue's size): the map is at most
    1,400 x 950 pixels, and every rack tile shows its whole name and its count, in type of
    at least 7 pixels."""
    nodes = tuple(make_node(f"n{i:04d}", 8, labels={
        "topology.example.com/block": f"block-{i // 1000}",
        "topology.example.com/rack": f"rack-{i // 20:04d}"}) for i in range(5000))
    report = capacity(ClusterSnapshot(nodes, (), ()), [parse_shape("cpu=8", gang=16)])
    svg = topology_map(report, parse_measure(None, report))
    root = ET.fromstring(svg)
    assert float(root.get("height")) <= 950
    drawn = {"".join(t.itertext()): float(t.get("font-size")) for t in root.iter(f"{SVG}text")}
    for i in range(250):
        assert drawn.get(f"rack-{i:04d}", 0) >= 7, f"rack-{i:04d} is not readable"
    assert drawn.get("20 ✓", 0) >= 10
    assert len(svg.encode()) < 2_000_000


def test_each_group_map_shows_its_own_shape(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Four groups on one page: four maps, each coloured by and naming its group's pods
    only, each with its own element ids."""
    monkeypatch.chdir(REPO)
    html = run(["check", "samples/composite/train-2level.yaml", "-c", "samples/cluster",
                "--html", "FILE"], tmp_path / "c.html").decode()
    maps = re.findall(r"<svg.*?</svg>", html, re.S)
    assert len(maps) == 4
    for i, svg in enumerate(maps):
        shown = " ".join(texts(svg))
        assert f"= ml/llm-replica-{i} (" in shown
        assert not any(f"ml/llm-replica-{j} (" in shown for j in range(4) if j != i)
        assert f'id="g{i + 1}-hatch"' in svg
