"""``tasplan explain`` on a tree: the short level and its closest domain, and suggestions
verified by re-planning the whole tree (issue 11)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tasplan.explain.composite import explanation_document, level_summary
from tasplan.explain.explainer import explain
from tasplan.schedulers.planner import plan
from tasplan.whatif.apply import apply_edits
from tasplan.whatif.draft import Draft
from tasplan.whatif.edits import Edit
from tests.builders import make_node, make_pod, release
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
    # No lower-priority pod anywhere: no eviction; two more nodes in rack r1 of b1 make a
    # third rack-sized room there.
    assert changes == ["set minGroupCount of default/job to 2",
                       "drop the constraint block of default/job",
                       "add 2 node(s) shaped like r1-0 to 'b1'"]
    for s in tree.suggestions:
        assert s.result.schedulable
    assert level_summary(level) == ("'b1' holds 2 of the 3 child groups (minGroupCount 3); "
                                    "default/l2 is short 4 cpu in every rack of 'b1'")
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


def _gpu_cluster(low_priority: int | None = None):
    """Block b1: racks r1, r2 of two 8-GPU nodes; block b2: rack r3 of two 8-GPU nodes.
    Four replicas of two 8-GPU pods (one rack each) under a block constraint: b1 holds two.
    ``low_priority``: rack r3 of b2 ... and r1, r2 carry one 8-GPU pod of that priority
    per node (then nothing fits without evictions)."""
    nodes = [make_node(f"{rack}-{i}", 64, labels={"block": block, "rack": rack},
                       **{"nvidia.com/gpu": 8})
             for block, racks in (("b1", ("r1", "r2", "r5")), ("b2", ("r3", "r4")))
             for rack in racks for i in range(2)]
    extra = []
    if low_priority is not None:
        extra = [make_pod(f"low-{n.name}", 1, node=n.name, priority=low_priority,
                          **{"nvidia.com/gpu": 8}) for n in nodes if n.labels["rack"] == "r5"]
    root = composite("llm", min_groups=3, key="block", priority=100)
    leaves = []
    for i in range(3):
        group, pods = leaf(f"replica-{i}", "llm", priority=100)
        leaves.append((group, [replace(p, requests={**p.requests, "nvidia.com/gpu": 8})
                               for p in pods]))
    return tree_snapshot(nodes, [root], leaves, extra)


def test_shortfall_names_the_child_the_resource_and_every_rack() -> None:
    """The issue's format: the closest domain, how many children it holds, which child is
    short of what in every one of its own domains there."""
    snap = _gpu_cluster(low_priority=100)  # r5 is full at the tree's own priority
    tree = explain(snap).trees["default/llm"]
    level = tree.levels[0]
    assert level_summary(level) == (
        "'b1' holds 2 of the 3 child groups (minGroupCount 3); default/replica-2 is short "
        "16 nvidia.com/gpu in every rack of 'b1'")
    doc = explanation_document(tree)["levels"][0]["shortfall"]
    assert (doc["resource"], doc["amount"], doc["topologyKey"]) == ("nvidia.com/gpu", "16", "rack")
    # equal priority: nothing may be evicted
    assert "evict" not in [s.kind for s in tree.suggestions]


def test_eviction_suggestion_is_verified_by_replanning_the_tree() -> None:
    """Lower-priority pods fill rack r5 of b1 and preemption is off (--no-preempt): the
    suggestion is the pods kube-scheduler's preemption would take; with them gone the tree
    fits without preemption."""
    snap = _gpu_cluster(low_priority=10)
    result = explain(snap, preempt=False)
    assert not result.schedulable
    tree = result.trees["default/llm"]
    (evict,) = [s for s in tree.suggestions if s.kind == "evict"]
    victims = {v["pod"] for v in evict.details["victims"]}
    assert victims == {"default/low-r5-0", "default/low-r5-1"}
    draft = Draft.of(snap)
    draft.evict([p for p in draft.bound_pods() if p.key in victims])
    again = next(c for c in plan(draft.snapshot(), preempt=False).composites)
    assert again.schedulable and again.selected == evict.result.selected == "b1"


def test_eviction_suggestion_is_upstreams_preemption_when_it_runs() -> None:
    snap = _gpu_cluster(low_priority=10)
    result = explain(snap)
    assert result.schedulable  # scheduled after preemption
    tree = result.trees["default/llm"]
    root = next(c for c in result.plan.composites if c.composite.parent is None)
    (evict,) = [s for s in tree.suggestions if s.kind == "evict"]
    assert [v["pod"] for v in evict.details["victims"]] == [v.pod for v in root.preemption.victims]


def _costly_tree():
    """Block b1: n1, n2 (2 cpu, a 2-cpu pod of priority 10 each); block b2: m1 (4 cpu, a
    3-cpu pod of priority 10), m2 (4 cpu, a 2-cpu pod of priority 1000). A root with a block
    constraint over one leaf of two 2-cpu pods, priority 100."""
    nodes = [make_node(name, cpu, labels={"block": block})
             for name, cpu, block in (("n1", 2, "b1"), ("n2", 2, "b1"), ("m1", 4, "b2"),
                                      ("m2", 4, "b2"))]
    lows = [make_pod(name, cpu, node=node, priority=priority)
            for name, cpu, node, priority in (("low1", 2, "n1", 10), ("low2", 2, "n2", 10),
                                              ("low3", 3, "m1", 10), ("keep", 2, "m2", 1000))]
    group, pods = leaf("a", "job", key=None, min_count=2, pods=2, cpu=2, priority=100)
    return tree_snapshot(nodes, [composite("job", min_groups=1, key="block", priority=100)],
                         [(group, pods)], lows)


@pytest.mark.parametrize("version", ["1.37", "1.38"])
def test_fewer_evictions_next_to_the_trees_preemption(version: str) -> None:
    """The tree's workload-aware preemption (podgrouppreemption.go @00f22436: clear every
    lower-priority pod, plan once, reprieve) keeps b1, fuller once cleared, and evicts
    low1 and low2; evicting low3 alone lets the tree fit in b2, verified by re-planning
    every input. Both are shown, upstream's first."""
    snap = _costly_tree()
    result = explain(snap, target=release(snap, version))
    root = result.plan.composites[0]
    assert [v.pod for v in root.preemption.victims] == ["default/low1", "default/low2"]
    upstream, by_hand = [s for s in result.trees["default/job"].suggestions
                         if s.kind == "evict"]
    assert [v["pod"] for v in upstream.details["victims"]] == ["default/low1", "default/low2"]
    assert [v["pod"] for v in by_hand.details["victims"]] == ["default/low3"]
    assert (by_hand.result.selected, by_hand.details["upstreamEvicts"]) == ("b2", 2)
    assert by_hand.change == ("evict 1 lower-priority pod(s) in 'b2': default/low3 (by hand: "
                              "fewer than the 2 kube-scheduler's own preemption evicts)")
    draft = Draft.of(snap)
    draft.evict([p for p in draft.bound_pods() if p.key == "default/low3"])
    again = plan(draft.snapshot(), preempt=False, target=release(snap, version))
    assert again.composites[0].schedulable and again.composites[0].selected == "b2"


def test_no_second_tree_eviction_when_preemption_takes_the_fewest() -> None:
    """``_gpu_cluster``: upstream's two victims are the fewest (one 8-GPU pod per node of
    r5): one eviction suggestion."""
    tree = explain(_gpu_cluster(low_priority=10)).trees["default/llm"]
    assert len([s for s in tree.suggestions if s.kind == "evict"]) == 1


def test_no_eviction_when_evicting_cannot_help() -> None:
    """Lower-priority pods exist, but on nodes the tree cannot use (a block too small even
    empty): no eviction is suggested."""
    nodes = cluster(b1={"r1": 2, "r2": 2}, b2={"r3": 2})
    lows = [make_pod(f"low-{n.name}", 2, node=n.name, priority=10)
            for n in nodes if n.labels["block"] == "b2"]
    snap = tree_snapshot(nodes, [composite("job", min_groups=3, key="block")],
                         [leaf(f"l{i}", "job") for i in range(3)], lows)
    tree = explain(snap).trees["default/job"]
    assert "evict" not in [s.kind for s in tree.suggestions]


def test_add_nodes_suggestion_applied_makes_the_tree_fit_and_is_minimal() -> None:
    snap = _gpu_cluster(low_priority=100)
    tree = explain(snap).trees["default/llm"]
    (add,) = [s for s in tree.suggestions if s.kind == "addNodes"]
    n, like = add.details["nodesAdded"], add.details["template"]
    assert add.details["domain"] == "b1"

    def root_with(count: int):
        grown = apply_edits(snap, [Edit("addNodes", count=count, like=like)]).snapshot
        return next(c for c in plan(grown, preempt=False).composites)

    assert root_with(n).schedulable
    assert not root_with(n - 1).schedulable


def test_nested_tree_without_root_constraint() -> None:
    """A root without a constraint over two block-bound sub-composites: the root's domain
    is the whole cluster, the failed child is a composite, and minGroupCount 1 fits."""
    nodes = cluster(b1={"r1": 2, "r2": 2}, b2={"r3": 2})
    root = composite("job", min_groups=2, key=None)
    subs = [composite(f"s{i}", min_groups=2, key="block", parent="job") for i in range(2)]
    leaves = [leaf(f"l{i}{j}", f"s{i}") for i in range(2) for j in range(2)]
    tree = explain(tree_snapshot(nodes, [root, *subs], leaves)).trees["default/job"]
    top = tree.levels[0]
    assert top.shortfall is not None and top.shortfall.child == "default/s1"
    assert level_summary(top).startswith("the cluster holds 1 of the 2 child groups "
                                         "(minGroupCount 2); default/s1 fails in the cluster")
    assert [s.kind for s in tree.suggestions][:1] == ["minGroupCount"]
    assert all(s.result.schedulable for s in tree.suggestions)


def test_searches_find_the_boundary_with_few_replans() -> None:
    """``_largest`` (minGroupCount) and ``_fewest`` (added nodes) over monotone answers: the
    boundary, each value tried at most once, and one try when nothing works."""
    from tasplan.explain.composite_suggest import _fewest, _largest

    for limit in range(0, 20):
        for edge in range(0, limit + 2):
            tried: list[int] = []

            def upto(n: int, edge: int = edge, tried: list = tried):
                tried.append(n)
                return n if n <= edge else None

            n, found = _largest(upto, limit)
            assert (n, found) == ((min(edge, limit), min(edge, limit)) if edge >= 1 and limit
                                  else (0, None))
            assert len(tried) == len(set(tried)) and (edge >= 1 or len(tried) <= 1)
            tried.clear()

            def atleast(n: int, edge: int = edge, tried: list = tried):
                tried.append(n)
                return n if n >= edge else None

            n, found = _fewest(atleast, limit)
            works = max(edge, 1) <= limit
            assert (n, found) == ((max(edge, 1), max(edge, 1)) if works else (0, None))
            assert len(tried) == len(set(tried)) and (works or len(tried) <= 1)
