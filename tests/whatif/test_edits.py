"""Each what-if edit on small clusters whose numbers are worked out here, and the plan that
follows it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tasplan.errors import UsageError
from tasplan.model.disruption import PodDisruptionBudget
from tasplan.model.pod_affinity import LabelSelector
from tasplan.model.selectors import Requirement
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.model.taints import Taint
from tasplan.schedulers.planner import plan
from tasplan.whatif import Edit, apply_edits
from tasplan.whatif.ops.add_nodes import NODE_COPIERS
from tests.builders import CLUSTER, gang_pods, make_group, make_node, make_pod

RACK = "topology.example.com/rack"
BLOCK = "topology.example.com/block"


def node(name: str, rack: str, block: str = "b1", cpu: int = 4, **kw):
    return make_node(name, cpu, labels={RACK: rack, BLOCK: block}, **kw)


def ds(name: str, on: str):
    return replace(make_pod(name, 0.5, node=on, namespace="kube-system"),
                   owner_kind="DaemonSet")


def mirror(name: str, on: str):
    return replace(make_pod(name, 0.25, node=on, namespace="kube-system"), owner_kind="Node")


def app(name: str, on: str, priority: int = 100, namespace: str = "apps", **labels: str):
    return replace(make_pod(name, 1, node=on, namespace=namespace, priority=priority),
                   labels=labels, owner_kind="ReplicaSet")


def cluster(pods=(), groups=(), budgets=()) -> ClusterSnapshot:
    nodes = [node("n1", "r1"), node("n2", "r1"), node("n3", "r2"), node("n4", "r2", "b2")]
    return ClusterSnapshot(tuple(nodes), tuple(pods), tuple(groups),
                           disruption_budgets=tuple(budgets))


def pdb(name: str, allowed: int, **match: str) -> PodDisruptionBudget:
    selector = LabelSelector(tuple(Requirement(k, "In", (v,)) for k, v in match.items()))
    return PodDisruptionBudget("apps", name, selector, 1, None, allowed, CLUSTER)


def one(snap: ClusterSnapshot, edit: Edit):
    what = apply_edits(snap, [edit])
    assert len(what.applied) == 1
    return what.snapshot, what.applied[0]


def test_no_edits_is_the_snapshot_itself() -> None:
    snap = cluster()
    assert apply_edits(snap, []).snapshot is snap


def test_cordon_by_names_and_selector() -> None:
    snap, done = one(cluster(), Edit("cordon", "n1,n3"))
    assert [n.name for n in snap.nodes if n.unschedulable] == ["n1", "n3"]
    assert done.effect == "cordoned 2 node(s): n1, n3"
    snap, done = one(cluster(), Edit("cordon", "rack=r2"))  # bare key -> topology label
    assert [n.name for n in snap.nodes if n.unschedulable] == ["n3", "n4"]
    snap, done = one(cluster(), Edit("cordon", "rack=r1,block notin (b9)"))
    assert [n.name for n in snap.nodes if n.unschedulable] == ["n1", "n2"]


@pytest.mark.parametrize(("op", "target", "message"), [
    ("cordon", "n1,nope", "no node named 'nope'"),
    ("drain", "rack=r9", "matches no node"),
    ("remove", "zone=z1", "matches no node"),  # no key ends in zone: kept, matches nothing
    ("set", "default/nope.minCount=2", "no pod group 'default/nope'"),
    ("set", "default/pg.replicas=2", "expected GROUP.minCount=N"),
    ("set", "default/pg.minCount=0", "minCount must be an integer from 1 to 2147483647"),
    ("set", "default/pg.topologyKey=Bad Key", "not a valid label key"),
])
def test_edits_that_match_nothing_are_usage_errors(op: str, target: str, message: str) -> None:
    group = make_group("pg", min_count=2)
    snap = cluster([app("a", "n1")], [group])
    with pytest.raises(UsageError, match=message):
        apply_edits(snap, [Edit(op, target)])


def test_evict_matching_nothing_is_a_warning_not_an_error() -> None:
    """kubectl treats a selector that matches nothing as nothing to do ("No resources
    found", exit 0): the plan goes on, on the cluster as it is, and says so."""
    snap = cluster([app("a", "n1")], [make_group("pg", min_count=2)])
    after, done = one(snap, Edit("evict", "app=nothing"))
    assert done.effect == "matches no running pod: nothing evicted"
    assert after.pods == snap.pods
    assert after.warnings == ("--evict 'app=nothing': matches no running pod; nothing "
                              "evicted",)


def test_drain_keeps_daemonset_and_mirror_pods_and_reports_pdbs() -> None:
    """kubectl drain --ignore-daemonsets: DaemonSet and mirror pods stay; the others are
    evicted. web allows 1 disruption and loses 2 pods (violated); db allows 1 and loses 1."""
    pods = [ds("proxy-n1", "n1"), mirror("etcd-n1", "n1"), app("web-1", "n1", app="web"),
            app("web-2", "n2", app="web"), app("db-1", "n2", app="db"), ds("proxy-n3", "n3"),
            app("web-3", "n3", app="web"),
            make_pod("pending", 1, namespace="apps")]  # pending: not on a node, untouched
    snap = cluster(pods, budgets=[pdb("web", 1, app="web"), pdb("db", 1, app="db")])
    after, done = one(snap, Edit("drain", "rack=r1"))
    assert [n.name for n in after.nodes if n.unschedulable] == ["n1", "n2"]
    assert sorted(p.name for p in after.pods) == ["etcd-n1", "pending", "proxy-n1",
                                                  "proxy-n3", "web-3"]
    assert done.effect == ("cordoned 2 node(s) (n1, n2), evicted 3 pod(s), kept 2 "
                           "DaemonSet/mirror pod(s); would violate PodDisruptionBudget apps/web "
                           "allows 1 disruption(s), this evicts 2 of its pods")
    # The usage index follows: n1 holds only the DaemonSet and mirror pods (0.75 cpu).
    assert after.node_usage("n1").requested == {"cpu": 750}
    assert after.node_usage("n2").pods == ()


def test_pdb_counts_evictions_of_earlier_edits() -> None:
    pods = [app("web-1", "n1", app="web"), app("web-2", "n3", app="web")]
    snap = cluster(pods, budgets=[pdb("web", 1, app="web")])
    what = apply_edits(snap, [Edit("drain", "n1"), Edit("drain", "n3")])
    assert "would violate" not in what.applied[0].effect
    assert what.applied[1].effect.endswith(
        "this evicts 1 of its pods (1 evicted by earlier edits)")


def test_remove_takes_the_nodes_and_all_their_pods() -> None:
    pods = [ds("proxy-n1", "n1"), app("a", "n1"), app("b", "n2")]
    after, done = one(cluster(pods), Edit("remove", "n1"))
    assert [n.name for n in after.nodes] == ["n2", "n3", "n4"]
    assert [p.name for p in after.pods] == ["b"]
    assert after.unknown_nodes == {}
    assert done.effect == "removed 1 node(s) (n1) and their 2 pod(s)"


def test_evict_by_priority_namespace_and_labels_never_pending_pods() -> None:
    pods = [app("low", "n1", priority=10), app("mid", "n2", priority=1000),
            app("other", "n3", priority=10, namespace="research"),
            make_pod("waiting", 1, namespace="apps", priority=1)]
    after, done = one(cluster(pods), Edit("evict", "priority<1000"))
    assert sorted(p.name for p in after.pods) == ["mid", "waiting"]
    assert done.effect == "evicted 2 pod(s) from 2 node(s)"
    after, _ = one(cluster(pods), Edit("evict", "priority<=1000,namespace=apps"))
    assert sorted(p.name for p in after.pods) == ["other", "waiting"]


def test_add_nodes_into_a_new_domain_makes_a_group_fit() -> None:
    """The gang needs 3 pods of 3 cpu in one rack; racks r1 and r2 have two 4-cpu nodes
    each, one pod per node: 2 < 3. Three copies of n1 in a new rack r9 (each with a copy of
    n1's 0.5-cpu DaemonSet pod, 3.5 cpu free) take one pod each: it fits in r9."""
    group = make_group("pg", min_count=3, key=RACK)
    pending = gang_pods(group, 3, cpu=3)
    pods = [ds("proxy-n1", "n1"), *pending]
    snap = cluster(pods, [group])
    assert not plan(snap).groups[0].schedulable
    after, done = one(snap, Edit("addNodes", count=3, like="n1", domain="r9"))
    added = [n for n in after.nodes if n.name.startswith("n1-whatif-")]
    assert [n.name for n in added] == ["n1-whatif-1", "n1-whatif-2", "n1-whatif-3"]
    assert all(n.labels[RACK] == "r9" and n.labels[BLOCK] == "b1" for n in added)
    assert [n.labels["kubernetes.io/hostname"] for n in added] == [n.name for n in added]
    assert done.effect == (f"added 3 node(s) like n1 in {RACK}=r9 (a new domain): "
                           "n1-whatif-1 .. n1-whatif-3, each with 1 DaemonSet/mirror pod(s)")
    assert after.node_usage("n1-whatif-2").requested == {"cpu": 500}
    result = plan(after).groups[0]
    assert result.schedulable and result.selected == "r9"


def test_add_nodes_domains_names_labels_and_taints() -> None:
    taint = Taint("gpu", "yes", "NoSchedule")
    base = cluster()
    nodes = (*base.nodes, make_node("n1-whatif-1", labels={RACK: "r1"}),
             replace(node("c1", "r1"), unschedulable=True,
                     taints=(taint, Taint("node.kubernetes.io/unschedulable", "",
                                          "NoSchedule"))))
    snap = replace(base, nodes=nodes, usage=None)
    # An existing bare value joins that domain; names skip the one in use.
    after, done = one(snap, Edit("addNodes", count=1, like="n1", domain="r2"))
    assert after.node_index["n1-whatif-2"] >= 0
    assert "in topology.example.com/rack=r2: n1-whatif-2" in done.effect
    # KEY=VALUE with a bare key, and --label overrides.
    after, _ = one(snap, Edit("addNodes", count=1, like="n1", domain="block=b7",
                              labels=(("pool", "spare"), (RACK, "r7"))))
    new = after.nodes[after.node_index["n1-whatif-2"]]
    assert new.labels[BLOCK] == "b7" and new.labels[RACK] == "r7" and new.labels["pool"] == "spare"
    # A cordoned like-node: copies keep its taints, not its cordon.
    after, _ = one(snap, Edit("addNodes", count=1, like="c1"))
    new = after.nodes[after.node_index["c1-whatif-1"]]
    assert not new.unschedulable and new.taints == (taint,)


def test_add_nodes_errors() -> None:
    snap = cluster()
    with pytest.raises(UsageError, match="no node named 'nope' to copy"):
        apply_edits(snap, [Edit("addNodes", count=1, like="nope")])
    with pytest.raises(UsageError, match="ambiguous: it is a value of"):
        both = replace(snap, nodes=(*snap.nodes, node("x", "b1")), usage=None)  # rack b1
        apply_edits(both, [Edit("addNodes", count=1, like="n1", domain="b1")])
    with pytest.raises(UsageError, match="count must be"):
        apply_edits(snap, [Edit("addNodes", count=0, like="n1")])


def test_add_nodes_hook_sees_each_copy() -> None:
    """The DRA seam: every registered copier is called with the like-node and the copy."""
    seen = []
    NODE_COPIERS.append(lambda draft, like, copy: seen.append((like.name, copy.name)))
    try:
        apply_edits(cluster(), [Edit("addNodes", count=2, like="n3")])
    finally:
        NODE_COPIERS.pop()
    assert seen == [("n3", "n3-whatif-1"), ("n3", "n3-whatif-2")]


def test_set_min_count_and_topology_key() -> None:
    group = make_group("pg", min_count=4, key=RACK)
    pods = gang_pods(group, 4, cpu=4)
    snap = cluster(pods, [group])
    assert not plan(snap).groups[0].schedulable  # 2 nodes per rack
    after, done = one(snap, Edit("set", "default/pg.minCount=2"))
    assert done.effect == "default/pg minCount 4 -> 2"
    assert plan(after).groups[0].schedulable
    after, done = one(snap, Edit("set", f"default/pg.topologyKey={BLOCK}"))
    assert done.effect == f"default/pg topologyKey {RACK} -> {BLOCK}"
    result = plan(after).groups[0]
    assert not result.schedulable and {p.name for p in result.placements} == {"b1", "b2"}


def test_edits_apply_in_order() -> None:
    """Cordon then remove the same node is fine; remove then cordon names a node that is
    gone."""
    snap = cluster()
    what = apply_edits(snap, [Edit("cordon", "n1"), Edit("remove", "n1")])
    assert [a.op for a in what.applied] == ["cordon", "remove"]
    with pytest.raises(UsageError, match="no node named 'n1'"):
        apply_edits(snap, [Edit("remove", "n1"), Edit("cordon", "n1")])


def test_add_nodes_copies_node_local_resource_slices() -> None:
    """Three pods each claim one GPU device (a claim template); n1's node-local slice has
    two devices, so one pod is left over. A copy of n1 gets its own slice (pool named after
    the copy) and the third pod its device there."""
    from tasplan.model.dra import PodClaim
    from tests.dra.builders import DRIVER_A, device, inputs, local_slice
    from tests.dra.test_plugin import CLASSES, ONE_GPU, with_claims

    group = make_group("pg", min_count=3, key=None)
    pods = with_claims(gang_pods(group, 3), PodClaim("gpu", template_name="one-gpu"))
    slice_ = local_slice("n1-gpus", "n1", "n1", DRIVER_A, device("gpu-0"), device("gpu-1"))
    dra = inputs(CLASSES, [slice_], templates={("default", "one-gpu"): ONE_GPU})
    snap = ClusterSnapshot((make_node("n1", 8),), tuple(pods), (group,), dra=dra)
    assert not plan(snap).groups[0].schedulable
    after, _ = one(snap, Edit("addNodes", count=1, like="n1"))
    [copy] = [s for s in after.dra.slices if s.node_name == "n1-whatif-1"]
    assert (copy.name, copy.pool, len(copy.devices)) == ("n1-gpus-n1-whatif-1", "n1-whatif-1", 2)
    result = plan(after).groups[0]
    assert result.schedulable
    assert sorted(result.placements[0].assignments.values()) == ["n1", "n1", "n1-whatif-1"]


def test_set_min_count_grows_the_last_pod_set_numbering_on() -> None:
    """A LeaderWorkerSet-like group (PodSets leader, worker): minCount beyond its pods adds
    workers, numbered after the highest number in use, and the PodSet and the expansion
    count them (peer schedulers read PodSet counts)."""
    from tasplan.model.group import Expansion, PodSet

    group = make_group("lws-0", min_count=3, key=RACK)
    leader = make_pod("lws-0", 1, group=group.key)
    workers = [make_pod(f"lws-0-{i}", 1, group=group.key) for i in (1, 2)]
    taken = make_pod("lws-0-7", 1, node="n1")  # another pod already holds this name
    grouped = replace(group, expansions=(Expansion(
        "LeaderWorkerSet", "default/lws", 3, 0,
        pod_sets=(PodSet("leader", 1, ("lws-0",)),
                  PodSet("worker", 2, ("lws-0-1", "lws-0-2")))),))
    snap = cluster([leader, *workers, taken], [grouped])
    after, done = one(snap, Edit("set", "default/lws-0.minCount=6"))
    assert done.effect == ("default/lws-0 minCount 3 -> 6; LeaderWorkerSet default/lws grows "
                           "by 3 pod(s) to 5 (as with more replicas of its 'worker' template)")
    names = [p.name for p in after.pods if p.group == group.key]
    assert names == ["lws-0", "lws-0-1", "lws-0-2", "lws-0-8", "lws-0-9", "lws-0-10"]
    [expansion] = after.groups[0].expansions
    assert (expansion.synthesised, expansion.pod_sets[1].count) == (6, 5)
    assert expansion.pod_sets[1].pods[-3:] == ("lws-0-8", "lws-0-9", "lws-0-10")
    assert all(not p.node_name for p in after.pods if p.group == group.key)
