"""GangScheduling.placement_feasible.

Mirrors kubernetes/kubernetes
``pkg/scheduler/framework/plugins/gangscheduling/gangscheduling_test.go``
``TestPlacementFeasible`` (non-CPG rows, cpgFeatureGate=false). Upstream simulates the
pod outcomes one by one: on Success ``Scheduled`` grows, and after pod i the plugin is
called with ``Remaining = childrenCount - (i + 1)`` (childrenCount = pending pods).
Message strings: ``gangscheduling.go`` (@03789157).
"""

from __future__ import annotations

import pytest

from tasplan.framework.profile import Profile
from tasplan.framework.runtime import Framework
from tasplan.framework.status import Code, Status
from tasplan.framework.types import GroupContext
from tasplan.plugins.gang_scheduling import GangScheduling
from tasplan.plugins.registry import in_tree_registry
from tests.builders import gang_pods, make_group

S, U, W = Code.SUCCESS, Code.UNSCHEDULABLE, Code.WAIT


def _ctx(min_count: int | None, pending: int) -> GroupContext:
    group = make_group(min_count=min_count, key=None)
    return GroupContext(group, tuple(gang_pods(group, pending)), ())


# upstream: gangscheduling_test.go TestPlacementFeasible
@pytest.mark.parametrize(
    ("min_count", "children", "initial", "outcomes", "want"),
    [
        pytest.param(2, 2, 0, [S, S], [W, S],
                     id="All pods succeed, minCount met at end"),
        pytest.param(3, 3, 0, [U], [U],
                     id="First pod fails, minCount not satisfiable"),
        pytest.param(2, 2, 0, [S, U], [W, U],
                     id="Second pod fails, minCount not satisfiable"),
        pytest.param(None, 1, 0, [U], [U],
                     id="Non-gang pod group with 0 scheduled pods fails"),
        pytest.param(None, 1, 0, [S], [S],
                     id="Non-gang pod group with succeeds once 1 pod is scheduled"),
        pytest.param(None, 1, 1, [U], [S],
                     id="Non-gang pod group with 1 initially scheduled pod succeeds"),
        pytest.param(2, 3, 0, [S, S, S], [W, S, S],
                     id="More than minCount pods, all succeed"),
        pytest.param(2, 3, 0, [U, S, S], [W, W, S],
                     id="More than minCount pods, first fails"),
        pytest.param(2, 3, 0, [U, U], [W, U],
                     id="More than minCount pods, minCount not satisfiable"),
        pytest.param(3, 2, 1, [S, S], [W, S],
                     id="1 pod scheduled, 2 unscheduled pods succeed, minCount 3 met"),
        pytest.param(2, 1, 2, [U], [S],
                     id="minCount already met by scheduled pods"),
        pytest.param(3, 2, 1, [U], [U],
                     id="1 pod scheduled, minCount 3, first unscheduled fails, "
                        "not enough remaining"),
        pytest.param(4, 2, 1, [S], [U],
                     id="1 pod scheduled, minCount 4, first unscheduled succeeds, "
                        "not enough remaining"),
    ],
)
def test_placement_feasible(min_count, children, initial, outcomes, want):
    plugin = GangScheduling()
    ctx = _ctx(min_count, children)
    scheduled = initial
    got = []
    for i, outcome in enumerate(outcomes):
        if outcome == S:
            scheduled += 1
        status = plugin.placement_feasible(ctx, children - (i + 1), scheduled)
        got.append(status.code)
    assert got == want


# upstream message strings: gangscheduling.go PlacementFeasible
@pytest.mark.parametrize(
    ("min_count", "remaining", "scheduled", "want"),
    [
        pytest.param(3, 2, 0, Status(U, ("minCount (3) cannot be satisfied: 0 scheduled, "
                                        "2 remaining",)),
                     id="remaining + scheduled < minCount is Unschedulable"),
        pytest.param(4, 1, 1, Status(U, ("minCount (4) cannot be satisfied: 1 scheduled, "
                                        "1 remaining",)),
                     id="gang with running pods that can no longer reach minCount"),
        pytest.param(2, 1, 1, Status(W, ("minCount (2) is not yet satisfied: 1 scheduled, "
                                        "1 remaining",)),
                     id="scheduled < minCount is Wait"),
        pytest.param(3, 3, 0, Status(W, ("minCount (3) is not yet satisfied: 0 scheduled, "
                                        "3 remaining",)),
                     id="before the first pod a complete gang waits"),
        pytest.param(2, 0, 2, Status(S), id="scheduled == minCount is Success"),
        pytest.param(2, 5, 3, Status(S), id="scheduled > minCount is Success"),
        pytest.param(None, 0, 0, Status(U, ("minCount (1) cannot be satisfied: 0 scheduled, "
                                           "0 remaining",)),
                     id="basic group is a gang of minCount 1"),
    ],
)
def test_placement_feasible_status(min_count, remaining, scheduled, want):
    assert GangScheduling().placement_feasible(_ctx(min_count, 3), remaining, scheduled) == want


def test_framework_stamps_plugin_name_on_feasibility_status():
    profile = Profile("default-scheduler", (), (), (), ("GangScheduling",), ())
    fw = Framework(profile, in_tree_registry())
    ctx = _ctx(2, 2)
    assert fw.run_placement_feasible(ctx, 2, 0) == Status(
        W, ("minCount (2) is not yet satisfied: 0 scheduled, 2 remaining",),
        plugin="GangScheduling")
    assert fw.run_placement_feasible(ctx, 0, 1) == Status(
        U, ("minCount (2) cannot be satisfied: 1 scheduled, 0 remaining",),
        plugin="GangScheduling")
    assert fw.run_placement_feasible(ctx, 0, 2) == Status(S)
