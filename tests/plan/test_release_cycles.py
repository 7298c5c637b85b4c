"""The pod-group cycle release by release, where kube-scheduler's releases differ
(kubernetes/kubernetes ``pkg/scheduler/schedule_one_podgroup.go`` at v1.36 008b3652 and
main; ``algorithm_podgroup.go`` main 1ff291df; ``podgroup_pods_count.go``).

Feasibility without a pod placed: 1.36 decides a placement by its pods' Permit (a
placement where no pending pod fits is never feasible; its status is
``errPodGroupUnschedulable``), 1.37+ by PlacementFeasible, which a profile without
GangScheduling does not have: such placements pass, and when two of them reach
PodGroupPodsCount's normalisation the plugin fails the cycle with an error (a verdict, not
a crash).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tasplan.framework.profile import PluginSet
from tasplan.plugins.defaults import resolve_profile
from tasplan.schedulers.planner import plan
from tests.builders import gang_pods, make_group, make_pod, rack_nodes, release, snapshot

NO_GANG = resolve_profile(plugins={"multiPoint": PluginSet(disabled=("GangScheduling",))})


def too_big(racks: int, policy_min: int | None = None):
    """A group of 3-CPU pods (nodes have 2) over ``racks`` racks: nothing fits anywhere."""
    group = make_group(min_count=policy_min)
    nodes = rack_nodes(**{f"r{i}": [f"n{i}"] for i in range(1, racks + 1)})
    return snapshot(nodes, gang_pods(group, 2, 3), [group])


@pytest.mark.parametrize("gang", [None, 1], ids=["basic", "gang minCount 1"])
def test_1_36_a_placement_without_a_pod_placed_is_infeasible(gang) -> None:
    """``podGroupSchedulingDefaultAlgorithm`` @008b3652: the status stays
    Unschedulable(errPodGroupUnschedulable) unless some pod's Permit succeeds; the
    placement algorithm reports the first placement's status."""
    snap = too_big(2, gang)
    g = plan(snap, target=release(snap, "1.36")).groups[0]
    assert (g.outcome, g.error) == ("unschedulable", False)
    assert g.message == ("0/2 placements are available, first placement status: pod group "
                         "is unschedulable")


def test_1_36_without_gang_scheduling_places_what_fits() -> None:
    """Without GangScheduling no Permit waits: one pod placed makes the placement
    feasible."""
    group = make_group(min_count=None)
    snap = snapshot(rack_nodes(r1=["n1"], r2=["n2"]), gang_pods(group, 3, 1.5), [group])
    g = plan(snap, NO_GANG, target=release(snap, "1.36")).groups[0]
    assert g.outcome == "scheduled" and g.selected_placement.placed == 1


@pytest.mark.parametrize("version", ["1.37", "1.38"])
def test_without_placement_feasible_two_empty_placements_are_a_plugin_error(version) -> None:
    """1.37+ with GangScheduling disabled: every placement is "feasible" with no pod, and
    PodGroupPodsCount's ``NormalizePlacementScore`` returns an error for all-zero scores:
    the group's cycle fails with it (upstream: SchedulerError) instead of a traceback."""
    snap = too_big(2)
    g = plan(snap, NO_GANG, target=release(snap, version)).groups[0]
    assert (g.outcome, g.error) == ("error", True)
    assert g.message == ("PodGroupPodsCount: no pods from pod group are assigned to any of "
                         "the candidate placements")


def test_without_placement_feasible_one_empty_placement_schedules_nothing() -> None:
    """One placement is taken without scoring; the root check turns success with no new
    pod into Unschedulable ("no pods were schedulable")."""
    snap = too_big(1)
    g = plan(snap, NO_GANG, target=release(snap, "1.37")).groups[0]
    assert (g.outcome, g.message) == ("unschedulable", "no pods were schedulable")


# ------------------------------------------------------------------------- validation
# 1.36 ``frameworkForPodGroup`` @008b3652 (schedulerName only); 1.37 ``validatePodGroup``
# (every pod against the root's priority and policy); 1.38 main (PR kubernetes#141930: every
# group of a tree too, messages naming pods and groups). Notes of what was read:
# /work/team/notes-upstream-preemption.md, "Group validation".

def mixed_priorities():
    """A v1alpha2-style PodGroup without a priority whose pods use two PriorityClasses."""
    group = make_group(min_count=None, key=None, priority=None)
    pods = [make_pod("low", 1, group=group.key, priority=500),
            make_pod("high", 1, group=group.key, priority=1000)]
    return snapshot(rack_nodes(r1=["n1", "n2"]), pods, [group])


def test_1_36_schedules_pods_of_several_priorities_highest_first() -> None:
    snap = mixed_priorities()
    g = plan(snap, target=release(snap, "1.36")).groups[0]
    assert g.outcome == "scheduled"
    assert list(g.selected_placement.assignments) == ["default/high", "default/low"]


@pytest.mark.parametrize(("version", "message"), [
    ("1.37", "all pods in a single pod group should have the same priority as the pod "
             "group's priority, got 1000 and 0"),
    ("1.38", 'all pods in a pod group hierarchy should have the same priority as the root pod '
             'group\'s priority, got 1000 ("high") and 0 ("default/pg")'),
])
def test_from_1_37_pods_must_have_the_groups_priority(version, message) -> None:
    snap = mixed_priorities()
    g = plan(snap, target=release(snap, version)).groups[0]
    assert (g.outcome, g.message) == ("error", message)


@pytest.mark.parametrize(("version", "message"), [
    ("1.36", 'all pods in a single pod group should have the same .spec.schedulerName set, '
             'got: "other" and "default-scheduler"'),
    ("1.37", 'all pods in a single pod group should have the same .spec.schedulerName set, '
             'got: "other" and "default-scheduler"'),
    ("1.38", 'all pods in a pod group hierarchy should have the same .spec.schedulerName set, '
             'got: "other" ("b") and "default-scheduler" ("a")'),
])
def test_every_release_wants_one_scheduler_name(version, message) -> None:
    group = make_group(min_count=None, key=None)
    pods = [make_pod("a", 1, group=group.key),
            replace(make_pod("b", 1, group=group.key), scheduler_name="other")]
    snap = snapshot(rack_nodes(r1=["n1"]), pods, [group])
    g = plan(snap, target=release(snap, version)).groups[0]
    assert (g.outcome, g.message) == ("error", message)


def test_1_36_queues_a_group_at_its_highest_pending_pod() -> None:
    """1.36's queue holds pods: the group whose pod has priority 1000 is planned before the
    group of priority 500, although its PodGroup sets none (0). From 1.37 it would fail
    validation; a group of priority 500 takes the one node there."""
    early = make_group("early", min_count=None, key=None, priority=500)
    late = make_group("late", min_count=None, key=None, priority=None)
    pods = [make_pod("e", 2, group=early.key, priority=500),
            make_pod("l", 2, group=late.key, priority=1000)]
    snap = snapshot(rack_nodes(r1=["n1"]), pods, [early, late])
    by_key = {g.group.key: g for g in plan(snap, target=release(snap, "1.36")).groups}
    assert by_key["default/late"].outcome == "scheduled"
    assert by_key["default/early"].outcome == "unschedulable"


def tree(*, leaf_priority: int | None, pod_priority: int):
    """A root composite of priority 100 over one leaf."""
    from tests.composite.helpers import cluster, composite, leaf, tree_snapshot

    group, pods = leaf("a", "job", priority=pod_priority, pods=1, min_count=1)
    group = replace(group, priority=leaf_priority)
    return tree_snapshot(cluster(b1={"r1": 2}), [composite("job", priority=100)],
                         [(group, pods)])


@pytest.mark.parametrize(("version", "outcome", "message"), [
    ("1.37", "scheduled", None),
    ("1.38", "error", 'all pod groups in a hierarchy should have the same priority as the root '
                      'pod group\'s priority, got 7 ("default/a") and 100 ("default/job")'),
])
def test_a_leaf_of_another_priority_than_its_root(version, outcome, message) -> None:
    """The pods have the root's priority, their PodGroup another: 1.37 checks pods only,
    1.38 every group of the tree, and then no group of it is scheduled."""
    snap = tree(leaf_priority=7, pod_priority=100)
    result = plan(snap, target=release(snap, version))
    assert [g.outcome for g in result.groups] == [outcome]
    if message is not None:
        assert result.groups[0].message == message
        assert result.composites[0].error and result.composites[0].message == message


def test_1_37_checks_a_trees_pods_against_the_root_not_their_podgroup() -> None:
    """Pods and their PodGroup agree (7), the root says 100: 1.37 refuses the tree."""
    snap = tree(leaf_priority=7, pod_priority=7)
    result = plan(snap, target=release(snap, "1.37"))
    assert result.groups[0].outcome == "error"
    assert result.groups[0].message == ("all pods in a single pod group should have the same "
                                        "priority as the pod group's priority, got 7 and 100")
