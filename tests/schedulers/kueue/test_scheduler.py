"""``--scheduler kueue`` end to end on small clusters: the flavor's nodes and usage, the
queue's quota, Kueue's verdict in its own words, the pods' nodes by rank, and the notes."""

from __future__ import annotations

from dataclasses import dataclass, replace

from tasplan.model import kueue as k
from tasplan.model.group import PodGroup
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.model.source import Source
from tasplan.plan.result import GroupResult
from tasplan.schedulers.kueue import gates as g
from tasplan.schedulers.kueue.request import (
    GROUP_NAME,
    PREFERRED,
    QUEUE_NAME,
    REQUIRED,
    SLICE_REQUIRED,
    SLICE_SIZE,
)
from tasplan.schedulers.kueue.scheduler import KueueScheduler
from tasplan.schedulers.planner import plan
from tasplan.schedulers.registry import in_tree_schedulers
from tests.builders import make_group, make_node, make_pod

SRC = Source("kueue.yaml")
RACK = "cloud.com/rack"
BLOCK = "cloud.com/block"
HOST = "kubernetes.io/hostname"


@dataclass(frozen=True)
class PodSetStub:
    """What the loader records per pod template (``model.group.PodSet``)."""

    name: str
    count: int
    pods: tuple[str, ...]
    annotations: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ExpansionStub:
    kind: str
    name: str
    synthesised: int
    existing: int
    pod_sets: tuple[PodSetStub, ...] = ()
    labels: tuple[tuple[str, str], ...] = ()

    def label(self, key: str) -> str | None:
        return dict(self.labels).get(key)


def cluster(blocks: dict[str, dict[str, list[tuple[str, int]]]], *, ready: bool | None = True
            ) -> list:
    """``{"b1": {"r1": [("n1", cpus), ...]}}``: GPU-less nodes with block/rack labels."""
    return [replace(make_node(n, cpu, labels={BLOCK: b, RACK: r, "pool": "tas"}), ready=ready)
            for b, racks in blocks.items() for r, nodes in racks.items() for n, cpu in nodes]


def kueue_objects(levels=(BLOCK, RACK, HOST), *, nominal_cpu: int | None = None,
                  workloads=()) -> k.KueueInputs:
    flavor = k.ResourceFlavor("tas", {"pool": "tas"}, (), (), "topo", SRC)
    cqs, lqs = {}, {}
    if nominal_cpu is not None:
        group = k.ResourceGroup(("cpu",), (k.FlavorQuotas("tas", {"cpu": k.Quota(
            nominal_cpu * 1000)}),))
        cqs = {"cq": k.ClusterQueue("cq", "", (group,), (), "BestEffortFIFO", "None", SRC)}
        lqs = {"default/q": k.LocalQueue("default", "q", "cq", SRC)}
    return k.KueueInputs(topologies={"topo": k.Topology("topo", tuple(levels), SRC)},
                         flavors={"tas": flavor}, cluster_queues=cqs, local_queues=lqs,
                         workloads={f"{w.namespace}/{w.name}": w for w in workloads})


def workload(name: str, *sets: tuple[str, int, float, dict], priority: int = 100,
             queue: str | None = "q") -> tuple[PodGroup, list[Pod]]:
    """A job-like object with PodSets (name, pods, cpu per pod, annotations)."""
    group = make_group(name, min_count=None, key=None, priority=priority)
    pods, stubs = [], []
    for ps, n, cpu, notes in sets:
        members = [make_pod(f"{name}-{ps}-{i}", cpu, group=group.key, priority=priority)
                   for i in range(n)]
        pods += members
        stubs.append(PodSetStub(ps, n, tuple(p.name for p in members),
                                tuple(sorted(notes.items()))))
    labels = ((QUEUE_NAME, queue),) if queue else ()
    expansion = ExpansionStub("Job", group.key, len(pods), 0, tuple(stubs), labels)
    return replace(group, kind="Job", expansions=(expansion,)), pods


def run(nodes, groups_pods, kueue: k.KueueInputs, *, bound=(), scheduler="kueue",
        gates=()) -> dict[str, GroupResult]:
    snap = ClusterSnapshot(tuple(sorted(nodes, key=lambda n: n.name)),
                           (*bound, *(p for _, pods in groups_pods for p in pods)),
                           tuple(gr for gr, _ in groups_pods), kueue=kueue)
    schedulers = in_tree_schedulers(kueue=KueueScheduler(g.NEWEST, gates))
    result = plan(snap, scheduler=scheduler, schedulers=schedulers)
    return {r.group.key: r for r in result.groups}


TWO_BLOCKS = {"b1": {"r1": [("x1", 2), ("x2", 2)], "r2": [("x3", 2), ("x4", 1)]},
              "b2": {"r3": [("x5", 2), ("x6", 2), ("x7", 2)]}}


def test_required_rack_picks_the_tightest_rack_and_binds_by_rank() -> None:
    """4 one-CPU pods, rack required: r1 holds exactly 4 (BestFit: the smallest domain that
    still fits), r3 holds 6; pods get r1's nodes in rank order."""
    gr, pods = workload("train", ("main", 4, 1, {REQUIRED: RACK}))
    res = run(cluster(TWO_BLOCKS), [(gr, pods)], kueue_objects())["default/train"]
    assert res.schedulable and res.scheduler == "kueue"
    assert res.selected == "r1"
    chosen = res.selected_placement
    assert list(chosen.assignments.values()) == ["x1", "x1", "x2", "x2"]
    assert res.message == "Kueue admits the workload on flavor tas in 'r1': 4 pod(s) on 2 " \
                          "node(s)"
    # the other racks follow in Kueue's order (most slices first), with what each holds
    assert [(p.name, p.placed, p.feasible) for p in res.placements[1:]] == [
        ("r3", 4, True), ("r2", 3, False)]


def test_kueue_s_own_words_when_no_rack_holds_it() -> None:
    gr, pods = workload("big", ("main", 7, 1, {REQUIRED: RACK}))
    res = run(cluster(TWO_BLOCKS), [(gr, pods)], kueue_objects())["default/big"]
    assert not res.schedulable and res.selected is None
    assert res.message == 'topology "topo" allows to fit only 6 out of 7 pod(s)'
    assert res.outcome == "unschedulable"


def test_preferred_climbs_to_the_block_and_spreads() -> None:
    """7 pods prefer a rack: no rack holds them, block b1 (7 CPUs) does."""
    gr, pods = workload("pref", ("main", 7, 1, {PREFERRED: RACK}))
    res = run(cluster(TWO_BLOCKS), [(gr, pods)], kueue_objects())["default/pref"]
    assert res.schedulable and res.selected == "b1"
    assert sorted(res.selected_placement.assignments.values()) == [
        "x1", "x1", "x2", "x2", "x3", "x3", "x4"]


def test_slices_of_two_per_rack() -> None:
    """6 pods in slices of 2 per rack within one block: b1 holds 3 slices (r1: 2, r2: 1)."""
    gr, pods = workload("sl", ("main", 6, 1, {REQUIRED: BLOCK, SLICE_REQUIRED: RACK,
                                              SLICE_SIZE: "2"}))
    res = run(cluster(TWO_BLOCKS), [(gr, pods)], kueue_objects())["default/sl"]
    assert res.schedulable and res.selected == "b2"  # BestFit: b2 holds exactly 3 slices
    assert sorted(res.selected_placement.assignments.values()) == [
        "x5", "x5", "x6", "x6", "x7", "x7"]


def test_quota_exceeded_is_kueue_s_message() -> None:
    gr, pods = workload("q", ("main", 4, 1, {REQUIRED: RACK}))
    res = run(cluster(TWO_BLOCKS), [(gr, pods)], kueue_objects(nominal_cpu=3))["default/q"]
    assert not res.schedulable
    assert res.message == ("insufficient quota for cpu in flavor tas, previously considered "
                           "podsets requests (0) + current podset request (4) > maximum "
                           "capacity (3); the topology of flavor tas would hold it: only the "
                           "quota stops it")


def test_tas_only_queue_implies_tas_for_pods_without_annotations() -> None:
    """A ClusterQueue whose flavors are all TAS flavors places every PodSet (implied TAS:
    unconstrained at the lowest level, LeastFreeCapacity: no node holds 3, so the nodes
    with the least room first: x4 (1), then x1 (2))."""
    gr, pods = workload("plain", ("main", 3, 1, {}))
    res = run(cluster(TWO_BLOCKS), [(gr, pods)], kueue_objects(nominal_cpu=100))
    got = res["default/plain"]
    assert got.schedulable
    assert sorted(got.selected_placement.assignments.values()) == ["x1", "x1", "x4"]


def test_without_a_tas_request_or_tas_queue_kueue_does_not_place() -> None:
    """Queued, but neither annotated nor in a TAS-only queue: Kueue admits it by quota and
    kube-scheduler places it; auto gives it to kube-scheduler, and --scheduler kueue says
    it does not plan it."""
    gr, pods = workload("plain", ("main", 2, 1, {}))
    res = run(cluster(TWO_BLOCKS), [(gr, pods)], kueue_objects())["default/plain"]
    assert res.outcome == "not-planned"
    assert res.message.startswith("Kueue admits it by quota alone: no PodSet asks for "
                                  "Topology-Aware Scheduling")
    auto = run(cluster(TWO_BLOCKS), [(gr, pods)], kueue_objects(), scheduler="auto")
    assert auto["default/plain"].scheduler == "kube-scheduler"


def test_not_ready_and_cordoned_nodes_are_not_in_the_flavor() -> None:
    nodes = cluster(TWO_BLOCKS)
    nodes = [replace(n, ready=False) if n.name == "x1" else
             replace(n, unschedulable=True) if n.name == "x2" else n for n in nodes]
    gr, pods = workload("train", ("main", 4, 1, {REQUIRED: RACK}))
    res = run(nodes, [(gr, pods)], kueue_objects())["default/train"]
    assert res.selected == "r3"


def test_nodes_stating_no_ready_condition_are_assumed_ready_with_a_note() -> None:
    gr, pods = workload("train", ("main", 4, 1, {REQUIRED: RACK}))
    res = run(cluster(TWO_BLOCKS, ready=None), [(gr, pods)], kueue_objects())["default/train"]
    assert res.selected == "r1"
    assert any(n.code == "kueue-node-ready" and n.message.startswith("7 node(s)")
               for n in res.notes)


def test_bound_pods_and_admitted_workloads_hold_capacity() -> None:
    """A bound pod on x1 and an admitted Workload's 2 unbound pods on x2 leave r1 1 CPU."""
    bound = [make_pod("running", 1, node="x1")]
    admitted = k.Workload(
        "default", "other", "q", None,
        (k.WorkloadPodSet("main", 2, None, {"cpu": 1000}),), "cq",
        (k.PodSetAssignment("main", {"cpu": "tas"}, 2, (HOST,), (k.DomainCount(("x2",), 2),)),),
        True, True, False, SRC)
    gr, pods = workload("train", ("main", 3, 1, {REQUIRED: RACK}))
    res = run(cluster(TWO_BLOCKS), [(gr, pods)], kueue_objects(workloads=[admitted]),
              bound=bound)["default/train"]
    r1 = next(p for p in res.placements if p.name == "r1")
    assert r1.placed == 1
    assert res.selected == "r2"
    assert any(n.code == "kueue-admitted-usage" for n in res.notes)


def test_leader_and_workers_share_a_rack() -> None:
    gr, pods = workload("lws", ("leader", 1, 1, {REQUIRED: RACK, GROUP_NAME: "g"}),
                        ("workers", 3, 1, {REQUIRED: RACK, GROUP_NAME: "g"}))
    res = run(cluster(TWO_BLOCKS), [(gr, pods)], kueue_objects())["default/lws"]
    assert res.schedulable and res.selected == "r1"
    assert len(res.selected_placement.assignments) == 4
    assert res.message == ("Kueue admits the workload on flavor tas in 'r1': leader 1 pod(s) "
                           "on 1 node(s), workers 3 pod(s) on 2 node(s)")


def test_rack_leaves_pin_pods_to_the_rack_and_kube_scheduler_picks_the_node() -> None:
    """Lowest level rack: Kueue counts the rack's aggregate capacity (no node filters), so a
    1.5-CPU pod 'fits' r2 (2 + 1 CPUs) twice; kube-scheduler finds room for only one."""
    gr, pods = workload("wide", ("main", 2, 1.5, {REQUIRED: RACK}))
    nodes = cluster({"b1": {"r2": [("x3", 2), ("x4", 1)]}})
    res = run(nodes, [(gr, pods)], kueue_objects(levels=(BLOCK, RACK)))["default/wide"]
    assert not res.schedulable
    assert "Kueue admits the workload" in res.message
    assert "kube-scheduler cannot bind 1 of its pod(s)" in res.message
    chosen = res.selected_placement
    assert list(chosen.assignments.values()) == ["x3"] and len(chosen.unplaced) == 1


def test_auto_claims_kueue_workloads_only_with_a_tas_flavor() -> None:
    gr, pods = workload("train", ("main", 2, 1, {REQUIRED: RACK}))
    with_flavor = run(cluster(TWO_BLOCKS), [(gr, pods)], kueue_objects(), scheduler="auto")
    notes = {n.code: n.message for n in with_flavor["default/train"].notes}
    assert with_flavor["default/train"].scheduler == "kueue"
    assert notes["scheduler-auto"] == ("planned with kueue: its pod template asks Kueue for "
                                       "a topology (kueue.x-k8s.io/podset-required-topology)")
    plain, plain_pods = workload("plain", ("main", 2, 1, {}))
    tas_queue = run(cluster(TWO_BLOCKS), [(plain, plain_pods)], kueue_objects(nominal_cpu=10),
                    scheduler="auto")["default/plain"]
    assert tas_queue.scheduler == "kueue"
    assert [n.message for n in tas_queue.notes if n.code == "scheduler-auto"] == [
        "planned with kueue: it is submitted to Kueue's LocalQueue 'q' (kueue.x-k8s.io/"
        "queue-name), whose ClusterQueue cq has only TAS flavors"]
    without = run(cluster(TWO_BLOCKS), [(gr, pods)], k.KueueInputs(), scheduler="auto")
    assert without["default/train"].scheduler == "kube-scheduler"


def test_peer_feature_gates_change_the_profile() -> None:
    """4 unconstrained pods, no node holds them all. With TASProfileMixed (the default),
    LeastFreeCapacity fills the nodes with the least room first (x2, x3); with it off,
    BestFit starts from the node with the most (x1) and ends on a tight one."""
    gr, pods = workload("u", ("main", 4, 1, {"kueue.x-k8s.io/podset-unconstrained-topology":
                                             "true"}))
    nodes = cluster({"b1": {"r1": [("x1", 3), ("x2", 2), ("x3", 2)]}})
    lfc = run(nodes, [(gr, pods)], kueue_objects())["default/u"]
    assert sorted(lfc.selected_placement.assignments.values()) == ["x2", "x2", "x3", "x3"]
    best_fit = run(nodes, [(gr, pods)], kueue_objects(),
                   gates=[(g.PROFILE_MIXED, False)])["default/u"]
    assert ("kueue-gates", "Kueue 0.20 with TASProfileMixed=false") in [
        (n.code, n.message) for n in best_fit.notes]
    assert sorted(best_fit.selected_placement.assignments.values()) == ["x1", "x1", "x1",
                                                                        "x2"]


def test_queue_order_later_workloads_see_earlier_ones() -> None:
    first, p1 = workload("first", ("main", 4, 1, {REQUIRED: RACK}), priority=200)
    second, p2 = workload("second", ("main", 4, 1, {REQUIRED: RACK}), priority=100)
    res = run(cluster(TWO_BLOCKS), [(second, p2), (first, p1)], kueue_objects())
    assert res["default/first"].selected == "r1"
    assert res["default/second"].selected == "r3"
