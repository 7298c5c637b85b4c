"""A group of identical pods is scored from one (pod, count) proposal per placement instead of
one proposal per pod: the placement scores must be those of node-by-node simulation."""

from __future__ import annotations

import pytest

from tasplan.plan import group_cycle
from tasplan.plan.placement_cycle import Count
from tasplan.schedulers.planner import plan
from tests.builders import gang_pods, make_group, make_node, make_pod, snapshot


def _cluster():
    nodes = [make_node(f"n{r}{k}", 8, labels={"rack": f"r{r}"}, memory=64 * 2**30)
             for r in range(4) for k in range(3)]
    # Rack r has r busy nodes: rack 0 takes all 6 pods, rack 1 only 5 (still >= minCount),
    # racks 2 and 3 fewer; placed counts and allocation differ, and so do the scores.
    busy = [make_pod(f"bg-{r}-{k}", 3, node=f"n{r}{k}", memory=(r + 1) * 2**30)
            for r in range(4) for k in range(r)]
    group = make_group(min_count=5)
    return snapshot(nodes, busy + gang_pods(group, 6, 3, memory=4 * 2**30), [group])


def _scores(result) -> dict:
    return {p.name: (p.feasible, p.placed, p.score, dict(p.scores))
            for p in result.groups[0].placements}


def test_counted_scores_equal_simulated_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    counted = plan(_cluster())
    placements = counted.groups[0].placements
    assert sum(not p.simulated for p in placements) >= 2  # counting did happen
    assert sorted(p.placed for p in placements if p.feasible) == [5, 6]
    monkeypatch.setattr(group_cycle, "counting_mode", lambda fw, signatures: Count.NEVER)
    simulated = plan(_cluster())
    assert all(p.simulated for p in simulated.groups[0].placements)
    assert _scores(counted) == _scores(simulated)
    assert counted.groups[0].selected == simulated.groups[0].selected
    assert counted.groups[0].message == simulated.groups[0].message


@pytest.mark.parametrize("in_tree", [False, True])
def test_winner_pods_are_assumed_once(in_tree: bool) -> None:
    """The counted winner's pod-by-pod run leaves its pods assumed (``keep``) instead of
    rolling them back and assuming them again: after the cycle every assigned pod is on its
    node exactly once, the node totals count it once, and the other placements' runs left
    nothing behind."""
    from tasplan.framework.node_info import NodeInfo
    from tasplan.framework.runtime import Framework
    from tasplan.framework.statement import Statement
    from tasplan.framework.types import UNCONSTRAINED, GroupContext, Placement
    from tasplan.plugins.defaults import default_profile
    from tasplan.plugins.registry import in_tree_registry

    snap = _cluster()
    fw = Framework(default_profile(), in_tree_registry())
    fw.bind_snapshot(snap)
    infos = [NodeInfo(n, i, snap.node_usage(n.name)) for i, n in enumerate(snap.nodes)]
    before = {i.name: (len(i.pods), dict(i.requested)) for i in infos}
    group = snap.groups[0]
    pending = tuple(p for p in snap.pods if p.group == group.key)
    statement = Statement()
    parent = Placement(UNCONSTRAINED, tuple(range(len(infos)))) if in_tree else None
    result = group_cycle.schedule_group(fw, GroupContext(group, pending, ()), infos,
                                        statement, parent=parent)
    chosen = result.selected_placement
    assert result.schedulable and chosen.simulated
    assert any(not p.simulated for p in result.placements)  # the others were counted
    log = statement.changes_since(0) if in_tree else []
    assert len(log) == (chosen.placed if in_tree else 0)  # committed when not in a tree
    by_node: dict[str, list[str]] = {}
    for pod, node in chosen.assignments.items():
        by_node.setdefault(node, []).append(pod)
    for info in infos:
        pods, requested = before[info.name]
        mine = [p.key for p in info.pods[pods:]]
        assert sorted(mine) == sorted(by_node.get(info.name, []))
        assert info.requested.get("cpu", 0) == requested.get("cpu", 0) + 3000 * len(mine)
