"""One pod class inside one placement: filter, score, pick a node, repeat.

Pods of a group are usually identical, so the per-pod algorithm runs per equivalence class
(pods with equal ``Pod.signature()``): static filter results are computed once per class
and node, and after each assumption only the nodes that changed are re-filtered and
re-scored (found through the Statement's log). Node totals live in a heap with lazy
invalidation, so picking the best node costs O(log n). The node chosen is the same, pod for
pod, as running the full filter/score loop over every node for every pod.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, insort
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from tasplan.errors import InternalError
from tasplan.framework.diagnosis import Diagnosis
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.statement import Statement
from tasplan.framework.status import PluginError, Status
from tasplan.framework.types import MAX_NODE_SCORE, CycleState, GroupContext, Scope
from tasplan.model.pod import Pod

T = TypeVar("T")

# Capacity of a node no dynamic filter limits.
UNLIMITED = 2**62
# A filtering-only cursor counts capacities without filtering every node first
# (``ClassCursor._counted``); False: it filters first, as a scoring cursor does (tests
# compare both).
FAST_CAPACITY = True

# Static filter outcome of one node for one class: None, or (filter position, status).
StaticResult = tuple[int, Status] | None
_UNKNOWN = object()  # a node's static result not computed yet


def _scope(fw: Framework, plugin, pod: Pod) -> Scope:
    """A plugin's scope, narrowed for this pod when the plugin says so (a PodScopedPlugin:
    DynamicResources reads only the node when the pod's devices can only be node-local)."""
    scope_for = fw.pod_scoped.get(id(plugin))
    return plugin.scope if scope_for is None else scope_for(pod)


def _nominated_room(pod: Pod, nodes: Sequence[NodeInfo]) -> dict[int, list[Pod]]:
    """Pods nominated to a node at ``pod``'s priority or higher (not the pod itself nor its
    own group: those are the pods being placed), per local node index."""
    out: dict[int, list[Pod]] = {}
    for i, info in enumerate(nodes):
        if not info.nominated:
            continue
        held = [p for p in info.nominated if p.priority >= pod.priority and p is not pod
                and (p.group is None or p.group != pod.group)]
        if held:
            out[i] = held
    return out


def _stamp(status: Status, plugin_name: str) -> Status:
    if not status.rejected:
        raise PluginError(status.with_plugin(plugin_name))
    return status.with_plugin(plugin_name)


@dataclass
class ClassCache:
    """What one pod class shares across the placements of its group: static filter results
    per node index, and the cluster-state plugins' summaries as of the group's start."""

    static: dict[int, StaticResult] = field(default_factory=dict)
    summaries: dict[str, object | None] | None = None


class GroupCache:
    """Per-class caches of one group's cycle. ``base`` is the Statement position when the
    cycle began: every placement is simulated from there and rolled back to it."""

    def __init__(self, cluster: Sequence[NodeInfo], statement: Statement) -> None:
        self.cluster = cluster
        self.base = statement.checkpoint()
        self._classes: dict[tuple, ClassCache] = {}
        self._keys: dict[int, tuple[tuple[Pod, ...], list[str]]] = {}
        self._feasible: tuple[object, Callable[[int, int], Status]] | None = None
        self._domains: dict[tuple[int, ...], tuple[tuple[NodeInfo, ...], object]] = {}

    def keys(self, pods: tuple[Pod, ...]) -> list[str]:
        """``pod.key`` of each of ``pods`` (a group's pending pods, asked per placement; alike
        groups share this cache)."""
        hit = self._keys.get(id(pods))
        if hit is None or hit[0] is not pods:  # the tuple is kept: its id is not reused
            hit = self._keys[id(pods)] = (pods, [p.key for p in pods])
        return hit[1]

    def placement_feasible(self, fw: Framework, ctx: GroupContext
                           ) -> Callable[[int, int], Status]:
        """``fw.run_placement_feasible`` for ``ctx``, answered once per (remaining,
        scheduled) pair: the plugins' answer depends on nothing else (their contract)."""
        hit = self._feasible
        if hit is None or hit[0] is not ctx:
            memo: dict[tuple[int, int], Status] = {}

            def feasible(remaining: int, scheduled: int) -> Status:
                status = memo.get((remaining, scheduled))
                if status is None:
                    status = memo[remaining, scheduled] = fw.run_placement_feasible(
                        ctx, remaining, scheduled)
                return status

            hit = self._feasible = (ctx, feasible)
        return hit[1]

    def domain(self, members: Sequence[NodeInfo], facts: Callable[[Sequence[NodeInfo]], T]
               ) -> T:
        """``facts(members)`` once per set of nodes: for what their Node objects fix (a
        NodeInfo's node never changes; the cache keeps ``members``, so their ids stay
        theirs)."""
        key = tuple(map(id, members))
        hit = self._domains.get(key)
        if hit is None:
            hit = self._domains[key] = (tuple(members), facts(members))
        return hit[1]

    def of(self, signature: tuple) -> ClassCache:
        cache = self._classes.get(signature)
        if cache is None:
            cache = self._classes[signature] = ClassCache()
        return cache


class ClassCursor:
    """Places pods of one class, one at a time, on the nodes of one placement."""

    def __init__(
        self,
        fw: Framework,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        statement: Statement,
        group: GroupCache,
        cache: ClassCache,
        *,
        scoring: bool = True,
    ) -> None:
        """``scoring=False``: a cursor that only filters (``capacity``, diagnoses); it cannot
        choose nodes (counting a placement needs no scores)."""
        self._pod = pod
        self._scoring = scoring
        self._counting = fw.counting
        self._exact = fw.capacity_exact
        self._nodes = nodes
        self._statement = statement
        self._state = state = CycleState()
        # Cluster-state plugins with something to do for this class, summaries in state.
        self._summarised = self._summarise(fw, group, cache)
        skipped = {p.name for p in fw.cluster_state} - {p.name for p in self._summarised}
        filters = fw.filters
        self._filter_count = len(filters)
        pod_scoped = fw.pod_scoped
        scopes = [f.scope if id(f) not in pod_scoped else pod_scoped[id(f)](pod)
                  for f in filters]  # ``_scope`` of each filter
        self._dyn_filters = [(pos, f) for pos, f in enumerate(filters)
                             if scopes[pos] != Scope.STATIC and f.name not in skipped]
        self._node_filters = [(pos, f) for pos, f in self._dyn_filters
                              if scopes[pos] == Scope.NODE]
        self._cluster_filters = [(pos, f) for pos, f in self._dyn_filters
                                 if scopes[pos] == Scope.CLUSTER]
        self._cluster_scope = bool(self._cluster_filters)

        self._reserved = _nominated_room(pod, nodes)
        self._static = self._static_results(filters, cache.static)

        active = [s for s in fw.scores if s.plugin.name not in skipped
                  and (s.pre_score is None or s.pre_score(state, pod))]
        self._dyn_scores = [(s.plugin, s.weight, s.normalize) for s in active
                            if s.plugin.scope != Scope.STATIC]
        self._dyn_plugins = [p for p, _, _ in self._dyn_scores]
        self._dyn_weights = [w for _, w, _ in self._dyn_scores]
        self._cluster_scores = [(k, plugin) for k, (plugin, _, _) in enumerate(self._dyn_scores)
                                if plugin.scope == Scope.CLUSTER]
        self._cluster_scope |= bool(self._cluster_scores)
        # Cluster-scope plugins without a summary: any change may affect any node.
        summarised = {id(p) for p in self._summarised}
        self._unsummarised = any(
            scopes[pos] == Scope.CLUSTER and id(f) not in summarised
            for pos, f in self._dyn_filters) or any(
            _scope(fw, s.plugin, pod) == Scope.CLUSTER and id(s.plugin) not in summarised
            for s in active)
        # With a normalising dynamic score a node's total depends on every other node, so
        # totals are recomputed for each pod instead of kept in the heap.
        self._dyn_normalized = any(norm is not None for _, _, norm in self._dyn_scores)
        self._static_scores = self._prepare_static_scores(active) if scoring else []

        # A filtering-only cursor filters its nodes when first asked for per-node answers
        # (``_begin``): counting usually needs only capacities (``capacity``).
        self._started = False
        if scoring or not FAST_CAPACITY:
            self._begin()
        else:
            self._filter_gen = [-1] * len(nodes)
            self._node_fail = [None] * len(nodes)
        self._position = statement.checkpoint()
        self._last_failure: Diagnosis | None = None
        self._by_name: dict[str, int] | None = None

    def _begin(self) -> None:
        if not self._started:
            self._started = True
            self._local = {info.index: i for i, info in enumerate(self._nodes)}
            self._start(len(self._nodes))

    def _start(self, n: int) -> None:
        """Per-node state, every node filtered and scored once."""
        self._fail: list[Status | None] = [None] * n
        self._feasible: list[int] = []
        self._listed = [False] * n  # i in self._feasible
        self._dyn_raw: list[list[int]] = [[] for _ in range(n)]
        # A node's node-scope filter outcome and raw scores stay valid while its generation
        # does: when only other nodes changed, cluster-scope plugins alone are re-run.
        self._filter_gen = [-1] * n
        self._node_fail: list[tuple[int, Status] | None] = [None] * n
        self._raw_gen = [-1] * n
        self._dyn_total = [0] * n
        self._static_total = [0] * n
        self._static_stale = bool(self._static_scores)
        self._version = [0] * n
        self._heap: list[tuple[int, int, int]] = []
        for i in range(n):
            self._refresh(i)

    def _summarise(self, fw: Framework, group: GroupCache, cache: ClassCache) -> list:
        """Summaries of the cluster-state plugins for this class as of now: the class's
        summary at the group's start (computed once: from the current state, minus what was
        assumed since the start), plus what was assumed since."""
        pod, statement = self._pod, self._statement
        since = statement.changes_since(group.base)
        if cache.summaries is None:
            cache.summaries = {}
            for plugin in fw.cluster_state:
                summary = plugin.prepare(pod, group.cluster)
                if summary is not None:
                    for added, info in reversed(since):
                        plugin.remove_pod(summary, pod, added, info)
                cache.summaries[plugin.name] = summary
        active = []
        for plugin in fw.cluster_state:
            base = cache.summaries[plugin.name]
            if base is None:
                continue
            summary = self._state[plugin.name] = base.copy()
            for added, info in since:
                plugin.add_pod(summary, pod, added, info)
            active.append(plugin)
        return active

    # -- filtering ---------------------------------------------------------------------------

    def _static_results(self, filters, known: dict[int, StaticResult]) -> list[StaticResult]:
        """Each node's static filter result, from the class's cache (``known``) or found."""
        out: list[StaticResult] = []
        statics = None
        for info in self._nodes:
            result = known.get(info.index, _UNKNOWN)
            if result is _UNKNOWN:
                if statics is None:
                    statics = [(pos, f) for pos, f in enumerate(filters)
                               if f.scope == Scope.STATIC]
                result = known[info.index] = self._static_filter(statics, info)
            out.append(result)
        return out

    def _static_filter(self, statics, info: NodeInfo) -> StaticResult:
        """``statics``: (position, filter) of the profile's static filters, in order."""
        state, pod = self._state, self._pod
        for pos, plugin in statics:
            status = plugin.filter(state, pod, info)
            if status is not None:
                return pos, _stamp(status, plugin.name)
        return None

    def _node_status(self, i: int, info: NodeInfo) -> Status | None:
        """Upstream's two passes: with the pods nominated to the node at equal or higher
        priority added, then without them; the node must pass both."""
        reserved = self._reserved.get(i)
        if reserved:
            status = self._filter_node(i, info.with_pods(reserved),
                                       self._state_with(reserved, info))
            if status is not None:
                return status
        return self._filter_node(i, info, self._state)

    def _state_with(self, reserved: list[Pod], info: NodeInfo) -> CycleState:
        if not self._summarised:
            return self._state
        state = CycleState(self._state)
        for plugin in self._summarised:
            summary = state[plugin.name] = state[plugin.name].copy()
            for other in reserved:
                plugin.add_pod(summary, self._pod, other, info)
        return state

    def _filter_node(self, i: int, info: NodeInfo, state: CycleState) -> Status | None:
        """The first failing filter in profile order: static results are cached per class,
        node-scope ones per node generation, cluster-scope ones always run."""
        static = self._static[i]
        limit = static[0] if static is not None else self._filter_count
        pod = self._pod
        live = info is self._nodes[i]  # not a detached what-if copy
        if live and self._filter_gen[i] == info.generation:
            node_fail = self._node_fail[i]
        else:
            node_fail = None
            for pos, plugin in self._node_filters:
                if pos >= limit:
                    break
                status = plugin.filter(state, pod, info)
                if status is not None:
                    node_fail = (pos, _stamp(status, plugin.name))
                    break
            if live:
                self._filter_gen[i], self._node_fail[i] = info.generation, node_fail
        if node_fail is not None:
            limit = node_fail[0]
        for pos, plugin in self._cluster_filters:
            if pos >= limit:
                break
            status = plugin.filter(state, pod, info)
            if status is not None:
                return _stamp(status, plugin.name)
        if node_fail is not None:
            return node_fail[1]
        return static[1] if static is not None else None

    def _fixed(self, i: int) -> bool:
        """True when a static filter rejects node ``i`` before any dynamic filter runs."""
        static = self._static[i]
        return static is not None and (not self._dyn_filters or
                                       self._dyn_filters[0][0] >= static[0])

    def _refresh(self, i: int) -> None:
        """Re-filter and re-score node ``i`` after its state changed."""
        self._version[i] += 1
        if self._fixed(i):
            self._fail[i] = self._static[i][1]
            return
        was_feasible = self._listed[i]
        info = self._nodes[i]
        # ``_node_status`` without its nominated-pods pass where no pod is nominated here.
        status = self._fail[i] = (self._node_status(i, info) if i in self._reserved
                                  else self._filter_node(i, info, self._state))
        if status is None:
            if not was_feasible:
                insort(self._feasible, i)
                self._listed[i] = True
                self._static_stale = bool(self._static_scores)
            if not self._scoring:
                return
            state, pod = self._state, self._pod
            raw = self._dyn_raw[i]
            if self._raw_gen[i] == info.generation:
                for k, plugin in self._cluster_scores:
                    raw[k] = plugin.score(state, pod, info)
            else:
                raw = self._dyn_raw[i] = [p.score(state, pod, info)
                                          for p in self._dyn_plugins]
                self._raw_gen[i] = info.generation
            if self._dyn_normalized:
                return  # totals are recomputed over all feasible nodes for each pod
            total = 0
            for w, r in zip(self._dyn_weights, raw, strict=True):
                total += w * r
            self._dyn_total[i] = total
            if not self._static_stale:
                heapq.heappush(self._heap, (-(self._dyn_total[i] + self._static_total[i]), i,
                                            self._version[i]))
        elif was_feasible:
            del self._feasible[bisect_left(self._feasible, i)]
            self._listed[i] = False
            self._static_stale = bool(self._static_scores)

    # -- scoring -----------------------------------------------------------------------------

    def _prepare_static_scores(self, active) -> list[tuple[int, object, list[int]]]:
        """Raw static scores per node. A plugin whose raw score is the same on every
        candidate adds the same amount to every node, so it cannot change the choice and is
        dropped (after normalisation equal inputs stay equal)."""
        out = []
        state, pod = self._state, self._pod
        candidates = [i for i, s in enumerate(self._static) if s is None]
        for entry in active:
            if entry.plugin.scope != Scope.STATIC:
                continue
            raw = [0] * len(self._nodes)
            for i in candidates:
                raw[i] = entry.plugin.score(state, pod, self._nodes[i])
            if len({raw[i] for i in candidates}) > 1:
                out.append((entry.weight, entry.normalize, raw))
        return out

    def _restatic(self) -> None:
        """Static scores are normalised over the feasible nodes: recompute them when that set
        changed, and rebuild the heap from the new totals."""
        total = [0] * len(self._nodes)
        feasible = self._feasible
        for weight, normalize, raw in self._static_scores:
            scores = [raw[i] for i in feasible]
            if normalize is not None:
                normalize(self._state, self._pod, scores, [self._nodes[i] for i in feasible])
            for i, value in zip(feasible, scores, strict=True):
                total[i] += weight * value
        self._static_total = total
        self._heap = [(-(self._dyn_total[i] + total[i]), i, self._version[i]) for i in feasible]
        heapq.heapify(self._heap)
        self._static_stale = False

    def _best_normalized(self) -> int:
        """Every feasible node's total from scratch (dynamic scores normalise over all)."""
        feasible = self._feasible
        total = {i: self._static_total[i] for i in feasible}
        for k, (plugin, weight, normalize) in enumerate(self._dyn_scores):
            scores = [self._dyn_raw[i][k] for i in feasible]
            if normalize is not None:
                normalize(self._state, self._pod, scores, [self._nodes[i] for i in feasible])
            for i, value in zip(feasible, scores, strict=True):
                if not 0 <= value <= MAX_NODE_SCORE:
                    raise InternalError(f"{plugin.name} scored {value}, outside [0, 100]")
                total[i] += weight * value
        # max() keeps the first maximum: feasible is in node-name order.
        return max(feasible, key=total.__getitem__)

    # -- the loop ----------------------------------------------------------------------------

    def _sync(self) -> bool:
        self._begin()
        position = self._statement.checkpoint()
        if position == self._position:
            return False
        changes = self._statement.changes_since(self._position)
        touched: set[tuple[str, str]] | None = set()
        if self._summarised:
            pod, state = self._pod, self._state
            for added, info in changes:
                for plugin in self._summarised:
                    pairs = plugin.add_pod(state[plugin.name], pod, added, info)
                    if pairs is None:
                        touched = None
                    elif touched is not None:
                        touched |= pairs
        if self._cluster_scope and (touched is None or self._unsummarised):
            changed = range(len(self._nodes))
        elif len(changes) == 1 and not touched:  # one pod assumed: the usual step
            self._position = position
            i = self._local.get(changes[0][1].index)
            if i is not None:
                self._refresh(i)
            return True
        else:
            local = self._local
            changed = {local[info.index] for _, info in changes if info.index in local}
            if touched:
                # Nodes in a topology domain whose counts changed.
                changed.update(i for i, info in enumerate(self._nodes)
                               if any(info.node.labels.get(k) == v for k, v in touched))
        self._position = position
        for i in changed:
            self._refresh(i)
        return True

    def nominated(self, name: str) -> NodeInfo | None:
        """The pod's own nominated node when it is in this placement and passes the filters
        (upstream ``evaluateNominatedNode``: then it is taken without scoring), else None."""
        if self._sync():
            self._last_failure = None
        if self._by_name is None:
            self._by_name = {info.node.name: k for k, info in enumerate(self._nodes)}
        i = self._by_name.get(name)
        if i is None or self._fail[i] is not None:
            return None
        return self._nodes[i]

    def statuses(self) -> list[Status | None]:
        """Per node, in the current state, why the next pod of this class does not fit
        there (the first failing filter's status), None where it fits."""
        self._sync()
        return list(self._fail)

    def next(self) -> tuple[NodeInfo | None, Diagnosis | None]:
        """The node the next pod of this class would get, or why there is none.

        Ties go to the smallest node name (upstream picks one of the tied nodes at random).
        """
        if not self._scoring:
            raise InternalError("a filtering-only ClassCursor cannot choose nodes")
        changed = self._sync()
        if not self._feasible:
            if self._last_failure is None or changed:
                self._last_failure = self._diagnosis(self._fail)
            return None, self._last_failure
        if len(self._feasible) == 1:  # upstream skips scoring for a single feasible node
            return self._nodes[self._feasible[0]], None
        if self._static_stale:
            self._restatic()
        if self._dyn_normalized:
            return self._nodes[self._best_normalized()], None
        heap, version, fail = self._heap, self._version, self._fail
        while True:
            _, i, stamp = heap[0]
            if stamp == version[i] and fail[i] is None:
                return self._nodes[i], None
            heapq.heappop(heap)

    def _diagnosis(self, statuses: Sequence[Status | None]) -> Diagnosis:
        nodes = self._nodes
        return Diagnosis(len(nodes), {nodes[i].node.name: s for i, s in enumerate(statuses)
                                      if s is not None})

    # -- capacity ----------------------------------------------------------------------------

    def capacity(self) -> list[int] | None:
        """Per node, how many more pods of this class fit; None when a dynamic filter cannot
        say (it reads other nodes, or has no ``capacity`` method).

        For a class of identical pods the greedy loop places pods until every node is full,
        so the number placed is ``min(sum(capacity), pods)`` whatever nodes it picks.
        """
        if self._cluster_scope or self._dyn_normalized:
            return None
        plugins = [f for _, f in self._dyn_filters]
        if not all(id(f) in self._counting for f in plugins):
            return None
        if not self._started and not self._reserved:
            return self._counted(plugins)
        self._begin()
        out = []
        for i, info in enumerate(self._nodes):
            if self._static[i] is not None or self._fail[i] is not None:
                out.append(0)
            else:
                reserved = self._reserved.get(i)
                view = info.with_pods(reserved) if reserved else info
                out.append(min((f.capacity(self._pod, view) for f in plugins),
                               default=UNLIMITED))
        return out

    def _counted(self, plugins: list) -> list[int]:
        """``capacity`` without filtering every node first (no pod is nominated here): a
        filter whose ``capacity`` is 0 exactly where it rejects (``Framework.capacity_exact``)
        is asked only for its capacity; any other filter runs, in profile order, where the
        ones before it passed, and gives its capacity where every filter passed: the
        answers, and the error statuses raised, of filtering every node first."""
        exact, pod, state, static = self._exact, self._pod, self._state, self._static
        first_other = next((pos for pos, f in self._dyn_filters if id(f) not in exact),
                           self._filter_count)
        out = []
        checked = []  # nodes every filter passed, for the other filters' capacities
        for i, info in enumerate(self._nodes):
            room = UNLIMITED
            if static[i] is not None:
                room = 0
                if static[i][0] > first_other:  # such a filter runs first: its errors raise
                    self._filter_node(i, info, state)
            else:
                for f in plugins:
                    if id(f) in exact:
                        fit = f.capacity(pod, info)
                        if fit < room:
                            room = fit
                        if not fit:
                            break
                    else:
                        status = f.filter(state, pod, info)
                        if status is not None:
                            _stamp(status, f.name)
                            room = 0
                            break
                else:
                    checked.append(i)
            out.append(room)
        if len(exact) < len(plugins):
            others = [f for f in plugins if id(f) not in exact]
            for i in checked:
                info = self._nodes[i]
                out[i] = min(out[i], *(f.capacity(pod, info) for f in others))
        return out

    def saturated_diagnosis(self, capacity: Sequence[int]) -> Diagnosis:
        """Why the next pod fails once every node holds ``capacity[i]`` more pods."""
        if not self._started:
            # ``capacity`` came from ``_counted``: a node with room passed every filter.
            statuses = [
                self._filter_now(i, info) if not capacity[i]
                else self._node_status(i, info.with_copies(self._pod, capacity[i]))
                for i, info in enumerate(self._nodes)
            ]
            return self._diagnosis(statuses)
        statuses = [
            self._fail[i] if self._fail[i] is not None or not capacity[i]
            else self._node_status(i, info.with_copies(self._pod, capacity[i]))
            for i, info in enumerate(self._nodes)
        ]
        return self._diagnosis(statuses)

    def _filter_now(self, i: int, info: NodeInfo) -> Status | None:
        """Node ``i``'s status as ``_refresh`` finds it (no pod nominated here)."""
        if self._fixed(i):
            return self._static[i][1]
        return self._filter_node(i, info, self._state)
