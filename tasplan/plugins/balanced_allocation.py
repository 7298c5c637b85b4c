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
    NATIVE,
    ResourceSpec,
    go_div,
    parse_resources,
)

HALF = MAX_NODE_SCORE // 2


def balanced_resource_score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """``int((1 - std) * 100)`` over the used fractions, each capped at 1."""
    return _fractions_score([min(r / a, 1.0) for r, a in zip(requested, allocatable,
                                                             strict=True) if a])


def _fractions_score(fractions: Sequence[float]) -> int:
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
        # ``allocatable_and_requested`` (raw requests) and ``balanced_resource_score``
        # inlined: this runs for every node a pod of a simulation changes.
        requests, allocatable, requested = pod.requests, node.node.allocatable, node.requested
        with_pod, without_pod = [], []
        for resource in self._names:
            request = requests.get(resource, 0)
            if request == 0 and resource not in NATIVE:
                continue  # an extended resource the pod does not request
            alloc = allocatable.get(resource, 0)
            if alloc:
                req = requested.get(resource, 0) + request
                with_pod.append(min(req / alloc, 1.0))
                without_pod.append(min((req - request) / alloc, 1.0))
        s_with = _fractions_score(with_pod)
        s_without = _fractions_score(without_pod)
        return HALF + go_div(HALF + s_with - s_without, 2)


def new(args: Mapping[str, Any]) -> BalancedAllocation:
    fields = ArgFields(args)
    spec = fields.strict(args, "", (*TYPE_META, "resources"))
    return BalancedAllocation(parse_resources(fields, spec.get("resources"), "resources",
                                              weight_one=True))
