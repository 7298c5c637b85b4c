"""The what-if primitives: a trial leaves no trace, an eviction copy drops exactly its
victims, and ``schedule_group(assign=False)`` reaches the same verdict without assuming."""

from __future__ import annotations

from tasplan.explain.case import renamed, without
from tasplan.framework.statement import Statement
from tasplan.framework.types import GroupContext
from tasplan.plan.group_cycle import schedule_group
from tasplan.plan.state import build_node_infos
from tasplan.plugins.defaults import default_profile
from tasplan.plugins.registry import in_tree_registry
from tests.builders import gang_pods, make_group, make_node, make_pod, snapshot
from tests.explain.helpers import rack


def _setup():
    from tasplan.framework.runtime import Framework

    nodes = rack("r1", "a1", "a2") + rack("r2", "b1")
    group = make_group(min_count=3)
    snap = snapshot(nodes, gang_pods(group, 3), [group])
    infos, _ = build_node_infos(snap)
    ctx = GroupContext(group, tuple(snap.pods), ())
    return Framework(default_profile(), in_tree_registry()), ctx, infos


def _state(infos):
    """Node usage; a removed pod leaves a zero entry, which reads the same as none."""
    return [(i.node.name, {r: v for r, v in i.requested.items() if v}, list(i.pods))
            for i in infos]


def test_a_trial_undoes_what_schedule_group_committed() -> None:
    fw, ctx, infos = _setup()
    before = _state(infos)
    statement = Statement()
    with statement.trial():
        result = schedule_group(fw, ctx, infos, statement)
        assert result.schedulable and result.selected == "r1"
        assert _state(infos) != before  # the winner was assumed and committed
    assert _state(infos) == before


def test_assign_false_same_verdict_nothing_assumed() -> None:
    fw, ctx, infos = _setup()
    before = _state(infos)
    counted = schedule_group(fw, ctx, infos, Statement(), assign=False)
    assert _state(infos) == before
    assert counted.selected_placement.assignments == {}
    assert counted.selected_placement.placed == 3
    fw2, ctx2, infos2 = _setup()
    full = schedule_group(fw2, ctx2, infos2, Statement())
    assert (counted.schedulable, counted.selected, counted.message) == (
        full.schedulable, full.selected, full.message)
    assert len(full.selected_placement.assignments) == 3


def test_without_drops_only_the_victims() -> None:
    node = make_node("n1", 4)
    keep, gone = make_pod("keep", node="n1"), make_pod("gone", node="n1", cpu=2)
    infos, _ = build_node_infos(snapshot([node], [keep, gone]))
    copy = without(infos[0], [gone])
    assert [p.name for p in copy.pods] == ["keep"]
    assert copy.requested == {"cpu": 1000}
    assert infos[0].requested == {"cpu": 3000}  # the original is untouched


def test_renamed_node_follows_its_hostname() -> None:
    node = make_node("a1", labels={"rack": "r1"})
    copy = renamed(node, "a1-new-1")
    assert copy.name == "a1-new-1"
    assert copy.labels == {"kubernetes.io/hostname": "a1-new-1", "rack": "r1"}
    assert copy.allocatable == node.allocatable
