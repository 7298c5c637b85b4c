"""PodGroupPodsCount placement scorer.

Mirrors kubernetes/kubernetes
``pkg/scheduler/framework/plugins/podgrouppodscount/podgroup_pods_count_test.go``
(@008689a0) ``TestScorePlacement`` and ``TestNormalizePlacementScore``.
"""

from __future__ import annotations

import pytest

from tasplan.framework.status import Code
from tasplan.framework.types import GroupContext, Placement, ProposedAssignment
from tasplan.plugins.podgroup_pods_count import PodGroupPodsCount, new
from tests.builders import make_group, make_node, make_pod, node_infos


def _ctx_and_proposed(assigned: int, assumed: int, proposed: int):
    group = make_group("pg1", key=None)
    nodes = node_infos([make_node(f"node{i}") for i in range(1, 4)])
    # tasplan does not tell assigned from assumed pods: both are "scheduled" in the context
    scheduled = tuple(
        (make_pod(f"p{i}", node=nodes[i % 3].name, group=group.key), nodes[i % 3].name)
        for i in range(assigned + assumed)
    )
    ctx = GroupContext(group, (make_pod("p-new", group=group.key),), scheduled)
    props = [ProposedAssignment(make_pod(f"proposed-pod-{i + 1}", group=group.key),
                                nodes[i % 3]) for i in range(proposed)]
    return ctx, nodes, props


# upstream: podgroup_pods_count_test.go TestScorePlacement
@pytest.mark.parametrize(
    ("assigned", "assumed", "proposed", "want"),
    [
        pytest.param(2, 1, 2, 5, id="existing assigned and assumed pods"),
        pytest.param(1, 0, 2, 3, id="no assumed pods"),
        pytest.param(0, 1, 2, 3, id="no assigned pods"),
        pytest.param(0, 0, 2, 2, id="no assigned pods, no assumed pods"),
    ],
)
def test_score_placement(assigned, assumed, proposed, want):
    ctx, nodes, props = _ctx_and_proposed(assigned, assumed, proposed)
    placement = Placement("rack", (0, 1))
    assert PodGroupPodsCount().score_placement(ctx, placement, nodes[:2], props) == want


# upstream: podgroup_pods_count_test.go TestNormalizePlacementScore
@pytest.mark.parametrize(
    ("scores", "want"),
    [
        pytest.param([10, 50, 110], [9, 45, 100], id="distinct scores"),
        pytest.param([50, 50], [100, 100], id="equal scores"),
        pytest.param([50], [100], id="single score"),
        pytest.param([11, 100, 101, 102], [10, 98, 99, 100],
                     id="some minimal score that is far from a group of scores located closely"),
    ],
)
def test_normalize_placement_scores(scores, want):
    assert PodGroupPodsCount().normalize_placement_scores(list(scores)) == want


# upstream: TestNormalizePlacementScore "zero scores": an error status whose message is
# exactly "no pods from pod group are assigned to any of the candidate placements" (the
# framework fails the group's cycle with it: tests/plan/test_release_cycles.py).
def test_normalize_zero_scores_is_an_error():
    status = PodGroupPodsCount().normalize_placement_scores([0, 0])
    assert status.code == Code.ERROR
    assert status.message == (
        "no pods from pod group are assigned to any of the candidate placements")


def test_factory_builds_the_plugin():
    plugin = new({})
    assert isinstance(plugin, PodGroupPodsCount)
    assert plugin.name == "PodGroupPodsCount"
