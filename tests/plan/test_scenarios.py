"""Whole-planner scenarios. Upstream rows mirror
test/integration/scheduler/podgroup/topology_aware_scheduling/tas_test.go
(TestTopologyAwareSchedulingWithGangPolicy / WithBasicPolicy, @008b3652); expectations were
worked out by hand from upstream semantics (reference §3, §5.2), not by running tasplan."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tasplan.schedulers.planner import plan
from tests.builders import gang_pods, make_group, make_node, make_pod, rack_nodes, snapshot


def assignments(result, group_index: int = 0) -> dict[str, str]:
    placement = result.groups[group_index].selected_placement
    return {} if placement is None else dict(placement.assignments)


def nodes_used(result, group_index: int = 0) -> list[str]:
    return sorted(set(assignments(result, group_index).values()))


def test_g1_gang_lands_in_the_rack_with_room():
    """G1: rack-2 holds a 2-CPU pod on n4, so only rack-1 can take 3 small pods."""
    nodes = rack_nodes(**{"rack-1": ["n1", "n2", "n3"], "rack-2": ["n4", "n5"],
                          "rack-3": ["n6"]})
    group = make_group(min_count=3)
    result = plan(snapshot(nodes, [*gang_pods(group, 3), make_pod("busy", 2, node="n4")],
                           [group]))
    g = result.groups[0]
    assert (g.schedulable, g.selected, g.tied_with) == (True, "rack-1", ())
    assert nodes_used(result) == ["n1", "n2", "n3"]
    assert [p.name for p in g.placements] == ["rack-1", "rack-2", "rack-3"]
    assert [p.feasible for p in g.placements] == [True, False, False]


def test_g2_gang_of_large_pods_fits_nowhere():
    """G2: no rack has three free 2-CPU nodes: every placement is infeasible."""
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"], "rack-2": ["n3"], "rack-3": ["n4"]})
    group = make_group(min_count=3)
    g = plan(snapshot(nodes, gang_pods(group, 3, cpu=2), [group])).groups[0]
    assert not g.schedulable and g.selected is None
    assert g.message == ("0/3 placements are available, first placement status: "
                         "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining")
    rack1 = next(p for p in g.placements if p.name == "rack-1")
    assert rack1.placed == 2
    assert rack1.unplaced == {"default/pg-2": "0/2 nodes are available: 2 Insufficient cpu."}


def test_g4_domain_bin_packing_prefers_the_fuller_rack():
    """G4: PodsCount ties (100 each); MostAllocated rack-1 3/4=75 beats rack-2 3/6=50."""
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"], "rack-2": ["n3", "n4", "n5"],
                          "rack-3": ["n6"]})
    group = make_group(min_count=3)
    g = plan(snapshot(nodes, gang_pods(group, 3), [group])).groups[0]
    assert g.selected == "rack-1"
    scores = {p.name: (p.score, dict(p.scores)) for p in g.placements if p.feasible}
    assert scores == {
        "rack-1": (175, {"NodeResourcesFit": 75, "PodGroupPodsCount": 100}),
        "rack-2": (150, {"NodeResourcesFit": 50, "PodGroupPodsCount": 100}),
    }
    # Inside the rack, LeastAllocated spreads: n1, n2, then n1 again (tie broken by name).
    assert assignments(plan(snapshot(nodes, gang_pods(group, 3), [group]))) == {
        "default/pg-0": "n1", "default/pg-1": "n2", "default/pg-2": "n1"}


def test_g5_worked_scores_of_reference_3_5():
    """rack1 (2 empty) 75, rack2 (3 nodes, 2 CPU used) 83, rack3 (3 nodes, 1 used) 66,
    rack4 (1 node) infeasible; totals 175/183/166 -> rack2."""
    nodes = rack_nodes(**{"rack1": ["a1", "a2"], "rack2": ["b1", "b2", "b3"],
                          "rack3": ["c1", "c2", "c3"], "rack4": ["d1"]})
    busy = [make_pod("x", 2, node="b1"), make_pod("y", 1, node="c1")]
    group = make_group(min_count=3)
    g = plan(snapshot(nodes, [*busy, *gang_pods(group, 3)], [group])).groups[0]
    totals = {p.name: p.score for p in g.placements}
    assert totals == {"rack2": 183, "rack1": 175, "rack3": 166, "rack4": None}
    assert g.selected == "rack2"
    assert [p.name for p in g.placements] == ["rack2", "rack1", "rack3", "rack4"]


def test_g6_second_group_sees_the_first_groups_assignments():
    """G6: pg1 (3 large) takes rack-1; pg2 (2 small) must then go to rack-2."""
    nodes = rack_nodes(**{"rack-1": ["n1", "n2", "n3"], "rack-2": ["n4", "n5"]})
    pg1, pg2 = make_group("pg1", min_count=3), make_group("pg2", min_count=2)
    result = plan(snapshot(nodes, [*gang_pods(pg1, 3, cpu=2), *gang_pods(pg2, 2)],
                           [pg1, pg2]))
    assert [g.selected for g in result.groups] == ["rack-1", "rack-2"]
    assert nodes_used(result, 0) == ["n1", "n2", "n3"]
    assert nodes_used(result, 1) == ["n4", "n5"]


def test_b1_basic_group_fits_in_one_rack():
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"]})
    group = make_group(min_count=None)
    result = plan(snapshot(nodes, gang_pods(group, 3), [group]))
    assert result.groups[0].schedulable
    assert nodes_used(result) == ["n1", "n2"]


def test_b3_basic_group_places_what_fits_and_reports_the_tie():
    """B3: each rack fits two; both placements score 200, rack-1 wins by name."""
    nodes = rack_nodes(**{"rack-1": ["n1"], "rack-2": ["n2"]})
    group = make_group(min_count=None)
    g = plan(snapshot(nodes, gang_pods(group, 3), [group])).groups[0]
    assert (g.schedulable, g.selected, g.tied_with) == (True, "rack-1", ("rack-2",))
    chosen = g.selected_placement
    assert chosen.placed == 2 and chosen.tied
    assert chosen.unplaced == {"default/pg-2": "0/1 nodes are available: 1 Insufficient cpu."}


def test_groups_are_planned_by_priority_then_input_order():
    """The later, higher-priority group goes first and takes the only rack with room."""
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"], "rack-2": ["n3"]})
    low = make_group("low", min_count=2)
    high = make_group("high", min_count=2, priority=1000)
    result = plan(snapshot(nodes, [*gang_pods(low, 2, cpu=2),
                           *gang_pods(high, 2, cpu=2, priority=1000)],
                           [low, high]))
    assert [g.group.key for g in result.groups] == ["default/high", "default/low"]
    assert [g.schedulable for g in result.groups] == [True, False]


def test_running_pods_pin_the_group_to_their_domain():
    """New pods are forced into the running pods' rack even though rack-2 is empty."""
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"], "rack-2": ["n3", "n4"]})
    group = make_group(min_count=3)
    running = make_pod("pg-r", 1, node="n1", group=group.key)
    g = plan(snapshot(nodes, [running, *gang_pods(group, 2)], [group])).groups[0]
    assert [p.name for p in g.placements] == ["rack-1"]
    assert (g.scheduled, g.pending, g.selected) == (1, 2, "rack-1")


def test_running_pods_in_a_full_domain_leave_new_pods_pending():
    """Pinned to rack-1, which has no room: unschedulable even though rack-2 is free."""
    nodes = rack_nodes(**{"rack-1": ["n1"], "rack-2": ["n2", "n3"]})
    group = make_group(min_count=2)
    running = make_pod("pg-r", 2, node="n1", group=group.key)
    g = plan(snapshot(nodes, [running, *gang_pods(group, 1)], [group])).groups[0]
    assert not g.schedulable
    assert [p.name for p in g.placements] == ["rack-1"]


def test_running_pods_spanning_two_domains_is_a_group_error_not_a_crash():
    nodes = rack_nodes(**{"rack-1": ["n1"], "rack-2": ["n2"]})
    group, other = make_group(min_count=2), make_group("ok", min_count=1)
    pods = [make_pod("a", 1, node="n1", group=group.key),
            make_pod("b", 1, node="n2", group=group.key),
            *gang_pods(group, 1), *gang_pods(other, 1)]
    first, second = plan(snapshot(nodes, pods, [group, other])).groups
    assert first.error and not first.schedulable
    assert first.message.startswith("TopologyPlacementGenerator: scheduled pods of the group "
                                    "span more than one rack domain")
    assert second.schedulable  # other groups still plan


def test_running_pod_on_unlabelled_node_is_a_group_error():
    nodes = [*rack_nodes(**{"rack-1": ["n1"]}), make_node("bare")]
    group = make_group(min_count=2)
    pods = [make_pod("a", 1, node="bare", group=group.key), *gang_pods(group, 1)]
    g = plan(snapshot(nodes, pods, [group])).groups[0]
    assert g.error and "has no rack label" in g.message


def test_no_node_carries_the_key():
    nodes = rack_nodes(**{"rack-1": ["n1"]})
    group = make_group(min_count=1, key="zone")
    g = plan(snapshot(nodes, gang_pods(group, 1), [group])).groups[0]
    assert not g.schedulable
    assert g.message.startswith("no feasible placements found")


def test_empty_label_value_is_a_domain():
    nodes = [make_node("n1", labels={"rack": ""}), make_node("n2", labels={"rack": "r"})]
    group = make_group(min_count=2)
    g = plan(snapshot(nodes, gang_pods(group, 2), [group])).groups[0]
    assert g.selected == "" and g.schedulable


def test_gang_waits_until_min_count_pods_exist():
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"]})
    group = make_group(min_count=3)
    g = plan(snapshot(nodes, gang_pods(group, 2), [group])).groups[0]
    assert not g.schedulable and g.placements == ()
    assert g.message == "waiting for pods: 2 of minCount 3 pods of the gang exist"


def test_basic_group_with_nothing_new_scheduled_is_unschedulable():
    """Root check: success with zero newly scheduled pods is not progress."""
    nodes = rack_nodes(**{"rack-1": ["n1"]})
    group = make_group(min_count=None)
    pods = [make_pod("pg-r", 2, node="n1", group=group.key), *gang_pods(group, 1)]
    g = plan(snapshot(nodes, pods, [group])).groups[0]
    assert not g.schedulable and g.message == "no pods were schedulable"


def test_gang_stops_early_once_min_count_is_out_of_reach():
    """After the first failure remaining+scheduled < minCount: later pods are not tried."""
    nodes = rack_nodes(**{"rack-1": ["n1"]})
    group = make_group(min_count=3)
    g = plan(snapshot(nodes, gang_pods(group, 3, cpu=2), [group])).groups[0]
    unplaced = g.placements[0].unplaced
    assert unplaced["default/pg-1"] == "0/1 nodes are available: 1 Insufficient cpu."
    assert unplaced["default/pg-2"] == ("not attempted: minCount (3) cannot be satisfied: "
                                        "1 scheduled, 1 remaining")


def test_unconstrained_group_has_one_placement_of_all_nodes():
    nodes = [*rack_nodes(**{"rack-1": ["n1"], "rack-2": ["n2"]}), make_node("bare")]
    group = make_group(min_count=3, key=None)
    g = plan(snapshot(nodes, gang_pods(group, 3), [group])).groups[0]
    assert [(p.name, len(p.nodes)) for p in g.placements] == [("*", 3)]
    assert g.schedulable


def test_pods_of_a_group_with_different_priorities_fail_validation():
    """Upstream validatePodGroup (1.37): every pod has the group's priority; the group
    fails with an error and nothing is simulated. (Per release:
    tests/plan/test_release_cycles.py.)"""
    nodes = rack_nodes(**{"rack-1": ["n1"]})
    group = make_group(min_count=None)
    low = make_pod("low", 2, group=group.key, priority=1)
    high = make_pod("high", 2, group=group.key, priority=5)
    g = plan(snapshot(nodes, [low, high], [group])).groups[0]
    assert (g.schedulable, g.error, g.placements) == (False, True, ())
    assert g.message == ("all pods in a single pod group should have the same priority as "
                         "the pod group's priority, got 5 and 100")


@pytest.mark.parametrize(("field", "values", "shown"), [
    ("scheduler_name", ("default-scheduler", "other"), "should have the same "
     '.spec.schedulerName set, got: "other" and "default-scheduler"'),
    ("preemption_policy", ("Never", "PreemptLowerPriority"), "should have the same "
     "preemption policy, got PreemptLowerPriority and Never"),
])
def test_pods_of_a_group_must_agree_on_scheduler_and_preemption(field, values, shown):
    nodes = rack_nodes(**{"rack-1": ["n1"]})
    group = make_group(min_count=None)
    pods = [replace(make_pod(f"p{i}", 1, group=group.key), **{field: v})
            for i, v in enumerate(values)]
    g = plan(snapshot(nodes, pods, [group])).groups[0]
    assert g.error and g.message == f"all pods in a single pod group {shown}"


def test_group_priority_must_match_its_pods():
    nodes = rack_nodes(**{"rack-1": ["n1"]})
    group = make_group(min_count=1, priority=7)
    g = plan(snapshot(nodes, gang_pods(group, 1, priority=100), [group])).groups[0]
    assert g.error
    assert g.message == ("all pods in a single pod group should have the same priority as "
                         "the pod group's priority, got 100 and 7")


def test_scheduled_pods_are_validated_too():
    """Upstream ``validatePodGroup`` checks every member pod, pending or already scheduled."""
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"]})
    group = make_group(min_count=1, priority=100)
    running = make_pod("pg-run", node="n2", group=group.key, priority=5)
    g = plan(snapshot(nodes, [running, *gang_pods(group, 1)], [group])).groups[0]
    assert g.outcome == "error"
    assert g.message == ("all pods in a single pod group should have the same priority as "
                         "the pod group's priority, got 5 and 100")


def test_pod_group_without_priority_counts_as_priority_zero():
    """A PodGroup object without a priority has priority 0 (upstream ``PodGroupPriority``):
    pods of priority 100 do not match it; pods of priority 0 do."""
    nodes = rack_nodes(**{"rack-1": ["n1"]})
    group = make_group(min_count=1, priority=None)
    g = plan(snapshot(nodes, gang_pods(group, 1), [group])).groups[0]
    assert g.outcome == "error" and g.message.endswith("got 100 and 0")
    g = plan(snapshot(nodes, gang_pods(group, 1, priority=0), [group])).groups[0]
    assert g.outcome == "scheduled"


def test_pending_pods_being_deleted_are_not_scheduled():
    """The scheduler skips pods with a deletionTimestamp; a gang short of them waits."""
    nodes = rack_nodes(**{"rack-1": ["n1"]})
    group = make_group(min_count=2)
    pods = gang_pods(group, 2)
    pods[1] = replace(pods[1], deleting=True)
    g = plan(snapshot(nodes, pods, [group])).groups[0]
    assert (g.pending, g.schedulable) == (1, False)
    assert g.message.startswith("waiting for pods")


def test_terminal_pods_free_their_resources():
    nodes = rack_nodes(**{"rack-1": ["n1"]})
    group = make_group(min_count=1)
    done = make_pod("done", 2, node="n1", phase="Succeeded")
    assert plan(snapshot(nodes, [done, *gang_pods(group, 1, cpu=2)], [group])).groups[0] \
        .schedulable
