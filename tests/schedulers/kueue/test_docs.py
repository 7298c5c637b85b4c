"""docs/schedulers.md cannot drift: each ```text block starting with ``$ tasplan ...`` is run
and must print what the page shows (``| head -N``: those first lines). Rewrite after an
intended change with ``TASPLAN_UPDATE_GOLDEN=1 .venv/bin/pytest tests/schedulers/kueue/
test_docs.py`` and read the diff."""

from __future__ import annotations

import re

import pytest

from tests.cli import test_readme

DOC = test_readme.REPO / "docs" / "schedulers.md"


def _blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in test_readme.BLOCK.finditer(DOC.read_text())]


def test_the_kueue_section_shows_check_and_explain() -> None:
    commands = [c for c, _ in _blocks()]
    assert any(re.match(r"tasplan check .*samples/kueue", c) for c in commands)
    assert any(c.startswith("tasplan explain ") for c in commands)


@pytest.mark.parametrize("command", [c for c, _ in _blocks()])
def test_doc_output_is_real(command: str) -> None:
    shown = dict(_blocks())[command]
    actual = test_readme._run(command)
    if test_readme.UPDATE and actual != shown:
        DOC.write_text(DOC.read_text().replace(f"$ {command}\n{shown}",
                                               f"$ {command}\n{actual}", 1))
        pytest.skip("docs/schedulers.md updated")
    assert actual == shown
