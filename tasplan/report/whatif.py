"""The header lines that say a plan was made on an edited cluster."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from rich.console import RenderableType
from rich.text import Text

from tasplan.whatif.edits import AppliedEdit


def render_what_if(applied: Sequence[AppliedEdit]) -> Iterator[RenderableType]:
    if not applied:
        return
    yield Text(f"WHAT-IF: planned on the cluster with {len(applied)} edit(s), not the cluster "
               "as it is:", style="bold magenta")
    for i, edit in enumerate(applied, 1):
        yield Text.assemble(f" {i}. ", (f"{edit.op} {edit.target}", "bold"),
                            f" → {edit.effect}")
