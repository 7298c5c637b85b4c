"""Each suggestion kind, offered and not offered, on clusters small enough to check by hand.

Nodes have 2 cpu and 110 pod slots; group pods request 1 cpu; racks are label ``rack``."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from tasplan.explain.counterfactuals.topology_key import candidate_keys
from tasplan.explain.explainer import explain
from tasplan.framework.node_info import NodeInfo
from tasplan.model.pod_affinity import LabelSelector
from tasplan.model.selectors import Requirement
from tasplan.model.taints import Taint, Toleration
from tasplan.preemption.budgets import DisruptionBudget
from tests.builders import gang_pods, make_group, make_node, make_pod, release, snapshot
from tests.explain.helpers import explained, kinds, only, rack

GPU_TAINT = Taint("gpu", "present", "NoSchedule")


# --------------------------------------------------------------------------- capacity case

def capacity_case():
    """Three racks of two 2-cpu nodes (racks r1, r2 in block x, r3 in block y); a gang of 5
    one-cpu pods. A rack holds 4: every placement fails with 4 placed."""
    nodes = (rack("r1", "a1", "a2", block="x") + rack("r2", "b1", "b2", block="x")
             + rack("r3", "c1", "c2", block="y"))
    group = make_group(min_count=5)
    return snapshot(nodes, gang_pods(group, 5), [group])


def test_min_count_is_the_most_pods_one_rack_holds() -> None:
    e = explained(capacity_case())
    s = only(e, "minCount")
    assert s.details == {"minCount": 4}
    assert s.change == "lower minCount from 5 to 4"
    # Three identical racks tie; ties go to the smallest name.
    assert (s.result.schedulable, s.result.selected, s.result.tied_with) == (True, "r1",
                                                                              ("r2", "r3"))
    assert s.result.selected_placement.placed == 4


def test_add_nodes_counts_from_the_shortfall() -> None:
    """Short 1 pod in r1; an empty copy of a1 takes 2 pods -> 1 node, and 0 cannot work."""
    s = only(explained(capacity_case()), "addNodes")
    assert s.cost == {"nodesAdded": 1}
    assert s.details["template"] == "a1" and s.details["domain"] == "r1"
    assert s.result.selected == "r1" and s.result.selected_placement.placed == 5
    assert s.minimal


def test_add_nodes_more_than_one() -> None:
    """Gang of 9: a rack holds 4, short 5, 2 pods per new node -> 3 nodes (2 would hold 8)."""
    nodes = rack("r1", "a1", "a2")
    group = make_group(min_count=9)
    s = only(explained(snapshot(nodes, gang_pods(group, 9), [group])), "addNodes")
    assert s.cost == {"nodesAdded": 3}
    assert s.details["nodes"] == ["a1-new-1", "a1-new-2", "a1-new-3"]


def test_coarser_topology_key() -> None:
    """Block x (r1 + r2) holds 8 >= 5; block y (r3) holds 4."""
    e = explained(capacity_case())
    s = only(e, "topologyKey")
    assert s.details == {"topologyKey": "block", "coarser": True}
    assert s.result.selected == "x"
    assert e.fits_at is s


def test_capacity_problem_does_not_fit_an_empty_cluster() -> None:
    e = explained(capacity_case())
    assert e.fits_empty_cluster is False
    assert "evict" not in kinds(e)  # nothing runs there: nothing to evict


def test_domains_show_fit_and_shortfall() -> None:
    e = explained(capacity_case())
    assert [(d.name, d.fit, d.needed, dict(d.shortfall), dict(d.per_pod)) for d in e.domains] \
        == [(r, 4, 5, {"cpu": 1000}, {"cpu": 1000}) for r in ("r1", "r2", "r3")]
    assert e.failures == (("0/2 nodes are available: 2 Insufficient cpu.",
                           ("default/pg-4",)),)


def test_topology_candidates_skip_hostname_crossing_and_same_size_keys() -> None:
    """hostname has one node per value; ``pool`` crosses racks; ``row`` equals the racks.
    None of them can hold more than a rack; only ``block`` is a coarser level."""
    nodes = [make_node(n, labels={"rack": r, "pool": p, "row": r + "-row", "block": "x"})
             for n, r, p in (("a1", "r1", "p"), ("a2", "r1", "q"),
                             ("b1", "r2", "p"), ("b2", "r2", "q"))]
    nodes.append(make_node("z", labels={"block": "y"}))
    case = SimpleNamespace(group=make_group(min_count=5), memo={},
                           infos=[NodeInfo(n, i) for i, n in enumerate(nodes)])
    assert candidate_keys(case) == ["block"]


def test_no_topology_key_when_no_coarser_level_fits() -> None:
    """Each block is one rack: block is not coarser, and nothing else fits either."""
    nodes = rack("r1", "a1", "a2", block="x") + rack("r2", "b1", "b2", block="y")
    group = make_group(min_count=5)
    e = explained(snapshot(nodes, gang_pods(group, 5), [group]))
    assert "topologyKey" not in kinds(e)
    assert e.fits_at is None


def test_min_count_not_offered_to_basic_groups() -> None:
    """A basic group needs one pod; none fits anywhere (3 cpu on 2-cpu nodes)."""
    nodes = rack("r1", "a1")
    group = make_group(min_count=None)
    pods = gang_pods(group, 2, cpu=3)
    e = explained(snapshot(nodes, pods, [group]))
    assert "minCount" not in kinds(e)
    assert "addNodes" not in kinds(e)  # no node of that shape takes a 3-cpu pod


# --------------------------------------------------------------------------- eviction

def eviction_case(*, victim_priority: int = 10, budgets=(), critical: bool = False,
                  version: str = "1.37"):
    """r1: n1 (v1, 1 cpu), n2 (v2 and v3, 1 cpu each); r2: m1 (empty, 2 cpu).
    The gang needs 3 pods at priority 100. r2 holds 2 (closest), r1 holds 1 (n1's free cpu).
    r2 cannot hold 3 whatever is evicted; in r1, v3 (priority 5) plus the lower-named of
    v1/v2 free 2 cpu -> n1 or n2 gets room for the missing 2 pods."""
    nodes = rack("r1", "n1", "n2") + rack("r2", "m1")
    victims = [make_pod("v1", node="n1", priority=victim_priority),
               make_pod("v2", node="n2", priority=victim_priority),
               make_pod("v3", node="n2", priority=min(victim_priority, 5))]
    if critical:
        # The Priority admission plugin gives the class's value.
        victims = [replace(v, priority_class_name="system-cluster-critical",
                           priority=2_000_000_000) for v in victims]
    group = make_group(min_count=3, priority=100)
    snap = snapshot(nodes, [*victims, *gang_pods(group, 3)], [group])
    return explain_with_budgets(snap, budgets, version)


def explain_with_budgets(snap, budgets, version: str = "1.37"):
    from unittest import mock

    with mock.patch("tasplan.explain.explainer.disruption_budgets", return_value=budgets):
        return explain(snap, target=release(snap, version)).explanations["default/pg"]


def test_evicts_the_fewest_lower_priority_pods_in_the_closest_domain_that_can_fit() -> None:
    e = eviction_case()
    s = only(e, "evict")
    assert [v["pod"] for v in s.details["victims"]] == ["default/v1", "default/v3"]
    assert s.details["domain"] == "r1"
    assert s.cost == {"podsEvicted": 2}
    assert s.minimal  # no single pod frees 2 cpu on one rack: proven by trying each
    assert s.result.selected == "r1" and s.result.selected_placement.placed == 3
    assert e.fits_empty_cluster is True  # contention, not capacity


def test_no_eviction_of_equal_priority_pods() -> None:
    assert "evict" not in kinds(eviction_case(victim_priority=100))


def test_no_eviction_of_higher_priority_pods() -> None:
    assert "evict" not in kinds(eviction_case(victim_priority=500))


def test_no_eviction_of_system_critical_pods() -> None:
    assert "evict" not in kinds(eviction_case(critical=True))


def test_pdb_that_allows_one_disruption_blocks_the_what_if_search() -> None:
    """Two victims are needed; a budget over all three allows one. Where kube-scheduler
    does not preempt for the group (1.36 without the WorkloadAwarePreemption gate), the
    what-if search stays within budgets."""
    budget = DisruptionBudget("default", "all", LabelSelector(), 1)
    assert "evict" not in kinds(eviction_case(budgets=(budget,), version="1.36"))


def test_upstream_preemption_breaks_a_budget_as_a_last_resort() -> None:
    """1.38's workload-aware preemption (upstream ``FilterVictimsWithPDBViolation``):
    budget-violating victims are reprieved first, never protected. The budget is spent in
    order of importance: v1 (priority 10, smaller name: neither has a start time or UID)
    takes its one disruption, v2 and v3 would break it. v2 is put back first and fits next
    to the pod placed on n2; v3 then does not, nor v1 on n1: v1 and v3 go, v3 beyond the
    budget."""
    budget = DisruptionBudget("default", "all", LabelSelector(), 1)
    s = only(eviction_case(budgets=(budget,), version="1.38"), "evict")
    assert s.details["upstream"] is True
    assert [v["pod"] for v in s.details["victims"]] == ["default/v1", "default/v3"]
    assert s.details["pdbViolations"] == 1


def test_before_1_38_an_empty_selector_budget_is_not_spent() -> None:
    """1.36 and 1.37 skip budgets whose selector is empty and pods without labels when
    they spend budgets (the checks PR kubernetes#141785 removed for 1.38): the same budget
    breaks nothing there."""
    budget = DisruptionBudget("default", "all", LabelSelector(), 1)
    s = only(eviction_case(budgets=(budget,), version="1.37"), "evict")
    assert [v["pod"] for v in s.details["victims"]] == ["default/v1", "default/v3"]
    assert s.details["pdbViolations"] == 0


def test_pdb_on_other_pods_does_not_matter() -> None:
    only_v2 = LabelSelector((Requirement("app", "In", ("v2",)),))
    budget = DisruptionBudget("default", "v2-only", only_v2, 0)
    s = only(eviction_case(budgets=(budget,)), "evict")
    assert s.cost == {"podsEvicted": 2}


def test_never_evicts_the_groups_own_pods() -> None:
    """The group's running member pg-run on n2 pins it to r1; it is never a candidate (it
    has the group's priority), so only v1 (first of v1/v2 by name) is evicted."""
    nodes = rack("r1", "n1", "n2") + rack("r2", "m1")
    group = make_group(min_count=3, priority=100)
    running = make_pod("pg-run", node="n2", group=group.key, priority=100)
    pods = [make_pod("v1", node="n1", priority=10), make_pod("v2", node="n2", priority=10),
            running, *gang_pods(group, 2)]
    s = only(explained(snapshot(nodes, pods, [group])), "evict")
    assert [v["pod"] for v in s.details["victims"]] == ["default/v1"]
    assert s.minimal


def costly_preemption_case():
    """r1: n1, n2 (2 cpu, a 2-cpu pod of priority 10 each); r2: m1 (4 cpu, a 3-cpu pod of
    priority 10), m2 (4 cpu, a 2-cpu pod of priority 1000). A gang of two 2-cpu pods at
    priority 100, rack by rack. On the cluster cleared of every lower-priority pod, r1 is
    the fuller placement (4/4 cpu against 6/8): MostAllocated scores it best, so upstream's
    preemption keeps r1 and evicts both of its pods. Evicting low3 alone opens r2."""
    nodes = rack("r1", "n1", "n2") + rack("r2", "m1", "m2", cpu=4)
    group = make_group(min_count=2, priority=100)
    pods = [make_pod("low1", 2, node="n1", priority=10),
            make_pod("low2", 2, node="n2", priority=10),
            make_pod("low3", 3, node="m1", priority=10),
            make_pod("keep", 2, node="m2", priority=1000), *gang_pods(group, 2, 2, priority=100)]
    return snapshot(nodes, pods, [group])


@pytest.mark.parametrize("version", ["1.37", "1.38"])
def test_the_fewest_evictions_next_to_what_preemption_will_do(version: str) -> None:
    """kube-scheduler's workload-aware preemption (podgrouppreemption.go @00f22436,
    ``selectVictimsOnDomain``: clear every lower-priority victim, run the group's algorithm
    once, reprieve) evicts low1 and low2 for r1; the fewest evictions that make the group
    fit are low3 alone, in r2, verified by re-planning. explain shows both, upstream's
    first (what will happen), marked no longer minimal."""
    snap = costly_preemption_case()
    e = explain(snap, target=release(snap, version)).explanations["default/pg"]
    upstream, by_hand = [s for s in e.suggestions if s.kind == "evict"]
    assert upstream.details["upstream"] is True and not upstream.minimal
    assert [v["pod"] for v in upstream.details["victims"]] == ["default/low1", "default/low2"]
    assert (upstream.details["domain"], upstream.cost) == ("r1", {"podsEvicted": 2})
    assert [v["pod"] for v in by_hand.details["victims"]] == ["default/low3"]
    assert (by_hand.details["domain"], by_hand.cost, by_hand.minimal) == (
        "r2", {"podsEvicted": 1}, True)
    assert by_hand.details["upstreamEvicts"] == 2
    assert by_hand.change.endswith("(by hand: fewer than the 2 kube-scheduler's own "
                                   "preemption evicts)")
    assert (by_hand.result.schedulable, by_hand.result.selected) == (True, "r2")


def test_no_second_eviction_when_preemption_takes_the_fewest() -> None:
    """Where upstream's victims are already the fewest (eviction_case: 2 either way), one
    suggestion."""
    s = only(eviction_case(version="1.38"), "evict")
    assert s.details["upstream"] is True and "upstreamEvicts" not in s.details


# --------------------------------------------------------------------------- constraints

def test_missing_toleration() -> None:
    """r1's two nodes are tainted, r2's one node holds 2 of the 4 pods. Tolerating the
    taint opens r1 (4 pods); adding one node like c1 to r2 also works."""
    nodes = [make_node(n, labels={"rack": "r1"}, taints=(GPU_TAINT,)) for n in ("t1", "t2")]
    nodes.append(make_node("c1", labels={"rack": "r2"}))
    group = make_group(min_count=4)
    e = explained(snapshot(nodes, gang_pods(group, 4), [group]))
    s = only(e, "toleration")
    assert s.details == {"taint": "gpu=present:NoSchedule", "nodes": 2}
    assert s.result.selected == "r1"
    assert "toleration {key: gpu, operator: Equal, value: present" in s.change
    assert only(e, "addNodes").details["template"] == "c1"
    assert e.domains[1].name == "r1"
    assert e.domains[1].excluded == {"node(s) had untolerated taint {gpu: present}": 2}


def test_no_nodes_added_where_a_taint_excludes_every_node() -> None:
    nodes = [make_node(n, labels={"rack": r}, taints=(GPU_TAINT,))
             for n, r in (("t1", "r1"), ("t2", "r1"), ("t3", "r2"))]
    group = make_group(min_count=2)
    e = explained(snapshot(nodes, gang_pods(group, 2), [group]))
    assert "addNodes" not in kinds(e)
    # Both racks hold 2 once tolerated; placement scoring (MostAllocated) prefers the fuller.
    assert only(e, "toleration").result.selected == "r2"


def test_toleration_not_offered_when_capacity_is_still_short() -> None:
    """Tolerating the taint opens one more 2-cpu node: 4 cpu in r1 for 5 pods."""
    nodes = [make_node("t1", labels={"rack": "r1"}, taints=(GPU_TAINT,)),
             make_node("c1", labels={"rack": "r1"})]
    group = make_group(min_count=5)
    e = explained(snapshot(nodes, gang_pods(group, 5), [group]))
    assert "toleration" not in kinds(e)


def test_tolerated_taints_are_not_suggested() -> None:
    nodes = [make_node("t1", labels={"rack": "r1"}, taints=(GPU_TAINT,))]
    group = make_group(min_count=3)
    pods = gang_pods(group, 3, tolerations=(Toleration("gpu", "Exists", "", "NoSchedule"),))
    e = explained(snapshot(nodes, pods, [group]))
    assert "toleration" not in kinds(e)


def test_node_selector_that_excludes_the_capacity() -> None:
    """The pods want disk=ssd; only n1 (r1) has it and holds 2 of 3; without the selector
    r2 (2 nodes) holds all 3. A copy of n1 (it carries disk=ssd) added to r1 also works."""
    nodes = [make_node("n1", labels={"rack": "r1", "disk": "ssd"}),
             make_node("m1", labels={"rack": "r2"}), make_node("m2", labels={"rack": "r2"})]
    group = make_group(min_count=3)
    e = explained(snapshot(nodes, gang_pods(group, 3, node_selector={"disk": "ssd"}),
                           [group]))
    s = only(e, "nodeSelector")
    assert s.details == {"key": "disk", "value": "ssd", "nodes": 2}
    assert s.result.selected == "r2"
    assert only(e, "addNodes").details["domain"] == "r1"


def test_no_nodes_added_where_the_selector_matches_no_node() -> None:
    nodes = rack("r1", "a1", "a2") + rack("r2", "b1")
    group = make_group(min_count=2)
    e = explained(snapshot(nodes, gang_pods(group, 2, node_selector={"disk": "ssd"}),
                           [group]))
    assert "addNodes" not in kinds(e)
    assert only(e, "nodeSelector").result.selected == "r2"  # the fuller rack, as above


# --------------------------------------------------------------------------- partial fit

def test_partly_placed_group_is_explained_against_every_pending_pod() -> None:
    """minCount 2 of 5 pods: r1 holds 4. Schedulable, but the goal is all 5."""
    nodes = rack("r1", "a1", "a2")
    group = make_group(min_count=2)
    e = explained(snapshot(nodes, gang_pods(group, 5), [group]))
    assert e.result.schedulable and e.needed == 5
    assert "minCount" not in kinds(e)
    assert only(e, "addNodes").cost == {"nodesAdded": 1}


def test_schedulable_groups_get_no_explanation() -> None:
    nodes = rack("r1", "a1", "a2")
    group = make_group(min_count=2)
    result = explain(snapshot(nodes, gang_pods(group, 2), [group]))
    assert result.explanations == {}
    assert result.schedulable


def test_explanation_leaves_the_plan_unchanged() -> None:
    """Explaining a failing group must not change what later groups get."""
    from tasplan.schedulers.planner import plan

    nodes = rack("r1", "a1", "a2") + rack("r2", "b1")
    big = make_group("big", min_count=5, priority=200)
    small = make_group("small", min_count=2, priority=100)
    snap = snapshot(nodes, [*gang_pods(big, 5), *gang_pods(small, 2)], [big, small])
    explained_plan = explain(snap).plan
    assert [(g.group.key, g.schedulable, g.selected, g.message)
            for g in explained_plan.groups] == [
        (g.group.key, g.schedulable, g.selected, g.message) for g in plan(snap).groups]


def test_fits_an_empty_cluster_for_pods_of_different_sizes() -> None:
    """Not counted (two pod classes), so each placement is simulated on empty nodes.
    Now: blocker (2 cpu) fills a2; the 1-cpu pod takes a1, the 2-cpu pod finds no node.
    Empty: a1 and a2 take one pod each."""
    nodes = rack("r1", "a1", "a2")
    group = make_group(min_count=2, priority=100)
    pods = [make_pod("blocker", 2, node="a2", priority=1000),
            make_pod("small", 1, group=group.key), make_pod("large", 2, group=group.key)]
    e = explained(snapshot(nodes, pods, [group]))
    assert e.fits_empty_cluster is True
    assert "evict" not in kinds(e)  # the blocker has the higher priority


def test_node_affinity_suggestion_names_the_requirement_it_drops() -> None:
    """Required affinity: disk In [ssd] AND zone In [z1, z2]. Only n1 (r1) has disk=ssd and
    holds 2 of 3; dropping the disk requirement (the zone one stays) lets r2 hold all 3,
    dropping the zone requirement does not help."""
    from tasplan.model.selectors import NodeSelectorTerm

    nodes = [make_node("n1", labels={"rack": "r1", "disk": "ssd", "zone": "z1"}),
             make_node("m1", labels={"rack": "r2", "zone": "z2"}),
             make_node("m2", labels={"rack": "r2", "zone": "z2"})]
    disk = Requirement("disk", "In", ("ssd",))
    zone = Requirement("zone", "In", ("z1", "z2"))
    group = make_group(min_count=3)
    pods = [replace(p, required_terms=(NodeSelectorTerm((disk, zone)),))
            for p in gang_pods(group, 3)]
    e = explained(snapshot(nodes, pods, [group]))
    s = only(e, "nodeAffinity")
    assert s.details == {"term": 0, "requirement": "disk In [ssd]", "nodes": 2}
    assert "disk In [ssd] (nodeSelectorTerms[0]" in s.change
    assert s.result.selected == "r2"


def test_excluded_counts_pod_slots_full_before_the_group_only() -> None:
    """Node a (2 slots) is filled by the group itself; node b's only slot was taken
    already. Only b is excluded for "Too many pods"."""
    nodes = [make_node("a", labels={"rack": "r1"}, pods=2),
             make_node("b", labels={"rack": "r1"}, pods=1)]
    busy = make_pod("busy", 0, node="b")
    group = make_group(min_count=4)
    e = explained(snapshot(nodes, [busy, *gang_pods(group, 4)], [group]))
    (domain,) = e.domains
    assert domain.excluded == {"Too many pods": 1}
