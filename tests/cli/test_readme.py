"""The README's tour cannot drift: every ```text block that starts with ``$ tasplan ...`` is
run (stdout not a terminal, as in a CI log or a file) and must print exactly what the README
shows; a command that ends in ``| head -N`` (``| tail -N``) must print exactly those first
(last) N lines, one that ends in ``2>&1`` shows stderr too, as a terminal interleaves it.
After an intended change of output, rewrite the blocks with::

    TASPLAN_UPDATE_GOLDEN=1 .venv/bin/pytest tests/cli/test_readme.py

and read the diff before committing it.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tasplan.cli.app import app

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
UPDATE = os.environ.get("TASPLAN_UPDATE_GOLDEN") == "1"
BLOCK = re.compile(r"^```text\n\$ (tasplan [^\n]*)\n(.*?)^```$", re.M | re.S)
HEAD = re.compile(r"^(.*?) \| head -(\d+)$")
TAIL = re.compile(r"^(.*?) \| tail -(\d+)$")


def _blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in BLOCK.finditer(README.read_text())]


def _run(command: str) -> str:
    head = HEAD.match(command)
    if head:
        lines = _run(head.group(1)).splitlines(keepends=True)
        assert len(lines) > int(head.group(2)), (command, "prints no more than it shows")
        return "".join(lines[: int(head.group(2))])
    tail = TAIL.match(command)
    if tail:
        lines = _run(tail.group(1)).splitlines(keepends=True)
        assert len(lines) > int(tail.group(2)), (command, "prints no more than it shows")
        return "".join(lines[-int(tail.group(2)):])
    both = command.endswith(" 2>&1")
    args = shlex.split(command.removesuffix(" 2>&1"))[1:]
    cwd = os.getcwd()
    os.chdir(REPO)  # the README's paths are relative to the repository root
    try:
        # COLUMNS as a narrow CI terminal would set it: output that is not a terminal must
        # ignore it and show every name in full.
        result = CliRunner().invoke(app, args, env={"COLUMNS": "80"})
    finally:
        os.chdir(cwd)
    assert result.exit_code in (0, 1), (command, result.output)
    return result.output if both else result.stdout


def test_readme_has_the_tour() -> None:
    commands = [c for c, _ in _blocks()]
    assert any(c.startswith("tasplan check ") for c in commands)
    assert any(c.startswith("tasplan explain ") for c in commands)
    assert any(c.startswith("tasplan lint ") for c in commands)


@pytest.mark.parametrize("command", [c for c, _ in _blocks()])
def test_readme_output_is_real(command: str) -> None:
    shown = dict(_blocks())[command]
    actual = _run(command)
    if UPDATE and actual != shown:
        text = README.read_text()
        README.write_text(text.replace(f"$ {command}\n{shown}", f"$ {command}\n{actual}", 1))
        pytest.skip("README updated")
    assert actual == shown


def test_readme_stays_short() -> None:
    """The README is the tour (about 250 lines); depth goes to docs/."""
    assert len(README.read_text().splitlines()) <= 250
