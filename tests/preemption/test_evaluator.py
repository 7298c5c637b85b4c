"""Workload-aware preemption through the planner. The table mirrors upstream
``pkg/scheduler/framework/preemption/podgrouppreemption_test.go``
``TestPodGroupEvaluatorSelectVictimsOnDomain`` (main): a node's "capacity" there is how many
pods fit; here every pod asks 1 CPU and a node of capacity N has N CPUs. The preemptor is a
one-pod group of priority 1000 without a topology constraint. Expectations are upstream's.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tasplan.framework.profile import PluginSet
from tasplan.model.disruption import PodDisruptionBudget
from tasplan.model.pod_affinity import LabelSelector
from tasplan.model.selectors import Requirement
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plugins import names as n
from tasplan.plugins.defaults import resolve_profile
from tasplan.preemption.evaluator import NEVER, NO_VICTIMS, NOT_ENOUGH
from tasplan.schedulers.planner import plan
from tests.builders import (
    CLUSTER,
    gang_pods,
    make_group,
    make_node,
    make_pod,
    rack_nodes,
    release,
    snapshot,
)

LOW, MID, HIGH = 10, 100, 1000


def _victim_group(name: str, *, all_: bool, priority: int = LOW):
    return replace(make_group(name, min_count=1, key=None, priority=priority),
                   planned=False, disrupt_all=all_)


def _budget(name: str, app: str, allowed: int = 0) -> PodDisruptionBudget:
    selector = LabelSelector((Requirement("app", "In", (app,)),))
    return PodDisruptionBudget("default", name, selector, None, None, allowed, CLUSTER)


def _run(capacities: dict[str, int], running: list, groups=(), budgets=(),
         preemptor_priority: int = HIGH, **kw):
    nodes = [make_node(n, c) for n, c in capacities.items()]
    group = make_group("preemptor", min_count=1, key=None, priority=preemptor_priority)
    pods = [*running, *gang_pods(group, 1, priority=preemptor_priority)]
    snap = snapshot(nodes, pods, [group, *groups])
    if budgets:
        snap = ClusterSnapshot(snap.nodes, snap.pods, snap.groups,
                               disruption_budgets=tuple(budgets))
    return plan(snap, **kw).groups[0]


def _labelled(pod, app: str):
    return replace(pod, labels={"app": app})


PG1_SINGLE = _victim_group("pg1", all_=False)
PG1_ALL = _victim_group("pg1", all_=True)

CASES = [
    pytest.param({"node1": 1}, [make_pod("p1", node="node1", priority=LOW)], (), (),
                 ["p1"], 0, id="Preempt single lower priority pod"),
    pytest.param({"node1": 2}, [make_pod("p1", node="node1", priority=LOW),
                                make_pod("p2", node="node1", priority=MID),
                                make_pod("p3", node="node1", priority=HIGH)], (), (),
                 ["p1", "p2"], 0, id="Priority: Prefer lower priority victim"),
    pytest.param({"node1": 3}, [make_pod(f"p{i}", node="node1", priority=LOW)
                                for i in range(1, 5)], (), (),
                 ["p3", "p4"], 0, id="Efficiency: Preempt minimum number of victims"),
    pytest.param({"node1": 2}, [make_pod("p1", node="node1", priority=LOW),
                                make_pod("p2", node="node1", priority=LOW, group="default/pg1")],
                 [PG1_SINGLE], (), ["p1"], 0,
                 id="Priority: mix of no groups and pod groups"),
    pytest.param({"node1": 2}, [_labelled(make_pod("victim-pdb", node="node1", priority=LOW),
                                          "pdb"),
                                make_pod("victim-no-pdb", node="node1", priority=LOW)],
                 (), [_budget("pdb", "pdb")], ["victim-no-pdb"], 0,
                 id="PDB: Prefer non-violating victim"),
    pytest.param({"node1": 2}, [_labelled(make_pod("victim-pdb", node="node1", priority=LOW),
                                          "pdb"),
                                make_pod("victim-no-pdb", node="node1", priority=MID)],
                 (), [_budget("pdb", "pdb")], ["victim-no-pdb"], 0,
                 id="PDB: Prefer removing non-violating victim over lower priority violating "
                    "victim"),
    pytest.param({"node1": 2}, [_labelled(make_pod("p1", node="node1", priority=LOW), "a"),
                                _labelled(make_pod("p2", node="node1", priority=MID), "b")],
                 (), [_budget("a", "a"), _budget("b", "b")], ["p1"], 1,
                 id="PDB: Prefer lower priority pod for preemption, when preemption without "
                    "pdb violation is not possible"),
    pytest.param({"node1": 1, "node2": 0},
                 [make_pod("p1", node="node1", priority=LOW, group="default/pg1"),
                  make_pod("p2", node="node2", priority=LOW, group="default/pg1")],
                 [PG1_ALL], (), ["p1", "p2"], 0, id="PodGroup: Preempt group as a whole"),
    pytest.param({"node1": 3}, [make_pod("p1", node="node1", priority=LOW),
                                make_pod("g1-1", node="node1", priority=LOW,
                                         group="default/pg1"),
                                make_pod("g1-2", node="node1", priority=LOW,
                                         group="default/pg1")],
                 [PG1_ALL], (), ["p1"], 0,
                 id="PodGroup: Prefer single pod over podGroup for preemption candidate"),
    pytest.param({"node1": 3}, [make_pod("p1", node="node1", priority=LOW),
                                _labelled(make_pod("g1-1", node="node1", priority=LOW,
                                                   group="default/pg1"), "pdb"),
                                make_pod("g1-2", node="node1", priority=LOW,
                                         group="default/pg1")],
                 [PG1_ALL], [_budget("pdb", "pdb")], ["p1"], 0,
                 id="PDB: Unit violation if any member violates"),
]


@pytest.mark.parametrize(("capacities", "running", "groups", "budgets", "victims",
                          "violations"), CASES)
def test_select_victims(capacities, running, groups, budgets, victims, violations):
    g = _run(capacities, running, groups, budgets)
    assert g.outcome == "scheduled-after-preemption", g.preemption_message
    assert [v.pod for v in g.preemption.victims] == [f"default/{v}" for v in victims]
    assert g.preemption.pdb_violations == violations
    assert g.preemption.nominated == {"default/preemptor-0": "node1"}
    assert g.preemption_message == (f"found a placement for podgroup, preempting "
                                    f"{len(victims)} victims")


def test_group_priority_is_authoritative_for_victims():
    """A pod of a PodGroup has its group's priority (upstream's authoritative PodGroup
    priority): the pod says 10, its group 1000, so it is not a candidate."""
    high_group = _victim_group("pg1", all_=False, priority=HIGH)
    g = _run({"node1": 1}, [make_pod("p1", node="node1", priority=LOW, group="default/pg1")],
             [high_group])
    assert g.outcome == "unschedulable"
    assert g.preemption_message == NO_VICTIMS


def test_no_victims_of_equal_or_higher_priority():
    """Failure: Cannot preempt when no victims are generated."""
    g = _run({"node1": 1}, [make_pod("p1", node="node1", priority=HIGH)])
    assert (g.outcome, g.preemption, g.preemption_message) == ("unschedulable", None,
                                                               NO_VICTIMS)


def test_preemption_policy_never_is_not_eligible():
    """upstream ``getPreemptionPolicy``: without PodGroupPreemptionPolicy, one pending pod
    with preemptionPolicy Never makes the group ineligible."""
    nodes = [make_node("node1", 1)]
    group = make_group("preemptor", min_count=1, key=None, priority=HIGH)
    pod = replace(gang_pods(group, 1, priority=HIGH)[0], preemption_policy="Never")
    snap = snapshot(nodes, [make_pod("p1", node="node1", priority=LOW), pod], [group])
    g = plan(snap).groups[0]
    assert (g.outcome, g.preemption_message) == ("unschedulable", NEVER)


def test_pod_group_preemption_policy_gate_reads_the_group():
    """With PodGroupPreemptionPolicy (1.37, alpha) the PodGroup's policy decides, and the
    pods must agree with it (validation)."""
    nodes = [make_node("node1", 1)]
    group = replace(make_group("preemptor", min_count=1, key=None, priority=HIGH),
                    preemption_policy="Never")
    pods = [make_pod("p1", node="node1", priority=LOW), *gang_pods(group, 1, priority=HIGH)]
    snap = snapshot(nodes, pods, [group])
    gated = release(snap, "1.37", PodGroupPreemptionPolicy=True)
    g = plan(snap, target=gated).groups[0]
    assert g.outcome == "error" and g.message == (
        "all pods in a single pod group should have the same preemption policy as the pod "
        "group's preemption policy, got PreemptLowerPriority and Never")
    pods[1] = replace(pods[1], preemption_policy="Never")
    g = plan(snapshot(nodes, pods, [group]), target=gated).groups[0]
    assert (g.outcome, g.preemption_message) == ("unschedulable", NEVER)
    # Without the gate the PodGroup's field is not read: the pods' policy (Never) decides.
    g = plan(snapshot(nodes, pods, [group]), target=release(snap, "1.37")).groups[0]
    assert g.preemption_message == NEVER


def test_later_groups_see_victims_gone_and_the_preemptor_assumed():
    """Each later group in the run sees the preemptor's pods on their nominated nodes and
    the victims gone. low (priority 10) holds n1; hi (1000) evicts it and takes n1; mid
    (100) comes next: n1 is taken by hi, n2 is free."""
    nodes = [make_node("n1", 1), make_node("n2", 1)]
    hi = make_group("hi", min_count=1, key=None, priority=HIGH)
    mid = make_group("mid", min_count=1, key=None, priority=MID)
    busy = make_pod("busy", node="n2", priority=HIGH)
    low = make_pod("low", node="n1", priority=LOW)
    snap = snapshot(nodes, [busy, low, *gang_pods(hi, 1, priority=HIGH),
                            *gang_pods(mid, 1, priority=MID)], [hi, mid])
    a, b = plan(snap).groups
    assert a.outcome == "scheduled-after-preemption"
    assert [v.pod for v in a.preemption.victims] == ["default/low"]
    # mid cannot take n1 (hi is assumed there) and n2 is busy at higher priority.
    assert b.outcome == "unschedulable" and b.preemption_message == NO_VICTIMS
    assert plan(snap, preempt=False).groups[0].outcome == "unschedulable"


@pytest.mark.parametrize(("where", "preempts"), [
    pytest.param({}, True, id="default profile"),
    pytest.param({"podGroupPostFilter": PluginSet(disabled=("DefaultPreemption",))}, False,
                 id="disabled at podGroupPostFilter"),
    pytest.param({"postFilter": PluginSet(disabled=("DefaultPreemption",))}, True,
                 id="disabled at postFilter only"),
    pytest.param({"multiPoint": PluginSet(disabled=("DefaultPreemption",))}, False,
                 id="disabled in multiPoint"),
])
def test_preemption_runs_where_the_profile_has_default_preemption(where, preempts):
    """Workload-aware preemption is the PodGroupPostFilter plugin DefaultPreemption: a
    profile without it there (disabled at that point or in multiPoint) does not preempt."""
    nodes = [make_node("n1", 1)]
    hi = make_group("hi", min_count=1, key=None, priority=HIGH)
    snap = snapshot(nodes, [make_pod("low", node="n1", priority=LOW),
                            *gang_pods(hi, 1, priority=HIGH)], [hi])
    profile = resolve_profile(plugins=where)
    assert (n.DEFAULT_PREEMPTION in profile.pod_group_post_filter) is preempts
    result = plan(snap, profile=profile).groups[0]
    assert result.outcome == ("scheduled-after-preemption" if preempts else "unschedulable")


def test_gang_preemption_needs_room_for_min_count():
    """A gang of 3 in a rack of 3 one-CPU nodes: two are held by low pods, one by a pod of
    higher priority; evicting both low pods is still not enough for minCount 3."""
    nodes = [make_node(n, 1, labels={"rack": "r1"}) for n in ("n1", "n2", "n3")]
    group = make_group(min_count=3, priority=MID)
    pods = [make_pod("a", node="n1", priority=LOW), make_pod("b", node="n2", priority=LOW),
            make_pod("c", node="n3", priority=HIGH), *gang_pods(group, 3, priority=MID)]
    g = plan(snapshot(nodes, pods, [group])).groups[0]
    assert g.outcome == "unschedulable"
    assert g.preemption_message == NOT_ENOUGH


def test_topology_group_preempts_in_the_placement_the_algorithm_picks():
    """1.37: the placement algorithm re-runs with every lower-priority pod gone and scores
    the placements as usual; upstream does not look for the placement with the fewest
    victims. rack-1 (n1: a, b low; n2: w high) scores 100 by bin-packing, rack-2 (n3: y low;
    n4: z high, 1 CPU) 75, so a and b go although evicting y alone would do in rack-2."""
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"], "rack-2": ["n3", "n4"]})
    group = make_group(min_count=2, priority=HIGH)
    pods = [make_pod("a", 1, node="n1", priority=LOW), make_pod("b", 1, node="n1", priority=LOW),
            make_pod("w", 2, node="n2", priority=HIGH), make_pod("y", 2, node="n3", priority=LOW),
            make_pod("z", 1, node="n4", priority=HIGH), *gang_pods(group, 2, priority=HIGH)]
    g = plan(snapshot(nodes, pods, [group])).groups[0]
    assert g.outcome == "scheduled-after-preemption"
    assert g.preemption.placement == "rack-1"
    assert [v.pod for v in g.preemption.victims] == ["default/a", "default/b"]
    assert g.preemption.nominated == {"default/pg-0": "n1", "default/pg-1": "n1"}


@pytest.mark.parametrize(("version", "gates", "constrained", "runs"), [
    pytest.param("1.35", {}, False, False, id="1.35: no pod-group preemption"),
    pytest.param("1.36", {}, False, False, id="1.36: WorkloadAwarePreemption off by default"),
    pytest.param("1.36", {"WorkloadAwarePreemption": True}, False, True,
                 id="1.36 with the gate, no topology constraint"),
    pytest.param("1.36", {"WorkloadAwarePreemption": True}, True, False,
                 id="1.36 never preempts for a group with a topology constraint"),
    pytest.param("1.37", {}, True, True, id="1.37: part of GenericWorkload, every group"),
    pytest.param("1.38", {}, True, True, id="1.38 (main)"),
])
def test_preemption_per_release(version, gates, constrained, runs):
    nodes = [make_node("n1", 1, labels={"rack": "r1"})]
    group = make_group(min_count=1, key="rack" if constrained else None, priority=HIGH)
    snap = snapshot(nodes, [make_pod("low", node="n1", priority=LOW),
                            *gang_pods(group, 1, priority=HIGH)], [group])
    g = plan(snap, target=release(snap, version, **gates)).groups[0]
    assert (g.preemption is not None) is runs
    if version == "1.36" and gates and constrained:
        assert g.preemption_message == ("workload aware preemption is not supported for pod "
                                        "groups with scheduling constraints")
