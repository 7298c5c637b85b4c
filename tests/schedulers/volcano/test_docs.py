"""docs/schedulers.md's Volcano example is real output (as tests/cli/test_readme.py keeps
the README's)."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from typer.testing import CliRunner

from tasplan.cli.app import app

REPO = Path(__file__).resolve().parents[3]
DOC = REPO / "docs" / "schedulers.md"
BLOCK = re.compile(r"^```text\n\$ (tasplan [^\n]*)\n(.*?)^```$", re.M | re.S)


def test_volcano_example_is_real_output() -> None:
    blocks = [(m.group(1), m.group(2)) for m in BLOCK.finditer(DOC.read_text())]
    volcano = [(c, shown) for c, shown in blocks if "samples/volcano" in c]
    assert volcano
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        for command, shown in volcano:
            result = CliRunner().invoke(app, shlex.split(command)[1:], env={"COLUMNS": "80"})
            assert result.exit_code in (0, 1), result.output
            assert result.stdout == shown
    finally:
        os.chdir(cwd)
