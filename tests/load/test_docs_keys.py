"""docs/inputs.md lists every recognised scheduling key with what the plan does with it,
rendered from the registry so that the page cannot drift from the code."""

from __future__ import annotations

import re
from pathlib import Path

from tasplan.model.scheduling_keys import KEYS, KUBE_SCHEDULER, Status, Where

DOC = Path(__file__).resolve().parents[2] / "docs" / "inputs.md"
BLOCK = re.compile(r"(<!-- keys:start[^>]*-->\n)(.*?)(<!-- keys:end -->)", re.S)


def render() -> str:
    lines = ["| Key | Where | Owner | kube-scheduler | Other schedulers | Why, or what would "
             "honour it |", "|---|---|---|---|---|---|"]
    for k in KEYS:
        where = k.where.value + (f" of {', '.join(k.kinds)}" if k.kinds else "")
        status = k.status(KUBE_SCHEDULER)
        if status == Status.WARNED:
            why = f"{k.meaning}; honoured by {k.honoured_by}" if k.honoured_by else k.meaning
            if k.workaround:
                why += f"; approximate: `{k.workaround}`"
        else:
            why = f"{k.meaning}: {k.why}"
        name = k.key.lstrip("*") if k.where == Where.FIELD else k.key
        others = ", ".join(f"{s}: {st.value}" for s, st in k.planned.items()
                           if s != KUBE_SCHEDULER and st != Status.WARNED) or "-"
        lines.append(f"| `{name}` | {where} | {k.owner} | {status.value} | {others} | {why} |")
    return "\n".join(lines) + "\n"


def test_inputs_md_lists_every_key() -> None:
    text = DOC.read_text()
    match = BLOCK.search(text)
    assert match, "docs/inputs.md lost its keys block"
    assert match.group(2) == render(), (
        "docs/inputs.md's keys table is stale: replace the block with tests/load/"
        "test_docs_keys.py render()")


if __name__ == "__main__":  # regenerate: python -m tests.load.test_docs_keys
    DOC.write_text(BLOCK.sub(lambda m: m.group(1) + render() + m.group(3), DOC.read_text()))
