"""``--drain``: cordon, then evict every pod of the nodes except DaemonSet and mirror pods,
as ``kubectl drain --ignore-daemonsets --delete-emptydir-data --force`` does, and report the
PodDisruptionBudgets the evictions would violate (kubectl drain would keep retrying those
evictions; the what-if assumes they happen). Evicted pods are gone: the pods their
controllers would create again are not added."""

from __future__ import annotations

from tasplan.whatif.draft import Draft
from tasplan.whatif.edits import AppliedEdit, Edit
from tasplan.whatif.ops.cordon import cordon, names


def apply(draft: Draft, edit: Edit) -> AppliedEdit:
    nodes = draft.select_nodes(edit)
    cordon(draft, nodes)
    chosen = {n.name for n in nodes}
    on_nodes = [p for p in draft.bound_pods() if p.node_name in chosen]
    evicted = [p for p in on_nodes if not p.node_local]
    kept = len(on_nodes) - len(evicted)
    violated = draft.evict(evicted)
    effect = (f"cordoned {len(nodes)} node(s) ({names(nodes)}), evicted {len(evicted)} pod(s), "
              f"kept {kept} DaemonSet/mirror pod(s)")
    if violated:
        effect += "; would violate " + "; ".join(violated)
    return AppliedEdit(edit.op, edit.describe(), effect, tuple(sorted(chosen)))
