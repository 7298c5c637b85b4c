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
from tasplan.model.pod_affinity import PodAffinity, PodAffinityTerm
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


# -- assume_many: copies of one pod in one step, exactly as many single assumptions --------

AFFINE = replace(make_pod("affine", 1), pod_affinity=PodAffinity(
    required_anti=(PodAffinityTerm(None, "kubernetes.io/hostname"),)))
MANY_KINDS = [*POD_KINDS, AFFINE, pod_with({"cpu": 0, "memory": 0}, "zeros")]


def copies(kind: int, n: int, tag: str) -> list:
    """``n`` distinct pods alike in all a node counts (requests copied, not shared)."""
    pod = MANY_KINDS[kind]
    return [replace(pod, name=f"{pod.name}-{tag}-{i}", requests=dict(pod.requests))
            for i in range(n)]


def observed(info: NodeInfo) -> tuple:
    """Everything of a NodeInfo: requested with its key order and zero entries, pods and
    affinity pods by identity, ports in order, the generation caches compare."""
    return (list(info.requested.items()), info.non_zero_cpu, info.non_zero_memory,
            [id(p) for p in info.pods], list(info.ports), [id(p) for p in info.affinity_pods],
            info.generation)


def _entries(log: list) -> list:
    """Log entries by identity."""
    return [(id(p), n.name) for p, n in log]


MANY_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("many"), st.integers(0, len(MANY_KINDS) - 1), st.integers(0, 2),
                  st.integers(0, 5), st.booleans()),
        st.tuples(st.just("assume"), st.integers(0, len(MANY_KINDS) - 1), st.integers(0, 2)),
        st.tuples(st.just("checkpoint")),
        st.tuples(st.just("rollback"), st.integers(0, 1000)),
        st.tuples(st.just("evict"), st.integers(0, 2), st.integers(0, 1000)),
        st.tuples(st.just("evict_all"), st.integers(0, 2), st.integers(0, 1000)),
        st.tuples(st.just("commit")),
    ),
    max_size=30,
)


@settings(max_examples=200, deadline=None)
@given(MANY_OPS)
@example([("many", 0, 0, 3, False), ("rollback", 2)])  # a checkpoint inside a run
@example([("many", 3, 0, 3, False), ("evict", 0, 2), ("rollback", 0)])  # ports, eviction
@example([("many", 5, 1, 4, False), ("evict", 1, 1), ("rollback", 0)])  # affinity pods
def test_assume_many_is_single_assumptions(ops):
    """Twin clusters, one driven with ``assume_many``, the other with one ``assume`` per
    pod: after every operation (runs of copies or mixed pods, rollbacks to any position,
    inside a run included, evictions, commits) every observable of every NodeInfo and the
    log agree, and rolling back to the start restores the initial state exactly."""
    batched, single = _cluster(), _cluster()
    for a, b in zip(batched, single, strict=True):  # the same running pod objects
        b.pods, b.affinity_pods = list(a.pods), list(a.affinity_pods)
    initial = [state(i) for i in batched]
    sb, ss = Statement(), Statement()
    checkpoints: list[int] = []
    tag = 0
    for op in ops:
        if op[0] == "many":
            _, kind, node, n, mixed = op
            tag += 1
            pods = copies(kind, n, str(tag))
            if mixed and pods:
                pods[-1] = copies((kind + 1) % len(MANY_KINDS), 1, str(tag))[0]
            sb.assume_many(pods, batched[node])
            for pod in pods:
                ss.assume(pod, single[node])
        elif op[0] == "assume":
            _, kind, node = op
            tag += 1
            (pod,) = copies(kind, 1, str(tag))
            sb.assume(pod, batched[node])
            ss.assume(pod, single[node])
        elif op[0] == "evict":
            _, node, which = op
            if batched[node].pods:
                pod = batched[node].pods[which % len(batched[node].pods)]
                sb.evict(pod, batched[node])
                ss.evict(pod, single[node])
        elif op[0] == "evict_all":
            _, node, which = op
            pods = batched[node].pods[which % 3::2]
            if pods:
                sb.evict_all(pods, batched[node])
                ss.evict_all(pods, single[node])
        elif op[0] == "checkpoint":
            checkpoints.append(sb.checkpoint())
        elif op[0] == "commit":
            assert _entries(sb.commit()) == _entries(ss.commit())
            checkpoints.clear()
            initial = [state(i) for i in batched]
        else:
            target = op[1] % (sb.checkpoint() + 1)  # any position, not only checkpoints
            sb.rollback(target)
            ss.rollback(target)
        assert [observed(i) for i in batched] == [observed(i) for i in single]
        assert sb.checkpoint() == ss.checkpoint()
        if not any(o[0].startswith("evict") for o in ops):  # never spans evictions
            assert _entries(sb.changes_since(0)) == _entries(ss.changes_since(0))
    sb.rollback(0)
    ss.rollback(0)
    assert [observed(i) for i in batched] == [observed(i) for i in single]
    # an undone eviction puts its pod (and ports) back at the end: compare as multisets
    def unordered(s):
        return s[0], s[1], s[2], sorted(s[3]), sorted(map(repr, s[4]))

    assert [unordered(state(i)) for i in batched] == [unordered(s) for s in initial]


def test_assume_many_is_one_step_for_copies_only():
    """Copies take the one-step path (one batch, undone at once); a run with one pod unlike
    the others, or with reservers, goes pod by pod."""
    infos = _cluster()
    statement = Statement()
    statement.assume_many(copies(1, 4, "a"), infos[1])
    assert statement._batches == [(0, 4)]
    assert infos[1].requested == {"cpu": 8000, "memory": 12 * MI}
    mixed = copies(1, 2, "b") + copies(0, 1, "c")
    statement.assume_many(mixed, infos[1])
    assert statement._batches == [(0, 4)] and statement.checkpoint() == 7

    class Counting:
        def __init__(self):
            self.held = 0

        def reserve(self, pod, node):
            self.held += 1
            return pod

        def unreserve(self, token):
            self.held -= 1

    counting = Counting()
    with_reserver = Statement([counting])
    with_reserver.assume_many(copies(0, 3, "d"), infos[2])
    assert counting.held == 3 and with_reserver._batches == []
    with_reserver.rollback(1)
    assert counting.held == 1 and len(infos[2].pods) == 1


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
    # pods of one class sharing one requests mapping, as the loader builds them
    twin = make_pod("twin-0", 2, node="n0", memory=3 * MI, **{GPU: 1})
    twins = [twin, *(replace(twin, name=f"twin-{i}") for i in (1, 2))]
    [info] = node_infos([make_node("n0", 64, memory=64 * MI, **{GPU: 8})],
                        [*ported, *plain, *affine, *twins])
    return info, list(info.pods)


@settings(max_examples=100, deadline=None)
@given(st.permutations(range(12)), st.integers(0, 12), st.integers(0, 12), st.integers(0, 12),
       st.booleans())
def test_evict_all_is_evict_one_by_one(order, count, restored, inside, assumed):
    (one, pods), (bulk, bulk_pods) = _crowded(), _crowded()
    initial = _exact(one, pods)
    leaving = list(order[:count])
    s_one, s_bulk = Statement(), Statement()
    for n in leaving:
        s_one.evict(pods[n], one)
    s_bulk.evict_all([bulk_pods[n] for n in leaving], bulk)
    # assumed after them (both nodes), with a resource the node had none of
    newcomer = make_pod("newcomer", 1, node="n0", **{"example.com/new": 1})

    def same() -> None:
        ones, bulks = [*pods, newcomer], [*bulk_pods, newcomer]
        assert _exact(one, ones) == _exact(bulk, bulks)
        assert [s_one.evicted(p) for p in pods] == [s_bulk.evicted(p) for p in bulk_pods]
        # the log too: one entry per pod, so checkpoints and commit() read alike
        assert [ones.index(p) for p, _ in s_one._log] == \
            [bulks.index(p) for p, _ in s_bulk._log]

    same()
    if assumed:
        s_one.assume(newcomer, one)
        s_bulk.assume(newcomer, bulk)
        same()
    if restored < len(leaving):  # one back, then undone
        mark_one, mark_bulk = s_one.checkpoint(), s_bulk.checkpoint()
        s_one.restore(pods[leaving[restored]], one)
        s_bulk.restore(bulk_pods[leaving[restored]], bulk)
        same()
        s_one.rollback(mark_one)
        s_bulk.rollback(mark_bulk)
        same()
    if assumed:  # undone: its resource stays in the totals, at 0
        s_one.rollback(len(leaving))
        s_bulk.rollback(len(leaving))
        same()
    if inside < len(leaving):  # to a position inside the run: its head stays evicted
        s_one.rollback(inside)
        s_bulk.rollback(inside)
        same()
    s_one.rollback(0)
    s_bulk.rollback(0)
    same()
    back = _exact(one, pods)
    assert {k: v for k, v in back[0].items() if k != "example.com/new"} == initial[0]
    assert back[2:4] == initial[2:4]


def test_assume_many_is_one_step_when_every_reserver_holds_nothing_for_the_pods():
    """A reserver that says (``reserves``) it holds nothing for the pods is not asked:
    copies go in one step and roll back as one; one that may hold something for one of
    them, or that does not say, gets every pod one by one."""
    infos = _cluster()

    class Saying:
        def __init__(self, holds):
            self.holds, self.asked = holds, 0

        def reserves(self, pod):
            return pod.name in self.holds

        def reserve(self, pod, node):
            self.asked += 1
            return pod if pod.name in self.holds else None

        def unreserve(self, token):
            self.asked -= 1

    quiet = Saying(set())
    statement = Statement([quiet])
    before = state(infos[1])
    statement.assume_many(copies(1, 4, "a"), infos[1])
    assert statement._batches == [(0, 4)] and quiet.asked == 0
    assert len(infos[1].pods) == len(before[3]) + 4
    statement.rollback(0)
    assert state(infos[1]) == before and statement._batches == []

    pods = copies(1, 3, "b")
    holding = Saying({pods[1].name})
    statement = Statement([quiet, holding])
    statement.assume_many(pods, infos[2])
    assert statement._batches == [] and holding.asked == 3

    class Silent:  # no ``reserves``: it may hold anything
        def reserve(self, pod, node):
            return None

        def unreserve(self, token):
            raise AssertionError("nothing was reserved")

    statement = Statement([Silent()])
    statement.assume_many(copies(1, 2, "c"), infos[0])
    assert statement._batches == []


def test_dynamic_resources_reserves_only_pods_with_claims():
    """What ``reserves`` says is what ``reserve`` does: nothing for a pod without claims."""
    from tasplan.plugins.dynamic_resources import DynamicResources

    plugin = DynamicResources.__new__(DynamicResources)  # reserve reads nothing else first
    pod = copies(0, 1, "d")[0]
    assert not pod.claims
    assert plugin.reserves(pod) is False
    assert plugin.reserve(pod, _cluster()[0]) is None
