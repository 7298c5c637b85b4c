"""NodeResourcesBalancedAllocation: prefer nodes whose resource use stays balanced.

Since kubernetes#135573 (v1.36) the score rewards the *change* in balance the pod causes:
``50 + (50 + S_with - S_without) / 2`` where ``S = int((1 - std(fractions)) * 100)``; 75 means
"no change". Raw requests, no non-zero defaults; extended resources the pod does not request
are left out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.types import MAX_NODE_SCORE, CycleState, Scope
from tasplan.model.pod import Pod
from tasplan.plugins import names
from tasplan.plugins.args import TYPE_META, ArgFields
from tasplan.plugins.resource_allocation import (
    DEFAULT_RESOURCES,
    ResourceSpec,
    allocatable_and_requested,
    go_div,
    parse_resources,
    pod_request,
)

HALF = MAX_NODE_SCORE // 2


def balanced_resource_score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """``int((1 - std) * 100)`` over the used fractions, each capped at 1."""
    fractions = [min(r / a, 1.0) for r, a in zip(requested, allocatable, strict=True) if a]
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = sum(fractions) / len(fractions)
        std = math.sqrt(sum((f - mean) ** 2 for f in fractions) / len(fractions))
    else:
        std = 0.0
    return int((1 - std) * MAX_NODE_SCORE)


class BalancedAllocation:
    name = names.NODE_RESOURCES_BALANCED_ALLOCATION
    scope = Scope.NODE

    def __init__(self, resources: Sequence[ResourceSpec] = DEFAULT_RESOURCES) -> None:
        self._names = tuple(r.name for r in resources)

    def pre_score(self, state: CycleState, pod: Pod) -> bool:
        """Pods requesting none of the scored resources are skipped (upstream PreScore Skip)."""
        return any(pod.requests.get(r, 0) for r in self._names)

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        with_pod, without_pod, allocatable = [], [], []
        for resource in self._names:
            request = pod_request(pod, resource, non_zero=False)
            alloc, req = allocatable_and_requested(node, resource, request, non_zero=False)
            allocatable.append(alloc)
            with_pod.append(req)
            without_pod.append(req - request if alloc else 0)
        s_with = balanced_resource_score(with_pod, allocatable)
        s_without = balanced_resource_score(without_pod, allocatable)
        return HALF + go_div(HALF + s_with - s_without, 2)


def new(args: Mapping[str, Any]) -> BalancedAllocation:
    fields = ArgFields(args)
    spec = fields.strict(args, "", (*TYPE_META, "resources"))
    return BalancedAllocation(parse_resources(fields, spec.get("resources"), "resources",
                                              weight_one=True))
