"""The structured allocator (``k8s.io/dynamic-resource-allocation/structured``, the
incubating variant upstream runs by default since v1.36).

For one node it looks for devices for all unallocated claims of one pod together: claims in
order, requests in order, ``firstAvailable`` subrequests in order, device slots filled from
the node's candidate list (pools sorted by driver and pool name, slices by name, devices as
listed), each slot only looking past the previous slot's device. The first complete
solution wins; there is no scoring between solutions. The search backtracks within the
pod's claims only: devices that earlier pods took stay taken.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field, replace

from tasplan.model.dra import (
    ALL,
    MAX_ALLOCATED_DEVICES,
    AllocatedDevice,
    ClaimSpec,
    Device,
    DeviceClass,
    DeviceId,
    DeviceRequest,
    DeviceTaintRule,
    DraInputs,
    NodeReach,
    ResourceSlice,
)
from tasplan.model.node import Node
from tasplan.model.taints import Taint, tolerated

# Upstream bounds a node's search by time (10 s); a step budget keeps plans deterministic.
MAX_STEPS = 200_000
BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")
INVALID_POOLS = "invalid resource pools were encountered"
CANNOT_ALLOCATE = "cannot allocate all claims"
TIMED_OUT = "timed out trying to allocate devices"


# A class-only request per DeviceClass: "does the class select this device".
_CLASS_PROBES: dict[str, DeviceRequest] = {}


def class_probe(class_name: str) -> DeviceRequest:
    probe = _CLASS_PROBES.get(class_name)
    if probe is None:
        probe = _CLASS_PROBES[class_name] = DeviceRequest("", class_name)
    return probe


class AllocationError(Exception):
    """Upstream aborts the pod's attempt (a CEL error, too many devices, ``All`` over an
    incomplete pool): not "does not fit" but an error of the pod."""


@dataclass
class Pool:
    driver: str
    name: str
    generation: int
    slices: list[ResourceSlice] = field(default_factory=list)
    complete: bool = True
    invalid: bool = False
    binding_conditions: bool = False
    counters: dict[str, dict[str, int]] = field(default_factory=dict)
    has_counter_use: bool = False


class Candidate:
    """A device as one node sees it."""

    __slots__ = ("device", "id", "local", "pool", "selectable", "slice")

    def __init__(self, device: Device, slice_: ResourceSlice, pool: Pool) -> None:
        self.device = device
        self.slice = slice_
        self.pool = pool
        self.id: DeviceId = (slice_.driver, slice_.pool, device.name)
        self.local = bool(slice_.node_name or device.node_name or device.binds_to_node)
        # id(request) -> whether class and request selectors select the device.
        self.selectable: dict[int, bool] = {}


def _term_matches(term, node: Node) -> bool:
    return term is not None and term.matches(node.name, node.labels)


def slice_reaches(s: ResourceSlice, node: Node) -> bool:
    if s.node_name:
        return s.node_name == node.name
    if s.node_selector is not None:
        return _term_matches(s.node_selector, node)
    if s.all_nodes:
        return True
    if s.per_device:
        return any(device_reaches(d, node) for d in s.devices)
    return False


def device_reaches(d: Device, node: Node) -> bool:
    if d.node_name:
        return d.node_name == node.name
    if d.node_selector is not None:
        return _term_matches(d.node_selector, node)
    return d.all_nodes


def _pools(slices: Sequence[ResourceSlice]) -> list[Pool]:
    """The pools of ``slices``: newest generation only, slices by name, with what the
    allocator asks of a pool (complete, invalid, binding conditions, counters)."""
    newest: dict[tuple[str, str], int] = {}
    for s in slices:
        key = (s.driver, s.pool)
        newest[key] = max(newest.get(key, -1), s.generation)
    pools: dict[tuple[str, str], Pool] = {k: Pool(k[0], k[1], g) for k, g in newest.items()}
    counts: dict[tuple[str, str], int] = {}
    for s in slices:
        pool = pools[(s.driver, s.pool)]
        if s.generation != pool.generation:
            continue  # obsolete, even when the newer generation has fewer devices
        pool.slices.append(s)
        counts[(s.driver, s.pool)] = s.slice_count
        for name, counters in s.shared_counters.items():
            pool.counters[name] = dict(counters)
    for key, pool in pools.items():
        pool.slices.sort(key=lambda s: s.name)
        pool.complete = len(pool.slices) == counts[key]
        names: set[str] = set()
        for s in pool.slices:
            for d in s.devices:
                if d.name in names:
                    pool.invalid = True
                names.add(d.name)
                pool.binding_conditions |= bool(d.binding_conditions)
                pool.has_counter_use |= bool(d.consumes)
    return list(pools.values())


def _pool_key(pool: Pool) -> tuple[bool, str, str]:
    """Upstream's pool order: by driver and name, pools with binding conditions last."""
    return pool.binding_conditions, pool.driver, pool.name


def _local_only(pools: Sequence[Pool]) -> bool:
    """No pool's counters are shared by slices of several nodes."""
    return all(len({s.node_name for s in p.slices}) <= 1 for p in pools
               if p.counters or p.has_counter_use)


class World:
    """The immutable DRA inputs, indexed once per run: pools (newest generation only),
    candidate devices per node, taints, and the selector cache."""

    def __init__(self, inputs: DraInputs) -> None:
        self._index(inputs, _pools(inputs.slices))

    def extended(self, slices: Sequence[ResourceSlice]) -> World:
        """The world of the inputs with ``slices`` published too (``World`` of both). Slices
        for nodes that publish nothing yet, in pools of their own (a copy of a node's
        devices), are added to layers over this world's indexes; anything else rebuilds
        them all."""
        inputs = replace(self.inputs, slices=(*self.inputs.slices, *slices))
        if any((s.driver, s.pool) in self.pool_index or not s.node_name
               or s.node_name in self.local for s in slices):
            return World(inputs)
        world = World.__new__(World)
        added = sorted(_pools(slices), key=_pool_key)
        world._setup(inputs, None, ChainMap({}, self.pool_index), ChainMap({}, self.local),
                     list(self.network), added)
        # What a selector answers depends on the expression, the device's content and the
        # classes (the same inputs' classes): the answers carry over. So does what any
        # other node reaches: the same local slices, the same network ones.
        world._share_selectors(self)
        world._parent, world._own = self, frozenset(s.node_name for s in slices)
        world.counters = self.counters or any(p.counters or p.has_counter_use for p in added)
        world.node_local_only = self.node_local_only and _local_only(added)
        return world

    @property
    def pools(self) -> list[Pool]:
        """Every pool, sorted by ``_pool_key`` (built when first asked for a world that
        was extended: no search reads it)."""
        if self._pools is None:
            self._pools = sorted(self.pool_index.values(), key=_pool_key)
        return self._pools

    def _share_selectors(self, other: World) -> None:
        self._content, self._devices = other._content, other._devices
        self._selected, self._selectable = other._selected, other._selectable
        self._requests = other._requests

    def _index(self, inputs: DraInputs, pools: list[Pool]) -> None:
        pools = sorted(pools, key=_pool_key)
        self._setup(inputs, pools, {}, {}, [], pools)
        self.counters = any(p.counters or p.has_counter_use for p in self.pools)
        # Every device a pod can get is published for one node only (no network-attached
        # slices, no counters shared by slices of several nodes): then a pod's devices
        # depend only on its node's pods.
        self.node_local_only = not self.network and _local_only(self.pools)

    def _setup(self, inputs: DraInputs, pools: list[Pool] | None,
               pool_index: MutableMapping[tuple[str, str], Pool],
               local: MutableMapping[str, list[ResourceSlice]],
               network: list[ResourceSlice], added: list[Pool]) -> None:
        """The indexes, ``added`` (sorted) put into the given ones; empty caches."""
        self.inputs = inputs
        self.classes: Mapping[str, DeviceClass] = inputs.classes
        # Pools sorted by (driver, pool); those with binding conditions after all others
        # (None: sorted from ``pool_index`` when asked).
        self._pools = pools
        self.pool_index = pool_index
        self.local = local
        self.network = network
        for pool in added:
            pool_index[(pool.driver, pool.name)] = pool
            for s in pool.slices:
                if s.node_name:
                    local.setdefault(s.node_name, []).append(s)
                else:
                    network.append(s)
        self._counter_use: dict[DeviceId, tuple[tuple[tuple, int], ...]] = {}
        self._candidates: dict[str, tuple[list[Candidate], list[Pool]]] = {}
        self._content: dict[int, tuple] = {}
        self._devices: list[Device] = []  # keeps the ids in _content valid
        self._selected: dict[tuple[str, tuple], bool] = {}
        self._selectable: dict[tuple[int, tuple], bool] = {}
        self._usable: dict[tuple[str, int], tuple[DeviceId, ...]] = {}
        self._of_class: dict[tuple[str, str], tuple[DeviceId, ...]] = {}
        self._taints: dict[DeviceId, tuple[Taint, ...]] = {}
        self.rules: tuple[DeviceTaintRule, ...] = inputs.taint_rules
        self._requests: dict[int, DeviceRequest] = {}  # keeps Candidate.selectable keys valid
        # An extended world asks the world it extends about the nodes it adds nothing to.
        self._parent: World | None = None
        self._own: frozenset[str] = frozenset()

    def counter_use(self, device: DeviceId) -> tuple[tuple[tuple, int], ...]:
        """(pool counter key, amount) pairs the device consumes when allocated."""
        hit = self._counter_use.get(device)
        if hit is None:
            out: list[tuple[tuple, int]] = []
            pool = self.pool_index.get(device[:2])
            for s in pool.slices if pool is not None else ():
                for d in s.devices:
                    if d.name == device[2]:
                        out = [((device[0], device[1], set_name, name), value)
                               for set_name, counters in d.consumes
                               for name, value in counters.items()]
                        break
            hit = self._counter_use[device] = tuple(out)
        return hit

    def node_candidates(self, node: Node) -> tuple[list[Candidate], list[Pool]]:
        """The devices a node can reach in upstream's order, and the pools behind them."""
        cached = self._candidates.get(node.name)
        if cached is not None:
            return cached
        if self._parent is not None and node.name not in self._own:
            return self._parent.node_candidates(node)
        reached: dict[tuple[str, str], list[ResourceSlice]] = {}
        for s in self.local.get(node.name, ()):
            reached.setdefault((s.driver, s.pool), []).append(s)
        for s in self.network:
            if slice_reaches(s, node):
                reached.setdefault((s.driver, s.pool), []).append(s)
        out: list[Candidate] = []
        seen: list[Pool] = []
        for key in sorted(reached, key=lambda k: _pool_key(self.pool_index[k])):
            pool = self.pool_index[key]
            seen.append(pool)
            if pool.invalid or not pool.complete:
                continue
            for s in sorted(reached[key], key=lambda s: s.name):
                for d in s.devices:
                    if s.per_device and not device_reaches(d, node):
                        continue
                    out.append(Candidate(d, s, pool))
        result = self._candidates[node.name] = (out, seen)
        return result

    def content(self, cand: Candidate) -> tuple:
        """What a selector can see of a device (not its name, pool or node): devices with
        equal content get equal answers, so each expression runs once per distinct one."""
        d = cand.device
        if d.content:
            return (cand.slice.driver, d.content)
        key = self._content.get(id(d))
        if key is None:
            key = (cand.slice.driver, tuple(sorted(d.attributes.items())),
                   tuple(sorted(d.capacity.items())), d.allow_multiple_allocations)
            self._content[id(d)] = key
            self._devices.append(d)
        return key

    def selected(self, expression: str, cand: Candidate) -> bool:
        key = (expression, self.content(cand))
        hit = self._selected.get(key)
        if hit is None:
            # CEL (cel_expr_python) is loaded by the first selector evaluated.
            from tasplan.dra.cel import CelError, compile_selector, device_value

            value = device_value(cand.slice.driver, cand.device)
            try:
                hit = compile_selector(expression).matches(value)
            except CelError as exc:
                raise AllocationError(f"CEL runtime error: {exc}") from None
            self._selected[key] = hit
        return hit

    def selectable(self, request: DeviceRequest, cand: Candidate) -> bool:
        hit = cand.selectable.get(id(request))
        if hit is not None:
            return hit
        device_class = self.classes.get(request.class_name)
        if device_class is None:
            raise AllocationError(f"could not retrieve device class {request.class_name}")
        key = (id(request), self.content(cand))
        hit = self._selectable.get(key)
        if hit is None:
            hit = (all(self.selected(e, cand) for e in device_class.selectors)
                   and all(self.selected(e, cand) for e in request.selectors))
            self._selectable[key] = hit
        # Requests live as long as the inputs that hold them: their ids stay unique.
        self._requests[id(request)] = request
        cand.selectable[id(request)] = hit
        return hit

    def tolerated(self, request: DeviceRequest, cand: Candidate) -> bool:
        taints = self.taints(cand)
        return not taints or not any(t.effect in BLOCKING_EFFECTS
                                     and not tolerated(t, request.tolerations) for t in taints)

    def free_count(self, node: Node, request: DeviceRequest, in_use: set[DeviceId]) -> int:
        """How many devices of the node a simple request (ExactCount, no constraints,
        counters or admin access) may still take: free, selectable and tolerated."""
        if self._parent is not None and node.name not in self._own:
            return self._parent.free_count(node, request, in_use)
        key = (node.name, id(request))
        usable = self._usable.get(key)
        if usable is None:
            usable = self._usable[key] = tuple(
                c.id for c in self.node_candidates(node)[0]
                if self.selectable(request, c) and self.tolerated(request, c))
            self._requests[id(request)] = request
        return len(usable) - len(in_use.intersection(usable)) if in_use else len(usable)

    def class_devices(self, node: Node, class_name: str) -> tuple[DeviceId, ...]:
        """The node's devices that DeviceClass ``class_name`` selects (a selector error
        selects nothing), in upstream's order, each once; free or not."""
        if self._parent is not None and node.name not in self._own:
            return self._parent.class_devices(node, class_name)
        key = (node.name, class_name)
        hit = self._of_class.get(key)
        if hit is None:
            probe = class_probe(class_name)
            out = []
            for cand in self.node_candidates(node)[0]:
                try:
                    if self.selectable(probe, cand):
                        out.append(cand.id)
                except AllocationError:
                    pass
            hit = self._of_class[key] = tuple(out)
        return hit

    def taints(self, cand: Candidate) -> tuple[Taint, ...]:
        if not self.rules:
            return cand.device.taints
        taints = self._taints.get(cand.id)
        if taints is None:
            taints = cand.device.taints + tuple(r.taint for r in self.rules if r.selects(cand.id))
            self._taints[cand.id] = taints
        return taints


@dataclass(frozen=True)
class ClaimResult:
    results: tuple[AllocatedDevice, ...]
    reach: NodeReach


class _Search:
    """One node, one pod: the depth-first search over its unallocated claims."""

    def __init__(self, world: World, node: Node, claims: Sequence[ClaimSpec],
                 in_use: set[DeviceId] | frozenset, counters_used: Mapping) -> None:
        self.world = world
        self.node = node
        self.claims = claims
        self.in_use = in_use
        self.counters_used = counters_used
        self.cands, self.pools = world.node_candidates(node)
        self.steps = 0
        # (claim index, request, device candidates index list for All) in order.
        self.slots: list[tuple[int, DeviceRequest]] = [(i, r) for i, c in enumerate(claims)
                                                       for r in c.requests]
        self.taken: dict[DeviceId, int] = {}  # device -> claim index
        self.picked: list[list[tuple[str, Candidate, bool]]] = [[] for _ in claims]
        self.local_counters: dict[tuple, int] = {}
        # Per claim, per constraint: [value or None, devices counted] / set of values.
        self.match_state = [[[None, 0] for _ in c.constraints] for c in claims]
        self.distinct_state = [[set() for _ in c.constraints] for c in claims]
        self._bounds: dict[tuple[int, int], _Bounds] = {}  # (claim, id(request)) -> bounds
        self._tails: dict[int, tuple[frozenset, int]] = {}  # slot -> devices, devices needed

    def run(self) -> list[ClaimResult] | None:
        for i, claim in enumerate(self.claims):
            minimum = sum(_min_devices(r) for r in claim.requests)
            if minimum > MAX_ALLOCATED_DEVICES:
                raise AllocationError(f"claim {i}: number of requested devices {minimum} "
                                      f"exceeds the claim limit of {MAX_ALLOCATED_DEVICES}")
        if not self._request(0):
            return None
        out = []
        for picked in self.picked:
            results = tuple(AllocatedDevice(name, c.id[0], c.id[1], c.id[2], admin)
                            for name, c, admin in picked)
            out.append(ClaimResult(results, self._reach([c for _, c, _ in picked])))
        return out

    def _reach(self, cands: list[Candidate]) -> NodeReach:
        if any(c.local for c in cands):
            return NodeReach(node_name=self.node.name)
        terms = []
        for c in cands:
            term = c.device.node_selector if c.slice.per_device else c.slice.node_selector
            if term is not None and term not in terms:
                terms.append(term)
        return NodeReach(all_of=tuple(terms))

    # -- requests ----------------------------------------------------------------------------

    def _request(self, k: int) -> bool:
        if k == len(self.slots):
            return True
        claim, request = self.slots[k]
        for alt in request.subrequests or (request,):
            if alt.mode == ALL:
                if self._all(k, claim, alt, request.name):
                    return True
            elif self._fill(k, claim, alt, request.name, 0, 0):
                return True
        return False

    def _all(self, k: int, claim: int, request: DeviceRequest, parent: str) -> bool:
        for pool in self.pools:
            if not pool.complete or pool.invalid:
                raise AllocationError(f"claim {claim}, request {request.name}: asks for all "
                                      f"devices, but resource pool {pool.driver}/{pool.name} "
                                      "is currently being updated")
        chosen = [c for c in self.cands if self.world.selectable(request, c)]
        if not chosen:
            return False
        taken = sum(len(p) for p in self.picked[claim])
        if taken + len(chosen) > MAX_ALLOCATED_DEVICES:
            # Upstream counts "all" devices before searching and fails the claim.
            raise AllocationError(f"claim {claim}: number of requested devices "
                                  f"{taken + len(chosen)} exceeds the claim limit of "
                                  f"{MAX_ALLOCATED_DEVICES} (request {request.name} asks "
                                  f"for all {len(chosen)} matching devices)")
        done = 0
        for c in chosen:
            if not self._usable(claim, request, parent, c, check_selectors=False):
                break
            self._take(claim, request, parent, c)
            done += 1
        ok = done == len(chosen) and self._request(k + 1)
        for c in reversed(chosen[:done]):
            if not ok:
                self._untake(claim, request, parent, c)
        return ok

    def _fill(self, k: int, claim: int, request: DeviceRequest, parent: str, slot: int,
              start: int) -> bool:
        if slot == request.count:
            return self._request(k + 1)
        need = request.count - slot
        # Pruning pays once the search backtracks: a search that is a plain pass over the
        # candidates (most of them) builds no bounds.
        bounds = self._bounds_of(claim, request, parent) \
            if self.steps > len(self.cands) else None
        if bounds is not None and not (bounds.enough(self, claim, start, need)
                                       and self._tail_fits(k, need, request)):
            return False
        cands = self.cands
        for j in range(start, len(cands)):
            c = cands[j]
            self.steps += 1
            if self.steps > MAX_STEPS:
                raise _Timeout
            if bounds is not None and not bounds.enough_with(self, claim, j, need):
                continue
            if not self._usable(claim, request, parent, c):
                continue
            self._take(claim, request, parent, c)
            if self._fill(k, claim, request, parent, slot + 1, j + 1):
                return True
            self._untake(claim, request, parent, c)
        return False

    def _tail_fits(self, k: int, need: int, request: DeviceRequest) -> bool:
        """Devices are exclusive (but for admin access): this request's ``need`` and the
        least the later slots need must fit in the free devices any of them can take."""
        if request.admin_access:
            return True
        tail = self._tails.get(k)
        if tail is None:
            devices: set[DeviceId] = set()
            later = 0
            for j in range(k, len(self.slots)):
                claim, slot_request = self.slots[j]
                alternatives = slot_request.subrequests or (slot_request,)
                if any(a.admin_access for a in alternatives):
                    continue
                for alt in alternatives:
                    devices |= self._bounds_of(claim, alt, slot_request.name).ids
                if j > k:
                    later += _min_devices(slot_request)
            tail = self._tails[k] = (frozenset(devices), later)
        devices, later = tail
        if need + later <= len(devices) - len(self.taken):
            return True  # fits even if every taken device was one of them
        free = len(devices) - sum(1 for d in self.taken if d in devices)
        return need + later <= free

    def _bounds_of(self, claim: int, request: DeviceRequest, parent: str) -> _Bounds:
        key = (claim, id(request))
        bounds = self._bounds.get(key)
        if bounds is None:
            bounds = self._bounds[key] = _Bounds(self, claim, request, parent)
        return bounds

    # -- one device --------------------------------------------------------------------------

    def _usable(self, claim: int, request: DeviceRequest, parent: str, c: Candidate,
                check_selectors: bool = True) -> bool:
        did = c.id
        holder = self.taken.get(did)
        if request.admin_access:
            if holder == claim:
                return False
        elif holder is not None or did in self.in_use:
            return False
        if check_selectors and not self.world.selectable(request, c):
            return False
        if not self.world.tolerated(request, c):
            return False
        if c.device.consumes and not self._counters_fit(c):
            return False
        return self._constraints_fit(claim, request, parent, c)

    def _counters_fit(self, c: Candidate) -> bool:
        pool = c.pool
        for set_name, counters in c.device.consumes:
            have = pool.counters.get(set_name)
            if have is None:
                return False
            for name, value in counters.items():
                if name not in have:
                    return False
                key = (pool.driver, pool.name, set_name, name)
                used = self.counters_used.get(key, 0) + self.local_counters.get(key, 0)
                if used + value > have[name]:
                    return False
        return True

    def _constraints_fit(self, claim: int, request: DeviceRequest, parent: str,
                         c: Candidate) -> bool:
        spec = self.claims[claim]
        for i, con in enumerate(spec.constraints):
            if con.requests and request.name not in con.requests and parent not in con.requests:
                continue
            name = con.match_attribute or con.distinct_attribute
            value = _attribute(c, name)
            if value is None:
                return False
            if con.match_attribute:
                fixed = self.match_state[claim][i][0]
                if fixed is not None and fixed != value:
                    return False
            elif value in self.distinct_state[claim][i]:
                return False
        return True

    def _apply_constraints(self, claim: int, request: DeviceRequest, parent: str,
                           c: Candidate, add: bool) -> None:
        for i, con in enumerate(self.claims[claim].constraints):
            if con.requests and request.name not in con.requests and parent not in con.requests:
                continue
            value = _attribute(c, con.match_attribute or con.distinct_attribute)
            if con.match_attribute:
                state = self.match_state[claim][i]
                state[1] += 1 if add else -1
                state[0] = value if state[1] else None
            elif add:
                self.distinct_state[claim][i].add(value)
            else:
                self.distinct_state[claim][i].discard(value)

    def _take(self, claim: int, request: DeviceRequest, parent: str, c: Candidate) -> None:
        self.taken.setdefault(c.id, claim)
        self.picked[claim].append((request.name, c, request.admin_access))
        self._apply_constraints(claim, request, parent, c, True)
        for set_name, counters in c.device.consumes:
            for name, value in counters.items():
                key = (c.pool.driver, c.pool.name, set_name, name)
                self.local_counters[key] = self.local_counters.get(key, 0) + value

    def _untake(self, claim: int, request: DeviceRequest, parent: str, c: Candidate) -> None:
        picked = self.picked[claim].pop()
        if picked[1] is not c:
            raise AssertionError("allocator undo out of order")
        if self.taken.get(c.id) == claim and not any(p[1] is c for p in self.picked[claim]):
            del self.taken[c.id]
        self._apply_constraints(claim, request, parent, c, False)
        for set_name, counters in c.device.consumes:
            for name, value in counters.items():
                key = (c.pool.driver, c.pool.name, set_name, name)
                self.local_counters[key] -= value


class _Timeout(Exception):
    pass


class _Bounds:
    """Upper bounds that prune the search without changing its answer: how many devices
    from candidate ``j`` on could serve a request at all (free when the search started,
    selectable, tolerated), per value of each ``matchAttribute`` constraint over it. A
    subtree that needs more than that holds no solution, so the first solution in
    upstream's order is still the one found; a claim that cannot fit is known after a
    pass over the candidates instead of an exponential search (upstream stops at a 10 s
    timeout). A selector that fails at runtime counts as selectable here: the search
    itself reaches it, or not, in upstream's order."""

    def __init__(self, search: _Search, claim: int, request: DeviceRequest,
                 parent: str) -> None:
        world, cands = search.world, search.cands
        n = len(cands)
        ok = [False] * n
        for j, c in enumerate(cands):
            if c.id in search.in_use and not request.admin_access:
                continue
            try:
                ok[j] = world.selectable(request, c) and world.tolerated(request, c)
            except AllocationError:
                ok[j] = True
        self.total = _suffix(ok)
        self.ids = frozenset(c.id for j, c in enumerate(cands) if ok[j])
        # constraint index -> (value per candidate, value -> suffix counts)
        self.match: list[tuple[int, list, dict]] = []
        for i, con in enumerate(search.claims[claim].constraints):
            if not con.match_attribute or (con.requests and request.name not in con.requests
                                           and parent not in con.requests):
                continue
            values = [_attribute(c, con.match_attribute) if ok[j] else None
                      for j, c in enumerate(cands)]
            counts = {v: _suffix([x == v for x in values]) for v in set(values) - {None}}
            self.match.append((i, values, counts))

    def enough(self, search: _Search, claim: int, start: int, need: int) -> bool:
        """Can ``need`` devices still come from candidates ``start`` on?"""
        if self.total[start] < need:
            return False
        for i, _, counts in self.match:
            fixed = search.match_state[claim][i][0]
            if fixed is not None and (fixed not in counts or counts[fixed][start] < need):
                return False
        return True

    def enough_with(self, search: _Search, claim: int, j: int, need: int) -> bool:
        """Taking candidate ``j``, can the other ``need - 1`` come from after it?"""
        for i, values, counts in self.match:
            if search.match_state[claim][i][0] is None:
                value = values[j]
                if value is not None and counts[value][j + 1] < need - 1:
                    return False
        return True


def _suffix(flags: list[bool]) -> list[int]:
    """``out[j]``: how many of ``flags[j:]`` are true (``out[len]`` = 0)."""
    out = [0] * (len(flags) + 1)
    for j in range(len(flags) - 1, -1, -1):
        out[j] = out[j + 1] + flags[j]
    return out


def _min_devices(request: DeviceRequest) -> int:
    if request.subrequests:
        return min(_min_devices(s) for s in request.subrequests)
    return request.count if request.mode != ALL else 1


def _attribute(c: Candidate, name: str) -> tuple[str, object] | None:
    """Fully qualified, or short when the domain is the device's driver."""
    attrs = c.device.attributes
    if "/" in name:
        return attrs.get(name)
    return attrs.get(f"{c.slice.driver}/{name}")


@dataclass(frozen=True)
class Outcome:
    """``results`` per claim, or None with ``reason`` (upstream's wording)."""

    results: list[ClaimResult] | None
    reason: str = ""


def allocate(world: World, node: Node, claims: Sequence[ClaimSpec],
             in_use: set[DeviceId] | frozenset = frozenset(),
             counters_used: Mapping = {}) -> Outcome:
    """Devices for ``claims`` on ``node`` given the devices in use. Raises
    AllocationError for what upstream treats as an error of the pod."""
    search = _Search(world, node, claims, in_use, counters_used)
    try:
        results = search.run()
    except _Timeout:
        return Outcome(None, TIMED_OUT)
    if results is not None:
        return Outcome(results)
    if any(p.invalid for p in search.pools):
        raise AllocationError(INVALID_POOLS)
    return Outcome(None, CANNOT_ALLOCATE)
