"""Workload-aware preemption for CompositePodGroup trees (tasplan.preemption.tree): what
upstream's PodGroupPostFilter does with the whole tree as the preemptor (kubernetes#140634),
the cases upstream's integration table does not cover, and the report."""

from __future__ import annotations

from dataclasses import replace

from tasplan.cli.output import Width, render
from tasplan.preemption.evaluator import NEVER, NO_VICTIMS, NOT_ENOUGH
from tasplan.report.document import plan_document
from tasplan.report.table import render_plan
from tasplan.schedulers.planner import plan
from tests.builders import make_pod
from tests.composite.helpers import cluster, composite, leaf, tree_snapshot


def _tree(*, extra=(), never=False, min_groups=2, low=10):
    """Block b1 (two racks of two 2-CPU nodes) full of priority-10 pods; the tree (priority
    100, minGroupCount 2 of 2 leaves of two 2-CPU pods) needs one rack each."""
    nodes = cluster(b1={"r1": 2, "r2": 2})
    lows = [make_pod(f"low-{n.name}", 2, node=n.name, priority=low) for n in nodes]
    leaves = [leaf("a", "job", priority=100), leaf("b", "job", priority=100)]
    if never:  # every pod of the tree: validatePodGroup wants one policy per tree
        leaves = [(group, [replace(p, preemption_policy="Never") for p in pods])
                  for group, pods in leaves]
    root = composite("job", min_groups=min_groups, priority=100)
    return tree_snapshot(nodes, [root], leaves, [*lows, *extra])


def test_whole_tree_preempts_and_later_groups_see_the_victims_gone() -> None:
    result = plan(_tree())
    root = result.composites[0]
    assert root.preemption is not None and root.preemption.placement == "b1"
    assert {v.pod for v in root.preemption.victims} == {
        "default/low-r1-0", "default/low-r1-1", "default/low-r2-0", "default/low-r2-1"}
    assert len(root.preemption.nominated) == 4
    assert [g.outcome for g in result.groups] == ["scheduled-after-preemption"] * 2
    # each leaf's share: its own pods and the victims on their nodes
    a = result.groups[0].preemption
    assert set(a.nominated) == {"default/a-0", "default/a-1"}
    assert {v.node for v in a.victims} == set(a.nominated.values())
    assert result.schedulable


def test_reprieve_keeps_victims_the_tree_does_not_need() -> None:
    """minGroupCount 1: after the re-plan only rack-sized room for the leaves that fit is
    needed; lower-priority pods on nodes no placed pod uses are reprieved."""
    nodes = cluster(b1={"r1": 2}, b2={"r2": 2})
    lows = [make_pod(f"low-{n.name}", 2, node=n.name, priority=10) for n in nodes]
    root = composite("job", min_groups=1, key="block", priority=100)
    snap = tree_snapshot(nodes, [root], [leaf("a", "job", priority=100)], lows)
    found = plan(snap).composites[0].preemption
    assert found is not None
    assert len(found.victims) == 2
    assert len({v.node[:2] for v in found.victims}) == 1  # one rack only


def test_never_policy_and_no_lower_priority_and_not_enough() -> None:
    assert plan(_tree(never=True)).composites[0].preemption_message == NEVER
    # nothing of lower priority: the low pods at the tree's own priority
    root = plan(_tree(low=100)).composites[0]
    assert (root.preemption, root.preemption_message) == (None, NO_VICTIMS)
    # three children of two racks: evicting everything still leaves one short
    nodes = cluster(b1={"r1": 2, "r2": 2})
    lows = [make_pod(f"low-{n.name}", 2, node=n.name, priority=10) for n in nodes]
    leaves = [leaf(n, "job", priority=100) for n in ("a", "b", "c")]
    snap = tree_snapshot(nodes, [composite("job", min_groups=3, priority=100)], leaves, lows)
    result = plan(snap)
    assert result.composites[0].preemption_message == NOT_ENOUGH
    assert all(g.outcome == "unschedulable" for g in result.groups)
    assert len([p for p in snap.pods if p.node_name]) == 4  # nothing evicted


def test_report_shows_the_tree_disruption() -> None:
    result = plan(_tree())
    text = render(lambda target: render_plan(result, width=target), Width(200, cut=True))
    assert "DISRUPTION: preemption evicts 4 pod(s) so the tree fits in 'b1':" in text
    assert "SCHEDULABLE AFTER PREEMPTION: fits in b1 after evicting 4 pods\n" in text
    assert 'before preemption: "0/1 placements are available' in text
    assert "preemption: found a placement for podgroup, preempting 4 victims" in text
    doc = plan_document(result)
    root = next(g for g in doc["groups"] if g["kind"] == "CompositePodGroup")
    assert root["preemption"]["placement"] == "b1"
    assert len(root["preemption"]["victims"]) == 4
    assert root["preemptionMessage"].startswith("found a placement")


def test_preemption_policy_of_a_tree_per_gate() -> None:
    """The CompositePodGroup cases of upstream ``TestNewPodGroupPreemptorResolvesPreemptionPolicy``
    (pkg/scheduler/framework/preemption/types_test.go, CompositePodGroup-aware version):
    without PodGroupPreemptionPolicy the pods decide (Never if any says Never); with it the
    root's own policy, PreemptLowerPriority when unset whatever the pods say."""
    from tasplan.preemption.tree import tree_preemption_never

    never = make_pod("p-never", 1)
    never = replace(never, preemption_policy="Never")
    lower = make_pod("p-lower", 1)
    cases = [  # (root policy, pods, gate, Never?)
        (None, [lower, lower], False, False),
        (None, [never, lower], False, True),
        ("Never", [lower], True, True),
        ("PreemptLowerPriority", [lower, never], True, False),
        ("Never", [lower, lower], False, False),
        (None, [never], True, False),
    ]
    for policy, pods, gate, want in cases:
        root = replace(composite("job"), preemption_policy=policy)
        assert tree_preemption_never(root, pods, group_policy=gate) is want, (policy, gate)


def test_root_policy_never_blocks_tree_preemption_with_the_gate() -> None:
    """With PodGroupPreemptionPolicy the root's policy decides, and validatePodGroup wants
    the pods to agree with it; without the gate the root's field is not read."""
    from tests.builders import release

    snap = _tree()
    snap = replace(snap, composites=tuple(replace(c, preemption_policy="Never")
                                          for c in snap.composites))
    off = release(snap, "1.37", PodGroupPreemptionPolicy=False)
    assert plan(snap, target=off).composites[0].preemption is not None
    root = plan(snap).composites[0]  # the gate is assumed on: the root sets a policy
    assert root.error and root.message == (
        "all pods in a single pod group should have the same preemption policy as the pod "
        "group's preemption policy, got PreemptLowerPriority and Never")
    agreeing = replace(snap, pods=tuple(replace(p, preemption_policy="Never")
                                        if not p.node_name else p for p in snap.pods))
    root = plan(agreeing).composites[0]
    assert (root.preemption, root.preemption_message) == (None, NEVER)


def test_highest_all_ancestor_bounds_the_unit() -> None:
    """Upstream ``TestGetHighestAllAncestor`` (same file), through ``Hierarchy`` and the
    eviction units: a PodGroup's own all; a parent's all over a child's single; a
    grandparent's all over a single parent; the highest of two all; a missing parent
    leaves the PodGroup's own mode; a lone pod and a single group are units per pod."""
    from tasplan.framework.node_info import NodeInfo
    from tasplan.preemption.victims import Hierarchy, units
    from tests.builders import make_group, make_node

    def pg(name, parent=None, all_=False):
        g = replace(make_group(name, min_count=1, key=None, priority=10), disrupt_all=all_)
        return replace(g, parent=f"default/{parent}") if parent else g

    def cpg(name, parent=None, all_=False):
        return replace(composite(name, parent=parent, key=None), disrupt_all=all_)

    cases = [  # (groups, composites, the unit key of pg1's pods)
        ([pg("pg1")], [], None),
        ([pg("pg1", all_=True)], [], "default/pg1"),
        ([pg("pg1", "cpg1")], [cpg("cpg1", all_=True)], "default/cpg1"),
        ([pg("pg1", "cpg1")], [cpg("cpg1", "cpg2"), cpg("cpg2", all_=True)], "default/cpg2"),
        ([pg("pg1", "cpg1", all_=True)], [cpg("cpg1", all_=True)], "default/cpg1"),
        ([pg("pg1", "cpg1", all_=True)], [], "default/pg1"),
    ]
    node = make_node("n1", 8)
    for groups, composites, want in cases:
        pods = [make_pod(f"p{i}", 1, node="n1", priority=10, group="default/pg1")
                for i in range(2)] + [make_pod("lone", 1, node="n1", priority=10)]
        info = NodeInfo(node, 0)
        for p in pods:
            info.add_pod(p)
        found = units([info], Hierarchy({g.key: g for g in groups}, composites))
        grouped = [u for u in found if u.key is not None]
        if want is None:
            assert not grouped and len(found) == 3
        else:
            assert [(u.key, len(u.pods)) for u in grouped] == [(want, 2)]
        assert any(u.pods[0][0].name == "lone" and u.key is None for u in found)
