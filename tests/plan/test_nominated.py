"""Nominated pods: room reserved on their node for pods of equal or higher priority
(upstream ``RunFilterPluginsWithNominatedPods``), a pod's own nominated node first
(``evaluateNominatedNode``), and the nominated-placement fast path merged for 1.38
(``nominatedPlacement`` / ``TestNominatedPlacement``)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.types import GroupContext, Placement
from tasplan.plan.group_cycle import nominated_placement
from tasplan.schedulers.planner import plan
from tests.builders import (
    gang_pods,
    make_group,
    make_node,
    make_pod,
    rack_nodes,
    release,
    snapshot,
)


def _nominated(name: str, node: str, **kw):
    return replace(make_pod(name, **kw), nominated_node_name=node)


# upstream: algorithm_podgroup_test.go TestNominatedPlacement (main, for 1.38)
@pytest.mark.parametrize(("nominations", "placements", "want"), [
    pytest.param([], {"rack-1": ["node-1"], "rack-2": ["node-2"]}, None,
                 id="no pods with NNN"),
    pytest.param(["node-9"], {"rack-1": ["node-1"], "rack-2": ["node-2"]}, None,
                 id="NNN on a node outside all placements"),
    pytest.param(["node-2"], {"rack-1": ["node-1"], "rack-2": ["node-2"]}, "rack-2",
                 id="NNN selects the placement containing it"),
    pytest.param(["node-1", "node-1", "node-2"], {"rack-12": ["node-1", "node-2"],
                                                  "rack-3": ["node-3"]}, "rack-12",
                 id="several pods nominated into one placement"),
    pytest.param(["node-1"], {"rack-1": ["node-1"], "rack-12": ["node-1", "node-2"]}, None,
                 id="overlapping placements both hold the node: score all"),
    pytest.param(["node-1", "node-2"], {"rack-1": ["node-1"], "rack-2": ["node-2"]}, None,
                 id="nominations in two placements: score all"),
])
def test_nominated_placement(nominations, placements, want):
    names = sorted({n for members in placements.values() for n in members} | {"node-9"})
    infos = [NodeInfo(make_node(n), i) for i, n in enumerate(names)]
    group = make_group()
    pending = [_nominated(f"p{i}", n, group=group.key) for i, n in enumerate(nominations)]
    pending.append(make_pod("plain", group=group.key))
    ctx = GroupContext(group, tuple(pending), ())
    candidates = [Placement(name, tuple(names.index(n) for n in members))
                  for name, members in placements.items()]
    got = nominated_placement(ctx, candidates, infos)
    assert (candidates[got].name if got is not None else None) == want


def test_own_nominated_node_is_taken_without_scoring():
    """Upstream ``evaluateNominatedNode`` (every release): a pod whose nominated node is in
    the placement and passes the filters gets it. n1 and n2 tie on score (n1 by name) but
    the pod is nominated to n2; when n2 is full it falls back to the normal choice."""
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"]})
    group = make_group(min_count=1)
    pod = replace(gang_pods(group, 1, cpu=1)[0], nominated_node_name="n2")
    g = plan(snapshot(nodes, [pod], [group])).groups[0]
    assert dict(g.selected_placement.assignments) == {"default/pg-0": "n2"}
    full = make_pod("full", 2, node="n2")
    g = plan(snapshot(nodes, [full, pod], [group])).groups[0]
    assert dict(g.selected_placement.assignments) == {"default/pg-0": "n1"}


def test_nominated_pod_of_higher_priority_reserves_its_node():
    """n1 has room for one 2-CPU pod, held for a pending pod of priority 1000: the group's
    pod (priority 100) does not fit there and goes to n2."""
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"]})
    holder = _nominated("holder", "n1", cpu=2, priority=1000)
    group = make_group(min_count=1)
    g = plan(snapshot(nodes, [holder, *gang_pods(group, 1, cpu=2)], [group])).groups[0]
    assert dict(g.selected_placement.assignments) == {"default/pg-0": "n2"}


def test_nominated_pod_of_lower_priority_reserves_nothing():
    """Only nominated pods of equal or higher priority count: n1 and n2 tie, n1 wins."""
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"]})
    holder = _nominated("holder", "n1", cpu=2, priority=10)
    group = make_group(min_count=1)
    g = plan(snapshot(nodes, [holder, *gang_pods(group, 1, cpu=2)], [group])).groups[0]
    assert dict(g.selected_placement.assignments) == {"default/pg-0": "n1"}


def test_reservations_make_a_gang_infeasible_with_the_upstream_histogram():
    """Both nodes held for equal-priority pods: counting capacity honours the reservation,
    and the reason is the resource one the first pass reports."""
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"]})
    holders = [_nominated(f"h{i}", n, cpu=2) for i, n in enumerate(["n1", "n2"])]
    group = make_group(min_count=2)
    g = plan(snapshot(nodes, [*holders, *gang_pods(group, 2, cpu=1)], [group])).groups[0]
    assert not g.schedulable
    assert g.placements[0].unplaced["default/pg-0"] == ("0/2 nodes are available: "
                                                        "2 Insufficient cpu.")


def test_nominated_placement_fast_path_exists_from_1_38():
    """Scoring prefers rack-2 (bin-packing: it is already busy), but the gang's pods are
    nominated to rack-1. 1.38 (upstream main) evaluates that placement first and takes it
    without evaluating rack-2; 1.37 has no fast path and scores both placements."""
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"], "rack-2": ["n3", "n4"]})
    busy = make_pod("busy", 1, node="n3")
    group = make_group(min_count=2)
    pods = [replace(p, nominated_node_name=n)
            for p, n in zip(gang_pods(group, 2), ["n1", "n2"], strict=True)]
    snap = snapshot(nodes, [busy, *pods], [group])
    g = plan(snap, target=release(snap, "1.38")).groups[0]
    assert g.selected == "rack-1"
    assert [p.name for p in g.placements] == ["rack-1"]
    assert "nominated nodes was evaluated first" in g.message

    g = plan(snap, target=release(snap, "1.37")).groups[0]
    assert g.selected == "rack-2"
    assert {p.name for p in g.placements} == {"rack-1", "rack-2"}


def test_infeasible_nominated_placement_is_reported_first():
    """The nominated rack is full: the others are evaluated, and the verdict's "first
    placement status" is the nominated placement's."""
    nodes = rack_nodes(**{"rack-1": ["n1"], "rack-2": ["n2"]})
    blocker = make_pod("blocker", 2, node="n2")
    group = make_group(min_count=1)
    pods = [replace(gang_pods(group, 1, cpu=2)[0], nominated_node_name="n2")]
    snap = snapshot(nodes, [blocker, *pods], [group])
    g = plan(snap, target=release(snap, "1.38")).groups[0]
    assert g.selected == "rack-1"
    assert {p.name for p in g.placements} == {"rack-1", "rack-2"}


def test_a_planned_group_leaves_the_nominator():
    """Once a group is placed, its pods stop reserving their nominated node: the next
    group sees their real usage only, not usage plus reservation."""
    nodes = rack_nodes(**{"rack-1": ["n1"]})
    first = make_group("first", min_count=1, priority=1000)
    second = make_group("second", min_count=1)
    a = replace(gang_pods(first, 1, cpu=1, priority=1000)[0], nominated_node_name="n1")
    result = plan(snapshot(nodes, [a, *gang_pods(second, 1, cpu=1)], [first, second]))
    assert [g.schedulable for g in result.groups] == [True, True]
