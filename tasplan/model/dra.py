"""Dynamic Resource Allocation objects (``resource.k8s.io/v1``), reduced to what the
scheduler's DynamicResources plugin and its structured allocator read.

Everything is immutable; the only mutable DRA state of a plan is the device ledger
(``tasplan.dra.ledger``), which the Statement rolls back with the pods. A pod's claim
references and the snapshot's container (``PodClaim``, ``DraInputs``) are in ``dra_inputs``,
re-exported here: a run that only plans or lints pods without DRA objects never builds
these records.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tasplan.model.dra_inputs import NO_DRA, DraInputs, PodClaim  # noqa: F401 (re-exported)
from tasplan.model.selectors import NodeSelectorTerm
from tasplan.model.source import Source
from tasplan.model.taints import Taint, Toleration

# (driver, pool, device): how upstream names a device in allocation results.
DeviceId = tuple[str, str, str]

EXACT_COUNT = "ExactCount"
ALL = "All"
# Upstream limits (resource/v1 types.go).
MAX_ALLOCATED_DEVICES = 32  # AllocationResultsMaxSize


@dataclass(frozen=True, slots=True)
class Device:
    """One device of a slice. ``attributes`` are keyed by fully qualified name
    (``domain/id``; short names are filed under the driver's domain) with values
    ``(type, value)``, type one of int/bool/string/version. ``capacity`` values are
    quantity strings. ``consumes`` is ((counter set, {counter: value}), ...)."""

    name: str
    attributes: Mapping[str, tuple[str, object]] = field(default_factory=dict)
    capacity: Mapping[str, str] = field(default_factory=dict)
    consumes: tuple[tuple[str, Mapping[str, int]], ...] = ()
    taints: tuple[Taint, ...] = ()
    # Per-device node access (only with the slice's perDeviceNodeSelection).
    node_name: str = ""
    node_selector: NodeSelectorTerm | None = None
    all_nodes: bool = False
    binds_to_node: bool = False
    binding_conditions: tuple[str, ...] = ()
    allow_multiple_allocations: bool = False
    # What a CEL selector sees besides the driver, serialised (set by the decoder): devices
    # with equal content share selector results. Empty: derived when needed.
    content: bytes = field(default=b"", compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class ResourceSlice:
    """Exactly one node access mode: ``node_name`` (node-local), ``node_selector`` (one
    term), ``all_nodes`` or ``per_device`` (each device says). A slice holds devices or
    shared counters (counter set -> counter -> value), never both."""

    name: str
    driver: str
    pool: str
    generation: int
    slice_count: int
    source: Source
    node_name: str = ""
    node_selector: NodeSelectorTerm | None = None
    all_nodes: bool = False
    per_device: bool = False
    devices: tuple[Device, ...] = ()
    shared_counters: Mapping[str, Mapping[str, int]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DeviceClass:
    name: str
    selectors: tuple[str, ...]
    source: Source
    extended_resource_name: str = ""


@dataclass(frozen=True, slots=True)
class DeviceRequest:
    """A request (or a ``firstAvailable`` subrequest: then ``subrequests`` is empty and
    ``name`` is ``<request>/<subrequest>``). ``count`` is meaningful for ExactCount."""

    name: str
    class_name: str = ""
    selectors: tuple[str, ...] = ()
    mode: str = EXACT_COUNT
    count: int = 1
    admin_access: bool = False
    tolerations: tuple[Toleration, ...] = ()
    subrequests: tuple[DeviceRequest, ...] = ()
    # Fields tasplan does not model (consumable capacity requests).
    unmodelled: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Constraint:
    """``requests`` empty = all requests of the claim."""

    requests: tuple[str, ...] = ()
    match_attribute: str = ""
    distinct_attribute: str = ""


@dataclass(frozen=True, slots=True)
class ClaimSpec:
    requests: tuple[DeviceRequest, ...] = ()
    constraints: tuple[Constraint, ...] = ()


@dataclass(frozen=True, slots=True)
class AllocatedDevice:
    request: str
    driver: str
    pool: str
    device: str
    admin_access: bool = False

    @property
    def id(self) -> DeviceId:
        return (self.driver, self.pool, self.device)


@dataclass(frozen=True, slots=True)
class NodeReach:
    """Where an allocated claim can be used. ``node_name``: that node only; ``all_of``:
    every term must match (the slices' selectors of a computed allocation); ``any_of``: one
    term must match (an allocation's ``nodeSelector`` read from the input). All empty:
    every node."""

    node_name: str = ""
    all_of: tuple[NodeSelectorTerm, ...] = ()
    any_of: tuple[NodeSelectorTerm, ...] = ()

    def matches(self, name: str, labels: Mapping[str, str]) -> bool:
        if self.node_name and name != self.node_name:
            return False
        if not all(t.matches(name, labels) for t in self.all_of):
            return False
        return not self.any_of or any(t.matches(name, labels) for t in self.any_of)

    @property
    def everywhere(self) -> bool:
        return not (self.node_name or self.all_of or self.any_of)


EVERYWHERE = NodeReach()


@dataclass(frozen=True, slots=True)
class Allocation:
    results: tuple[AllocatedDevice, ...]
    reach: NodeReach = EVERYWHERE


@dataclass(frozen=True, slots=True)
class ResourceClaim:
    namespace: str
    name: str
    spec: ClaimSpec
    source: Source
    allocation: Allocation | None = None
    deleting: bool = False

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class ResourceClaimTemplate:
    namespace: str
    name: str
    spec: ClaimSpec
    source: Source


@dataclass(frozen=True, slots=True)
class DeviceTaintRule:
    """Taints every device the selector names (empty fields match all)."""

    name: str
    taint: Taint
    driver: str = ""
    pool: str = ""
    device: str = ""

    def selects(self, device: DeviceId) -> bool:
        driver, pool, name = device
        return ((not self.driver or self.driver == driver) and (not self.pool or self.pool == pool)
                and (not self.device or self.device == name))
