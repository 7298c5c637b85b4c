"""Upstream's ``TestCPGScheduling`` table, case by case (kubernetes/kubernetes
test/integration/scheduler/podgroup/cpg_test.go, read at commit
16457a8ac235f5f7fc64ed8d309ef2ce4f5a55e1): one node, trees of gang and basic composites and
PodGroups of priority 100 whose pods request the CPUs the case gives. Which groups schedule
is compared; upstream's condition messages of that commit (``minGroupCount (2) cannot be
satisfied``, ``parent/ancestor composite pod group "x" is unschedulable: ...``, from the
open PR kubernetes#141860) are not tasplan's wording: the common part is checked.
"""

from __future__ import annotations

from dataclasses import replace

from tasplan.schedulers.planner import plan
from tests.builders import make_node, make_pod
from tests.composite.test_upstream_cpg_tas import Case, build, placed


def pods(group: str, *cpus: float) -> list:
    """``makeTestPods``: ``<group>-pod-<i>`` requesting each CPU amount."""
    return [(f"{group}-pod-{i}", group, f"cpu:{cpu}") for i, cpu in enumerate(cpus)]


def run(cpu: int, composites, leaves, pod_specs, existing=(), bound=None):
    case = Case([make_node("node1", cpu)], composites, leaves, [], list(existing))
    snap = build(case, bound)
    # per-pod CPU requests, as makeTestPods gives them
    extra = []
    for name, group, cpu_text in pod_specs:
        node = (bound or {}).get(f"default/{name}", "")
        extra.append(make_pod(name, float(cpu_text.removeprefix("cpu:")), priority=100,
                              group=f"default/{group}", node=node))
    return plan(replace(snap, pods=snap.pods + tuple(extra), usage=None))


def outcome(result, name: str) -> str:
    return next(g.outcome for g in result.groups if g.group.key == f"default/{name}")


def composite(result, name: str):
    return next(c for c in result.composites if c.composite.key == f"default/{name}")


def test_hierarchical_scheduling() -> None:
    """"TestCPGHierarchicalScheduling": readiness and feasibility across three levels of
    mixed gang and basic policies; pg6 fails because its parent cpg-sub3 does."""
    composites = [("cpg-root", None, None, 2), ("cpg-sub1", "cpg-root", None, 2),
                  ("cpg-sub2", "cpg-root", None, None), ("cpg-sub3", "cpg-root", None, 2)]
    leaves = [("pg1", "cpg-sub1", None, 3), ("pg2", "cpg-sub1", None, 3),
              ("pg3", "cpg-sub1", None, 3), ("pg4", "cpg-sub2", None, None),
              ("pg5", "cpg-sub2", None, 3), ("pg6", "cpg-sub3", None, 3),
              ("pg7", "cpg-sub3", None, 3)]
    specs = (pods("pg1", 1, 1, 1) + pods("pg2", 1, 1, 1) + pods("pg3", 100, 100, 100)
             + pods("pg4", 1, 1, 1) + pods("pg5", 1, 1, 1) + pods("pg6", 1, 1, 1)
             + pods("pg7", 100, 100, 100))
    result = run(20, composites, leaves, specs)
    for name in ("pg1", "pg2", "pg4", "pg5"):
        assert outcome(result, name) == "scheduled", name
    for name in ("pg3", "pg6", "pg7"):
        assert outcome(result, name) == "unschedulable", name
    assert [composite(result, n).schedulable for n in ("cpg-root", "cpg-sub1", "cpg-sub2",
                                                       "cpg-sub3")] == [True, True, True, False]
    assert len(placed(result)) == 12


def test_min_group_count() -> None:
    """"TestCPGMinGroupCount": two of three gang children fit; the root needs two."""
    leaves = [(f"pg{i}", "cpg-root", None, 3) for i in (1, 2, 3)]
    result = run(20, [("cpg-root", None, None, 2)], leaves,
                 pods("pg1", 1, 1, 1) + pods("pg2", 1, 1, 1) + pods("pg3", 100, 1, 1))
    assert [outcome(result, f"pg{i}") for i in (1, 2, 3)] == \
        ["scheduled", "scheduled", "unschedulable"]
    assert composite(result, "cpg-root").schedulable


def test_basic_with_gang_children() -> None:
    """"TestCPGBasicWithGangChildren": a basic root lets a ready gang child schedule
    without the other."""
    leaves = [("pg1", "cpg-root", None, 3), ("pg2", "cpg-root", None, 3)]
    result = run(20, [("cpg-root", None, None, None)], leaves,
                 pods("pg1", 1, 1, 1) + pods("pg2", 100, 1, 1))
    assert [outcome(result, "pg1"), outcome(result, "pg2")] == ["scheduled", "unschedulable"]
    assert composite(result, "cpg-root").schedulable


def test_basic_with_basic_children() -> None:
    """"TestCPGBasicWithBasicChildren"."""
    leaves = [("pg1", "cpg-root", None, None), ("pg2", "cpg-root", None, None)]
    result = run(20, [("cpg-root", None, None, None)], leaves,
                 pods("pg1", 1, 1) + pods("pg2", 1, 1))
    assert [outcome(result, "pg1"), outcome(result, "pg2")] == ["scheduled", "scheduled"]
    assert len(placed(result)) == 4


def test_gang_with_basic_children() -> None:
    """"TestCPGGangWithBasicChildren": an 8-CPU node; the third basic child (10 CPU pods)
    fails, minGroupCount 2 holds."""
    leaves = [(f"pg{i}", "cpg-root", None, None) for i in (1, 2, 3)]
    result = run(8, [("cpg-root", None, None, 2)], leaves,
                 pods("pg1", 1, 1, 1) + pods("pg2", 1, 1, 1) + pods("pg3", 10, 10, 10))
    assert [outcome(result, f"pg{i}") for i in (1, 2, 3)] == \
        ["scheduled", "scheduled", "unschedulable"]


def test_basic_with_unschedulable_basic_children() -> None:
    """"TestCPGBasicWithUnschedulableBasicChildren": 50-CPU pods on a 20-CPU node."""
    leaves = [("pg1", "cpg-root", None, None), ("pg2", "cpg-root", None, None)]
    result = run(20, [("cpg-root", None, None, None)], leaves,
                 pods("pg1", 50, 50) + pods("pg2", 50, 50))
    assert [outcome(result, "pg1"), outcome(result, "pg2")] == \
        ["unschedulable", "unschedulable"]
    assert not composite(result, "cpg-root").schedulable


def test_dynamic_child_addition() -> None:
    """"TestCPGDynamicChildAddition", stage by stage: a basic root with pg1, then pg2; then
    a gang sub-composite (minGroupCount 2) with one child waits for quorum; a second child
    lets both schedule."""
    composites = [("cpg-root", None, None, None)]
    leaves = [("pg1", "cpg-root", None, None)]
    specs = pods("pg1", 1, 1)
    bound: dict[str, str] = {}

    def stage():
        result = run(20, composites, leaves, specs, bound=bound)
        bound.update({f"default/{k}": v for k, v in placed(result).items()})
        return result

    assert outcome(stage(), "pg1") == "scheduled"
    leaves.append(("pg2", "cpg-root", None, None))
    specs += pods("pg2", 1, 1)
    assert outcome(stage(), "pg2") == "scheduled"
    composites.append(("cpg-sub", "cpg-root", None, 2))
    leaves.append(("sub-pg1", "cpg-sub", None, None))
    specs += pods("sub-pg1", 1, 1)
    third = stage()
    assert outcome(third, "sub-pg1") != "scheduled"
    assert not composite(third, "cpg-sub").schedulable
    leaves.append(("sub-pg2", "cpg-sub", None, None))
    specs += pods("sub-pg2", 1, 1)
    fourth = stage()
    assert [outcome(fourth, "sub-pg1"), outcome(fourth, "sub-pg2")] == \
        ["scheduled", "scheduled"]
    assert composite(fourth, "cpg-sub").schedulable


def test_resource_blocked_then_scheduled() -> None:
    """"TestCPGStatusConditions_ResourceBlockedThenScheduled": a 3-CPU blocker on a 4-CPU
    node keeps the tree (2 × 2 one-CPU pods) unschedulable; without it everything fits."""
    leaves = [("pg1", "cpg-root", None, 2), ("pg2", "cpg-root", None, 2)]
    specs = pods("pg1", 1, 1) + pods("pg2", 1, 1)
    blocked = run(4, [("cpg-root", None, None, 2)], leaves, specs,
                  existing=[("blocker", "node1", 3, 100, None)])
    assert not composite(blocked, "cpg-root").schedulable
    assert {outcome(blocked, "pg1"), outcome(blocked, "pg2")} == {"unschedulable"}
    free = run(4, [("cpg-root", None, None, 2)], leaves, specs)
    assert composite(free, "cpg-root").schedulable
    assert len(placed(free)) == 4


def test_hierarchical_diagnostics() -> None:
    """"TestCPGStatusConditions_HierarchicalDiagnostics": pg2 fails on CPU, so cpg-sub1
    (1 of 2) fails, so the root stops (0 scheduled, 1 remaining) and nothing is bound. The
    PlacementFeasible counts match upstream's messages."""
    composites = [("cpg-root", None, None, 2), ("cpg-sub1", "cpg-root", None, 2),
                  ("cpg-sub2", "cpg-root", None, 2)]
    leaves = [("pg1", "cpg-sub1", None, 2), ("pg2", "cpg-sub1", None, 2),
              ("pg3", "cpg-sub2", None, 2), ("pg4", "cpg-sub2", None, 2)]
    specs = pods("pg1", 1, 1) + pods("pg2", 100, 100) + pods("pg3", 1, 1) + pods("pg4", 1, 1)
    result = run(4, composites, leaves, specs)
    assert placed(result) == {}
    assert "cannot be satisfied: 0 scheduled, 1 remaining" in composite(result, "cpg-root").message
    assert "cannot be satisfied: 1 scheduled, 0 remaining" in composite(result, "cpg-sub1").message
    assert "cannot be satisfied: 0 scheduled, 1 remaining" in \
        next(g.message for g in result.groups if g.group.key == "default/pg2")
    assert not composite(result, "cpg-sub2").schedulable
    assert {outcome(result, f"pg{i}") for i in (1, 2, 3, 4)} == {"unschedulable"}
