"""Consolidation (KAI's consolidate action as a what-if): move the fewest lower-priority
pods out of the closest domain to nodes like their own, verified by planning the moved
pods and re-planning the group; offered only when moving is possible and moves no more
pods than eviction evicts. Every number is worked out in the test."""

from __future__ import annotations

from dataclasses import replace

from tasplan.model.snapshot import ClusterSnapshot
from tests.builders import gang_pods, make_group, make_node, make_pod
from tests.explain.helpers import explained, kinds, only

RACK = "topology.example.com/rack"


def node(name: str, rack: str, **labels: str):
    return make_node(name, 4, labels={RACK: rack, **labels})


def low(name: str, on: str, cpu: float, **kw):
    return replace(make_pod(name, cpu, node=on, priority=1, namespace="batch"),
                   owner_kind="ReplicaSet", **kw)


def cluster(extra_nodes=(), extra_pods=()) -> ClusterSnapshot:
    """The gang: 2 pods of 4 cpu, minCount 2, per rack. r1 = n1 (a 2-cpu low-priority pod)
    + n2 (free): one node short; r2 = n3 alone. Evicting or moving the n1 pod fits r1."""
    group = make_group("pg", min_count=2, key=RACK, priority=100)
    pods = [*gang_pods(group, 2, cpu=4, priority=100), low("etl-1", "n1", 2), *extra_pods]
    nodes = [node("n1", "r1"), node("n2", "r1"), node("n3", "r2"), *extra_nodes]
    return ClusterSnapshot(tuple(sorted(nodes, key=lambda n: n.name)), tuple(pods), (group,))


def test_move_offered_when_another_node_takes_the_pod() -> None:
    """n3 (rack r2, same labels but the topology ones) has 4 cpu free: etl-1 moves there."""
    e = explained(cluster())
    # contention (it fits when empty): what frees room comes first (issue 26)
    assert e.cause.kind == "contention"
    assert kinds(e)[:3] == ["evict", "consolidate", "addNodes"]
    move = only(e, "consolidate")
    assert move.cost == {"podsMoved": 1}
    assert move.details["moves"] == [{"pod": "batch/etl-1", "from": "n1", "to": "n3",
                                      "priority": 1}]
    assert move.result.schedulable and move.result.selected == "r1"
    assert only(e, "evict").cost == {"podsEvicted": 1}


def test_no_move_when_no_other_node_takes_it() -> None:
    """n3 is full (a 4-cpu pod of another namespace at priority 1000): etl-1 has nowhere
    to go. Eviction is still offered."""
    full = replace(make_pod("svc", 4, node="n3", priority=1000, namespace="svc"),
                   owner_kind="ReplicaSet")
    e = explained(cluster(extra_pods=[full]))
    assert "evict" in kinds(e) and "consolidate" not in kinds(e)


def test_no_move_to_a_node_unlike_its_own() -> None:
    """The only free node elsewhere has another pool label: the pod's own (unknown)
    selector might exclude it, so it is not a target."""
    e = explained(ClusterSnapshot(
        tuple(sorted([node("n1", "r1", pool="a"), node("n2", "r1", pool="a"),
                      node("n3", "r2", pool="b")], key=lambda n: n.name)),
        cluster().pods, cluster().groups))
    assert "evict" in kinds(e) and "consolidate" not in kinds(e)


def test_no_move_when_moving_takes_more_pods_than_evicting() -> None:
    """The gang: 2 pods of 3 cpu in one rack. r1: n0 free, n1 holds a member of another gang
    (2 cpu), n2 two 1.5-cpu pods; r2: n3, free. Evicting the gang member frees n1 (1 pod);
    it cannot be moved alone, and moving frees n2 only with both of its pods (n3 takes
    them): 2 moves > 1 eviction, so no move is offered."""
    group = make_group("pg", min_count=2, key=RACK, priority=100)
    other = make_group("other", min_count=1, key=None, namespace="batch", priority=1)
    pods = [*gang_pods(group, 2, cpu=3, priority=100),
            replace(low("gang-0", "n1", 2), group=other.key),
            low("a", "n2", 1.5), low("b", "n2", 1.5)]
    nodes = [node("n0", "r1"), node("n1", "r1"), node("n2", "r1"), node("n3", "r2")]
    e = explained(ClusterSnapshot(tuple(nodes), tuple(pods), (group, other)))
    assert only(e, "evict").details["victims"][0]["pod"] == "batch/gang-0"
    assert only(e, "evict").cost == {"podsEvicted": 1}
    assert "consolidate" not in kinds(e)
    # Without the gang member's group it moves (1 pod) as cheaply as it is evicted.
    pods[2] = replace(pods[2], group=None)
    e = explained(ClusterSnapshot(tuple(nodes), tuple(pods), (group, other)))
    assert only(e, "consolidate").details["moves"] == [
        {"pod": "batch/gang-0", "from": "n1", "to": "n3", "priority": 1}]


def test_at_most_max_moves_pods_move() -> None:
    """n1 holds k small pods that all must go for a 4-cpu gang pod; n3 (rack r2) takes
    them all. 16 pods of 0.25 cpu move; 17 pods of 0.2 cpu are evicted but not moved."""
    from tasplan.explain.counterfactuals.consolidation import MAX_MOVES

    assert MAX_MOVES == 16
    for k, cpu, moved in ((16, 0.25, True), (17, 0.2, False)):
        group = make_group("pg", min_count=2, key=RACK, priority=100)
        pods = [*gang_pods(group, 2, cpu=4, priority=100),
                *(low(f"small-{i}", "n1", cpu) for i in range(k))]
        nodes = [node("n1", "r1"), node("n2", "r1"), node("n3", "r2")]
        e = explained(ClusterSnapshot(tuple(nodes), tuple(pods), (group,)))
        assert only(e, "evict").cost == {"podsEvicted": k}
        assert ("consolidate" in kinds(e)) is moved
