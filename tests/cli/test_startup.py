"""Start-up cost: commands import the kubernetes client and jsonschema only when they need
them (--live; lint's schema checks). Measured with ``python -X importtime``, whose report
lists every module a process imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _imported(args: list[str], cwd: Path) -> set[str]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "tasplan", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()
            if line.startswith("import time:")}


@pytest.mark.parametrize("args", [
    ["check", "workloads/train-rack.yaml", "--cluster", "cluster", "-o", "json"],
    ["check", "workloads/train-rack.yaml", "--cluster", "cluster"],
    ["explain", "workloads/train-too-big.yaml", "--cluster", "cluster"],
], ids=["check-json", "check-table", "explain"])
def test_offline_commands_import_neither_kubernetes_nor_jsonschema(args: list[str]) -> None:
    modules = _imported(args, SAMPLES)
    assert "tasplan.load.loader" in modules  # the report is read right
    assert not {m for m in modules if m.split(".")[0] in ("kubernetes", "jsonschema")}


def test_snapshot_of_files_does_not_import_kubernetes(tmp_path: Path) -> None:
    modules = _imported(["snapshot", "--cluster", "cluster", "-o", str(tmp_path / "s.json")],
                        SAMPLES)
    assert (tmp_path / "s.json").exists()
    assert not {m for m in modules if m.split(".")[0] == "kubernetes"}


def test_commands_keep_what_they_built_for_os_exit() -> None:
    """With teardown skipped (a real process), ``check`` leaves its snapshot referenced, so
    returning from the command frees nothing before ``os._exit``."""
    code = (
        "import io, sys\n"
        "from pathlib import Path\n"
        "from tasplan.cli import teardown\n"
        "from tasplan.cli.check import run_check\n"
        "from tasplan.model.snapshot import ClusterSnapshot\n"
        "teardown.enable()\n"
        "sys.stdout = io.StringIO()\n"
        "run_check([Path('workloads/train-rack.yaml')], [Path('cluster')], 'json')\n"
        "sys.stdout = sys.__stdout__\n"
        "print(sum(isinstance(o, ClusterSnapshot) for o in teardown._kept))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=SAMPLES, timeout=120)
    assert proc.stdout.strip() == "1", proc.stderr[-2000:]
