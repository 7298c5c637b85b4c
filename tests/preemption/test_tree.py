"""Workload-aware preemption for CompositePodGroup trees (tasplan.preemption.tree): what
upstream's PodGroupPostFilter does with the whole tree as the preemptor (kubernetes#140634),
the cases upstream's integration table does not cover, and the report."""

from __future__ import annotations

from dataclasses import replace

from tasplan.cli.output import Width, render
from tasplan.plan.planner import plan
from tasplan.preemption.evaluator import NEVER, NO_VICTIMS, NOT_ENOUGH
from tasplan.report.document import plan_document
from tasplan.report.table import render_plan
from tests.builders import make_pod
from tests.composite.helpers import cluster, composite, leaf, tree_snapshot


def _tree(*, extra=(), never=False, min_groups=2, low=10):
    """Block b1 (two racks of two 2-CPU nodes) full of priority-10 pods; the tree (priority
    100, minGroupCount 2 of 2 leaves of two 2-CPU pods) needs one rack each."""
    nodes = cluster(b1={"r1": 2, "r2": 2})
    lows = [make_pod(f"low-{n.name}", 2, node=n.name, priority=low) for n in nodes]
    leaves = [leaf("a", "job", priority=100), leaf("b", "job", priority=100)]
    if never:
        group, pods = leaves[0]
        leaves[0] = (group, [replace(p, preemption_policy="Never") for p in pods])
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
    assert "SCHEDULABLE AFTER PREEMPTION: 0/1 placements are available" in text
    assert "preemption: found a placement for podgroup, preempting 4 victims" in text
    doc = plan_document(result)
    root = next(g for g in doc["groups"] if g["kind"] == "CompositePodGroup")
    assert root["preemption"]["placement"] == "b1"
    assert len(root["preemption"]["victims"]) == 4
    assert root["preemptionMessage"].startswith("found a placement")
