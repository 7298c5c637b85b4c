"""Statement: assume / checkpoint / rollback / commit over NodeInfo.

Placement evaluation must start every placement from the same node state (upstream reverts
its snapshot assumptions after each placement, ``podGroupSchedulingDefaultAlgorithm``), so
rolling back has to restore each NodeInfo exactly.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.statement import Statement, StatementError
from tasplan.model.pod import HostPort
from tasplan.model.pod_affinity import PodAffinity
from tests.builders import make_node, make_pod, node_infos, pod_with

MI = 1024 * 1024
GPU = "nvidia.com/gpu"


def state(info: NodeInfo) -> tuple:
    """Everything a filter or score reads from a NodeInfo. Requested entries that went back
    to zero are equivalent to absent ones."""
    return (
        {k: v for k, v in info.requested.items() if v},
        info.non_zero_cpu,
        info.non_zero_memory,
        [id(p) for p in info.pods],
        list(info.ports),
    )


POD_KINDS = [
    make_pod("small", 1),
    make_pod("big", 2, memory=3 * MI),
    pod_with({}, "empty"),  # non-zero defaults only
    replace(make_pod("ported", 0.5), host_ports=(HostPort(8080), HostPort(53, "UDP"))),
    make_pod("gpu", 1, **{GPU: 2}),
]


def _cluster():
    nodes = [make_node(f"n{i}", 8, memory=64 * MI, **{GPU: 4}) for i in range(3)]
    existing = [replace(make_pod("running", 1, node="n0"), host_ports=(HostPort(9090),))]
    return node_infos(nodes, existing)


def test_rollback_restores_node_info_exactly():
    infos = _cluster()
    before = [state(i) for i in infos]
    generations = [i.generation for i in infos]
    statement = Statement()
    cp = statement.checkpoint()
    assert cp == 0
    statement.assume(POD_KINDS[0], infos[0])
    statement.assume(POD_KINDS[3], infos[0])
    statement.assume(POD_KINDS[4], infos[1])
    assert infos[0].requested == {"cpu": 2500}
    assert infos[0].non_zero_cpu == 2500
    assert infos[0].non_zero_memory == 3 * 200 * MI
    assert infos[0].ports == [HostPort(9090), HostPort(8080), HostPort(53, "UDP")]
    assert infos[1].requested == {"cpu": 1000, GPU: 2}
    statement.rollback(cp)
    assert [state(i) for i in infos] == before
    assert infos[0].generation > generations[0]
    assert infos[1].generation > generations[1]
    assert infos[2].generation == generations[2]


def test_nested_checkpoints_roll_back_in_lifo_order():
    infos = _cluster()
    statement = Statement()
    statement.assume(POD_KINDS[0], infos[0])
    after_first = [state(i) for i in infos]
    cp = statement.checkpoint()
    assert cp == 1
    statement.assume(POD_KINDS[1], infos[0])
    statement.assume(POD_KINDS[2], infos[2])
    assert statement.changes_since(cp) == [(POD_KINDS[1], infos[0]), (POD_KINDS[2], infos[2])]
    statement.rollback(cp)
    assert [state(i) for i in infos] == after_first
    assert statement.checkpoint() == 1


def test_rollback_to_current_position_is_a_no_op():
    infos = _cluster()
    statement = Statement()
    statement.assume(POD_KINDS[0], infos[1])
    generation = infos[1].generation
    statement.rollback(statement.checkpoint())
    assert infos[1].generation == generation
    assert [p.name for p in infos[1].pods] == ["small"]


@pytest.mark.parametrize(
    ("assumed", "checkpoint"),
    [
        pytest.param(0, -1, id="negative checkpoint"),
        pytest.param(0, 1, id="checkpoint past an empty log"),
        pytest.param(2, 3, id="checkpoint past the end of the log"),
    ],
)
def test_out_of_range_checkpoint_raises(assumed, checkpoint):
    infos = _cluster()
    statement = Statement()
    for _ in range(assumed):
        statement.assume(POD_KINDS[0], infos[0])
    with pytest.raises(StatementError):
        statement.rollback(checkpoint)
    # nothing was undone
    assert len(infos[0].pods) == 1 + assumed


def test_stale_checkpoint_after_rollback_raises():
    infos = _cluster()
    statement = Statement()
    statement.assume(POD_KINDS[0], infos[0])
    statement.assume(POD_KINDS[0], infos[0])
    stale = statement.checkpoint()
    statement.rollback(0)
    with pytest.raises(StatementError):
        statement.rollback(stale)


def test_commit_keeps_assumptions():
    infos = _cluster()
    statement = Statement()
    statement.assume(POD_KINDS[1], infos[2])
    statement.assume(POD_KINDS[0], infos[2])
    committed = statement.commit()
    assert committed == [(POD_KINDS[1], infos[2]), (POD_KINDS[0], infos[2])]
    assert statement.checkpoint() == 0
    statement.rollback(0)
    assert [p.name for p in infos[2].pods] == ["big", "small"]
    assert infos[2].requested == {"cpu": 3000, "memory": 3 * MI}


# -- property: any sequence of operations, rolled back to 0, restores the initial state ------

OPS = st.lists(
    st.one_of(
        st.tuples(st.just("assume"), st.integers(0, len(POD_KINDS) - 1), st.integers(0, 2)),
        st.tuples(st.just("checkpoint")),
        st.tuples(st.just("rollback"), st.integers(0, 1000)),
        st.tuples(st.just("evict"), st.integers(0, 2), st.integers(0, 1000)),
    ),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(OPS)
@example([("assume", 3, 0), ("checkpoint",), ("evict", 0, 0), ("rollback", 0)])
def test_rollback_to_zero_restores_every_node(ops):
    infos = _cluster()
    initial = [state(i) for i in infos]
    statement = Statement()
    checkpoints: list[int] = []
    shadow: list[tuple[str, object, int]] = []  # the log as (operation, pod, node)
    for op in ops:
        if op[0] == "assume":
            _, kind, node = op
            statement.assume(POD_KINDS[kind], infos[node])
            shadow.append(("assume", POD_KINDS[kind], node))
        elif op[0] == "evict":
            _, node, which = op
            if infos[node].pods:
                pod = infos[node].pods[which % len(infos[node].pods)]
                statement.evict(pod, infos[node])
                shadow.append(("evict", pod, node))
        elif op[0] == "checkpoint":
            checkpoints.append(statement.checkpoint())
        else:
            valid = [c for c in checkpoints if c <= len(shadow)]
            if not valid:
                continue
            target = valid[op[1] % len(valid)]
            statement.rollback(target)
            del shadow[target:]
        assert statement.checkpoint() == len(shadow)
    # intermediate state equals replaying the surviving log on a fresh cluster
    replay = _cluster()
    for what, pod, node in shadow:
        if what == "assume":
            replay[node].add_pod(pod)
        else:
            replay[node].remove_pod(next(p for p in replay[node].pods if p.key == pod.key))
    def without_pod_identity(info):
        # Used host ports are a multiset (upstream: a map): a restored pod's come back at
        # the end of the list, where a replay that never evicted it keeps them in place.
        requested, cpu, memory, _, ports = state(info)
        return requested, cpu, memory, sorted(map(repr, ports))

    assert [without_pod_identity(i) for i in infos] == [without_pod_identity(i) for i in replay]
    statement.rollback(0)
    assert [state(i) for i in infos] == initial


# -- eviction and trials ------------------------------------------------------------------


def test_evict_and_restore_are_undone_like_assumptions():
    infos = _cluster()
    initial = [state(i) for i in infos]
    running = infos[0].pods[0]
    statement = Statement()
    statement.evict(running, infos[0])
    assert running not in infos[0].pods and infos[0].ports == []
    mark = statement.checkpoint()
    statement.assume(POD_KINDS[3], infos[0])  # takes the evicted pod's port
    statement.rollback(mark)
    statement.restore(running, infos[0])
    statement.evict(running, infos[0])
    statement.rollback(0)
    assert [state(i) for i in infos] == initial


def test_the_statement_knows_which_pods_are_evicted():
    infos = _cluster()
    running = infos[0].pods[0]
    statement = Statement()
    statement.evict(running, infos[0])
    assert statement.evicted(running)
    mark = statement.checkpoint()
    statement.restore(running, infos[0])
    assert not statement.evicted(running)
    statement.rollback(mark)
    assert statement.evicted(running)
    statement.commit()  # kept: later units see it gone
    assert statement.evicted(running)
    with statement.trial():
        statement.restore(running, infos[0])
    assert statement.evicted(running)


def test_a_trial_undoes_what_was_committed_inside_it():
    infos = _cluster()
    initial = [state(i) for i in infos]
    statement = Statement()
    statement.assume(POD_KINDS[0], infos[1])
    statement.commit()
    kept = [state(i) for i in infos]
    with statement.trial():
        statement.evict(infos[0].pods[0], infos[0])
        statement.assume(POD_KINDS[1], infos[2])
        statement.commit()  # as the cycle commits its winner
        assert [state(i) for i in infos] != kept
    assert [state(i) for i in infos] == kept != initial
    assert statement.checkpoint() == 0


def test_a_trial_kept_commits_what_was_committed_inside_it():
    infos = _cluster()
    statement = Statement()
    checkpoint = statement.begin()
    statement.assume(POD_KINDS[1], infos[2])
    statement.commit()
    assert statement.checkpoint() == 1  # not forgotten while the trial is open
    statement.end(checkpoint, keep=True)
    assert statement.checkpoint() == 0  # committed now
    assert [p.name for p in infos[2].pods] == ["big"]


def test_changes_since_never_spans_an_eviction():
    infos = _cluster()
    statement = Statement()
    statement.evict(infos[0].pods[0], infos[0])
    after = statement.checkpoint()
    statement.assume(POD_KINDS[0], infos[1])
    assert statement.changes_since(after) == [(POD_KINDS[0], infos[1])]
    with pytest.raises(StatementError):
        statement.changes_since(0)


# -- evict_all: what evict one by one does, in one operation ----------------------------------

def _exact(info: NodeInfo, pods: list) -> tuple:
    """Everything of a NodeInfo, order and zero entries included; pods named by their
    place in ``pods`` (the node's pods as built)."""
    where = {id(p): n for n, p in enumerate(pods)}
    return (dict(info.requested), list(info.requested), info.non_zero_cpu,
            info.non_zero_memory, [where[id(p)] for p in info.pods], list(info.ports),
            [where[id(p)] for p in info.affinity_pods], info.generation)


def _crowded() -> tuple[NodeInfo, list]:
    ported = [replace(make_pod(f"port-{i}", 0.5, node="n0"),
                      host_ports=(HostPort(8080 + i % 2), HostPort(53, "UDP")))
              for i in range(3)]
    plain = [make_pod(f"p-{i}", 1 + i % 2, node="n0", memory=i * MI) for i in range(4)]
    affine = [replace(make_pod(f"aff-{i}", 1, node="n0", **{GPU: 1}),
                      pod_affinity=PodAffinity()) for i in range(2)]
    [info] = node_infos([make_node("n0", 64, memory=64 * MI, **{GPU: 4})],
                        [*ported, *plain, *affine])
    return info, list(info.pods)


@settings(max_examples=100, deadline=None)
@given(st.permutations(range(9)), st.integers(0, 9), st.integers(0, 9))
def test_evict_all_is_evict_one_by_one(order, count, restored):
    (one, pods), (bulk, bulk_pods) = _crowded(), _crowded()
    initial = _exact(one, pods)
    leaving = list(order[:count])
    s_one, s_bulk = Statement(), Statement()
    for n in leaving:
        s_one.evict(pods[n], one)
    s_bulk.evict_all([bulk_pods[n] for n in leaving], bulk)

    def same() -> None:
        assert _exact(one, pods) == _exact(bulk, bulk_pods)
        assert [s_one.evicted(p) for p in pods] == [s_bulk.evicted(p) for p in bulk_pods]

    same()
    if restored < len(leaving):  # one back, then undone
        mark_one, mark_bulk = s_one.checkpoint(), s_bulk.checkpoint()
        s_one.restore(pods[leaving[restored]], one)
        s_bulk.restore(bulk_pods[leaving[restored]], bulk)
        same()
        s_one.rollback(mark_one)
        s_bulk.rollback(mark_bulk)
        same()
    s_one.rollback(0)
    s_bulk.rollback(0)
    same()
    assert _exact(one, pods)[:4] == initial[:4]
