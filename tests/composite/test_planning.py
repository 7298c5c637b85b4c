"""Planning group trees, mirroring upstream's composite pod-group algorithm
(pkg/scheduler/algorithm_podgroup.go), GangScheduling's PreEnqueue/PlacementFeasible for
hierarchies (gangscheduling.go ``isCPGTreeReady``, ``getMinCount``) and the queue's
hierarchy validation (``workloadForest.validateHierarchy``) as exercised by
test/integration/scheduler (``TestCPGQueueing`` and the hierarchy cases)."""

from __future__ import annotations

from tasplan.schedulers.planner import plan
from tests.builders import make_pod
from tests.composite.helpers import cluster, composite, leaf, tree_snapshot


def by_key(result):
    return ({g.group.key: g for g in result.groups},
            {c.composite.key: c for c in result.composites})


def placed_nodes(g) -> set[str]:
    p = g.selected_placement
    return set(p.assignments.values()) if p else set()


def test_root_constraint_binds_every_child_to_one_block() -> None:
    """compositePodGroupSchedulingPlacementAlgorithm: the children are planned inside each of
    the root's placements; block b1 cannot hold both children, so both go to b2, although
    each child alone would prefer a rack of b1."""
    nodes = cluster(b1={"r1": 2, "r2": 1}, b2={"r3": 2, "r4": 2})
    root = composite("job", min_groups=2)
    leaves = [leaf("a", "job"), leaf("b", "job")]
    result = plan(tree_snapshot(nodes, [root], leaves))
    groups, comps = by_key(result)
    assert comps["default/job"].schedulable and comps["default/job"].selected == "b2"
    for key in ("default/a", "default/b"):
        assert groups[key].schedulable
        assert all(n.startswith(("r3", "r4")) for n in placed_nodes(groups[key]))
    b1 = next(p for p in comps["default/job"].placements if p.name == "b1")
    assert (b1.feasible, b1.scheduled) == (False, 1)


def test_min_group_count_lower_than_children_schedules_what_fits() -> None:
    """Greedy pass (KEP-6012 alpha): with minGroupCount 2 of 3 the root succeeds when two
    children fit; the third is reported unschedulable and nothing of it is assumed."""
    nodes = cluster(b1={"r1": 2, "r2": 2})
    root = composite("job", min_groups=2)
    leaves = [leaf("a", "job"), leaf("b", "job"), leaf("c", "job")]
    result = plan(tree_snapshot(nodes, [root], leaves))
    groups, comps = by_key(result)
    assert comps["default/job"].schedulable
    assert [groups[k].schedulable for k in ("default/a", "default/b", "default/c")] == \
        [True, True, False]
    assert not placed_nodes(groups["default/c"])


def test_tree_is_all_or_nothing() -> None:
    """minGroupCount 3 with room for 2: the root fails and no child is bound (the revert of
    compositePodGroupSchedulingDefaultAlgorithm), even those that fit."""
    nodes = cluster(b1={"r1": 2, "r2": 2})
    root = composite("job", min_groups=3)
    leaves = [leaf("a", "job"), leaf("b", "job"), leaf("c", "job")]
    result = plan(tree_snapshot(nodes, [root], leaves))
    groups, comps = by_key(result)
    assert not comps["default/job"].schedulable
    assert not any(g.schedulable for g in groups.values())
    assert "not bound" in groups["default/a"].message
    job = comps["default/job"]
    assert job.placements[0].status.startswith("minCount (3) cannot be satisfied")


def test_placement_feasible_stops_early() -> None:
    """PlacementFeasible returns Unschedulable once minGroupCount cannot be reached: after
    the first child fails no rack can still give three, and the others are not evaluated."""
    nodes = cluster(b1={"r1": 1, "r2": 1})
    root = composite("job", min_groups=3)
    leaves = [leaf("a", "job"), leaf("b", "job"), leaf("c", "job")]
    result = plan(tree_snapshot(nodes, [root], leaves))
    groups, comps = by_key(result)
    placement = comps["default/job"].placements[0]
    assert (placement.evaluated, placement.scheduled, placement.feasible) == (1, 0, False)
    assert placement.status == "minCount (3) cannot be satisfied: 0 scheduled, 2 remaining"
    assert groups["default/b"].message.startswith("not attempted")


def test_nested_constraints_apply_top_down() -> None:
    """A depth-3 tree: the root in one block, each inner composite in one rack of it, and
    each inner composite's two leaves (no constraint of their own) in that rack."""
    nodes = cluster(b1={"r1": 2, "r2": 2}, b2={"r3": 1})
    root = composite("job", min_groups=2, key="block")
    mids = [composite("m1", min_groups=2, key="rack", parent="job"),
            composite("m2", min_groups=2, key="rack", parent="job")]
    leaves = [leaf(name, mid, key=None, min_count=1)
              for name, mid in (("a", "m1"), ("b", "m1"), ("c", "m2"), ("d", "m2"))]
    result = plan(tree_snapshot(nodes, [root, *mids], leaves))
    groups, comps = by_key(result)
    assert comps["default/job"].selected == "b1"
    for mid, kids in (("m1", "ab"), ("m2", "cd")):
        rack = comps[f"default/{mid}"].selected
        assert rack in ("r1", "r2")
        for k in kids:
            assert groups[f"default/{k}"].schedulable
            assert all(n.startswith(rack) for n in placed_nodes(groups[f"default/{k}"]))
    assert comps["default/m1"].selected != comps["default/m2"].selected


def test_failed_inner_composite_does_not_bind_its_leaves() -> None:
    """successfulLeafResults: a leaf is assumed only when every ancestor succeeded. A basic
    root (minGroupCount 1) succeeds with one inner composite; the other inner composite
    fails and its fitting leaf stays unbound."""
    nodes = cluster(b1={"r1": 2})
    root = composite("job", min_groups=None, key=None)
    good = composite("good", min_groups=1, key="rack", parent="job")
    bad = composite("bad", min_groups=2, key="rack", parent="job")
    leaves = [leaf("a", "good", key=None), leaf("x", "bad", key=None, pods=1, min_count=1),
              leaf("y", "bad", key=None, pods=2, min_count=2, cpu=2)]
    result = plan(tree_snapshot(nodes, [root, good, bad], leaves))
    groups, comps = by_key(result)
    assert comps["default/job"].schedulable
    assert comps["default/good"].schedulable and not comps["default/bad"].schedulable
    assert groups["default/a"].schedulable
    assert not groups["default/x"].schedulable and not groups["default/y"].schedulable


def test_root_success_without_new_pods_is_unschedulable() -> None:
    """RunRootSchedulingAlgorithm: success with nothing scheduled becomes "no pods were
    schedulable"."""
    nodes = cluster(b1={"r1": 2})
    root = composite("job", min_groups=1)
    group, _ = leaf("a", "job", min_count=1)
    bound = make_pod("a-0", 2, node="r1-0", group=group.key)
    result = plan(tree_snapshot(nodes, [root], [(group, [bound])]))
    _, comps = by_key(result)
    assert not comps["default/job"].schedulable
    assert comps["default/job"].message == "no pods were schedulable"


def test_tree_waits_for_quorum() -> None:
    """isCPGTreeReady (PreEnqueue): a child without minCount pods holds the whole tree when
    minGroupCount needs it; with minGroupCount 1 the tree is admitted."""
    nodes = cluster(b1={"r1": 2, "r2": 2})
    for need, waits in ((2, True), (1, False)):
        root = composite("job", min_groups=need)
        leaves = [leaf("a", "job"), leaf("b", "job", pods=1)]
        result = plan(tree_snapshot(nodes, [root], leaves))
        groups, comps = by_key(result)
        assert ("tree to meet quorum" in comps["default/job"].message) == waits
        assert groups["default/a"].schedulable == (not waits)


def test_missing_parent_keeps_hierarchy_pending() -> None:
    """validateHierarchy: an ancestor that was not observed keeps every group of the
    hierarchy pending ("not found in workload forest")."""
    nodes = cluster(b1={"r1": 2})
    leaves = [leaf("a", "ghost")]
    result = plan(tree_snapshot(nodes, [], leaves))
    groups, _ = by_key(result)
    g = groups["default/a"]
    assert not g.schedulable and not g.error
    assert "default/ghost" in g.message and "not found in workload forest" in g.message


def test_cycle_is_invalid() -> None:
    """validateHierarchy: a cycle of parent references makes every group invalid."""
    nodes = cluster(b1={"r1": 2})
    c1 = composite("c1", parent="c2")
    c2 = composite("c2", parent="c1")
    result = plan(tree_snapshot(nodes, [c1, c2], [leaf("a", "c1")]))
    groups, comps = by_key(result)
    assert groups["default/a"].error and "cycle" in groups["default/a"].message
    assert all(c.error for c in comps.values())


def test_depth_over_four_is_invalid() -> None:
    """collectSubtrees: a branch deeper than WorkloadMaxTreeDepth (4) invalidates the tree
    (upstream "Pod group hierarchy exceeding WorkloadMaxTreeDepth fails validation")."""
    nodes = cluster(b1={"r1": 2})
    chain = [composite("c0", key=None)] + [
        composite(f"c{i}", key=None, parent=f"c{i - 1}") for i in range(1, 4)]
    result = plan(tree_snapshot(nodes, chain, [leaf("a", "c3", key=None)]))
    groups, _ = by_key(result)
    assert groups["default/a"].error
    assert "level 5" in groups["default/a"].message
    ok = plan(tree_snapshot(nodes, chain[:3], [leaf("a", "c2", key=None)]))
    assert by_key(ok)[0]["default/a"].schedulable


def test_gate_off_plans_children_alone() -> None:
    """With the CompositePodGroup gate off the scheduler ignores the hierarchy."""
    nodes = cluster(b1={"r1": 2, "r2": 1}, b2={"r3": 2})
    root = composite("job", min_groups=2)
    leaves = [leaf("a", "job"), leaf("b", "job")]
    result = plan(tree_snapshot(nodes, [root], leaves), composite_pod_groups=False)
    groups, comps = by_key(result)
    assert not comps
    assert all(g.schedulable for g in groups.values())
    assert all(any(n.code == "composite-gate-off" for n in g.notes) for g in groups.values())
    assert any("feature gate is off" in w for w in result.warnings)


def test_tree_is_planned_at_root_priority_before_lower_groups() -> None:
    """The queue holds the root: a higher-priority tree goes before a flat group that comes
    first in the input."""
    from tests.builders import gang_pods, make_group

    flat = make_group("flat", min_count=2, key="rack")
    flat_pods = gang_pods(flat, 2, 2)
    nodes = cluster(b1={"r1": 2})
    root = composite("job", min_groups=1, priority=1000)
    leaves = [leaf("a", "job", priority=1000)]
    result = plan(tree_snapshot(nodes, [root], [*leaves, (flat, flat_pods)]))
    groups, _ = by_key(result)
    assert groups["default/a"].schedulable and not groups["default/flat"].schedulable


def test_reusing_equivalent_leaf_outcomes_changes_nothing(monkeypatch) -> None:
    """The reuse of a leaf's outcome for an equivalent leaf in the same domain state
    (algorithm.MEMO) gives byte-identical reports: a depth-3 tree of identical leaves where
    later inner composites meet domains earlier ones left unchanged, some racks busy."""
    from tasplan.plan import tree_cycle as algorithm
    from tasplan.report.document import plan_document
    from tasplan.schedulers.kube import scheduler as kube
    from tests.builders import make_pod

    nodes = cluster(b1={"r1": 3, "r2": 2, "r3": 4}, b2={"r4": 4, "r5": 1}, b3={"r6": 2})
    busy = [make_pod(f"busy-{i}", 1, node=n) for i, n in enumerate(("r1-0", "r4-1", "r4-2"))]
    root = composite("job", min_groups=2, key=None)
    mids = [composite(f"m{i}", min_groups=2, key="block", parent="job") for i in range(3)]
    leaves = [leaf(f"l{i}{j}", f"m{i}", min_count=2, pods=2, cpu=1) for i in range(3)
              for j in range(3)]
    snap = tree_snapshot(nodes, [root, *mids], leaves, busy)
    calls = []
    real = kube.schedule_group  # every group cycle runs through it
    monkeypatch.setattr(kube, "schedule_group",
                        lambda *a, **kw: calls.append(1) or real(*a, **kw))
    monkeypatch.setattr(algorithm, "MEMO", False)
    plain = plan_document(plan(snap, all_assignments=True))
    without = len(calls)
    monkeypatch.setattr(algorithm, "MEMO", True)
    reused = plan_document(plan(snap, all_assignments=True))
    assert reused == plain
    assert len(calls) - without < without  # outcomes were reused
    assert any(g["kind"] == "PodGroup" and g["schedulable"] for g in plain["groups"])


def test_tree_follows_the_target_release_and_gate() -> None:
    """1.37 with the CompositePodGroup gate (turned on because the inputs need it): one
    unit. The gate off (--feature-gates CompositePodGroup=false): each PodGroup alone, with
    the composite-gate-off note."""
    from tasplan.schedulers.planner import target_for

    nodes = cluster(b1={"r1": 2, "r2": 1}, b2={"r3": 2})
    snap = tree_snapshot(nodes, [composite("job", min_groups=2)],
                         [leaf("a", "job"), leaf("b", "job")])
    on = plan(snap, target=target_for(snap, "1.37"))
    assert [c.composite.key for c in on.composites] == ["default/job"]
    off = plan(snap, target=target_for(snap, "1.37", {"CompositePodGroup": False}))
    assert not off.composites
    assert all(any(n.code == "composite-gate-off" for n in g.notes) for g in off.groups)
