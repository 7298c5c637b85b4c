"""One pod class inside one placement: filter, score, pick a node, repeat.

Pods of a group are usually identical, so the per-pod algorithm runs per equivalence class
(pods with equal ``Pod.signature()``): static filter results are computed once per class
and node, and after each assumption only the nodes that changed are re-filtered and
re-scored (found through the Statement's log). The result is the same node, pod for pod,
as running the full filter/score loop for every pod.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Sequence

from tasplan.errors import InternalError
from tasplan.framework.diagnosis import Diagnosis
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.statement import Statement
from tasplan.framework.status import Status
from tasplan.framework.types import CycleState, Scope
from tasplan.model.pod import Pod

# Static filter outcome of one node for one class: None, or (filter position, status).
StaticResult = tuple[int, Status] | None


class PluginError(Exception):
    """A plugin answered with an ERROR status: the group fails, other groups go on."""

    def __init__(self, status: Status) -> None:
        self.status = status
        super().__init__(f"{status.plugin}: {status.message}")


def _stamp(status: Status, plugin_name: str) -> Status:
    if not status.rejected:
        raise PluginError(status.with_plugin(plugin_name))
    return status.with_plugin(plugin_name)


class ClassCursor:
    """Places pods of one class, one at a time, on the nodes of one placement."""

    def __init__(
        self,
        fw: Framework,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        statement: Statement,
        static_cache: dict[int, StaticResult],
    ) -> None:
        self._pod = pod
        self._nodes = nodes
        self._statement = statement
        self._state = state = CycleState()
        self._local = {info.index: i for i, info in enumerate(nodes)}
        filters = fw.filters
        self._filter_count = len(filters)
        self._dyn_filters = [(pos, f) for pos, f in enumerate(filters) if f.scope != Scope.STATIC]
        self._cluster_scope = any(f.scope == Scope.CLUSTER for f in filters)

        self._static: list[StaticResult] = []
        for info in nodes:
            if info.index in static_cache:
                result = static_cache[info.index]
            else:
                result = static_cache[info.index] = self._static_filter(filters, info)
            self._static.append(result)

        active = [s for s in fw.scores if s.pre_score is None or s.pre_score(state, pod)]
        self._dyn_scores = [(s.plugin, s.weight, s.normalize) for s in active
                            if s.plugin.scope != Scope.STATIC]
        self._cluster_scope |= any(s.plugin.scope == Scope.CLUSTER for s in active)
        self._dyn_normalized = any(norm is not None for _, _, norm in self._dyn_scores)

        n = len(nodes)
        self._fail: list[Status | None] = [None] * n
        self._dyn_raw: list[list[int]] = [[0] * len(self._dyn_scores) for _ in range(n)]
        self._feasible: list[int] = []
        for i in range(n):
            self._refresh(i)
        self._static_scores = self._prepare_static_scores(active)
        self._static_total: list[int] | None = None
        self._position = statement.checkpoint()
        self._last_failure: Diagnosis | None = None

    # -- filtering ---------------------------------------------------------------------------

    def _static_filter(self, filters, info: NodeInfo) -> StaticResult:
        for pos, plugin in enumerate(filters):
            if plugin.scope == Scope.STATIC:
                status = plugin.filter(self._state, self._pod, info)
                if status is not None:
                    return pos, _stamp(status, plugin.name)
        return None

    def _node_status(self, i: int) -> Status | None:
        static = self._static[i]
        limit = static[0] if static is not None else self._filter_count
        info, state, pod = self._nodes[i], self._state, self._pod
        for pos, plugin in self._dyn_filters:
            if pos >= limit:
                break
            status = plugin.filter(state, pod, info)
            if status is not None:
                return _stamp(status, plugin.name)
        return static[1] if static is not None else None

    def _refresh(self, i: int) -> None:
        """Re-filter and re-score node ``i`` after its state changed."""
        static = self._static[i]
        if static is not None and (not self._dyn_filters or self._dyn_filters[0][0] >= static[0]):
            self._fail[i] = static[1]  # no dynamic filter runs before the static rejection
            return
        was_feasible = self._fail[i] is None and self._is_listed(i)
        status = self._fail[i] = self._node_status(i)
        if status is None:
            state, pod, info = self._state, self._pod, self._nodes[i]
            self._dyn_raw[i] = [p.score(state, pod, info) for p, _, _ in self._dyn_scores]
            if not was_feasible:
                insort(self._feasible, i)
                self._static_total = None
        elif was_feasible:
            del self._feasible[bisect_left(self._feasible, i)]
            self._static_total = None

    def _is_listed(self, i: int) -> bool:
        k = bisect_left(self._feasible, i)
        return k < len(self._feasible) and self._feasible[k] == i

    # -- scoring -----------------------------------------------------------------------------

    def _prepare_static_scores(self, active) -> list[tuple[int, object, list[int]]]:
        """Raw static scores per candidate node. A plugin whose raw score is the same on every
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

    def _static_totals(self) -> list[int]:
        if self._static_total is None:
            total = [0] * len(self._nodes)
            feasible = self._feasible
            for weight, normalize, raw in self._static_scores:
                scores = [raw[i] for i in feasible]
                if normalize is not None:
                    normalize(self._state, self._pod, scores)
                for i, value in zip(feasible, scores, strict=True):
                    total[i] += weight * value
            self._static_total = total
        return self._static_total

    def _totals(self) -> list[int]:
        total = list(self._static_totals()) if self._static_scores else [0] * len(self._nodes)
        feasible = self._feasible
        if not self._dyn_normalized:
            weights = [w for _, w, _ in self._dyn_scores]
            for i in feasible:
                total[i] += sum(w * r for w, r in zip(weights, self._dyn_raw[i], strict=True))
            return total
        for k, (plugin, weight, normalize) in enumerate(self._dyn_scores):
            scores = [self._dyn_raw[i][k] for i in feasible]
            if normalize is not None:
                normalize(self._state, self._pod, scores)
            for i, value in zip(feasible, scores, strict=True):
                if not 0 <= value <= 100:
                    raise InternalError(f"{plugin.name} scored {value}, outside [0, 100]")
                total[i] += weight * value
        return total

    # -- the loop ----------------------------------------------------------------------------

    def _sync(self) -> bool:
        position = self._statement.checkpoint()
        if position == self._position:
            return False
        if self._cluster_scope:
            changed = range(len(self._nodes))
        else:
            local = self._local
            changed = {local[info.index] for _, info in self._statement.changes_since(
                self._position) if info.index in local}
        self._position = position
        for i in changed:
            self._refresh(i)
        return True

    def next(self) -> tuple[NodeInfo | None, Diagnosis | None]:
        """The node the next pod of this class would get, or why there is none."""
        changed = self._sync()
        if not self._feasible:
            if self._last_failure is None or changed:
                names = [info.node.name for info in self._nodes]
                self._last_failure = Diagnosis(
                    len(self._nodes),
                    {names[i]: s for i, s in enumerate(self._fail) if s is not None},
                )
            return None, self._last_failure
        if len(self._feasible) == 1:  # upstream skips scoring for a single feasible node
            return self._nodes[self._feasible[0]], None
        total = self._totals()
        # max() keeps the first maximum: feasible is in node-name order, so ties go to the
        # smallest name (upstream picks one of the tied nodes at random).
        best = max(self._feasible, key=total.__getitem__)
        return self._nodes[best], None
