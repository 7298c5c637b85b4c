"""Victims as upstream builds, orders and spends budgets on them, table by table from
kubernetes/kubernetes ``pkg/scheduler/framework/preemption``:

- ``util_test.go`` (read at 07e8c0a6d8926658cdc4a41a3ca87bc01d5b99a1):
  ``TestMoreImportantVictim``, ``TestLessByStartTimeThenIdentity``,
  ``TestFilterVictimsWithPDBViolation``, ``TestGetPodPriority``;
- ``types_test.go`` (read at 82187d514ada1588e4671aeb2e3c75e6a037b537):
  ``TestNewDomainForWorkloadPreemption``.

Upstream builds ``victim`` structs directly (priority, type, pods, earliest start); here
the same victims come out of ``units`` from pods and groups, which also tests how their
priority and type are derived. ``now`` and ``before`` are upstream's Unix 1000 and 500.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tasplan.framework.node_info import NodeInfo
from tasplan.model.composite import CompositePodGroup
from tasplan.model.group import Policy
from tasplan.model.pod_affinity import LabelSelector
from tasplan.model.selectors import Requirement
from tasplan.preemption.budgets import DisruptionBudget
from tasplan.preemption.victims import (
    COMPOSITE,
    POD,
    POD_GROUP,
    Hierarchy,
    Unit,
    reprieve_order,
    units,
)
from tests.builders import WORKLOAD, make_group, make_node, make_pod

NOW, BEFORE = "1970-01-01T00:16:40Z", "1970-01-01T00:08:20Z"


def victim(priority: int, kind: str, size: int = 1, start: str = "", uid: str = "") -> Unit:
    """An upstream ``victim{priority, keyType, pods, earliestStartTime}``: ``size`` pods
    (the first carries the start time and UID); a whole group when it has a kind."""
    pods = tuple((make_pod(f"p{i}", node="n1", priority=priority,
                           group=None if kind == POD else "default/pg"), 0)
                 for i in range(size))
    first = replace(pods[0][0], start_time=start, uid=uid)
    pods = ((first, 0), *pods[1:])
    return Unit(pods, priority, kind, None if kind == POD else f"default/{kind}")


def more_important(a: Unit, b: Unit) -> bool:
    """Upstream ``MoreImportantVictim(a, b)``: a sorts strictly before b."""
    return a.importance < b.importance and a.decided(True) != b.decided(True)


@pytest.mark.parametrize(("vi1", "vi2", "want"), [
    (victim(20, POD), victim(10, POD), True),  # vi1 has higher priority
    (victim(10, POD), victim(20, POD), False),  # vi2 has higher priority
    (victim(10, POD_GROUP), victim(10, POD), True),  # vi1 is PG, vi2 is Pod, same priority
    (victim(10, POD), victim(10, POD_GROUP), False),  # vi1 is Pod, vi2 is PG
    (victim(10, POD, start=BEFORE), victim(10, POD, start=NOW), True),  # both Pods, vi1 older
    (victim(10, POD, start=NOW), victim(10, POD, start=BEFORE), False),  # vi2 older
    (victim(10, POD_GROUP, 2), victim(10, POD_GROUP, 1), True),  # both PGs, vi1 larger
    (victim(10, POD_GROUP, 1), victim(10, POD_GROUP, 2), False),  # vi2 larger
    (victim(10, POD_GROUP, 2, BEFORE), victim(10, POD_GROUP, 2, NOW), True),  # same size, older
    (victim(10, POD_GROUP, 2, NOW), victim(10, POD_GROUP, 2, BEFORE), False),
    (victim(10, COMPOSITE), victim(10, POD), True),  # CPG vs Pod (CPG wins)
    (victim(10, POD), victim(10, COMPOSITE), False),
    (victim(10, COMPOSITE), victim(10, POD_GROUP), True),  # CPG vs PG (CPG wins)
    (victim(10, POD_GROUP), victim(10, COMPOSITE), False),
    (victim(10, COMPOSITE), victim(20, POD_GROUP), False),  # higher priority wins over rank
    (victim(20, POD_GROUP), victim(10, COMPOSITE), True),
    # CPG smaller size: rank wins over size; CPG newer: rank wins over start time
    (victim(10, COMPOSITE, 1), victim(10, POD_GROUP, 2), True),
    (victim(10, COMPOSITE, 1, NOW), victim(10, POD_GROUP, 1, BEFORE), True),
    (victim(10, COMPOSITE, 2), victim(10, COMPOSITE, 1), True),  # both CPGs, larger wins
    (victim(10, COMPOSITE, 1), victim(10, COMPOSITE, 2), False),
    (victim(10, COMPOSITE, 1, BEFORE), victim(10, COMPOSITE, 1, NOW), True),  # older wins
    (victim(10, COMPOSITE, 1, NOW), victim(10, COMPOSITE, 1, BEFORE), False),
], ids=["vi1 has higher priority", "vi2 has higher priority", "vi1 is PG, vi2 is Pod",
        "vi1 is Pod, vi2 is PG", "both Pods, vi1 older", "both Pods, vi2 older",
        "both PGs, vi1 larger", "both PGs, vi2 larger", "both PGs, same size, vi1 older",
        "both PGs, same size, vi2 older", "CPG vs Pod", "Pod vs CPG", "CPG vs PG", "PG vs CPG",
        "CPG vs PG, PG higher priority", "PG vs CPG, PG higher priority",
        "CPG vs PG, CPG smaller size", "CPG vs PG, CPG newer start time",
        "both CPGs, vi1 larger", "both CPGs, vi2 larger", "both CPGs, same size, vi1 older",
        "both CPGs, same size, vi2 older"])
def test_more_important_victim(vi1: Unit, vi2: Unit, want: bool) -> None:
    """``TestMoreImportantVictim``."""
    assert more_important(vi1, vi2) is want


@pytest.mark.parametrize(("vi1", "vi2", "want"), [
    (victim(0, POD, start=BEFORE, uid="uid-a"), victim(0, POD, start=NOW, uid="uid-b"), True),
    (victim(0, POD, start=NOW, uid="uid-a"), victim(0, POD, start=BEFORE, uid="uid-b"), False),
    (victim(0, POD, start=NOW, uid="aaa"), victim(0, POD, start=NOW, uid="zzz"), True),
    (victim(0, POD, start=NOW, uid="zzz"), victim(0, POD, start=NOW, uid="aaa"), False),
    (victim(0, POD, start=NOW, uid="same-uid"), victim(0, POD, start=NOW, uid="same-uid"), False),
    (victim(0, POD, uid="aaa"), victim(0, POD, uid="zzz"), True),  # not started: by UID
], ids=["earlier start time wins", "later start time loses", "equal start, lower UID wins",
        "equal start, higher UID loses", "equal start, equal UID", "no start times, UID"])
def test_less_by_start_time_then_identity(vi1: Unit, vi2: Unit, want: bool) -> None:
    """``TestLessByStartTimeThenIdentity`` (1.38: PR kubernetes#140999)."""
    assert more_important(vi1, vi2) is want


def test_a_started_pod_outranks_one_not_started_yet() -> None:
    """PR kubernetes#139210 (1.37+): a pod without ``status.startTime`` counts as started
    at a fixed far-future time, newer than any that started, whatever its UID."""
    started = victim(0, POD, start="2999-01-01T00:00:00Z", uid="zzz")
    assert more_important(started, victim(0, POD, uid="aaa"))


def test_the_start_time_is_compared_as_a_time_not_as_text() -> None:
    """One instant written with an offset, one in UTC: 10:00+02:00 is 08:00Z."""
    assert more_important(victim(0, POD, start="2026-03-01T10:00:00+02:00"),
                          victim(0, POD, start="2026-03-01T09:00:00Z"))


def test_a_units_start_is_its_earliest_pod() -> None:
    pods = tuple((replace(make_pod(f"p{i}", node="n1"), start_time=t), 0)
                 for i, t in enumerate(["", NOW, BEFORE]))
    assert Unit(pods, 0, POD_GROUP, "default/pg").start == (500, 0)


# --------------------------------------------------------------------------------- budgets

APP_FOO = LabelSelector((Requirement("app", "In", ("foo",)),))


def budget(selector: LabelSelector | None, allowed: int, name: str = "pdb",
           disrupted: frozenset[str] = frozenset()) -> DisruptionBudget:
    return DisruptionBudget("default", name, selector, allowed, disrupted)


def labelled(name: str, **labels: str) -> Unit:
    pod = replace(make_pod(name, node="n1", priority=0), labels=labels)
    return Unit(((pod, 0),), 0, POD)


def group_of(*names: str) -> Unit:
    pods = tuple((replace(make_pod(n, node="n1", priority=0, group="default/pg"),
                          labels={"app": "foo"}), 0) for n in names)
    return Unit(pods, 0, POD_GROUP, "default/pg")


P1, P2 = labelled("p1", app="foo"), labelled("p2", app="foo")
OTHER_NS = Unit(((replace(make_pod("p1", node="n1", namespace="other", priority=0),
                          labels={"app": "foo"}), 0),), 0, POD)
GROUP = group_of("p1", "p2")
NO_LABELS = labelled("p1")
TWO_LABELS = labelled("p1", app="foo", tier="backend")


@pytest.mark.parametrize(("victims", "budgets", "violating", "non_violating"), [
    ([], [], [], []),
    ([OTHER_NS], [budget(LabelSelector((Requirement("app", "In", ("bar",)),)), 0)], [],
     [OTHER_NS]),
    ([P1], [budget(APP_FOO, 1)], [], [P1]),
    ([P1], [budget(APP_FOO, 0)], [(P1, 1)], []),
    ([GROUP], [budget(APP_FOO, 0)], [(GROUP, 2)], []),
    ([GROUP], [budget(APP_FOO, 2)], [], [GROUP]),
    ([P1, P2], [budget(APP_FOO, 1)], [(P2, 1)], [P1]),
    ([P1], [budget(APP_FOO, 0, disrupted=frozenset({"p1"}))], [], [P1]),
    ([P1], [budget(LabelSelector(), 0)], [(P1, 1)], []),
    ([P1], [budget(None, 0)], [], [P1]),
    ([NO_LABELS], [budget(LabelSelector((Requirement("app", "DoesNotExist", ()),)), 0)],
     [(NO_LABELS, 1)], []),
    ([TWO_LABELS], [budget(APP_FOO, 1, "a"),
                    budget(LabelSelector((Requirement("tier", "In", ("backend",)),)), 0, "b")],
     [(TWO_LABELS, 1)], []),
], ids=["no victims, no PDBs", "victim with no matching PDBs",
        "victim matching PDB, adequate DisruptionsAllowed",
        "victim matching PDB, no DisruptionsAllowed",
        "podgroup victim with multiple pods, all violating",
        "podgroup victim with multiple pods, none violating",
        "multiple victims matching the same PDB", "pod in DisruptedPods is ignored",
        "PDB with empty selector", "PDB with nil selector", "unlabeled victim matching PDB",
        "Multiple PDBs"])
def test_filter_victims_with_pdb_violation(victims, budgets, violating, non_violating) -> None:
    """``TestFilterVictimsWithPDBViolation`` (1.38). ("victim with no matching PDBs": the
    upstream victim has no namespace, the budget "default"; here another namespace.)"""
    ordered = reprieve_order(victims, budgets)
    assert [(u, n) for u, n in ordered if n] == violating
    assert [u for u, n in ordered if not n] == non_violating


@pytest.mark.parametrize(("victims", "budgets"), [
    ([P1], [budget(LabelSelector(), 0)]),
    ([NO_LABELS], [budget(LabelSelector((Requirement("app", "DoesNotExist", ()),)), 0)]),
], ids=["PDB with empty selector", "unlabeled victim matching PDB"])
def test_before_1_38_empty_selectors_and_unlabelled_pods_spend_nothing(victims, budgets
                                                                      ) -> None:
    """The two rows PR kubernetes#141785 changed: 1.36 and 1.37 skip budgets with an empty
    selector and pods without labels."""
    assert reprieve_order(victims, budgets, legacy_selectors=True) == [(victims[0], 0)]


def test_a_violating_pod_spends_no_later_budget() -> None:
    """A pod that breaks the first budget it meets is violating at once: the budgets after
    it are not spent (``podIsViolating`` returns), so the next pod still fits them."""
    a, b = labelled("a", app="foo", tier="x"), labelled("b", tier="x")
    tier = LabelSelector((Requirement("tier", "In", ("x",)),))
    ordered = reprieve_order([a, b], [budget(APP_FOO, 0, "foo"), budget(tier, 1, "tier")])
    assert ordered == [(a, 1), (b, 0)]


def test_budgets_are_spent_in_order_of_importance() -> None:
    """Sorted first (priority, then start time), spent after: the older pod takes the one
    disruption, the newer one breaks the budget, whatever the input order."""
    old = replace(labelled("z-old", app="foo"), pods=((replace(
        P1.pods[0][0], name="z-old", start_time=BEFORE), 0),))
    new = replace(labelled("a-new", app="foo"), pods=((replace(
        P1.pods[0][0], name="a-new", start_time=NOW), 0),))
    assert reprieve_order([new, old], [budget(APP_FOO, 1)]) == [(new, 1), (old, 0)]


# ------------------------------------------------------------------------------- priority

def pg(name: str, priority: int | None = None, parent: str | None = None, all_=False):
    group = replace(make_group(name, min_count=1, key=None, priority=priority),
                    planned=False, disrupt_all=all_)
    return replace(group, parent=f"default/{parent}") if parent else group


def cpg(name: str, priority: int | None = None, parent: str | None = None,
        all_: bool = False) -> CompositePodGroup:
    return CompositePodGroup(f"default/{name}", "default", name, Policy.BASIC, 1, None,
                             f"default/{parent}" if parent else None, "wl", "t",
                             "scheduling.k8s.io/v1alpha3", WORKLOAD, 0, priority,
                             disrupt_all=all_)


def member(group: str | None, priority: int = 10):
    return make_pod("p", node="n1", priority=priority,
                    group=f"default/{group}" if group else None)


@pytest.mark.parametrize(("pod", "groups", "composites", "want"), [
    (member(None), [], None, 10),
    (member("pg1"), [pg("pg1", 50)], None, 50),
    (member("missing-pg", 30), [], [], 30),
    (member(None, 0), [], None, 0),
    (member("pg1"), [pg("pg1", parent="cpg1")], [cpg("cpg1", 150)], 150),
    (member("pg1"), [pg("pg1", parent="cpg1")], [cpg("cpg1", parent="cpg2"),
                                                 cpg("cpg2", 250)], 250),
    (member("pg1"), [pg("pg1", 50, parent="cpg1")], None, 50),
    (member("pg1"), [pg("pg1", 50, parent="cpg1")], [], 50),
    (member("pg1"), [pg("pg1", 50, parent="cpg1")], [cpg("cpg1", 150, "missing-cpg2")], 150),
], ids=["pod without PodGroup returns pod priority",
        "pod with PodGroup returns PodGroup priority instead of pod priority",
        "PodGroup not found falls back to pod priority",
        "pod with nil priority and without PodGroup returns zero priority",
        "pod with PodGroup and parent CPG, returns CPG priority",
        "grandparent CPG priority",
        "nil compositePodGroupLister falls back to PodGroup priority",
        "parent CPG not found falls back to PodGroup priority",
        "grandparent CPG not found falls back to parent CPG priority"])
def test_get_pod_priority(pod, groups, composites, want) -> None:
    """``TestGetPodPriority``; ``None`` composites: the CompositePodGroup gate is off (no
    composite lister upstream)."""
    hierarchy = Hierarchy({g.key: g for g in groups}, composites or ())
    assert hierarchy.priority(pod) == want


# ---------------------------------------------------------------------------------- units

def found(pods, groups, composites=()) -> set[tuple]:
    nodes = {p.node_name for p in pods}
    infos = [NodeInfo(make_node(n, 8), i) for i, n in enumerate(sorted(nodes))]
    by_name = {info.name: info for info in infos}
    for p in pods:
        by_name[p.node_name].add_pod(p)
    return {(frozenset(p.name for p, _ in u.pods), frozenset(infos[i].name for _, i in u.pods),
             u.priority, u.kind)
            for u in units(infos, Hierarchy({g.key: g for g in groups}, composites))}


def on(name: str, node: str, priority: int, group: str | None = None):
    return make_pod(name, node=node, priority=priority,
                    group=f"default/{group}" if group else None)


@pytest.mark.parametrize(("pods", "groups", "want"), [
    ([], [], []),
    ([on("p1", "node1", 10), on("p2", "node2", 20)], [],
     [({"p1"}, {"node1"}, 10, POD), ({"p2"}, {"node2"}, 20, POD)]),
    ([on("p1", "node1", 10, "pg1"), on("p2", "node2", 10, "pg1")], [pg("pg1", 50, all_=True)],
     [({"p1", "p2"}, {"node1", "node2"}, 50, POD_GROUP)]),
    ([on("p1", "node1", 10, "pg1"), on("p2", "node2", 20, "pg1")], [pg("pg1", 50)],
     [({"p1"}, {"node1"}, 50, POD_GROUP), ({"p2"}, {"node2"}, 50, POD_GROUP)]),
    ([on("p1", "node1", 10, "pg1"), on("p2", "node2", 10, "pg1"), on("p3", "node1", 20, "pg2"),
      on("p4", "node2", 30)], [pg("pg1", 50, all_=True), pg("pg2", 60)],
     [({"p1", "p2"}, {"node1", "node2"}, 50, POD_GROUP), ({"p3"}, {"node1"}, 60, POD_GROUP),
      ({"p4"}, {"node2"}, 30, POD)]),
], ids=["no pods", "pods without pod groups", "pods with pod group (DisruptionModePodGroup)",
        "pods with pod group (DisruptionModePod)", "mix of pod groups and individual pods"])
def test_new_domain_for_workload_preemption(pods, groups, want) -> None:
    """``TestNewDomainForWorkloadPreemption``: each victim's pods, nodes and priority; its
    kind as ``NewPodVictim`` types it in main (a pod alone of a pod group is PodGroup-typed:
    it ranks above a lone pod of equal priority)."""
    assert found(pods, groups) == {(frozenset(p), frozenset(n), pr, k) for p, n, pr, k in want}


def test_a_composite_unit_is_composite_typed_with_the_roots_priority() -> None:
    """``getCrossNodesVictims`` with the composite lister: the highest all link bounds
    the unit and names its type; the priority is the root's (``getPodPriority``)."""
    composites = [cpg("root", 70), cpg("mid", parent="root", all_=True)]
    groups = [pg("a", parent="mid"), pg("b", parent="mid")]
    pods = [on("a0", "node1", 1, "a"), on("b0", "node2", 1, "b")]
    assert found(pods, groups, composites) == {
        (frozenset({"a0", "b0"}), frozenset({"node1", "node2"}), 70, COMPOSITE)}
    # Without the gate there is no composite lister: PodGroups alone, their own priority.
    assert found(pods, groups) == {(frozenset({"a0"}), frozenset({"node1"}), 0, POD_GROUP),
                                   (frozenset({"b0"}), frozenset({"node2"}), 0, POD_GROUP)}


def test_groups_tasplan_made_up_are_not_pod_groups_to_the_scheduler() -> None:
    """A Job's running pods that tasplan grouped with the Job have no schedulingGroup: the
    scheduler sees lone pods of their own priority."""
    job = replace(pg("job"), kind="Job", priority=None)
    assert found([on("j0", "node1", 5, "job")], [job]) == {
        (frozenset({"j0"}), frozenset({"node1"}), 5, POD)}
