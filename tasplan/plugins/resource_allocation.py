"""Maths shared by NodeResourcesFit and NodeResourcesBalancedAllocation scoring
(upstream ``noderesources/resource_allocation.go``, ``least_allocated.go``,
``most_allocated.go``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tasplan.errors import ProfileError
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.types import MAX_NODE_SCORE
from tasplan.model.pod import Pod

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
NATIVE = (CPU, MEMORY, EPHEMERAL_STORAGE)


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    name: str
    weight: int = 1


DEFAULT_RESOURCES = (ResourceSpec(CPU, 1), ResourceSpec(MEMORY, 1))
MAX_RESOURCE_WEIGHT = 100


def parse_resources(raw: object, field: str) -> tuple[ResourceSpec, ...]:
    """Plugin args ``resources: [{name, weight}]``: an unset weight is 1 (v1 defaulting),
    anything outside (0, 100] is rejected as upstream's ``validateResources`` does."""
    if not raw:
        return DEFAULT_RESOURCES
    out = []
    for i, item in enumerate(raw):
        weight = item.get("weight")
        weight = 1 if weight in (None, 0) else weight
        if isinstance(weight, bool) or not isinstance(weight, int) \
                or not 0 < weight <= MAX_RESOURCE_WEIGHT:
            raise ProfileError("<profile>", f"resource weight of {weight} not in valid range "
                               f"(0, {MAX_RESOURCE_WEIGHT}]", field=f"{field}[{i}].weight")
        out.append(ResourceSpec(item["name"], weight))
    return tuple(out)


def is_extended(resource: str) -> bool:
    """Upstream ``IsScalarResourceName``: anything but cpu, memory and ephemeral-storage
    (extended resources, hugepages-*, attachable volumes)."""
    return resource not in NATIVE


def is_extended_resource_name(resource: str) -> bool:
    """Upstream ``IsExtendedResourceName``: a domain-prefixed name outside kubernetes.io/
    (e.g. nvidia.com/gpu); hugepages-* and native names are not."""
    return "/" in resource and not resource.startswith("kubernetes.io/") \
        and not resource.startswith("requests.")


def pod_request(pod: Pod, resource: str, *, non_zero: bool) -> int:
    """The pod's request for scoring: non-zero defaults for cpu and memory unless the
    scorer works on raw requests (BalancedAllocation)."""
    if non_zero:
        if resource == CPU:
            return pod.non_zero[0]
        if resource == MEMORY:
            return pod.non_zero[1]
    return pod.requests.get(resource, 0)


def node_requested(node: NodeInfo, resource: str, *, non_zero: bool) -> int:
    if non_zero:
        if resource == CPU:
            return node.non_zero_cpu
        if resource == MEMORY:
            return node.non_zero_memory
    return node.requested.get(resource, 0)


def allocatable_and_requested(
    node: NodeInfo, resource: str, request: int, *, non_zero: bool
) -> tuple[int, int]:
    """(allocatable, requested-after-this-pod) for one resource; (0, 0) means "skip":
    extended resources the pod does not request are not scored."""
    if request == 0 and is_extended(resource):
        return 0, 0
    alloc = node.node.allocatable.get(resource, 0)
    if alloc == 0:
        return 0, 0
    return alloc, node_requested(node, resource, non_zero=non_zero) + request


def _weighted(requested: Sequence[int], allocatable: Sequence[int], weights: Sequence[int],
              per_resource) -> int:
    """Weighted mean of per-resource scores over resources with allocatable > 0."""
    score = weight_sum = 0
    for req, alloc, w in zip(requested, allocatable, weights, strict=True):
        if alloc:
            score += per_resource(req, alloc) * w
            weight_sum += w
    return score // weight_sum if weight_sum else 0


def _least(req: int, alloc: int) -> int:
    return 0 if req > alloc else (alloc - req) * MAX_NODE_SCORE // alloc


def _most(req: int, alloc: int) -> int:
    return min(req, alloc) * MAX_NODE_SCORE // alloc


def least_allocated(requested: Sequence[int], allocatable: Sequence[int],
                    weights: Sequence[int]) -> int:
    return _weighted(requested, allocatable, weights, _least)


def most_allocated(requested: Sequence[int], allocatable: Sequence[int],
                   weights: Sequence[int]) -> int:
    return _weighted(requested, allocatable, weights, _most)
