"""The composite output shown in docs/composite.md is what tasplan prints."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from typer.testing import CliRunner

from tasplan.cli.app import app

REPO = Path(__file__).resolve().parents[2]
COMMAND = "tasplan check samples/composite/train-2level.yaml -c samples/cluster"


def _run(command: str, exit_code: int = 0, columns: int = 80) -> str:
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        result = CliRunner().invoke(app, shlex.split(command)[1:],
                                    env={"COLUMNS": str(columns)})
    finally:
        os.chdir(cwd)
    assert result.exit_code == exit_code, result.output
    return result.stdout


def _block(text: str, fence: str) -> str:
    m = re.search(rf"^```{fence}\n\$ {re.escape(COMMAND)}\n(.*?)^```$", text, re.M | re.S)
    assert m is not None
    return m.group(1)


def test_docs_show_the_real_output() -> None:
    assert _block((REPO / "docs" / "composite.md").read_text(), "text") == _run(COMMAND)


EXPLAIN = "tasplan explain samples/explain/composite-too-big.yaml -c samples/cluster"


def test_docs_show_the_real_explain_lines() -> None:
    """The explain example's lines (between the elisions) are a run of the real output."""
    text = (REPO / "docs" / "composite.md").read_text()
    m = re.search(rf"^```text\n\$ {re.escape(EXPLAIN)}\n…\n(.*?)…\n```$", text, re.M | re.S)
    assert m is not None
    assert m.group(1) in _run(EXPLAIN, exit_code=1, columns=100)
