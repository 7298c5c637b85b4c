"""The placement algorithm (schedule_group) with fake placement plugins.

Upstream: kubernetes/kubernetes ``pkg/scheduler/schedule_one_podgroup_test.go``
TestPodGroupSchedulingPlacementAlgorithm (2 nodes, placement1={node1}, placement2={node2},
one pod; ``placementFeasibleStatuses`` are the PlacementFeasible codes of each placement,
before and after its pod) and TestPodGroupSchedulingPlacementAlgorithm_Scoring; plus a few
rows of the TAS integration test (tas_test.go, reference §5.2) with the default profile.
"""

from __future__ import annotations

import pytest

from tasplan.framework.profile import PluginRef, Profile
from tasplan.framework.registry import Registry
from tasplan.framework.runtime import Framework
from tasplan.framework.statement import Statement
from tasplan.framework.status import Code, Status
from tasplan.framework.types import GroupContext, Placement, Scope
from tasplan.plan.group_cycle import schedule_group
from tasplan.plugins.gang_scheduling import GangScheduling
from tasplan.schedulers.planner import plan
from tests.builders import (
    gang_pods,
    make_group,
    make_node,
    make_pod,
    node_infos,
    pod_with,
    rack_nodes,
    snapshot,
)

S, U, W, E = Code.SUCCESS, Code.UNSCHEDULABLE, Code.WAIT, Code.ERROR
INJECTED = "injected placementFeasible status"
TWO = {"placement1": ["node1"], "placement2": ["node2"]}


class FakePlacementPlugin:
    name = "FakePlacementPlugin"
    # NODE scope (re-run after every assumption), like upstream's fake that is called per
    # pod and node; the STATIC variant is tested on its own below.
    scope = Scope.NODE

    def __init__(self, placements=None, scores=None, filter_status=None, generate_status=None):
        self.placements = placements or {}
        self.scores = scores or {}
        self.filter_status = filter_status or {}
        self.generate_status = generate_status
        self.scored: list[str] = []

    def generate_placements(self, ctx, parent, nodes):
        if self.generate_status is not None:
            return [], self.generate_status
        index = {n.name: n.index for n in nodes}
        return [Placement(name, tuple(index[n] for n in members))
                for name, members in self.placements.items()], None

    def score_placement(self, ctx, placement, nodes, proposed):
        self.scored.append(placement.name)
        return self.scores.get(placement.name, 0)

    def filter(self, state, pod, node):
        return self.filter_status.get(node.name)


class FakePlacementFeasible:
    """Plays back the given codes, placement after placement; without codes it behaves as
    GangScheduling."""

    name = "FakePlacementFeasible"

    def __init__(self, statuses=None):
        self.queue = [c for per_placement in statuses or () for c in per_placement]
        self.playback = statuses is not None

    def placement_feasible(self, ctx, remaining, scheduled):
        if not self.playback:
            return GangScheduling().placement_feasible(ctx, remaining, scheduled)
        code = self.queue.pop(0)
        return Status(code, (INJECTED,) if code == U else ())


def _run(plugin, feasible_statuses=None):
    feasible = FakePlacementFeasible(feasible_statuses)
    registry = Registry({plugin.name: lambda args: plugin, feasible.name: lambda args: feasible})
    profile = Profile("test-scheduler", (plugin.name,), (), (plugin.name,), (feasible.name,),
                      (PluginRef(plugin.name, 1),))
    fw = Framework(profile, registry)
    nodes = node_infos([make_node("node1"), make_node("node2")])
    group = make_group("pg", min_count=None, key=None)
    pod = make_pod("foo", group=group.key)
    result = schedule_group(fw, GroupContext(group, (pod,), ()), nodes, Statement())
    return result, nodes, feasible


# upstream: schedule_one_podgroup_test.go TestPodGroupSchedulingPlacementAlgorithm
@pytest.mark.parametrize(
    ("plugin", "statuses", "want_placement", "want_node"),
    [
        pytest.param(FakePlacementPlugin(TWO, {"placement1": 2, "placement2": 1}), None,
                     "placement1", "node1", id="respects higher score of placement1"),
        pytest.param(FakePlacementPlugin(TWO, {"placement1": 1, "placement2": 2}), None,
                     "placement2", "node2", id="respects higher score of placement2"),
        pytest.param(FakePlacementPlugin(TWO, {"placement1": 1},
                                         {"node2": Status(U, ("fake reason",))}),
                     [[W, S], [W, U]], "placement1", "node1",
                     id="filters out infeasible placements"),
        pytest.param(FakePlacementPlugin(TWO, {"placement1": 1, "placement2": 2}),
                     [[W, S], [W, U]], "placement1", "node1",
                     id="filters out infeasible placements with feasible pods"),
    ],
)
def test_selects_placement(plugin, statuses, want_placement, want_node):
    result, nodes, feasible = _run(plugin, statuses)
    assert result.schedulable is True
    assert result.error is False
    assert result.selected == want_placement
    assert result.selected_placement.assignments == {"default/foo": want_node}
    assert feasible.queue == []
    # the winner is assumed and committed: the pod now sits on its node
    assert {n.name: [p.name for p in n.pods] for n in nodes} == {
        "node1": ["foo"] if want_node == "node1" else [],
        "node2": ["foo"] if want_node == "node2" else [],
    }


class FakeStaticPlacementPlugin(FakePlacementPlugin):
    scope = Scope.STATIC


def test_profile_whose_filters_are_all_static():
    # Same as "respects higher score of placement1" with a filter that only reads the node
    # object: nothing in the profile limits how many pods a node takes.
    plugin = FakeStaticPlacementPlugin(TWO, {"placement1": 2, "placement2": 1})
    result, _, _ = _run(plugin)
    assert result.schedulable is True
    assert result.selected == "placement1"
    assert result.selected_placement.assignments == {"default/foo": "node1"}


def test_no_placements_is_unschedulable():
    # upstream: "when no placements are generated, returns unschedulable" -> Unschedulable
    # "no feasible placements found"
    result, nodes, _ = _run(FakePlacementPlugin({}))
    assert result.schedulable is False
    assert result.error is False
    assert result.message.startswith("no feasible placements found")
    assert result.selected is None
    assert all(not n.pods for n in nodes)


@pytest.mark.parametrize(
    ("filter_status", "want_unplaced"),
    [
        pytest.param({"node1": Status(U, ("fake reason",)), "node2": Status(U, ("fake reason",))},
                     "0/1 nodes are available: 1 fake reason.",
                     id="when all placements are infeasible, returns unschedulable"),
        pytest.param({}, None,
                     id="when all placements are infeasible, but pods are feasible, returns "
                        "unschedulable"),
    ],
)
def test_all_placements_infeasible(filter_status, want_unplaced):
    plugin = FakePlacementPlugin(TWO, {"placement1": 1, "placement2": 2}, filter_status)
    result, nodes, feasible = _run(plugin, [[W, U], [W, U]])
    assert result.schedulable is False
    assert result.error is False
    assert result.message == ("0/2 placements are available, first placement status: "
                              f"{INJECTED}")
    assert result.selected is None
    assert feasible.queue == []
    assert plugin.scored == []
    assert all(not n.pods for n in nodes)
    for placement in result.placements:
        assert placement.feasible is False
        if want_unplaced is None:
            assert placement.unplaced == {}
        else:
            assert placement.unplaced == {"default/foo": want_unplaced}


def test_generate_plugin_error_is_a_group_error():
    # upstream: "when generate plugin fails, returns error"
    plugin = FakePlacementPlugin(generate_status=Status(E, ("error for test",)))
    result, nodes, _ = _run(plugin)
    assert result.schedulable is False
    assert result.error is True
    assert "error for test" in result.message
    assert all(not n.pods for n in nodes)


def test_filter_error_is_a_group_error():
    # upstream: "when a placement evaluation errors, returns error"
    plugin = FakePlacementPlugin({"placement1": ["node1"]}, {"placement1": 1},
                                 {"node1": Status(E, ("error for test",))})
    result, nodes, _ = _run(plugin)
    assert result.schedulable is False
    assert result.error is True
    assert "error for test" in result.message
    assert all(not n.pods for n in nodes)


@pytest.mark.parametrize(
    "bad_code",
    [pytest.param(S, id="Success code from a filter"), pytest.param(W, id="Wait code"),
     pytest.param(Code.SKIP, id="Skip code")],
)
def test_filter_returning_a_non_rejection_status_is_a_group_error(bad_code):
    plugin = FakePlacementPlugin(TWO, {}, {"node1": Status(bad_code, ("odd",))})
    result, _, _ = _run(plugin)
    assert result.error is True
    assert result.schedulable is False


# upstream: schedule_one_podgroup.go findBestPodGroupPlacement returns the only feasible
# placement without running PlacementScore plugins ([V] in /tmp/notes/upstream.md §3)
def test_single_feasible_placement_is_not_scored():
    plugin = FakePlacementPlugin(TWO, {"placement1": 1, "placement2": 2},
                                 {"node2": Status(U, ("fake reason",))})
    result, _, _ = _run(plugin, [[W, S], [W, U]])
    assert result.selected == "placement1"
    assert plugin.scored == []


# upstream: TestPodGroupSchedulingPlacementAlgorithm_Scoring (reference §3.5): plugin A
# (w=1) {p1: 50, p2: 75}, plugin B (w=2) {p1: 25, p2: 10} -> 100 vs 95
@pytest.mark.parametrize(
    ("a", "b", "want", "want_scores"),
    [
        pytest.param({"placement1": 50, "placement2": 75}, {"placement1": 25, "placement2": 10},
                     "placement1", {"placement1": 100, "placement2": 95},
                     id="weighted sum picks placement1"),
        pytest.param({"placement1": 75, "placement2": 50}, {"placement1": 10, "placement2": 25},
                     "placement2", {"placement1": 95, "placement2": 100},
                     id="swapped inputs pick placement2"),
    ],
)
def test_weighted_scoring_selects(a, b, want, want_scores):
    gen = FakePlacementPlugin(TWO)

    class Scorer:
        def __init__(self, name, scores):
            self.name, self.scores = name, scores

        def score_placement(self, ctx, placement, nodes, proposed):
            return self.scores[placement.name]

    sa, sb = Scorer("A", a), Scorer("B", b)
    registry = Registry({gen.name: lambda args: gen, "A": lambda args: sa, "B": lambda args: sb,
                         "Gang": lambda args: GangScheduling()})
    profile = Profile("s", (gen.name,), (), (gen.name,), ("Gang",),
                      (PluginRef("A", 1), PluginRef("B", 2)))
    fw = Framework(profile, registry)
    nodes = node_infos([make_node("node1"), make_node("node2")])
    group = make_group("pg", min_count=None, key=None)
    ctx = GroupContext(group, (make_pod("foo", group=group.key),), ())
    result = schedule_group(fw, ctx, nodes, Statement())
    assert result.selected == want
    assert {p.name: p.score for p in result.placements} == want_scores
    assert result.tied_with == ()


# -- the default profile on the TAS integration scenarios (tas_test.go, reference §5.2) ----


def _plan(nodes, pods, group):
    result = plan(snapshot(nodes, pods, [group]))
    (group_result,) = result.groups
    return group_result


def _gang(min_count, n, cpu):
    from dataclasses import replace

    group = replace(make_group("pg", min_count=min_count), planned=True)
    return group, gang_pods(group, n, cpu)


def test_g1_gang_lands_in_the_only_rack_that_fits():
    nodes = rack_nodes(**{"rack-1": ["n1", "n2", "n3"], "rack-2": ["n4", "n5"],
                          "rack-3": ["n6"]})
    existing = [pod_with({"cpu": 2000}, "busy", node="n4")]
    group, pods = _gang(3, 3, 1)
    result = _plan(nodes, [*existing, *pods], group)
    assert result.schedulable is True
    assert result.selected == "rack-1"
    assert sorted(result.selected_placement.assignments.values()) == ["n1", "n2", "n3"]


def test_g2_gang_of_large_pods_fits_nowhere():
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"], "rack-2": ["n3"], "rack-3": ["n4"]})
    group, pods = _gang(3, 3, 2)
    result = _plan(nodes, pods, group)
    assert result.schedulable is False
    assert result.error is False
    assert result.message.startswith("0/3 placements are available, first placement status: ")
    assert result.selected is None


def test_g4_most_allocated_domain_wins():
    # PodGroupPodsCount equal; NodeResourcesFit placement score 3/4 = 75 vs 3/6 = 50
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"], "rack-2": ["n3", "n4", "n5"],
                          "rack-3": ["n6"]})
    group, pods = _gang(3, 3, 1)
    result = _plan(nodes, pods, group)
    assert result.schedulable is True
    assert result.selected == "rack-1"
    assert set(result.selected_placement.assignments.values()) == {"n1", "n2"}
    scores = {p.name: p.scores for p in result.placements if p.feasible}
    assert scores == {"rack-1": {"NodeResourcesFit": 75, "PodGroupPodsCount": 100},
                      "rack-2": {"NodeResourcesFit": 50, "PodGroupPodsCount": 100}}
