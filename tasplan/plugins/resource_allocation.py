"""Maths shared by NodeResourcesFit and NodeResourcesBalancedAllocation scoring
(upstream ``noderesources/resource_allocation.go``, ``least_allocated.go``,
``most_allocated.go``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.types import MAX_NODE_SCORE
from tasplan.model.pod import Pod
from tasplan.plugins.args import ArgFields

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
NATIVE = (CPU, MEMORY, EPHEMERAL_STORAGE)


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    name: str
    weight: int = 1


@dataclass(frozen=True, slots=True)
class ShapePoint:
    """A point of RequestedToCapacityRatio's utilisation -> score curve; ``score`` in 0-10
    as configured (upstream ``MaxCustomPriorityScore``)."""

    utilization: int
    score: int


DEFAULT_RESOURCES = (ResourceSpec(CPU, 1), ResourceSpec(MEMORY, 1))
MAX_RESOURCE_WEIGHT = 100
MAX_UTILIZATION = 100
MAX_CUSTOM_PRIORITY_SCORE = 10
Scorer = Callable[[Sequence[int], Sequence[int], Sequence[int]], int]


def parse_resources(fields: ArgFields, raw: object, field: str, *,
                    weight_one: bool = False) -> tuple[ResourceSpec, ...]:
    """Plugin args ``resources: [{name, weight}]``. Empty means cpu and memory, an unset or
    zero weight is 1 (v1 defaulting). NodeResourcesFit accepts weights in (0, 100]
    (``validateResources``); NodeResourcesBalancedAllocation only 1 and no repeated name
    (``ValidateNodeResourcesBalancedAllocationArgs``)."""
    items = fields.sequence(raw, field)
    if not items:
        return DEFAULT_RESOURCES
    out: list[ResourceSpec] = []
    for i, item in enumerate(items):
        at = f"{field}[{i}]"
        spec = fields.strict(item, at, ("name", "weight"))
        name = fields.string(spec.get("name"), f"{at}.name", required=True)
        weight = spec.get("weight")
        weight = 1 if weight is None else fields.integer(weight, f"{at}.weight") or 1
        if weight_one:
            if weight != 1:
                raise fields.error(f"{at}.weight", f"must be 1, got {weight}")
            if any(r.name == name for r in out):
                raise fields.error(f"{at}.name", f"duplicate resource {name!r}")
        elif not 0 < weight <= MAX_RESOURCE_WEIGHT:
            raise fields.error(f"{at}.weight", f"resource weight of {name} not in valid range "
                               f"(0, {MAX_RESOURCE_WEIGHT}], got {weight}")
        out.append(ResourceSpec(name, weight))
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


def go_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, as Go's ``/`` on int64 (``b`` > 0)."""
    q = abs(a) // b
    return q if a >= 0 else -q


def broken_linear(shape: Sequence[ShapePoint]) -> Callable[[int], int]:
    """Upstream ``helper.BuildBrokenLinearFunction``: linear between the points (Go integer
    division), flat before the first and after the last."""

    def f(utilization: int) -> int:
        for i, point in enumerate(shape):
            if utilization <= point.utilization:
                if i == 0:
                    return point.score
                prev = shape[i - 1]
                return prev.score + go_div((point.score - prev.score)
                                           * (utilization - prev.utilization),
                                           point.utilization - prev.utilization)
        return shape[-1].score

    return f


def scaled_utilization(requested: int, capacity: int) -> int:
    """``requested * 100 / capacity`` with requested clamped to [0, capacity]."""
    if capacity <= 0 or requested <= 0:
        return 0
    if requested >= capacity:
        return MAX_UTILIZATION
    return requested * MAX_UTILIZATION // capacity


def requested_to_capacity_ratio(shape: Sequence[ShapePoint]) -> Scorer:
    """Upstream ``requestedToCapacityRatioScorer``: shape scores (0-10) are scaled to 0-100;
    each resource scores ``f(utilisation)`` (``f(100)`` when over capacity). Unlike the other
    strategies, a resource scoring 0 is left out of the weighted mean, and the mean is
    rounded half away from zero (``math.Round``), not truncated."""
    scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    raw = broken_linear([ShapePoint(p.utilization, p.score * scale) for p in shape])

    def scorer(requested: Sequence[int], allocatable: Sequence[int],
               weights: Sequence[int]) -> int:
        score = weight_sum = 0
        for req, alloc, w in zip(requested, allocatable, weights, strict=True):
            if not alloc:
                continue
            value = raw(MAX_UTILIZATION if req > alloc else scaled_utilization(req, alloc))
            if value > 0:
                score += value * w
                weight_sum += w
        return (2 * score + weight_sum) // (2 * weight_sum) if weight_sum else 0

    return scorer
