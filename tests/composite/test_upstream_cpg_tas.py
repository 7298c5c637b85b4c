"""Upstream's CompositePodGroup integration tables, case by case:
``TestCPGTopologyAwareScheduling`` and ``TestCPGTopologyAwareSchedulingWorkloadAwarePreemption``
in kubernetes/kubernetes test/integration/scheduler/podgroup/topology_aware_scheduling/
cpg_tas_test.go (read at commits 1361a25a2c016f97429e7d7dc4d463fd0f643557 and
80072714b200a7f5751742629ee5b87683ef02b0).

Upstream's fixtures: nodes of 2 CPU labelled ``zone``/``rack`` (some also ``block``), pods of
1 CPU, groups and composites of priority 100, existing pods of priority 100 unless the case
gives 10 ("low"). Each case is one ``plan`` here; a case whose steps create objects after a
first tree has been scheduled is planned twice, the second time with the first plan's pods
bound where it put them. Composites come before the PodGroups in input order, as upstream's
steps create them (the children's order decides which fit: see ``composite-child-order``).
Case names are upstream's test names.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pytest

from tasplan.model.composite import CompositePodGroup
from tasplan.model.group import Policy
from tasplan.model.selectors import NodeSelectorTerm, PreferredTerm, Requirement
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.model.taints import Taint, Toleration
from tasplan.plan.result import PlanResult
from tasplan.schedulers.planner import plan
from tests.builders import WORKLOAD, make_group, make_node, make_pod

PRIORITY = 100
LOW = 10


def node(name: str, rack: str | None = None, zone: str | None = None, *, taint: bool = False,
         **labels: str):
    """``makeNode``/``makeNodeWithLabels``: 2 CPU, rack/zone labels, optional taint."""
    if rack is not None:
        labels["rack"] = rack
    if zone is not None:
        labels["zone"] = zone
    taints = (Taint("taint", "", "NoSchedule"),) if taint else ()
    return make_node(name, 2, labels=labels, taints=taints)


@dataclass
class Case:
    """nodes; existing (name, node, cpu, priority, group); composites (name, parent, key,
    minGroupCount or None for basic); leaves (name, parent, key, minCount or None for
    basic); pods (name, group[, "tolerate" | "prefer:<node>"])."""

    nodes: list
    composites: list
    leaves: list
    pods: list
    existing: list = field(default_factory=list)


def build(case: Case, bound: dict[str, str] | None = None) -> ClusterSnapshot:
    composites = []
    for i, (name, parent, key, min_groups) in enumerate(case.composites):
        composites.append(CompositePodGroup(
            f"default/{name}", "default", name, Policy.GANG if min_groups else Policy.BASIC,
            min_groups or 1, key, f"default/{parent}" if parent else None, "cpg", "workload",
            "scheduling.k8s.io/v1alpha3", WORKLOAD, -100 + i, PRIORITY))
    groups = []
    for name, parent, key, min_count in case.leaves:
        group = make_group(name, min_count=min_count, key=key, priority=PRIORITY)
        groups.append(replace(group, parent=f"default/{parent}"))
    pods = []
    for name, node_name, cpu, priority, group in case.existing:
        pods.append(make_pod(name, cpu, node=node_name, priority=priority,
                             group=f"default/{group}" if group else None))
    for name, group, *extra in case.pods:
        pod = make_pod(name, 1, priority=PRIORITY, group=f"default/{group}",
                       node=(bound or {}).get(f"default/{name}", ""))
        for option in extra:
            if option == "tolerate":
                pod = replace(pod, tolerations=(Toleration("taint", "Exists"),))
            else:
                preferred = option.removeprefix("prefer:")
                term = NodeSelectorTerm(match_fields=(
                    Requirement("metadata.name", "In", (preferred,)),))
                pod = replace(pod, preferred_terms=(PreferredTerm(100, term),))
        pods.append(pod)
    return ClusterSnapshot(tuple(sorted(case.nodes, key=lambda n: n.name)), tuple(pods),
                           tuple(groups), composites=tuple(composites))


def placed(result: PlanResult) -> dict[str, str]:
    """pod -> node for every group scheduled now or after preemption."""
    out: dict[str, str] = {}
    for g in result.groups:
        if g.outcome == "scheduled" and g.selected_placement is not None:
            out.update(g.selected_placement.assignments)
        elif g.preemption is not None:
            out.update(g.preemption.nominated)
    return {k.removeprefix("default/"): v for k, v in out.items()}


def victims(result: PlanResult) -> set[str]:
    return {v.pod.removeprefix("default/") for c in result.composites if c.preemption
            for v in c.preemption.victims}


def one_domain(where: dict[str, str], pods: list[str], key: str, nodes: list) -> bool:
    labels = {n.name: n.labels for n in nodes}
    return len({labels[where[p]].get(key) for p in pods}) == 1


def z(i: int, rack: int, zone: int, **kw):
    return node(f"node{i}-z{zone}-r{rack}", f"rack-{rack}", f"zone-{zone}", **kw)


def four_pods(a: str = "pg1", b: str = "pg2") -> list:
    return [("p1", a), ("p2", a), ("p3", b), ("p4", b)]


def eight_pods() -> list:
    return [(f"p{i}", f"pg{(i + 1) // 2}") for i in range(1, 9)]


def two_level(root_key, root_min, leaf_key, leaf_min=2, leaves=2):
    return ([("cpg-root", None, root_key, root_min)],
            [(f"pg{i}", "cpg-root", leaf_key, leaf_min) for i in range(1, leaves + 1)])


def three_level(root, sub, leaf_key, *, root_min=2):
    """root -> cpg-sub1 (pg1, pg2), cpg-sub2 (pg3, pg4); ``sub``: (key, minGroupCount)."""
    return ([("cpg-root", None, root, root_min), ("cpg-sub1", "cpg-root", *sub),
             ("cpg-sub2", "cpg-root", *sub)],
            [("pg1", "cpg-sub1", leaf_key, 2), ("pg2", "cpg-sub1", leaf_key, 2),
             ("pg3", "cpg-sub2", leaf_key, 2), ("pg4", "cpg-sub2", leaf_key, 2)])


BLOCKS = [node("node1-z1-g1-r1", zone="zone-1", block="block-1", rack="rack-1"),
          node("node2-z1-g1-r2", zone="zone-1", block="block-1", rack="rack-2"),
          node("node3-z1-g2-r1", zone="zone-1", block="block-2", rack="rack-1"),
          node("node4-z1-g2-r2", zone="zone-1", block="block-2", rack="rack-2"),
          node("node5-z2-g1-r1", zone="zone-2", block="block-1", rack="rack-1"),
          node("node6-z2-g1-r1", zone="zone-2", block="block-1", rack="rack-1")]
FOUR = [z(1, 1, 1), node("node2-z1-r1", "rack-1", "zone-1"), z(3, 2, 1),
        node("node4-z1-r2", "rack-2", "zone-1")]
EIGHT = [node(f"node{i}-z{(i + 3) // 4}-r{(i + 1) // 2 % 2 or 2}",
              f"rack-{(i + 1) // 2 % 2 or 2}", f"zone-{(i + 3) // 4}") for i in range(1, 9)]


def run(case: Case, **kw) -> PlanResult:
    return plan(build(case), **kw)


# -- TestCPGTopologyAwareScheduling --------------------------------------------------------

def test_parent_constraint_children_none_single_rack() -> None:
    """"parent CPG has topology constraints, children do not; schedules on a single rack"."""
    result = run(Case(FOUR, *two_level("rack", 2, None), four_pods(),
                      [("existing", "node4-z1-r2", 2, PRIORITY, None)]))
    assert set(placed(result)) == {"p1", "p2", "p3", "p4"}
    assert set(placed(result).values()) <= {"node1-z1-r1", "node2-z1-r1"}


def test_preexisting_hierarchy_pod_determines_topology() -> None:
    """"parent CPG has topology constraints, children do not; preexisting pod belonging to
    the hierarchy determines the topology"."""
    result = run(Case(FOUR, *two_level("rack", 2, None),
                      [("p1", "pg1"), ("p2", "pg2"), ("p3", "pg2")],
                      [("existing", "node4-z1-r2", 1, PRIORITY, "pg1")]))
    assert set(placed(result)) == {"p1", "p2", "p3"}
    assert set(placed(result).values()) <= {"node3-z1-r2", "node4-z1-r2"}


def test_pending_when_no_rack_fits_all_children() -> None:
    """"parent CPG has topology constraints, children do not; remains pending when no single
    rack can fit all children" (basic children)."""
    nodes = [z(1, 1, 1), z(2, 2, 1)]
    result = run(Case(nodes, [("cpg-root", None, "rack", 2)],
                      [("pg1", "cpg-root", None, None), ("pg2", "cpg-root", None, None)],
                      [("p1", "pg1"), ("p2", "pg2")],
                      [("existing1", "node1-z1-r1", 1, PRIORITY, None),
                       ("existing2", "node2-z1-r2", 1, PRIORITY, None)]))
    assert placed(result) == {}
    assert all(g.outcome == "unschedulable" for g in result.groups)


ZONE_RACK = [z(1, 1, 1), z(2, 2, 1), node("node3-z2-r1", "rack-1", "zone-2"),
             node("node4-z2-r1", "rack-1", "zone-2")]


def test_multi_level_zone_and_rack() -> None:
    """"parent CPG and child PGs both have topology constraints (multi-level constraints:
    zone and rack)"."""
    result = run(Case(ZONE_RACK, *two_level("zone", 2, "rack"), four_pods(),
                      [("existing-z2", "node3-z2-r1", 1, PRIORITY, None)]))
    where = placed(result)
    assert set(where) == {"p1", "p2", "p3", "p4"}
    assert set(where.values()) <= {"node1-z1-r1", "node2-z1-r2"}
    assert one_domain(where, ["p1", "p2"], "rack", ZONE_RACK)
    assert one_domain(where, ["p3", "p4"], "rack", ZONE_RACK)


ONE_CONSTRAINED = [z(1, 1, 1, taint=True), z(2, 2, 1), z(3, 3, 1), z(4, 1, 2), z(5, 2, 2)]
ONE_CONSTRAINED_CASE = dict(
    composites=[("cpg-root", None, "zone", 2)],
    leaves=[("pg1", "cpg-root", "rack", 2), ("pg2", "cpg-root", None, 2)],
    pods=[("p1", "pg1", "tolerate"), ("p2", "pg1", "tolerate"),
          ("p3", "pg2", "prefer:node4-z2-r1"), ("p4", "pg2", "prefer:node4-z2-r1")])


def test_one_child_constrained_other_uses_parent_topology() -> None:
    """"parent CPG and only one child PG has topology constraints; the other child uses
    parent's topology"."""
    result = run(Case(ONE_CONSTRAINED, existing=[
        ("existing-z2", "node5-z2-r2", 1, PRIORITY, None),
        ("existing-z1-r2", "node2-z1-r2", 1, PRIORITY, None),
        ("existing-z1-r3", "node3-z1-r3", 1, PRIORITY, None)], **ONE_CONSTRAINED_CASE))
    where = placed(result)
    assert set(where) == {"p1", "p2", "p3", "p4"}
    assert one_domain(where, ["p1", "p2", "p3", "p4"], "zone", ONE_CONSTRAINED)
    assert one_domain(where, ["p1", "p2"], "rack", ONE_CONSTRAINED)


CONSTRAINED_DOMAINS = [z(1, 1, 1), z(2, 2, 1), node("node3-z1-r2", "rack-2", "zone-1"),
                       z(4, 1, 2), node("node5-z2-r1", "rack-1", "zone-2")]


def test_preexisting_group_pods_constrain_domains() -> None:
    """"parent CPG and all child PGs have topology constraints, preexisting pod group pods
    constrain the available topology domains"."""
    result = run(Case(CONSTRAINED_DOMAINS, *two_level("zone", 2, "rack"),
                      [("p1", "pg1"), ("p2", "pg2"), ("p3", "pg2")],
                      [("existing-z1", "node1-z1-r1", 1, PRIORITY, "pg1")]))
    where = placed(result)
    assert where["p1"] == "node1-z1-r1"
    assert {where["p2"], where["p3"]} <= {"node2-z1-r2", "node3-z1-r2"}


def test_conflicting_preexisting_domains_fail() -> None:
    """"parent CPG has topology constraints, preexisting pod group pods are in conflicting
    domains across pod groups, fails to schedule any pod"."""
    nodes = [z(1, 1, 1), node("node2-z1-r1", "rack-1", "zone-1"),
             node("node3-z2-r1", "rack-1", "zone-2"), node("node4-z2-r1", "rack-1", "zone-2")]
    result = run(Case(nodes, *two_level("zone", 2, "rack"), [("p1", "pg1"), ("p2", "pg2")],
                      [("existing-z1", "node1-z1-r1", 1, PRIORITY, "pg1"),
                       ("existing-z2", "node3-z2-r1", 1, PRIORITY, "pg2")]))
    assert placed(result) == {}
    assert not result.composites[0].schedulable


def _three_level_checks(where: dict, nodes: list, sub_key: str) -> None:
    assert set(where) == {f"p{i}" for i in range(1, 9)}
    assert one_domain(where, [f"p{i}" for i in range(1, 9)], "zone", nodes)
    assert one_domain(where, ["p1", "p2", "p3", "p4"], sub_key, nodes)
    assert one_domain(where, ["p5", "p6", "p7", "p8"], sub_key, nodes)
    for pair in (["p1", "p2"], ["p3", "p4"], ["p5", "p6"], ["p7", "p8"]):
        assert one_domain(where, pair, "rack", nodes)


def test_three_levels_all_constrained() -> None:
    """"3-level CPG hierarchy: all levels have topology constraints (root=zone, sub=block,
    leaf=rack)"."""
    result = run(Case(BLOCKS, *three_level("zone", ("block", 2), "rack"), eight_pods()))
    _three_level_checks(placed(result), BLOCKS, "block")


MID_FREE = [z(1, 1, 1), z(2, 2, 1), node("node3-z2-r1", "rack-1", "zone-2")]


def test_three_levels_mid_level_unconstrained() -> None:
    """"3-level CPG hierarchy: mid-level without topology constraints (root=zone, sub=none,
    leaf=rack)"."""
    composites = [("cpg-root", None, "zone", 2), ("cpg-sub1", "cpg-root", None, None),
                  ("cpg-sub2", "cpg-root", None, None)]
    leaves = [("pg1", "cpg-sub1", "rack", 2), ("pg2", "cpg-sub2", "rack", 2)]
    where = placed(run(Case(MID_FREE, composites, leaves, four_pods())))
    assert set(where) == {"p1", "p2", "p3", "p4"}
    assert one_domain(where, ["p1", "p2", "p3", "p4"], "zone", MID_FREE)
    assert one_domain(where, ["p1", "p2"], "rack", MID_FREE)
    assert one_domain(where, ["p3", "p4"], "rack", MID_FREE)


TOP_FREE = [z(1, 1, 1), z(2, 2, 1), z(3, 3, 2), z(4, 4, 2), z(5, 5, 2)]


def test_three_levels_top_level_unconstrained() -> None:
    """"3-level CPG hierarchy: top level without topology constraint (root=none, sub=zone,
    leaf=rack)" (basic root)."""
    composites, leaves = three_level(None, ("zone", 2), "rack", root_min=None)
    where = placed(run(Case(TOP_FREE, composites, leaves, eight_pods())))
    assert set(where) == {f"p{i}" for i in range(1, 9)}
    assert one_domain(where, ["p1", "p2", "p3", "p4"], "zone", TOP_FREE)
    assert one_domain(where, ["p5", "p6", "p7", "p8"], "zone", TOP_FREE)
    for pair in (["p1", "p2"], ["p3", "p4"], ["p5", "p6"], ["p7", "p8"]):
        assert one_domain(where, pair, "rack", TOP_FREE)


BOTTOM_FREE = [z(1, 1, 1), node("node2-z1-r1", "rack-1", "zone-1"), z(3, 2, 1),
               node("node4-z1-r2", "rack-2", "zone-1"), z(5, 3, 2),
               node("node6-z2-r3", "rack-3", "zone-2")]


def test_three_levels_bottom_level_unconstrained() -> None:
    """"3-level CPG hierarchy: bottom level without topology constraint (root=zone,
    sub=rack, leaf=none)"."""
    where = placed(run(Case(BOTTOM_FREE, *three_level("zone", ("rack", 2), None),
                            eight_pods())))
    assert set(where) == {f"p{i}" for i in range(1, 9)}
    assert one_domain(where, [f"p{i}" for i in range(1, 9)], "zone", BOTTOM_FREE)
    assert one_domain(where, ["p1", "p2", "p3", "p4"], "rack", BOTTOM_FREE)
    assert one_domain(where, ["p5", "p6", "p7", "p8"], "rack", BOTTOM_FREE)


def test_three_levels_preexisting_leaf_pod_anchors_every_level() -> None:
    """"3-level CPG hierarchy: preexisting pod in leaf PodGroup determines topology for
    intermediate and root CPGs"."""
    pods = [("p1", "pg1"), ("p2", "pg2"), ("p3", "pg2"), ("p4", "pg3"), ("p5", "pg3"),
            ("p6", "pg4"), ("p7", "pg4")]
    where = placed(run(Case(EIGHT, *three_level("zone", ("rack", 2), None), pods,
                            [("existing-pg1", "node5-z2-r1", 1, PRIORITY, "pg1")])))
    assert set(where) == {f"p{i}" for i in range(1, 8)}
    assert {where[p] for p in ("p1", "p2", "p3")} <= {"node5-z2-r1", "node6-z2-r1"}
    assert {where[p] for p in ("p4", "p5", "p6", "p7")} <= {"node7-z2-r2", "node8-z2-r2"}


def test_node_resources_fit_placement_scoring() -> None:
    """"CPG schedules on a single rack, choosing placement with highest allocation
    percentage (NodeResourcesFit placement scoring)"."""
    result = run(Case(FOUR, [("cpg-root", None, "rack", 2)],
                      [("pg1", "cpg-root", None, 1), ("pg2", "cpg-root", None, 2)],
                      [("p1", "pg1"), ("p2", "pg2"), ("p3", "pg2")],
                      [("existing", "node1-z1-r1", 1, PRIORITY, None)]))
    assert set(placed(result).values()) <= {"node1-z1-r1", "node2-z1-r1"}
    assert len(placed(result)) == 3


def test_pods_count_placement_scoring() -> None:
    """"CPG schedules on a single rack, choosing placement that accommodates more descendant
    pods (PodGroupPodsCount placement scoring)" (minGroupCount 1)."""
    result = run(Case(FOUR, *two_level("rack", 1, None), four_pods(),
                      [("existing", "node1-z1-r1", 1, PRIORITY, None)]))
    where = placed(result)
    assert set(where) == {"p1", "p2", "p3", "p4"}
    assert set(where.values()) <= {"node3-z1-r2", "node4-z1-r2"}


def test_min_group_count_below_children_schedules_subset() -> None:
    """"CPG with minGroupCount < total children schedules satisfying subset on a single
    rack"."""
    result = run(Case(FOUR, *two_level("rack", 2, None, leaves=3),
                      [*four_pods(), ("p5", "pg3"), ("p6", "pg3")],
                      [("existing1", "node3-z1-r2", 2, PRIORITY, None),
                       ("existing2", "node4-z1-r2", 2, PRIORITY, None)]))
    where = placed(result)
    assert set(where) == {"p1", "p2", "p3", "p4"}
    assert set(where.values()) <= {"node1-z1-r1", "node2-z1-r1"}
    pg3 = next(g for g in result.groups if g.group.key == "default/pg3")
    assert pg3.outcome == "unschedulable"


def test_basic_tree_continues_as_resources_free_up() -> None:
    """"basic CPG schedules available pods on a single rack and continues scheduling as
    resources become available": first pg1 alone fits; once the existing pod is deleted,
    pg2 follows into the same rack."""
    nodes = [z(1, 1, 1), node("node2-z1-r1", "rack-1", "zone-1")]
    case = Case(nodes, [("cpg-root", None, "rack", None)],
                [("pg1", "cpg-root", None, None), ("pg2", "cpg-root", None, None)],
                four_pods(), [("existing", "node1-z1-r1", 2, PRIORITY, None)])
    first = plan(build(case))
    where = placed(first)
    assert set(where) == {"p1", "p2"}
    pg2 = next(g for g in first.groups if g.group.key == "default/pg2")
    assert pg2.outcome == "unschedulable"
    case.existing = []
    second = plan(build(case, {f"default/{k}": v for k, v in where.items()}))
    assert set(placed(second)) == {"p3", "p4"}


def test_two_hierarchies_each_on_its_own_rack() -> None:
    """"two CPG hierarchies schedule consecutively, each on a separate rack"."""
    composites = [("cpg-root1", None, "rack", 2), ("cpg-root2", None, "rack", 2)]
    leaves = [("pg1-1", "cpg-root1", None, 2), ("pg1-2", "cpg-root1", None, 2),
              ("pg2-1", "cpg-root2", None, 2), ("pg2-2", "cpg-root2", None, 2)]
    pods = [("p1-1", "pg1-1"), ("p1-2", "pg1-1"), ("p1-3", "pg1-2"), ("p1-4", "pg1-2"),
            ("p2-1", "pg2-1"), ("p2-2", "pg2-1"), ("p2-3", "pg2-2"), ("p2-4", "pg2-2")]
    where = placed(run(Case(FOUR, composites, leaves, pods)))
    assert len(where) == 8
    assert one_domain(where, ["p1-1", "p1-2", "p1-3", "p1-4"], "rack", FOUR)
    assert one_domain(where, ["p2-1", "p2-2", "p2-3", "p2-4"], "rack", FOUR)
    assert where["p1-1"] != where["p2-1"]


def test_second_hierarchy_pending_without_another_rack() -> None:
    """"two CPG hierarchies schedule consecutively, second remains pending when no
    additional rack is available"."""
    nodes = FOUR[:2]
    composites = [("cpg-root1", None, "rack", 2), ("cpg-root2", None, "rack", 2)]
    leaves = [("pg1-1", "cpg-root1", None, 2), ("pg1-2", "cpg-root1", None, 2),
              ("pg2-1", "cpg-root2", None, 2), ("pg2-2", "cpg-root2", None, 2)]
    pods = [("p1-1", "pg1-1"), ("p1-2", "pg1-1"), ("p1-3", "pg1-2"), ("p1-4", "pg1-2"),
            ("p2-1", "pg2-1"), ("p2-2", "pg2-1"), ("p2-3", "pg2-2"), ("p2-4", "pg2-2")]
    result = run(Case(nodes, composites, leaves, pods))
    assert set(placed(result)) == {"p1-1", "p1-2", "p1-3", "p1-4"}
    root2 = next(c for c in result.composites if c.composite.name == "cpg-root2")
    assert not root2.schedulable and root2.preemption is None  # equal priority: no victims


def test_mixed_sub_composite_and_direct_children() -> None:
    """"CPG hierarchy with mixed sub-CPG and direct child PGs and different topology
    constraints"."""
    nodes = [z(1, 1, 1), node("node2-z1-r1", "rack-1", "zone-1"), z(3, 2, 1),
             node("node4-z1-r2", "rack-2", "zone-1"), z(5, 1, 2), z(6, 2, 2)]
    composites = [("cpg-root", None, "zone", 3), ("cpg-sub1", "cpg-root", "rack", 2)]
    leaves = [("pg1", "cpg-sub1", None, 2), ("pg2", "cpg-sub1", None, 2),
              ("pg3", "cpg-root", "rack", 2), ("pg4", "cpg-root", None, 2)]
    where = placed(run(Case(nodes, composites, leaves, eight_pods())))
    assert set(where) == {f"p{i}" for i in range(1, 9)}
    assert one_domain(where, [f"p{i}" for i in range(1, 9)], "zone", nodes)
    assert one_domain(where, ["p1", "p2", "p3", "p4"], "rack", nodes)
    assert one_domain(where, ["p5", "p6"], "rack", nodes)


# -- TestCPGTopologyAwareSchedulingWorkloadAwarePreemption ---------------------------------

def low(name: str, node_name: str, cpu: float = 2):
    return (name, node_name, cpu, LOW, None)


def test_preempts_lower_priority_pods_for_single_rack() -> None:
    """"parent CPG has topology constraints, children do not; schedules on a single rack
    after preempting lower priority pods"."""
    result = run(Case(FOUR, *two_level("rack", 2, None), four_pods(),
                      [low("low1-z1-r1", "node1-z1-r1"), low("low2-z1-r1", "node2-z1-r1"),
                       ("existing", "node4-z1-r2", 2, PRIORITY, None)]))
    assert victims(result) == {"low1-z1-r1", "low2-z1-r1"}
    where = placed(result)
    assert set(where) == {"p1", "p2", "p3", "p4"}
    assert set(where.values()) <= {"node1-z1-r1", "node2-z1-r1"}
    assert all(g.outcome == "scheduled-after-preemption" for g in result.groups)


def test_after_preemption_additional_pod_stays_unschedulable() -> None:
    """"parent CPG has topology constraints, children do not; schedules on a single rack
    after preempting lower priority pods, then cannot schedule additional pods": p5 of pg1
    cannot use the free room of rack-2, the tree being bound to rack-1, and nothing of lower
    priority is left to preempt there."""
    case = Case(FOUR, *two_level("rack", 2, None), four_pods(),
                [low("low1-z1-r1", "node1-z1-r1"), low("low2-z1-r1", "node2-z1-r1"),
                 ("existing", "node4-z1-r2", 2, PRIORITY, None)])
    first = plan(build(case))
    bound = {f"default/{k}": v for k, v in placed(first).items()}
    case.existing = [("existing", "node4-z1-r2", 2, PRIORITY, None)]
    case.pods = [*case.pods, ("p5", "pg1")]
    second = plan(build(case, bound))
    assert "p5" not in placed(second)
    pg1 = next(g for g in second.groups if g.group.key == "default/pg1")
    assert pg1.outcome == "unschedulable"


def test_preexisting_hierarchy_pod_determines_topology_with_preemption() -> None:
    """"parent CPG has topology constraints, children do not; preexisting pod belonging to
    the hierarchy determines topology and lower priority pods are preempted"."""
    result = run(Case(FOUR, *two_level("rack", 2, None),
                      [("p1", "pg1"), ("p2", "pg2"), ("p3", "pg2")],
                      [("existing", "node4-z1-r2", 1, PRIORITY, "pg1"),
                       low("low1-z1-r2", "node3-z1-r2"),
                       low("low2-z1-r2", "node4-z1-r2", 1)]))
    assert victims(result) == {"low1-z1-r2", "low2-z1-r2"}
    assert set(placed(result).values()) <= {"node3-z1-r2", "node4-z1-r2"}
    assert set(placed(result)) == {"p1", "p2", "p3"}


def test_basic_children_preempt_on_a_rack() -> None:
    """"parent CPG has topology constraints, children do not; schedules on a rack after
    preempting lower priority pods" (basic children)."""
    nodes = [z(1, 1, 1), z(2, 2, 1)]
    result = run(Case(nodes, [("cpg-root", None, "rack", 2)],
                      [("pg1", "cpg-root", None, None), ("pg2", "cpg-root", None, None)],
                      [("p1", "pg1"), ("p2", "pg2")],
                      [low("low1-z1-r1", "node1-z1-r1"),
                       ("existing2", "node2-z1-r2", 2, PRIORITY, None)]))
    assert victims(result) == {"low1-z1-r1"}
    assert placed(result) == {"p1": "node1-z1-r1", "p2": "node1-z1-r1"}


def test_multi_level_zone_and_rack_with_preemption() -> None:
    """"parent CPG and child PGs both have topology constraints (multi-level constraints:
    zone and rack) with preemption"."""
    result = run(Case(ZONE_RACK, *two_level("zone", 2, "rack"), four_pods(),
                      [low("low-z1-r1", "node1-z1-r1"), low("low-z1-r2", "node2-z1-r2"),
                       ("existing-z2", "node3-z2-r1", 1, PRIORITY, None)]))
    assert victims(result) == {"low-z1-r1", "low-z1-r2"}
    where = placed(result)
    assert set(where.values()) <= {"node1-z1-r1", "node2-z1-r2"}
    assert one_domain(where, ["p1", "p2"], "rack", ZONE_RACK)
    assert one_domain(where, ["p3", "p4"], "rack", ZONE_RACK)


def test_preemption_does_not_help_a_later_child_outside_the_tree_domain() -> None:
    """"parent CPG and child PGs both have topology constraints (multi-level constraints:
    zone and rack), preemption does not help for subsequent": pg1/pg2 fit zone-1 without
    preemption; pg3 added later preempts in rack-3 of zone-1; pg4 then stays pending
    although preemption could free zone-2 (the tree is in zone-1)."""
    nodes = [z(1, 1, 1), z(2, 2, 1), z(3, 3, 1), z(4, 1, 2),
             node("node5-z2-r1", "rack-1", "zone-2")]
    existing = [low("low-z1-r3", "node3-z1-r3"), low("low-z2-r1", "node4-z2-r1")]
    case = Case(nodes, *two_level("zone", 2, "rack"), four_pods(), existing)
    first = plan(build(case))
    assert victims(first) == set()
    where = placed(first)
    assert set(where) == {"p1", "p2", "p3", "p4"}
    assert one_domain(where, ["p1", "p2", "p3", "p4"], "zone", nodes)
    assert {nodes[0].labels["zone"]} == {n.labels["zone"] for n in nodes
                                         if n.name in where.values()}
    bound = {f"default/{k}": v for k, v in where.items()}
    case.leaves = [*case.leaves, ("pg3", "cpg-root", "rack", 2)]
    case.pods = [*case.pods, ("p5", "pg3"), ("p6", "pg3")]
    second = plan(build(case, bound))
    assert victims(second) == {"low-z1-r3"}
    assert set(placed(second)) >= {"p5", "p6"}
    assert one_domain(placed(second), ["p5", "p6"], "rack", nodes)
    bound.update({f"default/{k}": v for k, v in placed(second).items()})
    case.existing = [low("low-z2-r1", "node4-z2-r1")]
    case.leaves = [*case.leaves, ("pg4", "cpg-root", "rack", 2)]
    case.pods = [*case.pods, ("p7", "pg4"), ("p8", "pg4")]
    third = plan(build(case, bound))
    assert not {"p7", "p8"} & set(placed(third))
    assert victims(third) == set()


def test_one_child_constrained_with_preemption() -> None:
    """"parent CPG and only one child PG has topology constraints; the other child uses
    parent's topology with preemption"."""
    result = run(Case(ONE_CONSTRAINED, existing=[
        low("low-z1-r1", "node1-z1-r1"), ("existing-z2", "node5-z2-r2", 1, PRIORITY, None),
        ("existing-z1-r2", "node2-z1-r2", 1, PRIORITY, None),
        ("existing-z1-r3", "node3-z1-r3", 1, PRIORITY, None)], **ONE_CONSTRAINED_CASE))
    assert victims(result) == {"low-z1-r1"}
    where = placed(result)
    assert set(where) == {"p1", "p2", "p3", "p4"}
    assert one_domain(where, ["p1", "p2", "p3", "p4"], "zone", ONE_CONSTRAINED)
    assert one_domain(where, ["p1", "p2"], "rack", ONE_CONSTRAINED)


def test_preexisting_group_pods_constrain_domains_with_preemption() -> None:
    """"parent CPG and all child PGs have topology constraints, preexisting pod group pods
    constrain available topology domains with preemption"."""
    result = run(Case(CONSTRAINED_DOMAINS, *two_level("zone", 2, "rack"),
                      [("p1", "pg1"), ("p2", "pg2"), ("p3", "pg2")],
                      [("existing-z1", "node1-z1-r1", 1, PRIORITY, "pg1"),
                       low("low-z1-r1", "node1-z1-r1", 1), low("low-z1-r2", "node2-z1-r2")]))
    assert victims(result) == {"low-z1-r1", "low-z1-r2"}
    where = placed(result)
    assert where["p1"] == "node1-z1-r1"
    assert {where["p2"], where["p3"]} <= {"node2-z1-r2", "node3-z1-r2"}


def test_three_levels_all_constrained_with_preemption() -> None:
    """"3-level CPG hierarchy: all levels have topology constraints (root=zone, sub=block,
    leaf=rack) with preemption"."""
    existing = [low(f"low-z1-{i}", BLOCKS[i - 1].name) for i in range(1, 5)]
    result = run(Case(BLOCKS, *three_level("zone", ("block", 2), "rack"), eight_pods(),
                      existing))
    assert victims(result) == {f"low-z1-{i}" for i in range(1, 5)}
    _three_level_checks(placed(result), BLOCKS, "block")


def test_three_levels_mid_level_unconstrained_with_preemption() -> None:
    """"3-level CPG hierarchy: mid-level without topology constraints (root=zone, sub=none,
    leaf=rack) with preemption"."""
    composites = [("cpg-root", None, "zone", 2), ("cpg-sub1", "cpg-root", None, None),
                  ("cpg-sub2", "cpg-root", None, None)]
    leaves = [("pg1", "cpg-sub1", "rack", 2), ("pg2", "cpg-sub2", "rack", 2)]
    result = run(Case(MID_FREE, composites, leaves, four_pods(),
                      [low("low-z1-r1", "node1-z1-r1"), low("low-z1-r2", "node2-z1-r2")]))
    assert victims(result) == {"low-z1-r1", "low-z1-r2"}
    where = placed(result)
    assert one_domain(where, ["p1", "p2", "p3", "p4"], "zone", MID_FREE)
    assert one_domain(where, ["p1", "p2"], "rack", MID_FREE)


def test_three_levels_top_level_unconstrained_with_preemption() -> None:
    """"3-level CPG hierarchy: top level without topology constraint (root=none, sub=zone,
    leaf=rack) with preemption"."""
    nodes = TOP_FREE[:4]
    composites, leaves = three_level(None, ("zone", 2), "rack", root_min=None)
    existing = [low("low-z1-r1", "node1-z1-r1"), low("low-z1-r2", "node2-z1-r2"),
                low("low-z2-r3", "node3-z2-r3"), low("low-z2-r4", "node4-z2-r4")]
    result = run(Case(nodes, composites, leaves, eight_pods(), existing))
    assert victims(result) == {"low-z1-r1", "low-z1-r2", "low-z2-r3", "low-z2-r4"}
    where = placed(result)
    assert set(where) == {f"p{i}" for i in range(1, 9)}
    assert one_domain(where, ["p1", "p2", "p3", "p4"], "zone", nodes)
    assert one_domain(where, ["p5", "p6", "p7", "p8"], "zone", nodes)


def test_three_levels_bottom_level_unconstrained_with_preemption() -> None:
    """"3-level CPG hierarchy: bottom level without topology constraint (root=zone,
    sub=rack, leaf=none) with preemption"."""
    existing = [low("low-z1-r1-1", "node1-z1-r1"), low("low-z1-r1-2", "node2-z1-r1"),
                low("low-z1-r2-1", "node3-z1-r2"), low("low-z1-r2-2", "node4-z1-r2")]
    result = run(Case(BOTTOM_FREE, *three_level("zone", ("rack", 2), None), eight_pods(),
                      existing))
    assert victims(result) == {"low-z1-r1-1", "low-z1-r1-2", "low-z1-r2-1", "low-z1-r2-2"}
    where = placed(result)
    assert one_domain(where, [f"p{i}" for i in range(1, 9)], "zone", BOTTOM_FREE)
    assert one_domain(where, ["p1", "p2", "p3", "p4"], "rack", BOTTOM_FREE)


def test_three_levels_preexisting_leaf_pod_anchors_with_preemption() -> None:
    """"3-level CPG hierarchy: preexisting pod in leaf PodGroup determines topology for
    intermediate and root CPGs with preemption"."""
    pods = [("p1", "pg1"), ("p2", "pg2"), ("p3", "pg2"), ("p4", "pg3"), ("p5", "pg3"),
            ("p6", "pg4"), ("p7", "pg4")]
    result = run(Case(EIGHT, *three_level("zone", ("rack", 2), None), pods,
                      [("existing-pg1", "node5-z2-r1", 1, PRIORITY, "pg1"),
                       low("low-z2-r1", "node6-z2-r1"), low("low-z2-r2", "node7-z2-r2")]))
    assert victims(result) == {"low-z2-r1", "low-z2-r2"}
    where = placed(result)
    assert {where[p] for p in ("p1", "p2", "p3")} <= {"node5-z2-r1", "node6-z2-r1"}
    assert {where[p] for p in ("p4", "p5", "p6", "p7")} <= {"node7-z2-r2", "node8-z2-r2"}


@pytest.mark.parametrize("version", ["1.37", "1.38"])
def test_tree_preemption_per_release(version: str) -> None:
    """Tree preemption exists wherever trees do (1.37, 1.38: upstream PR kubernetes#140634
    is in 1.37); ``preempt=False`` (``--no-preempt``) leaves the tree unschedulable."""
    from tests.builders import release
    case = Case(FOUR, *two_level("rack", 2, None), four_pods(),
                [low("low1-z1-r1", "node1-z1-r1"), low("low2-z1-r1", "node2-z1-r1"),
                 ("existing", "node4-z1-r2", 2, PRIORITY, None)])
    snap = build(case)
    target = release(snap, version, GenericWorkload=True, TopologyAwareWorkloadScheduling=True,
                     CompositePodGroup=True)
    assert victims(plan(snap, target=target)) == {"low1-z1-r1", "low2-z1-r1"}
    off = plan(snap, target=target, preempt=False)
    assert victims(off) == set() and placed(off) == {}
