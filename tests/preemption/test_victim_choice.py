"""Which victims preemption picks, through the planner, release by release: start times
and UIDs order equally important victims (upstream ``MoreImportantVictim``), a lone pod
goes before a pod of a pod group, budgets are read as kube-scheduler reads them, and 1.36
reprieves by re-running the group's cycle.

Nodes count CPUs; every pod asks 1 CPU unless said otherwise; victims have priority 10,
the preemptor (a one-pod group without a topology constraint) 1000.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tasplan.model.disruption import PodDisruptionBudget
from tasplan.model.pod_affinity import LabelSelector
from tasplan.model.selectors import Requirement
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.result import PlanResult
from tasplan.report.picture.plan_page import plan_html
from tasplan.schedulers.planner import plan
from tests.builders import CLUSTER, gang_pods, make_group, make_node, make_pod, release, snapshot

OLD, NEW = "2026-03-01T08:00:00Z", "2026-03-01T09:00:00Z"


def running(name: str, node: str = "n1", cpu: float = 1, *, start: str = "", uid: str = "",
            group: str | None = None, labels: dict | None = None):
    pod = make_pod(name, cpu, node=node, priority=10, group=group)
    return replace(pod, start_time=start, uid=uid, labels=labels or {})


def preempt(nodes: dict[str, int], pods: list, groups=(), budgets=(), version="1.38",
            cpu: float = 1, **gates: bool):
    group = make_group("preemptor", min_count=1, key=None, priority=1000)
    snap = snapshot([make_node(n, c) for n, c in nodes.items()],
                    [*pods, *gang_pods(group, 1, cpu, priority=1000)], [group, *groups])
    if budgets:
        snap = ClusterSnapshot(snap.nodes, snap.pods, snap.groups,
                               disruption_budgets=tuple(budgets))
    g = plan(snap, target=release(snap, version, **gates)).groups[0]
    assert g.outcome == "scheduled-after-preemption", g.preemption_message
    return g


def evicted(g) -> list[str]:
    return [v.pod.removeprefix("default/") for v in g.preemption.victims]


def notes(g) -> dict[str, str]:
    return {n.code: n.message for n in g.notes}


def test_the_newer_of_two_equal_pods_goes_whatever_the_input_order() -> None:
    """A kubectl dump lists pods by name: 'a-new' first. Upstream reprieves the older
    pod first (more important), so the newer one is evicted."""
    for order in (1, -1):
        pods = [running("a-new", start=NEW), running("b-old", start=OLD)][::order]
        assert evicted(preempt({"n1": 2}, pods)) == ["a-new"]


def test_a_pod_not_started_yet_goes_before_a_started_one() -> None:
    """No ``status.startTime``: newer than every started pod (PR kubernetes#139210)."""
    g = preempt({"n1": 2}, [running("a-started", start=NEW), running("b-unstarted")])
    assert evicted(g) == ["b-unstarted"]


def test_equal_start_times_are_ordered_by_uid_in_1_38() -> None:
    """The smaller UID is more important (PR kubernetes#140999): 'b' (uid 0...) stays."""
    pods = [running("a", start=OLD, uid="f-uid"), running("b", start=OLD, uid="0-uid")]
    g = preempt({"n1": 2}, pods)
    assert evicted(g) == ["a"]
    assert "victim-order" not in notes(g)


def test_before_1_38_equal_victims_are_a_reported_tie() -> None:
    """1.37 orders them arbitrarily: tasplan still evicts by UID, and says upstream may
    evict the other."""
    pods = [running("a", start=OLD, uid="f-uid"), running("b", start=OLD, uid="0-uid")]
    g = preempt({"n1": 2}, pods, version="1.37")
    assert evicted(g) == ["a"]
    assert "upstream orders them arbitrarily" in notes(g)["victim-order"]
    assert "pod default/a and pod default/b" in notes(g)["victim-order"]


def test_a_lone_pod_goes_before_a_pod_of_a_single_mode_group() -> None:
    """``NewPodVictim``: a pod of a pod group evicted alone (disruptionMode single) is
    PodGroup-typed and outranks a lone pod of equal priority, even an older one."""
    group = replace(make_group("jobs", min_count=1, key=None, priority=10), planned=False)
    pods = [running("lone", start=OLD), running("member", start=NEW, group="default/jobs")]
    assert evicted(preempt({"n1": 2}, pods, [group])) == ["lone"]


def test_victims_name_their_group_and_the_unit_they_go_with() -> None:
    """``group``: the pod's own PodGroup; ``unit``: the disruptionMode-all group whose
    scheduled pods all go together (None for a pod evicted alone)."""
    whole = replace(make_group("whole", min_count=1, key=None, priority=10), planned=False,
                    disrupt_all=True)
    pods = [running("w0", group="default/whole"), running("w1", "n2", group="default/whole")]
    g = preempt({"n1": 1, "n2": 1}, pods, [whole])
    assert [(v.pod, v.group, v.unit, v.unit_kind, v.unit_pods) for v in g.preemption.victims] \
        == [("default/w0", "default/whole", "default/whole", "PodGroup", 2),
            ("default/w1", "default/whole", "default/whole", "PodGroup", 2)]
    # Every rendering names the unit: the table's EVICTED WITH, the HTML page's column.
    page = plan_html(PlanResult((g,), 3, 3), None)
    assert "<th>evicted with</th>" in page.replace(' class="num"', "")
    assert "PodGroup default/whole (2 pods)" in page


# ------------------------------------------------------------------------------- budgets

def budget(allowed: int | None, *, disrupted: frozenset[str] = frozenset(),
           selector: LabelSelector | None = None) -> PodDisruptionBudget:
    selector = selector or LabelSelector((Requirement("app", "In", ("db",)),))
    return PodDisruptionBudget("default", "db", selector, 0, None, allowed, CLUSTER, disrupted)


def db(name: str, start: str):
    return running(name, start=start, labels={"app": "db"})


def test_a_budget_without_status_allows_no_disruption() -> None:
    """Upstream reads ``status.disruptionsAllowed``: none yet means 0, whatever the spec
    (minAvailable 0 would allow both). The unprotected pod goes instead of the newest db
    pod, and the note says why. With a status allowing 2, the newest pod goes."""
    pods = [db("db-0", OLD), db("db-1", NEW), running("web", start=OLD)]
    g = preempt({"n1": 3}, pods, budgets=[budget(None)])
    assert evicted(g) == ["web"]
    assert "has no status: kube-scheduler reads it as allowing no disruption" in \
        notes(g)["pdb-status"]
    g = preempt({"n1": 3}, pods, budgets=[budget(2)])
    assert evicted(g) == ["db-1"] and "pdb-status" not in notes(g)


def test_pods_the_budget_lists_as_disrupted_spend_nothing() -> None:
    """``status.disruptedPods``: db-1 is already counted by the API server; evicting it
    breaks nothing, so it goes as the newest pod, not the unprotected web."""
    pods = [db("db-0", OLD), db("db-1", NEW), running("web", start=OLD)]
    g = preempt({"n1": 3}, pods, budgets=[budget(0, disrupted=frozenset({"db-1"}))])
    assert evicted(g) == ["db-1"] and g.preemption.pdb_violations == 0


def test_computed_allowance_is_an_option() -> None:
    """``--pdb-allowance computed``: a budget without status allows what the disruption
    controller will compute (2 healthy db pods, minAvailable 0: two)."""
    group = make_group("preemptor", min_count=1, key=None, priority=1000)
    pods = [db("db-0", OLD), db("db-1", NEW), running("web", start=OLD)]
    snap = snapshot([make_node("n1", 3)], [*pods, *gang_pods(group, 1, priority=1000)],
                    [group])
    snap = ClusterSnapshot(snap.nodes, snap.pods, snap.groups, disruption_budgets=(budget(None),))
    g = plan(snap, pdb_allowance="computed").groups[0]
    assert evicted(g) == ["db-1"]
    assert "computed from its spec" in notes(g)["pdb-status"]


# ------------------------------------------------------------------------------ releases

def test_1_36_reprieves_by_re_running_the_group() -> None:
    """Two 2-CPU nodes, each full with one victim; the preemptor needs 2 CPU. 'old' is
    more important. 1.37+ keeps the pod placed on the cleared cluster (n1, by name) and
    checks the filters: 'old' on n1 cannot come back. 1.36 re-runs the group with 'old'
    back: the pod moves to n2, 'old' stays, and 'new' goes."""
    pods = [running("old", "n1", 2, start=OLD), running("new", "n2", 2, start=NEW)]
    nodes = {"n1": 2, "n2": 2}
    g = preempt(nodes, pods, version="1.37", cpu=2)
    assert evicted(g) == ["old"] and g.preemption.nominated == {"default/preemptor-0": "n1"}
    g = preempt(nodes, pods, version="1.36", cpu=2, WorkloadAwarePreemption=True)
    assert evicted(g) == ["new"] and g.preemption.nominated == {"default/preemptor-0": "n2"}


@pytest.mark.parametrize(("version", "violations"), [("1.36", 0), ("1.37", 0), ("1.38", 1)])
def test_empty_selector_budgets_per_release(version: str, violations: int) -> None:
    """A budget selecting every pod (``selector: {}``) with nothing left to allow: 1.38
    counts the victim beyond it; 1.36 and 1.37 skip empty selectors (PR #141785)."""
    gates = {"WorkloadAwarePreemption": True} if version == "1.36" else {}
    g = preempt({"n1": 1}, [running("v")], budgets=[budget(0, selector=LabelSelector())],
                version=version, **gates)
    assert evicted(g) == ["v"] and g.preemption.pdb_violations == violations
