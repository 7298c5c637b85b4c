"""NodeResourcesFit: the pod's requests must fit the node's free allocatable; nodes are
scored LeastAllocated (default) or MostAllocated; placements are scored MostAllocated over
the whole domain (KEP-5732 bin-packing at domain level)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tasplan.errors import ProfileError
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.status import InsufficientResource, Status, unschedulable
from tasplan.framework.types import CycleState, GroupContext, Placement, ProposedAssignment, Scope
from tasplan.model.pod import Pod
from tasplan.plugins import names
from tasplan.plugins.resource_allocation import (
    DEFAULT_RESOURCES,
    ResourceSpec,
    allocatable_and_requested,
    is_extended_resource_name,
    least_allocated,
    most_allocated,
    node_requested,
    parse_resources,
    pod_request,
)

TOO_MANY_PODS = "Too many pods"
STRATEGIES = {"LeastAllocated": least_allocated, "MostAllocated": most_allocated}


def insufficient_reason(resource: str) -> str:
    return f"Insufficient {resource}"


class NodeResourcesFit:
    name = names.NODE_RESOURCES_FIT
    scope = Scope.NODE
    reads_assigned_nodes = False

    def __init__(
        self,
        strategy: str = "LeastAllocated",
        resources: Sequence[ResourceSpec] = DEFAULT_RESOURCES,
        ignored_resources: frozenset[str] = frozenset(),
        ignored_groups: frozenset[str] = frozenset(),
    ) -> None:
        self.strategy = strategy
        self._scorer = STRATEGIES[strategy]
        self.resources = tuple(resources)
        self._names = tuple(r.name for r in self.resources)
        self._weights = tuple(r.weight for r in self.resources)
        self._ignored = ignored_resources
        self._ignored_groups = ignored_groups

    def _ignored_resource(self, resource: str) -> bool:
        """ignoredResources / ignoredResourceGroups apply to extended resources only."""
        if not is_extended_resource_name(resource):
            return False
        if resource in self._ignored:
            return True
        return "/" in resource and resource.split("/", 1)[0] in self._ignored_groups

    # -- Filter ----------------------------------------------------------------------------

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        alloc = node.node.allocatable
        used_pods = len(node.pods)
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
        fit = alloc.get("pods", 0) - len(node.pods)
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
            alloc, req = allocatable_and_requested(
                node, resource, pod_request(pod, resource, non_zero=True), non_zero=True)
            allocatable.append(alloc)
            requested.append(req)
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
        requested, allocatable = [], []
        for resource in self._names:
            alloc = sum(n.node.allocatable.get(resource, 0) for n in nodes)
            req = sum(node_requested(n, resource, non_zero=True) for n in nodes)
            req += sum(pod_request(p.pod, resource, non_zero=True) for p in proposed)
            allocatable.append(alloc)
            requested.append(req)
        return most_allocated(requested, allocatable, self._weights)


def new(args: Mapping[str, Any]) -> NodeResourcesFit:
    strategy = args.get("scoringStrategy") or {}
    kind = strategy.get("type", "LeastAllocated")
    if kind not in STRATEGIES:
        raise ProfileError("<profile>", f"unsupported scoring strategy {kind!r}",
                           field="NodeResourcesFit.args.scoringStrategy.type")
    resources = parse_resources(strategy.get("resources"),
                                "NodeResourcesFit.args.scoringStrategy.resources")
    return NodeResourcesFit(
        kind,
        resources,
        frozenset(args.get("ignoredResources") or ()),
        frozenset(args.get("ignoredResourceGroups") or ()),
    )
