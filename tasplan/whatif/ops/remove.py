"""``--remove``: the nodes are gone, and every pod bound to them with them."""

from __future__ import annotations

from tasplan.whatif.draft import Draft
from tasplan.whatif.edits import AppliedEdit, Edit
from tasplan.whatif.ops.cordon import names


def apply(draft: Draft, edit: Edit) -> AppliedEdit:
    nodes = draft.select_nodes(edit)
    chosen = {n.name for n in nodes}
    pods = [p for p in draft.live_pods() if p.node_name in chosen]
    draft.gone.update(id(p) for p in pods)
    for name in chosen:
        del draft.nodes[name]
    return AppliedEdit(edit.op, edit.describe(),
                       f"removed {len(nodes)} node(s) ({names(nodes)}) and their "
                       f"{len(pods)} pod(s)", tuple(sorted(chosen)))
