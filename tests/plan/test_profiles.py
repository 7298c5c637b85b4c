"""Planning with scheduler profiles: each group is planned by the profile of its pods'
schedulerName; pods naming a scheduler without a profile are reported, not planned
(kube-scheduler's ``responsibleForPod`` leaves them to another scheduler); the node-sampling
values of ``percentageOfNodesToScore`` (upstream ``schedule_one_test.go``
TestNumFeasibleNodesToFind). Expected placements worked out by hand."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tasplan.framework.profile import SchedulerConfig
from tasplan.framework.sampling import NodeSampling, num_feasible_nodes_to_find
from tasplan.plugins.defaults import default_profile, resolve_profile
from tasplan.schedulers.planner import plan
from tests.builders import make_group, make_node, make_pod, snapshot

MOST = {"NodeResourcesFit": {"scoringStrategy": {"type": "MostAllocated"}}}


def _basic_group(name: str, scheduler: str):
    group = make_group(name, min_count=None, key=None)
    pod = replace(make_pod(f"{name}-0", 1, group=group.key), scheduler_name=scheduler)
    return group, pod


def _picked(result, index: int) -> dict[str, str]:
    return dict(result.groups[index].selected_placement.assignments)


def _three_nodes():
    # 2-cpu nodes, n1 already half used; memory is not allocatable, so only cpu scores
    return [make_node("n1"), make_node("n2"), make_node("n3")], make_pod("busy", 1, node="n1")


def test_each_group_uses_the_profile_of_its_scheduler_name():
    """spread (default, LeastAllocated) goes first: n1 0, n2 50, n3 50 -> n2 (name tie-break).
    pack (MostAllocated) then: n1 100, n2 100, n3 50 -> n1; LeastAllocated would pick n3."""
    nodes, busy = _three_nodes()
    spread, spread_pod = _basic_group("spread", "default-scheduler")
    pack, pack_pod = _basic_group("pack", "packer")
    config = SchedulerConfig({"default-scheduler": default_profile(),
                              "packer": resolve_profile("packer", plugin_args=MOST)})
    result = plan(snapshot(nodes, [busy, spread_pod, pack_pod], [spread, pack]),
                  scheduler_config=config)
    assert _picked(result, 0) == {"default/spread-0": "n2"}
    assert _picked(result, 1) == {"default/pack-0": "n1"}
    assert [g.scheduler_name for g in result.groups] == ["default-scheduler", "packer"]


def test_a_scheduler_without_profile_is_reported_not_planned():
    nodes, busy = _three_nodes()
    other, other_pod = _basic_group("other", "yunikorn")  # first in input order
    spread, spread_pod = _basic_group("spread", "default-scheduler")
    result = plan(snapshot(nodes, [busy, other_pod, spread_pod], [other, spread]))
    g = result.groups[0]
    assert (g.group.key, g.schedulable, g.placements, g.scheduler_name) == (
        "default/other", False, (), "yunikorn")
    assert g.message == ('not planned: no scheduler profile "yunikorn" (the spec.schedulerName '
                         "of its pods); kube-scheduler leaves such pods to another scheduler")
    assert g.pending == 1 and not g.error
    # the other group is planned as if the unhandled pod did not exist
    assert _picked(result, 1) == {"default/spread-0": "n2"}
    assert not result.schedulable


def test_a_fully_scheduled_group_needs_no_profile():
    group = make_group("done", min_count=None, key=None)
    pod = replace(make_pod("done-0", 1, group=group.key, node="n1"), scheduler_name="yunikorn")
    g = plan(snapshot([make_node("n1")], [pod], [group])).groups[0]
    assert g.schedulable and g.message == "all 1 pod(s) of the group are already scheduled"


def test_a_single_profile_plans_every_group():
    """``plan(snapshot, profile=...)``: the one profile serves every schedulerName."""
    nodes, busy = _three_nodes()
    other, other_pod = _basic_group("other", "yunikorn")
    result = plan(snapshot(nodes, [busy, other_pod], [other]),
                  profile=resolve_profile("x", plugin_args=MOST))
    assert _picked(result, 0) == {"default/other-0": "n1"}


def test_profile_and_scheduler_config_exclude_each_other():
    with pytest.raises(ValueError):
        plan(snapshot([make_node("n1")]), profile=default_profile(),
             scheduler_config=SchedulerConfig({}))


def test_config_warnings_reach_the_result():
    config = SchedulerConfig({"default-scheduler": default_profile()}, warnings=("w",))
    assert plan(snapshot([make_node("n1")]), scheduler_config=config).warnings[-1] == "w"


# upstream: schedule_one_test.go TestNumFeasibleNodesToFind (global and profile percentages;
# the profile's wins when set - resolved by the config loader, see test_scheduler_config.py)
@pytest.mark.parametrize(
    ("global_pct", "profile_pct", "nodes", "want"),
    [
        pytest.param(0, None, 10, 10, id="not set percentageOfNodesToScore, few nodes"),
        pytest.param(40, None, 10, 10, id="not set profile percentage, few nodes"),
        pytest.param(0, 40, 10, 10, id="set profile percentage, few nodes"),
        pytest.param(100, 70, 10, 10, id="set global and profile percentage, few nodes"),
        pytest.param(40, None, 1000, 400, id="set global percentage, many nodes"),
        pytest.param(100, 70, 1000, 700, id="set global and profile percentage, many nodes"),
        pytest.param(0, 70, 1000, 700, id="set profile percentage, many nodes"),
        pytest.param(0, None, 1000, 420, id="set nothing, many nodes (adaptive 50 - 8 = 42%)"),
        pytest.param(40, 70, 1000, 700, id="profile percentage overrides global"),
        pytest.param(40, None, 6000, 2400, id="set global percentage, 6000 nodes"),
        pytest.param(0, None, 6000, 300, id="set nothing, 6000 nodes (adaptive floor 5%)"),
    ],
)
def test_num_feasible_nodes_to_find(global_pct, profile_pct, nodes, want):
    pct = global_pct if profile_pct is None else profile_pct
    assert num_feasible_nodes_to_find(pct, nodes) == want


def test_at_least_100_nodes_are_searched():
    assert num_feasible_nodes_to_find(10, 250) == 100  # 10% = 25, raised to 100


def test_group_results_carry_node_sampling():
    """250 nodes, adaptive: 50 - 250/125 = 48% -> 120 feasible nodes; one placement '*'.
    With percentageOfNodesToScore 100, upstream evaluates every node: no sampling entry."""
    nodes = [make_node(f"n{i:03}") for i in range(250)]
    group, pod = _basic_group("g", "default-scheduler")
    snap = snapshot(nodes, [pod], [group])
    assert plan(snap).groups[0].sampling == (NodeSampling("*", 250, 48, 120),)
    full = replace(default_profile(), percentage_of_nodes_to_score=100)
    assert plan(snap, profile=full).groups[0].sampling == ()
