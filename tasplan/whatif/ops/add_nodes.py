"""``--add-nodes N --like NODE [--in DOMAIN] [--label k=v]``: N copies of a node.

A copy has the like-node's allocatable, labels and taints (not its cordon), its own name
(``<like>-whatif-<k>``, never one in use) and ``kubernetes.io/hostname``, and runs copies of
the like-node's DaemonSet and mirror pods, as a real new node would. ``--in`` sets the
topology label: ``KEY=VALUE`` (a bare KEY resolves like a selector key), or a bare VALUE,
which names the existing domain that has it; a VALUE that exists nowhere becomes a new
domain at the innermost topology level of the like-node below the hostname. ``--label``
overrides (or adds) a label. Other per-node objects are copied by the hooks in
``NODE_COPIERS``: the like-node's node-local DRA ResourceSlices (``nodeName``) get a copy
for each new node, in a pool of its own; slices that select nodes by label or reach all
nodes reach the copies through their labels already.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from tasplan.dra.copies import copied_slices
from tasplan.errors import UsageError
from tasplan.model.node import Node
from tasplan.model.selectors import valid_label_key, valid_label_value
from tasplan.model.topology import HOSTNAME
from tasplan.untrusted import quote
from tasplan.whatif.draft import Draft
from tasplan.whatif.edits import AppliedEdit, Edit
from tasplan.whatif.selectors import resolve_key

UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
MAX_NODES = 100_000


def copy_resource_slices(draft: Draft, like: Node, node: Node) -> None:
    """The like-node's node-local ResourceSlices, for the new node (``copied_slices``)."""
    draft.slices.extend(copied_slices(draft.slices, like.name, node.name))


# Called as hook(draft, like, copy) for every new node: where per-node objects other than
# the node and its DaemonSet pods are copied for it.
NODE_COPIERS: list[Callable[[Draft, Node, Node], None]] = [copy_resource_slices]


def apply(draft: Draft, edit: Edit) -> AppliedEdit:
    if not 1 <= edit.count <= MAX_NODES:
        raise UsageError(f"{edit.where}: the node count must be 1..{MAX_NODES}, got {edit.count}")
    like = draft.nodes.get(edit.like)
    if like is None:
        raise UsageError(f"{edit.where}: no node named {quote(edit.like)} to copy (--like)")
    labels = dict(like.labels)
    where, new_domain = _domain(draft, edit, like)
    if where is not None:
        labels[where[0]] = where[1]
    for key, value in edit.labels:
        if not valid_label_key(key) or not valid_label_value(value):
            raise UsageError(f"{edit.where}: --label {key}={value} is not a valid label")
        labels[key] = value
    taints = tuple(t for t in like.taints if t.key != UNSCHEDULABLE_TAINT)
    local = [p for p in draft.bound_pods() if p.node_name == like.name and p.node_local]
    added = []
    k = 0
    for _ in range(edit.count):
        k += 1
        while f"{like.name}-whatif-{k}" in draft.nodes:
            k += 1
        name = f"{like.name}-whatif-{k}"
        node_labels = dict(labels)
        if HOSTNAME in node_labels or HOSTNAME in like.labels:
            node_labels[HOSTNAME] = name
        node = replace(like, name=name, labels=node_labels, taints=taints, unschedulable=False)
        draft.nodes[name] = node
        draft.pods.extend(replace(p, name=f"{p.name}-{name}", node_name=name,
                                  order=len(draft.pods) + i) for i, p in enumerate(local))
        for hook in NODE_COPIERS:
            hook(draft, like, node)
        added.append(name)
    effect = f"added {len(added)} node(s) like {like.name}"
    if where is not None:
        effect += f" in {where[0]}={where[1]}" + (" (a new domain)" if new_domain else "")
    effect += f": {_span(added)}"
    if local:
        effect += f", each with {len(local)} DaemonSet/mirror pod(s)"
    return AppliedEdit(edit.op, edit.describe(), effect, tuple(sorted(added)))


def _span(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{names[0]} .. {names[-1]}"


def _domain(draft: Draft, edit: Edit, like: Node) -> tuple[tuple[str, str] | None, bool]:
    """(key, value) the copies get, and whether no node is in that domain yet."""
    text = edit.domain.strip()
    if not text:
        return None, False
    levels = [k for k in draft.levels() if k != HOSTNAME]
    if "=" in text:
        key, _, value = text.partition("=")
        keys = set(levels)
        for node in draft.nodes.values():
            keys.update(node.labels)
        key = resolve_key(key.strip(), keys, f"{edit.where} --in {quote(text)}")
        value = value.strip()
        if not valid_label_key(key) or not valid_label_value(value):
            raise UsageError(f"{edit.where}: --in {quote(text)} is not a valid KEY=VALUE label")
        exists = any(n.labels.get(key) == value for n in draft.nodes.values())
        return (key, value), not exists
    if not valid_label_value(text):
        raise UsageError(f"{edit.where}: --in {quote(text)} is not a valid label value")
    holders = sorted({k for n in draft.nodes.values() for k in levels
                      if n.labels.get(k) == text})
    if len(holders) > 1:
        raise UsageError(f"{edit.where}: --in {quote(text)} is ambiguous: it is a value of "
                         f"{', '.join(holders)} (write KEY=VALUE)")
    if holders:
        return (holders[0], text), False
    own = [k for k in levels if k in like.labels]
    if not own:
        raise UsageError(f"{edit.where}: --in {quote(text)}: no domain has that value and "
                         f"{like.name} has no topology label to put a new domain at "
                         "(write KEY=VALUE)")
    return (own[-1], text), True
