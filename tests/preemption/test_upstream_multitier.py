"""Upstream's CompositePodGroup preemption tables, case by case:
``TestMultiTierCompositePodGroupPreemption_NestedDisruptionModes`` and
``TestPartialGangPreemption_PodGroupAndCompositePodGroup`` in kubernetes/kubernetes
test/integration/scheduler/preemption/podgroup/multitier_gang_preemption_test.go (read at
commit 6eb7e28384a7c79c17bc996af18644f7d4927f4a). Nodes of 2 CPU; victims of priority 10,
preemptors of priority 100 pinned to a node by ``kubernetes.io/hostname``.

Not mirrored: that file's ``TestCompositePodGroupPreemption_CyclicReferencesAndEdgeCases``,
whose preemptors are lone pods (tasplan plans pod groups only); a victim under a cyclic or
dangling hierarchy is a unit of its own here too (``Hierarchy.chain`` stops at them).
"""

from __future__ import annotations

from dataclasses import replace

from tasplan.model.composite import CompositePodGroup
from tasplan.model.group import Policy
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.preemption.victims import Hierarchy
from tasplan.schedulers.planner import plan
from tests.builders import WORKLOAD, make_group, make_node, make_pod

HOST = "kubernetes.io/hostname"


def cpg(name: str, *, parent: str | None = None, priority: int = 10, all_: bool = False,
        min_groups: int | None = None, order: int = 0) -> CompositePodGroup:
    return CompositePodGroup(
        f"default/{name}", "default", name, Policy.GANG if min_groups else Policy.BASIC,
        min_groups or 1, None, f"default/{parent}" if parent else None, "wl", "t1",
        "scheduling.k8s.io/v1alpha3", WORKLOAD, order, priority, disrupt_all=all_)


def pg(name: str, parent: str | None, *, min_count: int = 1, priority: int = 10,
       all_: bool = False):
    group = replace(make_group(name, min_count=min_count, key=None, priority=priority),
                    disrupt_all=all_)
    return replace(group, parent=f"default/{parent}") if parent else group


def victim(name: str, group: str | None, node: str, cpu: float = 2):
    return make_pod(name, cpu, node=node, priority=10,
                    group=f"default/{group}" if group else None)


def preemptor(name: str, group: str, node: str):
    return make_pod(name, 2, priority=100, group=f"default/{group}",
                    node_selector={HOST: node})


def snapshot(nodes: int, composites, groups, pods) -> ClusterSnapshot:
    return ClusterSnapshot(tuple(make_node(f"node{i}", 2) for i in range(1, nodes + 1)),
                           tuple(pods), tuple(groups), composites=tuple(composites))


def evicted(result) -> set[str]:
    out = {v.pod for g in result.groups if g.preemption for v in g.preemption.victims}
    out |= {v.pod for c in result.composites if c.preemption for v in c.preemption.victims}
    return {k.removeprefix("default/") for k in out}


def preemptor_tree():
    return cpg("cpg-preemptor", priority=100), pg("pg-preemptor", "cpg-preemptor",
                                                   priority=100)


def test_intermediate_all_evicts_only_its_subtree() -> None:
    """"3-Tier Hierarchy: Intermediate CPG has DisruptionModeAll, Root CPG and Leaf PGs have
    DisruptionModeSingle - only intermediate subtree is evicted"."""
    top, leaf = preemptor_tree()
    composites = [cpg("cpg-root"), cpg("cpg-mid-a", parent="cpg-root", all_=True),
                  cpg("cpg-mid-b", parent="cpg-root"), top]
    groups = [pg("pg-a1", "cpg-mid-a"), pg("pg-a2", "cpg-mid-a"), pg("pg-b1", "cpg-mid-b"),
              leaf]
    pods = [victim("victim-a1", "pg-a1", "node1"), victim("victim-a2", "pg-a2", "node2"),
            victim("victim-b1", "pg-b1", "node3"), preemptor("preemptor-1", "pg-preemptor",
                                                             "node1")]
    result = plan(snapshot(3, composites, groups, pods))
    assert evicted(result) == {"victim-a1", "victim-a2"}
    pre = next(g for g in result.groups if g.group.key == "default/pg-preemptor")
    assert pre.outcome == "scheduled-after-preemption"
    assert pre.preemption.nominated == {"default/preemptor-1": "node1"}


def test_leaf_all_evicts_only_that_leaf() -> None:
    """"3-Tier Hierarchy: Leaf PG has DisruptionModeAll, Root CPG and Mid CPG have
    DisruptionModeSingle - only leaf PG pods are evicted" (and the lone filler pod on
    node1)."""
    top, leaf = preemptor_tree()
    composites = [cpg("cpg-root"), cpg("cpg-mid-a", parent="cpg-root"),
                  cpg("cpg-mid-b", parent="cpg-root"), top]
    groups = [pg("pg-a1", "cpg-mid-a", min_count=2, all_=True), pg("pg-a2", "cpg-mid-a"),
              pg("pg-b1", "cpg-mid-b"), leaf]
    pods = [victim("victim-a1-1", "pg-a1", "node1", 1), victim("victim-a1-2", "pg-a1", "node2", 1),
            victim("victim-a2-1", "pg-a2", "node2", 1), victim("victim-filler-1", None, "node1", 1),
            victim("victim-b1", "pg-b1", "node3"),
            preemptor("preemptor-1", "pg-preemptor", "node1")]
    result = plan(snapshot(3, composites, groups, pods))
    assert evicted(result) == {"victim-a1-1", "victim-a1-2", "victim-filler-1"}


def test_root_all_evicts_the_whole_tree() -> None:
    """"3-Tier Hierarchy: Root CPG has DisruptionModeAll, Mid CPGs and Leaf PGs have
    DisruptionModeSingle - entire 3-tier tree is evicted atomically"."""
    top, leaf = preemptor_tree()
    composites = [cpg("cpg-root", all_=True), cpg("cpg-mid-a", parent="cpg-root"),
                  cpg("cpg-mid-b", parent="cpg-root"), top]
    groups = [pg("pg-a1", "cpg-mid-a"), pg("pg-b1", "cpg-mid-b"), leaf]
    pods = [victim("victim-a1", "pg-a1", "node1"), victim("victim-b1", "pg-b1", "node2"),
            preemptor("preemptor-1", "pg-preemptor", "node1")]
    result = plan(snapshot(2, composites, groups, pods))
    assert evicted(result) == {"victim-a1", "victim-b1"}


def test_partial_pod_group_gang_preemption() -> None:
    """"Partial PodGroup Gang Preemption: MinCount=2 with 3 preemptor pods, 3rd pod cannot
    fit - only victims for MinCount are evicted"."""
    groups = [pg(f"pg-victim-{i}", None) for i in (1, 2, 3)]
    gang = pg("pg-preemptor-gang", None, min_count=2, priority=100)
    pods = [victim(f"victim-{i}", f"pg-victim-{i}", f"node{i}") for i in (1, 2, 3)]
    pods += [preemptor("preemptor-1", "pg-preemptor-gang", "node1"),
             preemptor("preemptor-2", "pg-preemptor-gang", "node2"),
             preemptor("preemptor-3", "pg-preemptor-gang", "node1")]
    result = plan(snapshot(3, [], [*groups, gang], pods))
    assert evicted(result) == {"victim-1", "victim-2"}
    g = next(g for g in result.groups if g.group.key == "default/pg-preemptor-gang")
    assert set(g.preemption.nominated) == {"default/preemptor-1", "default/preemptor-2"}


def test_partial_composite_gang_preemption() -> None:
    """"Partial CompositePodGroup Gang Preemption: MinGroupCount=1 with 2 child PGs, 2nd
    child PG cannot fit - only victims for MinGroupCount are evicted"."""
    root = cpg("cpg-preemptor-cgang", priority=100, min_groups=1)
    children = [pg("pg-child-1", "cpg-preemptor-cgang", priority=100),
                pg("pg-child-2", "cpg-preemptor-cgang", min_count=2, priority=100)]
    groups = [pg("pg-victim-1", None), pg("pg-victim-2", None)]
    pods = [victim("victim-1", "pg-victim-1", "node1"), victim("victim-2", "pg-victim-2", "node2"),
            preemptor("c-preemptor-1", "pg-child-1", "node1"),
            preemptor("c-preemptor-2a", "pg-child-2", "node2"),
            preemptor("c-preemptor-2b", "pg-child-2", "node2")]
    result = plan(snapshot(2, [root], [*groups, *children], pods))
    assert evicted(result) == {"victim-1"}
    by_key = {g.group.key: g for g in result.groups}
    assert by_key["default/pg-child-1"].outcome == "scheduled-after-preemption"
    assert by_key["default/pg-child-2"].outcome == "unschedulable"


def test_atomic_walks_end_at_cycles_and_dangling_parents() -> None:
    """The ancestor walk of ``TestCompositePodGroupPreemption_CyclicReferencesAndEdgeCases``
    terminates: a cycle of all composites, a self-reference, a dangling parent."""
    cycle = [cpg("a", parent="b", all_=True), cpg("b", parent="a", all_=True),
             cpg("self", parent="self", all_=True)]
    groups = [pg("in-cycle", "a"), pg("in-self", "self"), pg("dangling", "missing")]
    tree = Hierarchy({g.key: g for g in groups}, cycle)
    found = {g.key: bound.key for g in groups
             if (bound := tree.bound(victim("v", g.key.split("/")[1], "node1"))) is not None}
    assert set(found) == {"default/in-cycle", "default/in-self"}
    assert found["default/in-self"] == "default/self"
    # The highest all link of a cycle is the last one walked before it closes.
    assert found["default/in-cycle"] == "default/b"
