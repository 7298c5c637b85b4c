"""What the report says of a CompositePodGroup tree's groups (issue 24): every tree entry has
an ``outcome``; groups held back before any cycle are ``waiting``; a group that will not be
bound has no ``selected`` placement and no assignments (its cycle's choice is ``closest``);
the "upstream would next try preemption" note only where upstream preempts (a failed root).

Upstream behaviour mirrored, case by case:
- readiness (PreEnqueue): ``TestHierarchyTracker_FindRootGroupReadiness`` in
  pkg/scheduler/framework/plugins/gangscheduling/hierarchy_tracker_test.go (read at file id
  68364192272, kubernetes/kubernetes main): a leaf's readiness is its ROOT's; a root short
  of minGroupCount ready children keeps the whole tree pending; a dangling parent finds no
  root (pending); a cycle is an error.
- binding: ``successfulLeafResults`` in pkg/scheduler/algorithm_podgroup.go (@1ff291df): a
  leaf is assumed only when every ancestor succeeded; ``TestCPGStatusConditions_
  HierarchicalDiagnostics`` and ``TestCPGGangWithBasicChildren`` in
  test/integration/scheduler/podgroup/cpg_test.go (@16457a8a).
- preemption: PodGroupPostFilter runs for a tree only when the ROOT is unschedulable
  (schedule_one_podgroup.go, main); ``TestCPGMinGroupCount`` (cpg_test.go).
"""

from __future__ import annotations

import json

from rich.console import Console

from tasplan.plan.notes import NoteCode
from tasplan.plan.result import PlanResult
from tasplan.report.document import plan_document
from tasplan.report.picture.plan_page import plan_html
from tasplan.report.table import render_plan
from tasplan.schedulers.planner import plan
from tests.composite.helpers import cluster, composite, leaf, tree_snapshot
from tests.composite.test_upstream_cpg import pods
from tests.composite.test_upstream_cpg import run as cpg_run
from tests.composite.test_upstream_cpg_tas import (
    Case,
    build,
    low,
    node,
    three_level,
)
from tests.realworld.test_schemas import REPORT, errors


def docs(result: PlanResult) -> dict[str, dict]:
    """The report's entries by name; each report is checked against the published schema."""
    doc = json.loads(json.dumps(plan_document(result)))
    assert errors(REPORT, doc) == []
    return {d["name"]: d for d in doc["groups"]}


def outcomes(result: PlanResult) -> dict[str, str]:
    return {name.removeprefix("default/"): d["outcome"] for name, d in docs(result).items()}


def text(result: PlanResult, **kw) -> str:
    console = Console(width=200, record=True, force_terminal=False)
    for part in render_plan(result, **kw):
        console.print(part)
    return console.export_text()


# -- outcome of every tree entry --------------------------------------------------------

def test_a_scheduled_tree_says_scheduled() -> None:
    result = plan(tree_snapshot(cluster(b1={"r1": 2, "r2": 2}), [composite("job", min_groups=2)],
                                [leaf("a", "job"), leaf("b", "job")]))
    assert outcomes(result) == {"job": "scheduled", "a": "scheduled", "b": "scheduled"}
    assert docs(result)["default/job"]["closest"] is None


def test_a_tree_that_fails_says_unschedulable() -> None:
    """minGroupCount 3 with room for 2 (``test_tree_is_all_or_nothing``)."""
    result = plan(tree_snapshot(cluster(b1={"r1": 2, "r2": 2}), [composite("job", min_groups=3)],
                                [leaf("a", "job"), leaf("b", "job"), leaf("c", "job")]))
    assert outcomes(result) == {"job": "unschedulable", "a": "unschedulable",
                                "b": "unschedulable", "c": "unschedulable"}
    assert not result.schedulable


def test_a_tree_after_preemption_says_so_at_every_level() -> None:
    """``TestCPGTopologyAwareSchedulingWorkloadAwarePreemption`` "three levels, all
    constrained" (cpg_tas_test.go): the root preempts for the whole tree; the inner
    composites and the leaves the re-plan placed bind with it once the victims are gone,
    so each is ``scheduled-after-preemption`` (the inner composites were reported
    ``unschedulable`` before, and the plan as a whole not schedulable)."""
    nodes = [node(f"n{i}", f"rack-{(i + 1) // 2}", "zone-1") for i in range(1, 5)]
    composites, leaves = three_level("zone", ("rack", 1), None)
    case = Case(nodes, composites, leaves, [(f"p{i}", f"pg{(i + 1) // 2}") for i in range(1, 9)],
                [low(f"low{i}", f"n{i}") for i in range(1, 5)])
    result = plan(build(case))
    assert set(outcomes(result).values()) == {"scheduled-after-preemption"}
    root = next(c for c in result.composites if c.composite.parent is None)
    assert root.preemption is not None and len(root.preemption.victims) == 4
    assert result.schedulable
    assert "✗" not in text(result)  # the tree view: every group binds once victims are gone


def test_an_invalid_tree_says_error() -> None:
    """"Hierarchy cycle exceeding max tree depth returns error"."""
    nodes = cluster(b1={"r1": 2})
    a = composite("a", parent="b")
    b = composite("b", parent="a")
    result = plan(tree_snapshot(nodes, [a, b], [leaf("x", "a")]))
    assert set(outcomes(result).values()) == {"error"}


# -- waiting ---------------------------------------------------------------------------

def test_a_tree_short_of_its_quorum_waits_as_a_whole() -> None:
    """"Leaf PodGroup returns root CompositePodGroup when CPG enabled": root-cpg
    (minGroupCount 2) over mid-cpg (2) over pg1, pg2 (minCount 2, two pods each): mid-cpg
    is ready, so root-cpg has 1 ready child of 2, and every pod of the tree waits in
    PreEnqueue: no group reached a cycle, none is ``unschedulable``."""
    nodes = cluster(b1={"r1": 6})
    root = composite("root-cpg", min_groups=2, key=None)
    mid = composite("mid-cpg", min_groups=2, key=None, parent="root-cpg")
    leaves = [leaf("pg1", "mid-cpg", key=None), leaf("pg2", "mid-cpg", key=None)]
    result = plan(tree_snapshot(nodes, [root, mid], leaves))
    assert outcomes(result) == dict.fromkeys(("root-cpg", "mid-cpg", "pg1", "pg2"), "waiting")
    assert all(d["selected"] is None and d["closest"] is None for d in docs(result).values())
    # The same tree with a second ready child of the root is planned.
    other = leaf("pg3", "root-cpg", key=None)
    result = plan(tree_snapshot(nodes, [root, mid], [*leaves, other]))
    assert set(outcomes(result).values()) == {"scheduled"}


def test_a_child_lacking_pods_holds_the_tree_and_waits() -> None:
    """A gang child with 1 of its 2 pods keeps its root (minGroupCount 2) short: both
    children and the root wait; with minGroupCount 1 the ready child is planned and the
    one still lacking pods is the only one waiting."""
    nodes = cluster(b1={"r1": 2, "r2": 2})
    leaves = [leaf("a", "job"), leaf("b", "job", pods=1)]
    held = plan(tree_snapshot(nodes, [composite("job", min_groups=2)], leaves))
    assert outcomes(held) == {"job": "waiting", "a": "waiting", "b": "waiting"}
    assert "meet quorum" in docs(held)["default/job"]["message"]
    admitted = plan(tree_snapshot(nodes, [composite("job", min_groups=1)], leaves))
    assert outcomes(admitted)["a"] == "scheduled"


def test_a_dangling_parent_keeps_the_hierarchy_waiting() -> None:
    """"PodGroup with dangling parent returns nil without error when CPG enabled": no root
    is found, the pods stay pending (``validateHierarchy``: not found in workload
    forest): ``waiting``, not ``error``."""
    result = plan(tree_snapshot(cluster(b1={"r1": 2}), [], [leaf("a", "ghost")]))
    g = docs(result)["default/a"]
    assert (g["outcome"], g["error"]) == ("waiting", False)
    assert "not found in workload forest" in g["message"]


# -- a group that will not be bound ----------------------------------------------------

def test_a_leaf_of_a_failed_tree_has_no_selected_placement() -> None:
    """``TestCPGStatusConditions_HierarchicalDiagnostics``: pg1 fits on its own, but its
    parent cpg-sub1 fails (pg2 does not fit), so the root fails and nothing is bound. pg1's
    cycle chose a placement: it is ``closest``, never ``selected``; no placement of pg1
    lists assignments (a script reading them would see pods that never bind)."""
    composites = [("cpg-root", None, None, 2), ("cpg-sub1", "cpg-root", None, 2),
                  ("cpg-sub2", "cpg-root", None, 2)]
    leaves = [("pg1", "cpg-sub1", None, 2), ("pg2", "cpg-sub1", None, 2),
              ("pg3", "cpg-sub2", None, 2), ("pg4", "cpg-sub2", None, 2)]
    specs = pods("pg1", 1, 1) + pods("pg2", 100, 100) + pods("pg3", 1, 1) + pods("pg4", 1, 1)
    result = cpg_run(4, composites, leaves, specs)
    pg1 = next(g for g in result.groups if g.group.key == "default/pg1")
    assert (pg1.schedulable, pg1.selected, pg1.closest) == (False, None, "*")
    assert pg1.selected_placement is None and pg1.closest_placement.placed == 2
    doc = docs(result)["default/pg1"]
    assert (doc["outcome"], doc["selected"]) == ("unschedulable", None)
    assert doc["closest"] == {"placement": "*", "assignments": {
        "default/pg1-pod-0": "node1", "default/pg1-pod-1": "node1"}}
    assert all(p["assignments"] == {} for d in docs(result).values() if "minCount" in d
               for p in d["placements"])
    shown = text(result)
    assert "assignments in" not in shown
    assert "default/pg1 → * · 2/2 pod(s) (not bound)" in shown


def test_a_basic_child_of_a_failed_gang_root_is_not_bound() -> None:
    """``TestCPGGangWithBasicChildren`` with a root needing all three children: the basic
    children fit, the third does not, the root fails: the basic children report the
    placement they would have used as ``closest``, and no assignments, even with --all."""
    leaves = [(f"pg{i}", "cpg-root", None, None) for i in (1, 2, 3)]
    result = cpg_run(8, [("cpg-root", None, None, 3)], leaves,
                     pods("pg1", 1, 1, 1) + pods("pg2", 1, 1, 1) + pods("pg3", 10, 10, 10))
    for name in ("pg1", "pg2"):
        d = docs(result)[f"default/{name}"]
        assert (d["policy"], d["outcome"], d["selected"]) == ("basic", "unschedulable", None)
        assert d["closest"]["placement"] == "*" and len(d["closest"]["assignments"]) == 3
        assert "not bound: CompositePodGroup default/cpg-root is unschedulable" in d["message"]
    assert "assignments in" not in text(result, all_assignments=True)
    assert "Assignments in" not in plan_html(result, None, all_assignments=True)


def test_an_inner_composite_of_a_failed_tree_keeps_its_choice_as_closest() -> None:
    """A depth-3 tree whose root needs two inner composites, with room for one: the inner
    composite that fit is not bound (``closest``, no ``selected``), marked ``~`` in its
    placement table."""
    nodes = cluster(b1={"r1": 2, "r2": 1})
    root = composite("job", min_groups=2, key="block")
    mids = [composite("m1", min_groups=2, key="rack", parent="job"),
            composite("m2", min_groups=2, key="rack", parent="job")]
    leaves = [leaf(name, mid, key=None, min_count=1)
              for name, mid in (("a", "m1"), ("b", "m1"), ("c", "m2"), ("d", "m2"))]
    result = plan(tree_snapshot(nodes, [root, *mids], leaves))
    m1 = docs(result)["default/m1"]
    assert (m1["outcome"], m1["selected"], m1["closest"]) == ("unschedulable", None, "r1")
    assert docs(result)["default/job"]["outcome"] == "unschedulable"
    assert "~1" in text(result)


# -- the preemption note ---------------------------------------------------------------

def test_no_preemption_note_for_leaves_of_a_tree_that_fit() -> None:
    """``TestCPGMinGroupCount``: two of three gang children fit, the root (minGroupCount 2)
    succeeds; pg3 is unschedulable but upstream runs PodGroupPostFilter only for a failed
    root, so pg3 gets no "upstream would next try preemption" note. A standalone group
    that does not fit keeps it."""
    leaves = [(f"pg{i}", "cpg-root", None, 3) for i in (1, 2, 3)]
    specs = pods("pg1", 1, 1, 1) + pods("pg2", 1, 1, 1) + pods("pg3", 100, 1, 1)
    result = cpg_run(20, [("cpg-root", None, None, 2)], leaves, specs)
    pg3 = next(g for g in result.groups if g.group.key == "default/pg3")
    assert pg3.outcome == "unschedulable"
    assert NoteCode.PREEMPTION not in {n.code for n in pg3.notes}


def test_preemption_note_at_a_failed_root_without_preemption() -> None:
    """With preemption off (``--no-preempt``) the leaves of a failed root keep the note
    (upstream would preempt for the tree); with it on the simulation replaces it."""
    nodes = cluster(b1={"r1": 2, "r2": 2})
    snap = tree_snapshot(nodes, [composite("job", min_groups=3)],
                         [leaf("a", "job"), leaf("b", "job"), leaf("c", "job")])
    off = plan(snap, preempt=False)
    assert {NoteCode.PREEMPTION in {n.code for n in g.notes} for g in off.groups} == {True}
    on = plan(snap)
    root = next(c for c in on.composites if c.composite.parent is None)
    assert root.preemption_message  # tried, found nothing: said on the root
    assert not any(NoteCode.PREEMPTION in {n.code for n in g.notes} for g in on.groups)
