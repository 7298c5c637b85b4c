"""DynamicResources: kube-scheduler's DRA plugin inside every placement simulation.

PreFilter/Filter: a pod fits a node when each of its claims is either allocated already
(in the input, or reserved by an earlier pod or group of the plan) with a node selector
that matches the node, or can be allocated there; all unallocated claims of the pod are
allocated together by the structured allocator. Score: only ``firstAvailable`` requests
score (earlier alternatives better). Reserve: the node's allocation becomes the claims'
allocation for every later pod; the Statement undoes it with the pod.

The plugin reads devices anywhere in the cluster (network-attached slices, shared claims),
so it is a cluster-scope filter: after a reservation the nodes whose answer may have
changed are re-filtered (only the pod's node when it took node-local devices for claims of
its own; every node otherwise).
"""

from __future__ import annotations

from collections.abc import Sequence

from tasplan.dra.allocator import AllocationError, Outcome, World, allocate
from tasplan.dra.claims import ClaimUse, resolve
from tasplan.dra.ledger import DeviceLedger, Reservation
from tasplan.dra.model import NO_DRA, Allocation, ClaimSpec, DraInputs
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.status import Status, error, unschedulable
from tasplan.framework.types import MAX_NODE_SCORE, CycleState, Scope
from tasplan.model.group import PodGroup
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plugins import names

NOT_AVAILABLE = "resourceclaim not available on the node"
# firstAvailable scoring: subrequest i scores (MAX_SUBREQUESTS - i).
MAX_SUBREQUESTS = 8
# CycleState key of the per-node allocation outcomes (the plugin's own key holds its summary).
OUTCOMES = f"{names.DYNAMIC_RESOURCES}/outcomes"


class _Summary:
    """The plugin keeps its state in the ledger; the per-class summary only marks the
    class as one with claims."""

    __slots__ = ()

    def copy(self) -> _Summary:
        return self


_ACTIVE = _Summary()


class DynamicResources:
    name = names.DYNAMIC_RESOURCES
    scope = Scope.CLUSTER

    def __init__(self) -> None:
        self._bind(NO_DRA, {})

    def _bind(self, inputs: DraInputs, groups: dict[str, PodGroup]) -> None:
        self.inputs = inputs
        self.world = World(inputs)
        self.ledger = DeviceLedger(self.world)
        self._groups = groups
        self._uses: dict[int, tuple[Pod, tuple[ClaimUse, ...]]] = {}

    def bind_snapshot(self, snapshot: ClusterSnapshot) -> None:
        self._bind(snapshot.dra, snapshot.group_index)

    # -- claims --------------------------------------------------------------------------------

    def uses(self, pod: Pod) -> tuple[ClaimUse, ...]:
        hit = self._uses.get(id(pod))
        if hit is None or hit[0] is not pod:
            group = self._groups.get(pod.group) if pod.group else None
            hit = self._uses[id(pod)] = (pod, resolve(pod, group, self.inputs))
        return hit[1]

    def _allocation(self, use: ClaimUse) -> Allocation | None:
        """The claim's allocation: from the input, or reserved earlier in the plan. A
        pod's own template claim is never reserved before the pod itself: the pods of one
        class share their representative's answer, not its claims."""
        if use.allocation is not None or not use.shared:
            return use.allocation
        return self.ledger.pending.get(use.key)

    def _unallocated(self, uses: Sequence[ClaimUse]) -> list[ClaimUse]:
        return [u for u in uses if self._allocation(u) is None]

    def _precheck(self, uses: Sequence[ClaimUse]) -> Status | None:
        """PreFilter: claims that cannot be used anywhere, classes that do not exist."""
        for u in uses:
            if u.problem:
                return unschedulable(u.problem, unresolvable=True)
        for u in self._unallocated(uses):
            for request in u.spec.requests:
                for r in request.subrequests or (request,):
                    if r.class_name not in self.world.classes:
                        return unschedulable(f"request {r.name}: device class {r.class_name} "
                                             "does not exist", unresolvable=True)
        return None

    # -- ClusterStatePlugin ----------------------------------------------------------------------

    def prepare(self, pod: Pod, cluster: Sequence[NodeInfo]) -> _Summary | None:
        return _ACTIVE if pod.claims else None

    def add_pod(self, summary: _Summary, pod: Pod, added: Pod,
                node: NodeInfo) -> set[tuple[str, str]] | None:
        reservation = self.ledger.reserved.get(id(added))
        return None if reservation is not None and reservation.wide else set()

    def remove_pod(self, summary: _Summary, pod: Pod, removed: Pod, node: NodeInfo) -> None:
        return None

    # -- Filter ----------------------------------------------------------------------------------

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        uses = self.uses(pod)
        if not uses:
            return None
        problem = self._precheck(uses)
        if problem is not None:
            return problem
        n = node.node
        for u in uses:
            allocation = self._allocation(u)
            if allocation is not None and not allocation.reach.matches(n.name, n.labels):
                return unschedulable(NOT_AVAILABLE, unresolvable=True)
        todo = self._unallocated(uses)
        if not todo:
            return None
        try:
            outcome = self._allocate(node, [u.spec for u in todo])
        except AllocationError as exc:
            return error(str(exc))
        state.setdefault(OUTCOMES, {})[node.index] = outcome
        if outcome.results is None:
            return unschedulable(outcome.reason, unresolvable=True)
        return None

    def _allocate(self, node: NodeInfo, specs: list[ClaimSpec],
                  pod: Pod | None = None) -> Outcome:
        """Allocation on ``node`` given the ledger, plus the claims of pods on the node the
        ledger does not know (what-if copies of a node: nominated pods, saturated nodes)."""
        ledger = self.ledger
        in_use, counters = ledger.in_use, ledger.counters
        phantoms = [p for p in self._phantoms(node) if p is not pod]
        if phantoms:
            in_use, counters = set(in_use), dict(counters)
            for other in phantoms:
                extra = self._unallocated(self.uses(other))
                if not extra or any(u.spec is None for u in extra):
                    continue
                got = allocate(self.world, node.node, [u.spec for u in extra], in_use, counters)
                for result in got.results or ():
                    in_use.update(r.id for r in result.results if not r.admin_access)
        return allocate(self.world, node.node, specs, in_use, counters)

    def _phantoms(self, node: NodeInfo) -> list[Pod]:
        """Unbound pods with claims on the node that hold no reservation (they sit after
        the bound pods in the node's list)."""
        out = []
        reserved = self.ledger.reserved
        for p in reversed(node.pods):
            if p.node_name:
                break
            if p.claims and id(p) not in reserved:
                out.append(p)
        out.reverse()
        return out

    # -- Score -----------------------------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod) -> bool:
        return any(r.subrequests for u in self._unallocated(self.uses(pod)) if u.spec
                   for r in u.spec.requests)

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        outcome = state.get(OUTCOMES, {}).get(node.index)
        if outcome is None or outcome.results is None:
            return 0
        total = 0
        todo = self._unallocated(self.uses(pod))
        for use, result in zip(todo, outcome.results, strict=True):
            subs = {s.name: i for r in use.spec.requests for i, s in enumerate(r.subrequests)}
            total += sum(MAX_SUBREQUESTS - subs[d.request] for d in result.results
                         if d.request in subs)
        return total

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[int],
                        nodes: list[NodeInfo]) -> None:
        top = max(scores, default=0)
        for i, value in enumerate(scores):
            scores[i] = value * MAX_NODE_SCORE // top if top else 0

    # -- Reserve ---------------------------------------------------------------------------------

    def reserve(self, pod: Pod, node: NodeInfo) -> Reservation | None:
        if not pod.claims:
            return None
        uses = self.uses(pod)
        todo = [u for u in self._unallocated(uses) if u.spec is not None]
        claims: tuple = ()
        if todo:
            try:
                outcome = self._allocate(node, [u.spec for u in todo], pod)
            except AllocationError:
                outcome = Outcome(None)
            if outcome.results is not None:
                claims = tuple((u.key, r) for u, r in zip(todo, outcome.results, strict=True))
        wide = any(u.shared for u, _ in zip(todo, claims, strict=False)) or any(
            not r.reach.node_name for _, r in claims)
        return self.ledger.add(Reservation(id(pod), claims, wide))

    def unreserve(self, token: object) -> None:
        assert isinstance(token, Reservation)
        self.ledger.remove(token)

    def allocation_mark(self) -> int:
        return len(self.ledger.log)

    def allocations_since(self, mark: int) -> dict[str, list[dict[str, str]]]:
        return {key: [{"request": d.request, "driver": d.driver, "pool": d.pool,
                       "device": d.device} for d in result.results]
                for key, result in self.ledger.log[mark:]}


def new(args: dict) -> DynamicResources:
    return DynamicResources()
