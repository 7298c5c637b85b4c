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

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from tasplan.dra.allocator import (
    CANNOT_ALLOCATE,
    AllocationError,
    Outcome,
    World,
    allocate,
    class_probe,
)
from tasplan.dra.claims import ClaimUse, resolve
from tasplan.dra.ledger import DeviceLedger, Reservation, Scratch
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.status import InsufficientResource, Status, error, unschedulable
from tasplan.framework.types import MAX_NODE_SCORE, CycleState, Scope
from tasplan.model.dra import (
    EXACT_COUNT,
    NO_DRA,
    Allocation,
    ClaimSpec,
    DeviceRequest,
    DraInputs,
    ResourceSlice,
)
from tasplan.model.group import PodGroup
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plugins import names

NOT_AVAILABLE = "resourceclaim not available on the node"
# firstAvailable scoring: subrequest i scores (MAX_SUBREQUESTS - i).
MAX_SUBREQUESTS = 8
# Capacity of a pod whose claims are all allocated already: devices do not limit it.
UNLIMITED = 2**62
# Report key prefix of a DeviceClass's devices (free devices, shortfalls).
DEVICES = "devices/"
# Free devices of a domain summed from per-node device lists when every device belongs to
# one node; tests compare it with the plain walk over the candidates (False).
PER_NODE_FREE = True
# Filter and capacity of a pod whose claims are its own read PreFilter's answer, the specs
# and the simple request from a per-pod record; tests compare with working them out (False).
FIXED_FACTS = True
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
        self.world = self._inputs_world = World(inputs)
        self._published: dict[str, list[ResourceSlice]] | None = None
        self.ledger = DeviceLedger(self.world)
        self._groups = groups
        self._uses: dict[int, tuple] = {}
        self._wanted_of: tuple | None = None
        self._fixed_facts: dict[int, tuple] = {}

    def bind_snapshot(self, snapshot: ClusterSnapshot) -> None:
        self._bind(snapshot.dra, snapshot.group_index)

    @contextmanager
    def more_slices(self, slices: Sequence[ResourceSlice]) -> Iterator[None]:
        """While open, ``slices`` are published too (the devices of nodes a what-if adds);
        the devices in use and the plan's reservations stay as they are."""
        if not slices:
            yield
            return
        world = self.world
        self.world = self.ledger.world = self._inputs_world.extended(slices)
        try:
            yield
        finally:
            self.world = self.ledger.world = world

    def published_by(self, node: str) -> list[ResourceSlice]:
        """The input's node-local slices of ``node`` (every generation), in input order."""
        if self._published is None:
            self._published = {}
            for s in self.inputs.slices:
                if s.node_name:
                    self._published.setdefault(s.node_name, []).append(s)
        return self._published.get(node, [])

    def holders(self, pods: Iterable[Pod]) -> dict[str, int]:
        """How many of ``pods`` use each claim that the input has allocated."""
        out: dict[str, int] = {}
        for pod in pods:
            if pod.claims:
                for u in self.uses(pod):
                    if u.allocation is not None:
                        out[u.key] = out.get(u.key, 0) + 1
        return out

    @contextmanager
    def released(self, pods: Sequence[Pod], holders: Mapping[str, int]) -> Iterator[None]:
        """While open, the devices of input-allocated claims that only ``pods`` use are
        free (the pods are evicted: their claims are deleted or deallocated). ``holders``:
        every user of each claim (``holders()`` over the pods that stay and go)."""
        gone = self.holders(pods)
        freed: list = []
        for pod in pods:
            for u in self.uses(pod) if pod.claims else ():
                if u.key in gone and gone[u.key] >= holders.get(u.key, 0):
                    del gone[u.key]  # a claim two victims share is freed once
                    freed.extend(r.id for r in u.allocation.results if not r.admin_access)
        self.ledger.hold(freed, -1)
        try:
            yield
        finally:
            self.ledger.hold(freed, 1)

    # -- claims --------------------------------------------------------------------------------

    def uses(self, pod: Pod) -> tuple[ClaimUse, ...]:
        return self._resolved(pod)[1]

    def _resolved(self, pod: Pod) -> tuple[Pod, tuple[ClaimUse, ...], list[ClaimUse] | None]:
        """(pod, its claims, the claims that are always unallocated when that never changes
        during the plan: no claim shared or allocated in the input)."""
        hit = self._uses.get(id(pod))
        if hit is None or hit[0] is not pod:
            group = self._groups.get(pod.group) if pod.group else None
            uses = resolve(pod, group, self.inputs)
            fixed = None if any(u.shared or u.allocation for u in uses) else list(uses)
            hit = self._uses[id(pod)] = (pod, uses, fixed)
        return hit

    def own_claims(self, pod: Pod) -> bool:
        """The pod's claims are unallocated and its own (none shared, none allocated in the
        input): where its devices go depends on nothing but the node's devices."""
        return self._resolved(pod)[2] is not None

    def _allocation(self, use: ClaimUse) -> Allocation | None:
        """The claim's allocation: from the input, or reserved earlier in the plan. A
        pod's own template claim is never reserved before the pod itself: the pods of one
        class share their representative's answer, not its claims."""
        if use.allocation is not None or not use.shared:
            return use.allocation
        return self.ledger.pending.get(use.key)

    def _unallocated(self, uses: Sequence[ClaimUse]) -> list[ClaimUse]:
        return [u for u in uses if self._allocation(u) is None]

    def _todo(self, pod: Pod) -> list[ClaimUse]:
        """The pod's claims still to allocate."""
        _, uses, fixed = self._resolved(pod)
        return fixed if fixed is not None else self._unallocated(uses)

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

    def _facts(self, pod: Pod, fixed: list[ClaimUse]) -> tuple:
        """For a pod whose claims are its own and never allocated before it (``fixed``):
        (pod, PreFilter's answer, claim specs, the simple request if any (counters aside),
        the "cannot allocate" status, the devices per DeviceClass it asks for), which never
        change while the inputs stay bound."""
        hit = self._fixed_facts.get(id(pod))
        if hit is None or hit[0] is not pod:
            problem = self._precheck(fixed)
            specs = [u.spec for u in fixed] if problem is None else []
            hit = self._fixed_facts[id(pod)] = (
                pod, problem, specs, _simple_request(specs) if specs else None,
                self._cannot(CANNOT_ALLOCATE, fixed) if specs else None, _demand(fixed))
        return hit

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        hit = self._uses.get(id(pod))
        if hit is None or hit[0] is not pod:
            hit = self._resolved(pod)
        uses, fixed = hit[1], hit[2]
        if not uses:
            return None
        if fixed is not None and FIXED_FACTS:
            # Nothing of the plan's state but the node's free devices changes the answer.
            _, problem, specs, simple, cannot, _ = self._facts(pod, fixed)
            if problem is not None:
                return problem
            room = self._fits_count(node, specs, None, simple)
            if room is not None:
                return None if room > 0 else cannot
            return self._allocated_or_not(state, node, specs, fixed)
        problem = self._precheck(uses)
        if problem is not None:
            return problem
        n = node.node
        for u in uses:
            allocation = self._allocation(u)
            if allocation is not None and not allocation.reach.matches(n.name, n.labels):
                return unschedulable(NOT_AVAILABLE, unresolvable=True)
        todo = self._todo(pod)
        if not todo:
            return None
        specs = [u.spec for u in todo]
        room = self._fits_count(node, specs, None)
        if room is not None:
            return None if room > 0 else self._cannot(CANNOT_ALLOCATE, todo)
        return self._allocated_or_not(state, node, specs, todo)

    def _allocated_or_not(self, state: CycleState, node: NodeInfo, specs: list[ClaimSpec],
                          todo: Sequence[ClaimUse]) -> Status | None:
        """Filter's answer from the allocator, its outcome kept for Score."""
        try:
            outcome = self._allocate(node, specs)
        except AllocationError as exc:
            return error(str(exc))
        state.setdefault(OUTCOMES, {})[node.index] = outcome
        if outcome.results is None:
            return self._cannot(outcome.reason, todo)
        return None

    def _cannot(self, reason: str, todo: Sequence[ClaimUse]) -> Status:
        """Unschedulable, with the devices the pod asks for per DeviceClass as details
        (``devices/<class>``), so explain can name the shortfall."""
        details = tuple(InsufficientResource(f"{DEVICES}{name}", n, 0, 0)
                        for name, n in _demand(todo).items())
        return unschedulable(reason, unresolvable=True, details=details)

    def demand(self, pod: Pod) -> dict[str, int]:
        """Devices per DeviceClass the pod's unallocated claims ask for (ExactCount
        requests; a firstAvailable request by its first alternative)."""
        _, _, fixed = self._resolved(pod)
        if fixed is not None and FIXED_FACTS:
            return dict(self._facts(pod, fixed)[5])
        return _demand(self._todo(pod))

    def _fits_count(self, node: NodeInfo, specs: list[ClaimSpec], pod: Pod | None,
                    simple: DeviceRequest | bool | None = False) -> int | None:
        """For a simple request: how many more pods like this one get devices on the node;
        None when the full allocator must decide (not simple, claims of
        other pods on the node the ledger does not know, or a selector error).
        ``simple``: ``_simple_request(specs)`` when the caller knows it."""
        if self.world.counters:
            return None
        request = _simple_request(specs) if simple is False else simple
        if request is None:
            return None
        phantoms = [p for p in self._phantoms(node) if p is not pod]
        for other in phantoms:
            if [u.spec for u in self._todo(other)] != specs:
                return None
        try:
            free = self.world.free_count(node.node, request, self.ledger.in_use)
        except AllocationError:
            return None  # the allocator reports it, from the device where upstream would
        return max(free // request.count - len(phantoms), 0)

    def _allocate(self, node: NodeInfo, specs: list[ClaimSpec],
                  pod: Pod | None = None) -> Outcome:
        """Allocation on ``node`` given the ledger, plus the claims of pods on the node the
        ledger does not know (what-if copies of a node: nominated pods, saturated nodes)."""
        ledger = self.ledger
        phantoms = [p for p in self._phantoms(node) if p is not pod]
        if not phantoms:
            return allocate(self.world, node.node, specs, ledger.in_use, ledger.counters)
        scratch = self._with_phantoms(node, phantoms)
        return allocate(self.world, node.node, specs, scratch.in_use, scratch.counters)

    def _with_phantoms(self, node: NodeInfo, phantoms: list[Pod]) -> Scratch:
        scratch = self.ledger.scratch()
        for other in phantoms:
            extra = self._unallocated(self.uses(other))
            if extra and all(u.spec is not None for u in extra):
                got = allocate(self.world, node.node, [u.spec for u in extra],
                               scratch.in_use, scratch.counters)
                scratch.take(got.results or [])
        return scratch

    # -- node scope and capacity -------------------------------------------------------------

    def scope_for(self, pod: Pod) -> Scope:
        """NODE when only the pod's own node can change its answer: its claims are its own
        (per-pod templates, not yet allocated) and every device is node-local. Then filter
        results are kept per node state and capacity can be counted."""
        if not pod.claims or not self.world.node_local_only:
            return Scope.CLUSTER
        for u in self.uses(pod):
            if u.shared or u.allocation is not None or u.spec is None or u.problem:
                return Scope.CLUSTER
            for request in u.spec.requests:
                if any(r.admin_access for r in request.subrequests or (request,)):
                    return Scope.CLUSTER  # may share devices: no finite capacity
        return Scope.NODE

    def capacity(self, pod: Pod, node: NodeInfo) -> int:
        """How many more pods like ``pod`` get devices on ``node``, one after another as
        the greedy loop would allocate them (only asked in NODE scope)."""
        _, _, fixed = self._resolved(pod)
        if fixed is not None and fixed and FIXED_FACTS:
            facts = self._facts(pod, fixed)
            specs, simple = facts[2], facts[3]
        else:
            specs, simple = [u.spec for u in self._todo(pod)], False
        if not specs:
            return UNLIMITED
        room = self._fits_count(node, specs, None, simple)
        if room is not None:
            return room
        scratch = self._with_phantoms(node, self._phantoms(node))
        cands, _ = self.world.node_candidates(node.node)
        count = 0
        while count <= len(cands):
            try:
                got = allocate(self.world, node.node, specs, scratch.in_use, scratch.counters)
            except AllocationError:
                return 0
            if got.results is None:
                break
            scratch.take(got.results)
            count += 1
        return count

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

    def reserves(self, pod: Pod) -> bool:
        """Only a pod with claims gets a reservation (``Statement.assume_many``)."""
        return bool(pod.claims)

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

    # -- reports ---------------------------------------------------------------------------

    def _classes_of(self, use: ClaimUse) -> dict[str, str]:
        """Request (and ``<request>/<subrequest>``) name -> DeviceClass of a claim."""
        out: dict[str, str] = {}
        for request in use.spec.requests if use.spec else ():
            for r in request.subrequests or (request,):
                out[r.name] = r.class_name
        return out

    def devices_by_pod(self, pods: Sequence[Pod], allocations: dict[str, list[dict[str, str]]]
                       ) -> dict[str, dict[str, int]]:
        """Pod key -> DeviceClass -> devices its claims got in ``allocations`` (a shared
        claim counts for every pod using it)."""
        out: dict[str, dict[str, int]] = {}
        if not allocations:
            return out
        for pod in pods:
            if not pod.claims:
                continue
            counts: dict[str, int] = {}
            for use in self.uses(pod):
                classes = self._classes_of(use)
                for d in allocations.get(use.key, ()):
                    name = classes.get(d["request"], d["driver"])
                    counts[name] = counts.get(name, 0) + 1
            if counts:
                out[pod.key] = counts
        return out

    def _wanted(self, pods: Sequence[Pod]) -> tuple[str, ...]:
        """The existing DeviceClasses the pods' claims ask for, in order of first request
        (once per pod list: a group's placements all ask it of the same list)."""
        hit = self._wanted_of
        if hit is not None and hit[0] is pods and hit[1] is self.world.classes:
            return hit[2]
        wanted: dict[str, None] = {}
        for pod in pods:
            for use in self.uses(pod) if pod.claims else ():
                wanted.update(dict.fromkeys(self._classes_of(use).values()))
        out = tuple(c for c in wanted if c in self.world.classes)
        self._wanted_of = (pods, self.world.classes, out)
        return out

    def free_devices(self, pods: Sequence[Pod], nodes: Sequence[NodeInfo],
                     unassumed: tuple[Pod, int] | None = None) -> dict[str, int]:
        """``devices/<class>`` -> devices of the classes the pods' claims ask for that the
        nodes can reach and no claim holds (nothing when the pods use no claims).
        ``unassumed`` = (pod, copies) counted into the domain but not reserved."""
        wanted = self._wanted(pods)
        if not wanted:
            return {}
        free = dict.fromkeys(wanted, 0)
        in_use = self.ledger.in_use
        world = self.world
        if world.network or not PER_NODE_FREE:
            # A network-attached device is reached from many nodes: count it once.
            seen: set = set()
            for info in nodes:
                for cand in world.node_candidates(info.node)[0]:
                    if cand.id in seen or cand.id in in_use:
                        continue
                    seen.add(cand.id)
                    for name in wanted:
                        try:
                            if world.selectable(class_probe(name), cand):
                                free[name] += 1
                        except AllocationError:
                            pass
        else:
            # Every device is published for one node (its pool's slices name it): the
            # nodes' per-class device lists are disjoint.
            names: set[str] = set()
            for info in nodes:
                node = info.node
                if node.name in names:
                    continue
                names.add(node.name)
                for name in wanted:
                    ids = world.class_devices(node, name)
                    if ids:
                        free[name] += len(ids) - len(in_use.intersection(ids))
        if unassumed is not None:
            pod, copies = unassumed
            for use in self._todo(pod):
                for request in use.spec.requests if use.spec else ():
                    if not request.subrequests and request.mode == EXACT_COUNT \
                            and request.class_name in free:
                        free[request.class_name] -= request.count * copies
        return {f"{DEVICES}{name}": value for name, value in free.items()}

    def allocation_mark(self) -> int:
        return len(self.ledger.log)

    def allocations_since(self, mark: int) -> dict[str, list[dict[str, str]]]:
        return {key: [{"request": d.request, "driver": d.driver, "pool": d.pool,
                       "device": d.device} for d in result.results]
                for key, result in self.ledger.log[mark:]}


def _simple_request(specs: list[ClaimSpec]) -> DeviceRequest | None:
    """The one request of ``specs`` when a count of free devices decides it (unless the
    world has counters): one claim, one ExactCount request, no constraints, no admin
    access. Then the allocator takes the first ``count`` usable devices and any ``count``
    will do."""
    if len(specs) != 1:
        return None
    spec = specs[0]
    if len(spec.requests) != 1 or spec.constraints:
        return None
    r = spec.requests[0]
    if r.subrequests or r.mode != EXACT_COUNT or r.admin_access:
        return None
    return r


def _demand(uses: Sequence[ClaimUse]) -> dict[str, int]:
    out: dict[str, int] = {}
    for use in uses:
        for request in use.spec.requests if use.spec else ():
            r = request.subrequests[0] if request.subrequests else request
            if r.mode == EXACT_COUNT:
                out[r.class_name] = out.get(r.class_name, 0) + r.count
    return out


def new(args: dict) -> DynamicResources:
    return DynamicResources()
