"""Narrow terminals never cut what a user must read or type (issue 26): explain stacks its
reasons under each domain, --help wraps whole words (piped too), capacity wraps between
figures, and a table that leaves columns out says which."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tasplan.capacity.shapes import parse_shape, parse_toleration
from tasplan.capacity.view import capacity
from tasplan.cli import help_format
from tasplan.cli.app import app
from tasplan.cli.output import Width, render
from tasplan.explain.explainer import explain
from tasplan.load.loader import load_inputs
from tasplan.report.capacity_tree import render_capacity
from tasplan.report.explain_table import render_explanations

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "samples" / "cluster"
URGENT = REPO / "samples" / "explain" / "urgent.yaml"

COMMANDS = ("check", "explain", "capacity", "lint", "snapshot")
MUST_BE_WHOLE = ("TopologyAwareWorkloadScheduling", "WorkloadAwarePreemption",
                 "PodGroupPreemptionPolicy", "KubeSchedulerConfiguration",
                 "TASPLAN_REQUEST_TIMEOUT", "TASRespectNodeAffinityPreferred",
                 "cpu=48,memory=256Gi,nvidia.com/gpu=8", "jsonpath-file=FILE")


@pytest.mark.parametrize("columns", [40, 80, 200])
def test_help_never_cuts_a_word_when_piped(columns: int) -> None:
    seen = ""
    for command in COMMANDS:
        result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": str(columns)})
        assert result.exit_code == 0
        assert "…" not in result.stdout, command
        assert "╭" not in result.stdout  # plain text in a log, no panels
        seen += result.stdout
    for word in MUST_BE_WHOLE:
        assert word in seen, word


def test_help_panels_on_a_wide_terminal_cut_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rich's panels are used from RICH_MIN_WIDTH columns: there every word fits."""
    import typer.rich_utils

    monkeypatch.setattr(help_format, "rich_help", lambda: True)
    monkeypatch.setattr("tasplan.cli.kubectl.rich_help", lambda: True)
    monkeypatch.setattr(typer.rich_utils, "MAX_WIDTH", help_format.RICH_MIN_WIDTH)
    seen = ""
    for command in COMMANDS:
        result = CliRunner().invoke(app, [command, "--help"])
        assert "╭" in result.stdout and "…" not in result.stdout, command
        seen += result.stdout
    for word in MUST_BE_WHOLE:
        assert word in seen, word


def test_explain_stacks_its_reasons_on_a_narrow_terminal() -> None:
    """explain at 80 columns dropped EXCLUDED and USED BY (the why) and said nothing."""
    snapshot = load_inputs([URGENT], [CLUSTER])
    result = explain(snapshot)
    text = render(lambda target: render_explanations(result, width=target), Width(80, cut=True))
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines), [x for x in lines if len(x) > 80]
    assert "DOMAIN   NODES  PODS  SHORT" in lines
    at = lines.index("rack-b2      4   0/4  4 pod(s)")
    assert lines[at + 1:at + 3] == [
        "  excluded: 3 node(s) didn't match Pod's node affinity/selector",
        "  excluded: 1 node(s) were unschedulable"]
    assert "  used by: research p1000 ×2: 16 gpu, 64 cpu" in lines
    wide = render(lambda target: render_explanations(result, width=target), Width(200, True))
    assert any(line.startswith("DOMAIN") and "USED BY" in line for line in wide.splitlines())


def test_capacity_wraps_between_figures_never_inside_one() -> None:
    """It wrapped mid-figure: "gpu" at the end of a line, "44/96" on the next."""
    snapshot = load_inputs([], [CLUSTER])
    shape = parse_shape("cpu=48,memory=256Gi,nvidia.com/gpu=8",
                        (parse_toleration("nvidia.com/gpu"),), None)
    report = capacity(snapshot, [shape], None)
    for width in (50, 80, 100):
        text = render(lambda target: render_capacity(report, None, target),
                      Width(width, cut=True))
        lines = text.splitlines()
        assert all(len(line) <= width for line in lines), width
        for line in lines:
            words = line.split()
            # "gpu 44/96" (free) and "12 gpu" (stranded) are whole figures; a resource name
            # that ends a line must follow its amount
            if words and words[-1] in ("cpu", "memory", "gpu", "free"):
                assert re.fullmatch(r"[\d.]+\w*,?", words[-2]), (width, line)
            for i, word in enumerate(words):
                if re.fullmatch(r"[\d.]+\w*/[\d.]+\w*", word):
                    assert i and words[i - 1] in ("cpu", "memory", "gpu"), (width, line)
        assert "gpu 44/96" in text


def test_a_table_that_leaves_columns_out_says_so() -> None:
    result = CliRunner().invoke(app, ["check", str(REPO / "samples" / "workloads" /
                                                  "train-rack.yaml"), "-c", str(CLUSTER),
                                      "--width", "70"])
    assert ("left out to fit 70 columns: FIT, PODSCOUNT, FREE GPU (-o json has every figure)"
            in result.stdout.splitlines())
