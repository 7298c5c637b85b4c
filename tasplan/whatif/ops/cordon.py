"""``--cordon``: mark nodes unschedulable (``spec.unschedulable``), as ``kubectl cordon``."""

from __future__ import annotations

from dataclasses import replace

from tasplan.model.node import Node
from tasplan.whatif.draft import Draft
from tasplan.whatif.edits import AppliedEdit, Edit


def cordon(draft: Draft, nodes: list[Node]) -> int:
    """Cordon ``nodes``; how many were not cordoned already."""
    changed = 0
    for node in nodes:
        if not node.unschedulable:
            draft.nodes[node.name] = replace(node, unschedulable=True)
            changed += 1
    return changed


def names(nodes: list[Node], limit: int = 4) -> str:
    shown = ", ".join(n.name for n in nodes[:limit])
    return shown + (f" and {len(nodes) - limit} more" if len(nodes) > limit else "")


def apply(draft: Draft, edit: Edit) -> AppliedEdit:
    nodes = draft.select_nodes(edit)
    changed = cordon(draft, nodes)
    already = len(nodes) - changed
    effect = f"cordoned {len(nodes)} node(s): {names(nodes)}"
    if already:
        effect += f" ({already} already cordoned)"
    return AppliedEdit(edit.op, edit.describe(), effect, tuple(sorted(n.name for n in nodes)))
