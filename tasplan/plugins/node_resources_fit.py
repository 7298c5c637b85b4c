"""NodeResourcesFit: the pod's requests must fit the node's free allocatable; nodes are
scored LeastAllocated (default), MostAllocated or RequestedToCapacityRatio; placements are
scored MostAllocated over the whole domain (KEP-5732 bin-packing at domain level)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import attrgetter
from typing import Any

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.status import InsufficientResource, Status, unschedulable
from tasplan.framework.types import CycleState, GroupContext, Placement, ProposedAssignment, Scope
from tasplan.model.pod import Pod
from tasplan.model.selectors import valid_label_key
from tasplan.plugins import names
from tasplan.plugins.args import TYPE_META, ArgFields
from tasplan.plugins.resource_allocation import (
    CPU,
    DEFAULT_RESOURCES,
    MAX_CUSTOM_PRIORITY_SCORE,
    MAX_UTILIZATION,
    MEMORY,
    NATIVE,
    ResourceSpec,
    ShapePoint,
    is_extended_resource_name,
    least_allocated,
    most_allocated,
    parse_resources,
    pod_request,
    requested_to_capacity_ratio,
)

TOO_MANY_PODS = "Too many pods"
_NODE, _NON_ZERO_CPU, _NON_ZERO_MEMORY = (attrgetter("node"), attrgetter("non_zero_cpu"),
                                          attrgetter("non_zero_memory"))
LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
STRATEGIES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)


def insufficient_reason(resource: str) -> str:
    return f"Insufficient {resource}"


class NodeResourcesFit:
    name = names.NODE_RESOURCES_FIT
    scope = Scope.NODE
    reads_assigned_nodes = False
    capacity_exact = True  # capacity() is 0 exactly where filter() rejects

    def __init__(
        self,
        strategy: str = LEAST_ALLOCATED,
        resources: Sequence[ResourceSpec] = DEFAULT_RESOURCES,
        ignored_resources: frozenset[str] = frozenset(),
        ignored_groups: frozenset[str] = frozenset(),
        shape: Sequence[ShapePoint] = (),
    ) -> None:
        """``shape`` is RequestedToCapacityRatio's curve (required for that strategy)."""
        self.strategy = strategy
        if strategy == REQUESTED_TO_CAPACITY_RATIO:
            self._scorer = requested_to_capacity_ratio(shape)
        else:
            self._scorer = most_allocated if strategy == MOST_ALLOCATED else least_allocated
        self.shape = tuple(shape)
        self.resources = tuple(resources)
        self._names = tuple(r.name for r in self.resources)
        self._weights = tuple(r.weight for r in self.resources)
        self._ignored = ignored_resources
        self._ignored_groups = ignored_groups
        self._ignored_known: dict[str, bool] = {}  # resource name -> _ignored_resource
        # ids of a domain's Node objects -> (those Nodes, allocatable per scored resource)
        self._allocatable: dict[tuple[int, ...], tuple[tuple, tuple[int, ...]]] = {}

    def _ignored_resource(self, resource: str) -> bool:
        """ignoredResources / ignoredResourceGroups apply to extended resources only."""
        known = self._ignored_known.get(resource)
        if known is None:
            known = self._ignored_known[resource] = is_extended_resource_name(resource) and (
                resource in self._ignored
                or ("/" in resource and resource.split("/", 1)[0] in self._ignored_groups))
        return known

    # -- Filter ----------------------------------------------------------------------------

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        alloc = node.node.allocatable
        used_pods = node.pod_count
        allowed = alloc.get("pods", 0)
        short: list[InsufficientResource] = []
        unresolvable = False
        if used_pods + 1 > allowed:
            short.append(InsufficientResource("pods", 1, used_pods, allowed))
        requested = node.requested
        for resource, value in pod.requests.items():
            if value <= 0 or self._ignored_resource(resource):
                continue
            capacity = alloc.get(resource, 0)
            used = requested.get(resource, 0)
            if value > capacity - used:
                short.append(InsufficientResource(resource, value, used, capacity))
                unresolvable = unresolvable or value > capacity
        if not short:
            return None
        reasons = tuple(
            TOO_MANY_PODS if s.resource == "pods" else insufficient_reason(s.resource)
            for s in short
        )
        return unschedulable(*reasons, unresolvable=unresolvable, details=tuple(short))

    def capacity(self, pod: Pod, node: NodeInfo) -> int:
        """How many more copies of ``pod`` fit on ``node`` (used for gang-level bounds)."""
        alloc = node.node.allocatable
        fit = alloc.get("pods", 0) - node.pod_count
        requested = node.requested
        for resource, value in pod.requests.items():
            if value <= 0 or self._ignored_resource(resource):
                continue
            fit = min(fit, (alloc.get(resource, 0) - requested.get(resource, 0)) // value)
        return max(fit, 0)

    # -- Score -----------------------------------------------------------------------------

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        requested, allocatable = [], []
        for resource in self._names:
            # ``allocatable_and_requested`` with non-zero requests, inlined (hot path).
            if resource == CPU:
                request, used = pod.non_zero[0], node.non_zero_cpu
            elif resource == MEMORY:
                request, used = pod.non_zero[1], node.non_zero_memory
            else:
                request = pod.requests.get(resource, 0)
                if request == 0 and resource not in NATIVE:
                    allocatable.append(0)
                    requested.append(0)
                    continue
                used = node.requested.get(resource, 0)
            alloc = node.node.allocatable.get(resource, 0)
            allocatable.append(alloc)
            requested.append(used + request if alloc else 0)
        return self._scorer(requested, allocatable, self._weights)

    # -- PlacementScore --------------------------------------------------------------------

    def score_placement(
        self,
        ctx: GroupContext,
        placement: Placement,
        nodes: Sequence[NodeInfo],
        proposed: Sequence[ProposedAssignment],
    ) -> int:
        """Always MostAllocated, over the sum of the domain's nodes (the website: "placement
        scoring always uses MostAllocated"; resource weights are shared with node scoring)."""
        requested = []
        allocatable = self._domain_allocatable(nodes)
        for resource in self._names:
            if resource == CPU:
                req = sum(map(_NON_ZERO_CPU, nodes))
            elif resource == MEMORY:
                req = sum(map(_NON_ZERO_MEMORY, nodes))
            else:
                req = sum([n.requested.get(resource, 0) for n in nodes])
            req += sum(pod_request(p.pod, resource, non_zero=True) * p.count for p in proposed)
            requested.append(req)
        return most_allocated(requested, allocatable, self._weights)

    def _domain_allocatable(self, nodes: Sequence[NodeInfo]) -> tuple[int, ...]:
        """The scored resources' allocatable summed over ``nodes``, once per set of Node
        objects (a Node never changes; the cache holds them, so their ids stay theirs)."""
        members = tuple(map(_NODE, nodes))
        key = tuple(map(id, members))
        hit = self._allocatable.get(key)
        if hit is None:
            hit = self._allocatable[key] = (members, tuple(
                sum([n.allocatable.get(resource, 0) for n in members])
                for resource in self._names))
        return hit[1]


def new(args: Mapping[str, Any]) -> NodeResourcesFit:
    """Upstream ``NewFit`` after v1 defaulting (``SetDefaults_NodeResourcesFitArgs``) and
    ``ValidateNodeResourcesFitArgs``. Without ``scoringStrategy``: LeastAllocated over cpu
    and memory; a ``scoringStrategy`` must name its ``type`` (v1 does not default it)."""
    fields = ArgFields(args)
    spec = fields.strict(args, "", (*TYPE_META, "scoringStrategy", "ignoredResources",
                                    "ignoredResourceGroups"))
    ignored = _names(fields, spec.get("ignoredResources"), "ignoredResources", group=False)
    groups = _names(fields, spec.get("ignoredResourceGroups"), "ignoredResourceGroups",
                    group=True)
    raw = spec.get("scoringStrategy")
    if raw is None:
        return NodeResourcesFit(LEAST_ALLOCATED, DEFAULT_RESOURCES, ignored, groups)
    strategy = fields.strict(raw, "scoringStrategy",
                             ("type", "resources", "requestedToCapacityRatio"))
    kind = fields.string(strategy.get("type"), "scoringStrategy.type")
    if kind not in STRATEGIES:
        raise fields.error("scoringStrategy.type", f"unsupported value {kind!r}: supported "
                           f"values: {', '.join(STRATEGIES)}")
    resources = parse_resources(fields, strategy.get("resources"), "scoringStrategy.resources")
    shape: tuple[ShapePoint, ...] = ()
    ratio = strategy.get("requestedToCapacityRatio")
    if ratio is not None or kind == REQUESTED_TO_CAPACITY_RATIO:
        param = fields.strict(ratio, "scoringStrategy.requestedToCapacityRatio", ("shape",))
        shape = _shape(fields, param.get("shape"),
                       "scoringStrategy.requestedToCapacityRatio.shape")
    return NodeResourcesFit(kind, resources, ignored, groups, shape)


def _shape(fields: ArgFields, raw: object, field: str) -> tuple[ShapePoint, ...]:
    """``validateFunctionShape``: at least one point, utilisation strictly increasing and in
    [0, 100], score in [0, 10]. (Upstream's error path says ``scoringStrategy.shape``; the
    path here is where the value is.)"""
    items = fields.sequence(raw, field)
    if not items:
        raise fields.error(field, "at least one point must be specified")
    points = []
    for i, item in enumerate(items):
        point = fields.strict(item, f"{field}[{i}]", ("utilization", "score"))
        utilization = fields.integer(point.get("utilization", 0), f"{field}[{i}].utilization")
        score = fields.integer(point.get("score", 0), f"{field}[{i}].score")
        if not 0 <= utilization <= MAX_UTILIZATION:
            raise fields.error(f"{field}[{i}].utilization",
                               f"{utilization} not in valid range [0, {MAX_UTILIZATION}]")
        if not 0 <= score <= MAX_CUSTOM_PRIORITY_SCORE:
            raise fields.error(f"{field}[{i}].score",
                               f"{score} not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]")
        if points and points[-1].utilization >= utilization:
            raise fields.error(f"{field}[{i}].utilization",
                               "utilization values must be sorted in increasing order")
        points.append(ShapePoint(utilization, score))
    return tuple(points)


def _names(fields: ArgFields, raw: object, field: str, *, group: bool) -> frozenset[str]:
    """ignoredResources are label names (``ValidateLabelName``); ignoredResourceGroups are
    label names without a "/"."""
    out = []
    for i, item in enumerate(fields.sequence(raw, field)):
        name = fields.string(item, f"{field}[{i}]", required=True)
        if group and "/" in name:
            raise fields.error(f"{field}[{i}]", f"resource group name can't contain '/': "
                               f"{name!r}")
        if not valid_label_key(name):
            raise fields.error(f"{field}[{i}]", f"{name!r} is not a valid label name")
        out.append(name)
    return frozenset(out)
