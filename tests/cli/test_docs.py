"""Every ``$ tasplan`` example in docs/ is real output, as the README's are
(tests/cli/test_readme.py runs the same way): each ```text block that starts with
``$ tasplan ...`` is run (stdout not a terminal, COLUMNS=80) and must print exactly what the
page shows. ``| head -N`` shows the first N lines, ``2>&1`` adds stderr as a terminal would
interleave it, and a block whose shown lines start and/or end with a line ``…`` shows a run
of consecutive lines of the output. After an intended change of output, rewrite the
(unelided) blocks with::

    TASPLAN_UPDATE_GOLDEN=1 .venv/bin/pytest tests/cli/test_docs.py

and read the diff before committing it; an elided block is fixed by hand.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli import test_readme

DOCS = sorted((test_readme.REPO / "docs").glob("*.md"))
ELISION = "…\n"


def _blocks() -> list[tuple[Path, str, str]]:
    return [(page, m.group(1), m.group(2)) for page in DOCS
            for m in test_readme.BLOCK.finditer(page.read_text())]


def test_the_pages_with_examples_are_covered() -> None:
    pages = {page.name for page, _, _ in _blocks()}
    assert {"explain.md", "lint.md", "composite.md", "preemption.md", "dra.md"} <= pages


@pytest.mark.parametrize(("page", "command"), [(p, c) for p, c, _ in _blocks()],
                         ids=[f"{p.stem}: {c}" for p, c, _ in _blocks()])
def test_doc_output_is_real(page: Path, command: str) -> None:
    shown = next(s for p, c, s in _blocks() if p == page and c == command)
    actual = test_readme._run(command)
    if shown.startswith(ELISION) or shown.endswith(ELISION):
        run = shown.removeprefix(ELISION).removesuffix(ELISION)
        assert run and run in actual, (
            f"{page.name}: the lines shown for `{command}` are not a run of its output; "
            "update them by hand from the real output")
        if not shown.startswith(ELISION):
            assert actual.startswith(run)
        return
    if test_readme.UPDATE and actual != shown:
        page.write_text(page.read_text().replace(f"$ {command}\n{shown}",
                                                 f"$ {command}\n{actual}", 1))
        pytest.skip(f"{page.name} updated")
    assert actual == shown
