"""``--evict``: bound pods below a priority, of a namespace, or matching a label selector
are gone (pending pods are never evicted). PodDisruptionBudgets the eviction would
violate are reported. A filter that matches no running pod leaves nothing to do: a
warning, as ``kubectl delete`` with a selector that matches nothing says "No resources
found" and succeeds."""

from __future__ import annotations

from tasplan.untrusted import quote
from tasplan.whatif.draft import Draft
from tasplan.whatif.edits import AppliedEdit, Edit
from tasplan.whatif.selectors import pod_filter


def apply(draft: Draft, edit: Edit) -> AppliedEdit:
    wanted = pod_filter(edit.target)
    pods = [p for p in draft.bound_pods() if wanted.matches(p.namespace, p.priority, p.labels)]
    if not pods:
        draft.warnings.append(f"{edit.where} {quote(edit.target)}: matches no running pod; "
                              "nothing evicted")
        return AppliedEdit(edit.op, edit.describe(), "matches no running pod: nothing evicted")
    violated = draft.evict(pods)
    nodes = sorted({p.node_name for p in pods})
    effect = f"evicted {len(pods)} pod(s) from {len(nodes)} node(s)"
    if violated:
        effect += "; would violate " + "; ".join(violated)
    return AppliedEdit(edit.op, edit.describe(), effect, tuple(nodes))
