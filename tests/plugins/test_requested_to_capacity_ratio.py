"""NodeResourcesFit with ``scoringStrategy.type: RequestedToCapacityRatio``, and the
argument validation of NodeResourcesFit / NodeResourcesBalancedAllocation.

Upstream sources (kubernetes/kubernetes ``pkg/scheduler/framework/plugins/noderesources``):
``requested_to_capacity_ratio_test.go`` TestRequestedToCapacityRatioScoringStrategy,
TestBrokenLinearFunction, TestResourceBinPackingSingleExtended,
TestResourceBinPackingMultipleExtended; ``apis/config/validation/validation_pluginargs_test.go``
TestValidateFitArgs / TestValidateNodeResourcesBalancedAllocationArgs.

As in test_node_resources_fit.py, upstream's "cpu": "4000" is kept as 4000 millicores (every
score is a ratio) and pods built by ``st.MakePod().Obj()`` have no containers:
``non_zero=(0, 0)``.
"""

from __future__ import annotations

import pytest

from tasplan.errors import ProfileError
from tasplan.framework.types import CycleState, GroupContext, Placement, ProposedAssignment
from tasplan.plugins import balanced_allocation, node_resources_fit
from tasplan.plugins.resource_allocation import ShapePoint, broken_linear
from tests.builders import make_group, make_node, node_infos, pod_with

MI = 1024 * 1024
FOO, BAR = "intel.com/foo", "intel.com/bar"
NO_CONTAINERS = (0, 0)
EMPTY_POD = pod_with({}, non_zero=NO_CONTAINERS)


def _rtcr(resources, shape):
    return node_resources_fit.new({"scoringStrategy": {
        "type": "RequestedToCapacityRatio", "resources": resources,
        "requestedToCapacityRatio": {"shape": shape}}})


def _scores(plugin, pod, nodes, existing=()):
    return [plugin.score(CycleState(), pod, info) for info in node_infos(nodes, existing)]


def _n(name, cpu_milli, memory, **extra):
    return make_node(name, cpu_milli / 1000, memory=memory, **extra)


def _p(cpu, memory, *, node=""):
    return pod_with({"cpu": cpu, "memory": memory}, node=node, non_zero=(cpu, memory))


DEFAULT = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
LEAST = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
N4 = [_n("node1", 4000, 10000), _n("node2", 4000, 10000)]
N4_6 = [_n("node1", 4000, 10000), _n("node2", 6000, 10000)]


# upstream: TestRequestedToCapacityRatioScoringStrategy (shape 0->10, 100->0)
@pytest.mark.parametrize(
    ("pod", "nodes", "existing", "want"),
    [
        pytest.param(EMPTY_POD, N4,
                     [pod_with({}, "e1", node="node1", non_zero=NO_CONTAINERS),
                      pod_with({}, "e2", node="node1", non_zero=NO_CONTAINERS)],
                     [100, 100],
                     id="nothing scheduled, nothing requested: utilisation 0 scores 100"),
        pytest.param(_p(3000, 5000), N4_6,
                     [pod_with({}, "e1", node="node1", non_zero=NO_CONTAINERS),
                      pod_with({}, "e2", node="node1", non_zero=NO_CONTAINERS)],
                     # node1: cpu 75% -> 25, memory 50% -> 50, round(37.5) = 38
                     # node2: cpu 50% -> 50, memory 50% -> 50
                     [38, 50],
                     id="nothing scheduled, resources requested, differently sized nodes"),
        pytest.param(EMPTY_POD, N4_6,
                     [_p(3000, 5000, node="node1"), _p(3000, 5000, node="node2")],
                     [38, 50],
                     id="no resources requested, pods scheduled with resources"),
    ],
)
def test_requested_to_capacity_ratio_scoring_strategy(pod, nodes, existing, want):
    assert _scores(_rtcr(DEFAULT, LEAST), pod, nodes, existing) == want


# upstream: TestBrokenLinearFunction (scores unscaled; Go integer division toward zero)
@pytest.mark.parametrize(
    ("points", "assertions"),
    [
        pytest.param([(10, 1), (90, 9)],
                     [(-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2), (89, 8),
                      (90, 9), (99, 9), (100, 9), (110, 9)], id="case_0"),
        pytest.param([(0, 2), (40, 10), (100, 0)],
                     [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0),
                      (110, 0)], id="case_1"),
        pytest.param([(0, 2), (40, 2), (100, 2)],
                     [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2),
                      (110, 2)], id="case_2"),
    ],
)
def test_broken_linear_function(points, assertions):
    f = broken_linear([ShapePoint(u, s) for u, s in points])
    assert [(p, f(p)) for p, _ in assertions] == assertions


def test_broken_linear_truncates_toward_zero_on_a_falling_segment():
    # 10 + (0 - 10) * 31 / 60 = 10 - 5.17: Go truncates to 10 - 5 = 5 (floor would give 4)
    assert broken_linear([ShapePoint(40, 10), ShapePoint(100, 0)])(71) == 5


BIN_PACKING = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 1}]


def _ext_node(name, **ext):
    return make_node(name, 4, memory=10000 * MI, **ext)


# upstream: TestResourceBinPackingSingleExtended (intel.com/foo weight 1, shape 0->0, 100->1)
@pytest.mark.parametrize(
    ("pod", "existing", "want"),
    [
        pytest.param(EMPTY_POD, [], [0, 0],
                     id="nothing scheduled, nothing requested (foo not requested: skipped)"),
        pytest.param(pod_with({FOO: 2}), [], [2, 5],
                     id="resources requested, pods scheduled with less resources"),
        pytest.param(pod_with({FOO: 2}), [pod_with({FOO: 2}, "e", node="node2")], [2, 10],
                     id="resources requested, on node with existing pod running"),
        pytest.param(pod_with({FOO: 4}), [], [5, 10],
                     id="resources requested, pods scheduled with more resources"),
    ],
)
def test_resource_bin_packing_single_extended(pod, existing, want):
    nodes = [_ext_node("node1", **{FOO: 8}), _ext_node("node2", **{FOO: 4})]
    plugin = _rtcr([{"name": FOO, "weight": 1}], BIN_PACKING)
    assert _scores(plugin, pod, nodes, existing) == want


# upstream: TestResourceBinPackingMultipleExtended (foo weight 3, bar weight 5)
@pytest.mark.parametrize(
    ("pod", "existing", "want"),
    [
        pytest.param(EMPTY_POD, [], [0, 0], id="nothing scheduled, nothing requested"),
        # node1: foo 2/8 -> 2, bar 2/4 -> 5: (2*3 + 5*5) / 8 = 3.875 -> 4
        # node2: foo 2/4 -> 5, bar 2/8 -> 2: (5*3 + 2*5) / 8 = 3.125 -> 3
        pytest.param(pod_with({FOO: 2, BAR: 2}), [], [4, 3],
                     id="resources requested, pods scheduled with less resources"),
        # node2: foo (4+2)/4 over capacity -> 10, bar 4/8 -> 5: (30 + 25) / 8 = 6.875 -> 7
        pytest.param(pod_with({FOO: 2, BAR: 2}), [pod_with({FOO: 4, BAR: 2}, "e", node="node2")],
                     [4, 7], id="resources requested, on node with existing pod running"),
        # node1: 5 and 5 -> 5; node2: foo 10, bar 2: (30 + 10) / 8 = 5
        pytest.param(pod_with({FOO: 4, BAR: 2}), [], [5, 5],
                     id="resources requested, pods scheduled with more resources"),
    ],
)
def test_resource_bin_packing_multiple_extended(pod, existing, want):
    nodes = [_ext_node("node1", **{FOO: 8, BAR: 4}), _ext_node("node2", **{FOO: 4, BAR: 8})]
    plugin = _rtcr([{"name": FOO, "weight": 3}, {"name": BAR, "weight": 5}], BIN_PACKING)
    assert _scores(plugin, pod, nodes, existing) == want


def test_a_resource_scoring_zero_is_left_out_of_the_mean():
    # shape 0->10, 100->0: cpu full (score 0) is dropped, memory 50% -> 50 stays: 50, not 25
    plugin = _rtcr(DEFAULT, LEAST)
    assert _scores(plugin, _p(4000, 5000), [_n("node1", 4000, 10000)]) == [50]


def test_placement_score_stays_most_allocated_under_rtcr():
    # website: "placement scoring always uses MostAllocated": 1 cpu of 2 x 2-cpu nodes is
    # 25 (the configured shape would give 75); memory is not allocatable, so left out
    plugin = _rtcr(DEFAULT, LEAST)
    nodes = node_infos([make_node("n0"), make_node("n1")])
    pod = _p(1000, 0)
    ctx = GroupContext(make_group(min_count=1), (pod,), ())
    proposed = [ProposedAssignment(pod, nodes[0])]
    assert plugin.score_placement(ctx, Placement("r", (0, 1)), nodes, proposed) == 25


# upstream: validation_pluginargs_test.go TestValidateFitArgs (+ v1 defaulting)
@pytest.mark.parametrize(
    ("args", "field"),
    [
        pytest.param({"scoringStrategy": {"type": "Invalid"}}, "scoringStrategy.type",
                     id="invalid scoring strategy type"),
        pytest.param({"scoringStrategy": {"resources": DEFAULT}}, "scoringStrategy.type",
                     id="scoringStrategy without type (v1 does not default it)"),
        pytest.param({"scoringStrategy": {"type": "RequestedToCapacityRatio"}},
                     "scoringStrategy.requestedToCapacityRatio.shape",
                     id="RequestedToCapacityRatio without shape"),
        pytest.param({"scoringStrategy": {"type": "RequestedToCapacityRatio",
                                          "requestedToCapacityRatio": {"shape": []}}},
                     "scoringStrategy.requestedToCapacityRatio.shape", id="empty shape"),
        pytest.param({"scoringStrategy": {"type": "RequestedToCapacityRatio",
                                          "requestedToCapacityRatio": {"shape": [
                                              {"utilization": 50, "score": 1},
                                              {"utilization": 10, "score": 2}]}}},
                     "scoringStrategy.requestedToCapacityRatio.shape[1].utilization",
                     id="utilization values not sorted"),
        pytest.param({"scoringStrategy": {"type": "RequestedToCapacityRatio",
                                          "requestedToCapacityRatio": {"shape": [
                                              {"utilization": 10, "score": 1},
                                              {"utilization": 10, "score": 2}]}}},
                     "scoringStrategy.requestedToCapacityRatio.shape[1].utilization",
                     id="duplicated utilization values"),
        pytest.param({"scoringStrategy": {"type": "RequestedToCapacityRatio",
                                          "requestedToCapacityRatio": {"shape": [
                                              {"utilization": 101, "score": 1}]}}},
                     "scoringStrategy.requestedToCapacityRatio.shape[0].utilization",
                     id="utilization greater than 100"),
        pytest.param({"scoringStrategy": {"type": "RequestedToCapacityRatio",
                                          "requestedToCapacityRatio": {"shape": [
                                              {"utilization": -1, "score": 1}]}}},
                     "scoringStrategy.requestedToCapacityRatio.shape[0].utilization",
                     id="utilization less than 0"),
        pytest.param({"scoringStrategy": {"type": "RequestedToCapacityRatio",
                                          "requestedToCapacityRatio": {"shape": [
                                              {"utilization": 10, "score": 11}]}}},
                     "scoringStrategy.requestedToCapacityRatio.shape[0].score",
                     id="score greater than 10"),
        pytest.param({"scoringStrategy": {"type": "LeastAllocated",
                                          "resources": [{"name": "cpu", "weight": 101}]}},
                     "scoringStrategy.resources[0].weight", id="resource weight above 100"),
        pytest.param({"ignoredResources": ["-invalid-"]}, "ignoredResources[0]",
                     id="ignoredResources: invalid label name"),
        pytest.param({"ignoredResourceGroups": ["example.com/aaa"]},
                     "ignoredResourceGroups[0]", id="ignoredResourceGroups: contains /"),
        pytest.param({"scoringStrategy": {"type": "MostAllocated", "typo": 1}},
                     "scoringStrategy.typo", id="unknown field (strict decoding)"),
        pytest.param({"scoringStrategy": {"type": "MostAllocated", "resources": "cpu"}},
                     "scoringStrategy.resources", id="resources not a list"),
    ],
)
def test_invalid_fit_args(args, field):
    with pytest.raises(ProfileError) as exc:
        node_resources_fit.new(args)
    assert exc.value.field == field


def test_valid_fit_args():
    plugin = node_resources_fit.new({
        "kind": "NodeResourcesFitArgs", "apiVersion": "kubescheduler.config.k8s.io/v1",
        "ignoredResources": ["example.com/aaa"], "ignoredResourceGroups": ["example.com"],
        "scoringStrategy": {"type": "RequestedToCapacityRatio",
                            "resources": [{"name": "cpu"}, {"name": "memory", "weight": 0}],
                            "requestedToCapacityRatio": {"shape": [
                                {"utilization": 0, "score": 0},
                                {"utilization": 100, "score": 10}]}}})
    assert plugin.strategy == "RequestedToCapacityRatio"
    assert [(r.name, r.weight) for r in plugin.resources] == [("cpu", 1), ("memory", 1)]
    assert plugin.shape == (ShapePoint(0, 0), ShapePoint(100, 10))


# upstream: TestValidateNodeResourcesBalancedAllocationArgs
@pytest.mark.parametrize(
    ("resources", "field"),
    [
        pytest.param([{"name": "cpu", "weight": 2}], "resources[0].weight",
                     id="weight other than 1"),
        pytest.param([{"name": "cpu", "weight": 1}, {"name": "cpu", "weight": 1}],
                     "resources[1].name", id="duplicated resource"),
    ],
)
def test_invalid_balanced_allocation_args(resources, field):
    with pytest.raises(ProfileError) as exc:
        balanced_allocation.new({"resources": resources})
    assert exc.value.field == field
