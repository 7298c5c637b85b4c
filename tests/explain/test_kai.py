"""tasplan explain for KAI PodGroups: KAI's reasons, per-domain counts and changes verified
by planning the group again as KAI would."""

from __future__ import annotations

from dataclasses import replace

from tasplan.explain.explainer import explain
from tasplan.model.group import PodGroup, Policy
from tasplan.model.kai import Constraint, KaiInputs, KaiPodGroup, KaiTopology, TopologyLevel
from tasplan.model.taints import Taint
from tests.builders import WORKLOAD, make_node, make_pod, snapshot

GPU = "nvidia.com/gpu"
DC = KaiTopology("dc", (TopologyLevel("block", "block"), TopologyLevel("rack", "rack")),
                 WORKLOAD)


def cluster(pods: int = 3, required: str = "rack", busy: int = 4, taint_rack: str = "",
            busy_nodes: tuple[str, ...] = ("n00",)):
    nodes = [make_node(f"n{r}{i}", 8, labels={"rack": f"r{r}", "block": "b"}, **{GPU: 8},
                       taints=(Taint("x", "y", "NoSchedule"),) if f"r{r}" == taint_rack else ())
             for r in range(3) for i in range(2)]
    group = PodGroup("ml/train", "ml", Policy.GANG, pods, None, "PodGroup",
                     "scheduling.run.ai/v2alpha2", WORKLOAD, 1, planned=True)
    members = [replace(make_pod(f"train-{i}", 1, namespace="ml", group=group.key, **{GPU: 8}),
                       scheduler_name="kai-scheduler") for i in range(pods)]
    running = [make_pod(f"busy-{n}", 1, node=n, **{GPU: busy}) for n in busy_nodes] \
        if busy else []
    spec = KaiPodGroup("ml", "train", pods, None, "q", "", Constraint("dc", required), (),
                       WORKLOAD)
    return replace(snapshot(nodes, running + members, [group]),
                   kai=KaiInputs({"dc": DC}, {spec.key: spec}))


def test_a_rack_too_small_gets_kais_reasons_and_verified_changes() -> None:
    result = explain(cluster())
    (group,) = result.plan.groups
    assert group.scheduler == "kai" and group.outcome == "unschedulable"
    e = result.explanations["ml/train"]
    assert e.needed == 3 and not e.fits_empty_cluster
    assert [(d.name, d.fit, dict(d.shortfall)) for d in e.domains] == [
        ("b.r1", 2, {GPU: 8}), ("b.r2", 2, {GPU: 8}), ("b.r0", 1, {GPU: 16})]
    assert [(s.kind, s.change, s.result.selected) for s in e.suggestions] == [
        ("minMember", "lower minMember from 3 to 2", "b.r1"),
        ("topologyKey", "require block instead of rack (Topology dc)", "b"),
        ("kaiPreferred", "make rack preferred instead of required", "b"),
        ("addNodes", "add 1 node(s) shaped like n10 to 'b.r1'", "b.r1")]
    assert e.fits_at is e.suggestions[1]
    assert all(s.result.schedulable for s in e.suggestions)


def test_contention_and_excluded_nodes() -> None:
    """Two pods fit an empty rack; running pods fill one node of r0, a taint rules out r1,
    so r2 holds the job. With a node of r2 busy too nothing fits now, but an empty cluster
    would hold it (contention), and the tainted rack's nodes are excluded."""
    result = explain(cluster(pods=2, busy=8, taint_rack="r1"))
    (group,) = result.plan.groups
    assert group.schedulable and group.selected == "b.r2"
    assert result.explanations == {}
    blocked = explain(cluster(pods=2, busy=8, taint_rack="r1", busy_nodes=("n00", "n20")))
    e = blocked.explanations["ml/train"]
    assert e.fits_empty_cluster
    tainted = next(d for d in e.domains if d.name == "b.r1")
    assert tainted.fit == 0 and tainted.excluded == {
        "node(s) had untolerated taint(s)": 2}


def test_the_explanation_leaves_the_plan_as_check_makes_it() -> None:
    from tasplan.schedulers.planner import plan
    snap = cluster()
    assert [g.outcome for g in explain(snap).plan.groups] == \
        [g.outcome for g in plan(snap).groups]
