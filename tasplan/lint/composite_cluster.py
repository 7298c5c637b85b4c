"""``tasplan lint --cluster`` for group trees, on the root CompositePodGroup: TP309 when the
tree cannot be placed in any domain even when the cluster is empty (its nodes without
pods), else TP303 when it does not fit the cluster as it is (``tasplan check``'s verdict)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from tasplan.lint.reader import Manifest
from tasplan.lint.report import Violation
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.tree import build_trees
from tasplan.plan.tree_result import CompositeResult
from tasplan.schedulers.planner import plan

Found = tuple[Manifest, Violation]


def tree_findings(snapshot: ClusterSnapshot, by_source: dict[tuple, Manifest],
                  now: Sequence[CompositeResult]) -> Iterator[Found]:
    by_group = snapshot.pods_by_group
    verdicts = {c.composite.key: c for c in now}
    for tree in build_trees(snapshot.composites, snapshot.groups):
        root = tree.root
        owner = by_source.get(root.source[:3]) if root is not None else None
        if owner is None or tree.problem is not None:
            continue  # not a lint input, or reported by TP212-TP214
        pods = tuple(p for g in tree.leaves for p in by_group.get(g.key, [])
                     if not p.terminal)
        if not any(not p.node_name for p in pods):
            continue  # nothing to place yet
        empty = ClusterSnapshot(nodes=snapshot.nodes, pods=pods, groups=tree.leaves,
                                priority_classes=snapshot.priority_classes,
                                composites=tree.composites, dra=snapshot.dra.unallocated())
        result = plan(empty)
        verdict = next((c for c in result.composites if c.composite.key == root.key), None)
        if verdict is None or verdict.error or "meet quorum" in verdict.message:
            continue  # too few pods or children yet: TP204 / TP215
        if not verdict.schedulable:
            yield owner, Violation("TP309", ("metadata", "name"), (
                f"the tree of CompositePodGroup {root.key} cannot be placed even in an empty "
                f"cluster: {verdict.message}"))
            continue
        current = verdicts.get(root.key)
        if current is not None and not current.schedulable:
            yield owner, Violation("TP303", ("metadata", "name"), (
                f"the tree of CompositePodGroup {root.key} does not fit the cluster now: "
                f"{current.message}"))
