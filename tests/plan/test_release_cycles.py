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

import pytest

from tasplan.framework.profile import PluginSet
from tasplan.plugins.defaults import resolve_profile
from tasplan.schedulers.planner import plan
from tests.builders import gang_pods, make_group, rack_nodes, release, snapshot

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
