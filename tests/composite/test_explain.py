"""``tasplan explain`` on a tree: the short level and its closest domain, and suggestions
verified by re-planning the whole tree (issue 11)."""

from __future__ import annotations

from tasplan.explain.explainer import explain
from tasplan.plan.planner import plan
from tests.composite.helpers import cluster, composite, leaf, tree_snapshot


def test_short_level_and_verified_suggestions() -> None:
    """Three replicas of 2 nodes need one block; the largest block holds two: the root is
    short in b1 (2 of 3), minGroupCount 2 fits, and so does the tree without its block
    constraint (b1 + b2 together)."""
    nodes = cluster(b1={"r1": 2, "r2": 2}, b2={"r3": 2})
    root = composite("job", min_groups=3, key="block")
    leaves = [leaf(f"l{i}", "job") for i in range(3)]
    snap = tree_snapshot(nodes, [root], leaves)
    result = explain(snap)
    assert not result.schedulable
    tree = result.trees["default/job"]
    (level,) = tree.levels
    assert (level.composite, level.domain, level.scheduled, level.children, level.needed) == \
        ("default/job", "b1", 2, 3, 3)
    changes = [s.change for s in tree.suggestions]
    assert changes == ["set minGroupCount of default/job to 2",
                       "drop the constraint block of default/job"]
    for s in tree.suggestions:
        assert s.result.schedulable
    # The suggestions are what the planner says of the changed inputs.
    from dataclasses import replace
    changed = replace(snap, composites=(replace(root, min_group_count=2),))
    assert next(c for c in plan(changed).composites).selected == \
        tree.suggestions[0].result.selected


def test_schedulable_tree_needs_no_explanation() -> None:
    nodes = cluster(b1={"r1": 2, "r2": 2})
    snap = tree_snapshot(nodes, [composite("job", min_groups=2)],
                         [leaf("a", "job"), leaf("b", "job")])
    assert explain(snap).trees == {}
