"""``tasplan explain`` for a workload Kueue would not admit: the domains Kueue looked at,
what each lacks, and changes verified by running Kueue's placement again."""

from __future__ import annotations

from dataclasses import replace

from tasplan.explain.explainer import explain
from tasplan.model import kueue as k
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.model.taints import Taint
from tasplan.schedulers.kueue.request import REQUIRED
from tasplan.schedulers.kueue.scheduler import KueueScheduler
from tests.schedulers.kueue.test_scheduler import (
    BLOCK,
    HOST,
    RACK,
    SRC,
    TWO_BLOCKS,
    cluster,
    kueue_objects,
    workload,
)


def _explain(nodes, gr, pods, kueue):
    snap = ClusterSnapshot(tuple(sorted(nodes, key=lambda n: n.name)), tuple(pods), (gr,),
                           kueue=kueue)
    result = explain(snap, scheduler="kueue", kueue=KueueScheduler())
    return result.plan.groups[0], result.explanations.get(gr.key)


def test_too_big_for_any_rack() -> None:
    """7 pods, one rack required; racks hold 4 (r1), 3 (r2), 6 (r3)."""
    gr, pods = workload("big", ("main", 7, 1, {REQUIRED: RACK}))
    group, e = _explain(cluster(TWO_BLOCKS), gr, pods, kueue_objects())
    assert not group.schedulable and e is not None
    assert [(d.name, d.fit, d.needed) for d in e.domains] == [
        ("r3", 6, 7), ("r1", 4, 7), ("r2", 3, 7)]
    assert e.domains[0].shortfall == {"cpu": 1000}  # one pod's cpu short
    assert not e.fits_empty_cluster  # the racks are empty already
    changes = {s.kind: (s.change, s.result.selected) for s in e.suggestions}
    assert changes["minCount"] == ("lower PodSet main from 7 to 6 pod(s)", "r3")
    assert changes["addNodes"] == ("add 1 node(s) shaped like x7 to 'r3'", "r3")
    # preferred climbs to a block; so does requiring the block itself
    assert [c for k, c in changes.items() if k == "topologyKey"] == [
        (f"require {BLOCK} instead of {RACK}", "b1")]
    assert any(s.change.startswith("kueue.x-k8s.io/podset-preferred-topology")
               and s.result.selected == "b1" for s in e.suggestions)
    assert e.fits_at is not None and e.fits_at.result.selected == "b1"


def test_untolerated_taint_is_named_and_tolerating_it_fits() -> None:
    taint = Taint("gpu", "present", "NoSchedule")
    nodes = [replace(n, taints=(taint,)) if n.labels[RACK] == "r3" else n
             for n in cluster(TWO_BLOCKS)]
    gr, pods = workload("t", ("main", 5, 1, {REQUIRED: RACK}))
    group, e = _explain(nodes, gr, pods, kueue_objects())
    assert group.message == ('topology "topo" allows to fit only 4 out of 5 pod(s). Total '
                             'nodes: 7; excluded: taint "gpu=present:NoSchedule": 3')
    r3 = next(d for d in e.domains if d.name == "r3")
    assert r3.excluded == {"taint gpu=present:NoSchedule": 3}
    tolerate = next(s for s in e.suggestions if s.kind == "tolerations")
    assert tolerate.change.startswith("tolerate gpu=present:NoSchedule")
    assert tolerate.result.selected == "r3"


def test_contention_fits_an_empty_cluster() -> None:
    from tests.builders import make_pod

    busy = [make_pod(f"busy-{n}", 2, node=n) for n in ("x5", "x6", "x7")]
    gr, pods = workload("c", ("main", 5, 1, {REQUIRED: RACK}))
    snap = ClusterSnapshot(tuple(sorted(cluster(TWO_BLOCKS), key=lambda n: n.name)),
                           (*busy, *pods), (gr,), kueue=kueue_objects())
    e = explain(snap, scheduler="kueue", kueue=KueueScheduler()).explanations[gr.key]
    assert e.fits_empty_cluster


def _queue(nominal_cpu: float, *, cohort: str = "", borrowing: float | None = None,
           workloads=()) -> k.KueueInputs:
    base = kueue_objects(nominal_cpu=1, workloads=workloads)
    quota = k.Quota(int(nominal_cpu * 1000),
                    None if borrowing is None else int(borrowing * 1000))
    cq = replace(base.cluster_queues["cq"], cohort=cohort, resource_groups=(
        k.ResourceGroup(("cpu",), (k.FlavorQuotas("tas", {"cpu": quota}),)),))
    return replace(base, cluster_queues={"cq": cq})


def test_quota_refused_suggests_the_nominal_quota_that_admits_it() -> None:
    """4 one-CPU pods in a rack, a ClusterQueue of 3 CPUs: r1 holds them, the quota does
    not. The suggestion raises the nominal quota to 4, and planning again with that
    ClusterQueue admits the workload where the suggestion says (quota check re-run)."""
    gr, pods = workload("q", ("main", 4, 1, {REQUIRED: RACK}))
    group, e = _explain(cluster(TWO_BLOCKS), gr, pods, _queue(3))
    assert not group.schedulable and group.message.startswith("insufficient quota for cpu")
    assert (e.cause.kind, e.cause.text) == ("quota", "the topology of flavor tas holds it now "
                                            "('r1'); the quota of ClusterQueue cq stops it")
    [s] = e.suggestions
    assert (s.kind, s.change, s.result.selected) == (
        "quota", "raise the nominalQuota of ClusterQueue cq in flavor tas: cpu from 3 to 4",
        "r1")
    assert s.details["nominalQuota"] == {"cpu": "4"}
    assert [(d.name, d.fit) for d in e.domains][:2] == [("r3", 4), ("r1", 4)]
    again, _ = _explain(cluster(TWO_BLOCKS), gr, pods, _queue(4))
    assert again.schedulable and again.selected == "r1"
    short, _ = _explain(cluster(TWO_BLOCKS), gr, pods, _queue(3.9))
    assert not short.schedulable  # the suggestion is the least quota that admits it


def test_quota_suggestion_counts_admitted_workloads_of_the_queue() -> None:
    """An admitted Workload of the same ClusterQueue holds 2 CPUs of quota (on r3): the
    queue needs 2 + 4 = 6."""
    other = k.Workload(
        "default", "other", "q", None, (k.WorkloadPodSet("main", 2, None, {"cpu": 1000}),),
        "cq", (k.PodSetAssignment("main", {"cpu": "tas"}, 2, (HOST,),
                                  (k.DomainCount(("x5",), 2),)),),
        True, True, False, SRC)
    gr, pods = workload("q", ("main", 4, 1, {REQUIRED: RACK}))
    _, e = _explain(cluster(TWO_BLOCKS), gr, pods, _queue(5, workloads=[other]))
    assert e.suggestions[0].change.endswith("cpu from 5 to 6")
    assert "(its admitted Workloads in the inputs use 2 cpu)" in e.cause.text
    again, _ = _explain(cluster(TWO_BLOCKS), gr, pods, _queue(6, workloads=[other]))
    assert again.schedulable


def test_quota_in_a_cohort_says_what_borrowing_depends_on() -> None:
    gr, pods = workload("q", ("main", 4, 1, {REQUIRED: RACK}))
    _, e = _explain(cluster(TWO_BLOCKS), gr, pods, _queue(2, cohort="research", borrowing=1))
    assert e.cause.text.endswith("; borrowing from cohort research instead admits it only if the "
                          "queue may borrow 2 cpu (borrowingLimit 1) and the cohort's other "
                          "ClusterQueues leave that unused: their live usage is not in the "
                          "inputs")
    assert e.suggestions[0].change.endswith("cpu from 2 to 4")


def test_quota_and_topology_both_refuse() -> None:
    gr, pods = workload("q", ("main", 7, 1, {REQUIRED: RACK}))
    group, e = _explain(cluster(TWO_BLOCKS), gr, pods, _queue(3))
    assert group.message.endswith("; no TAS flavor's topology would hold it either")
    assert e.suggestions == () and e.cause.kind == "quota"
    assert e.cause.text.startswith("the ClusterQueue's quota refuses it, and no TAS flavor's")
