"""Volcano's ``binpack`` node-order plugin (``pkg/scheduler/plugins/binpack/binpack.go``
``BinPackingScore`` at volcano commit ed72c7c815a9fd547a787134676f73d42e9d049c): nodes whose
requested share of the pod's resources ends highest score highest."""

from __future__ import annotations

from collections.abc import Mapping

MAX_NODE_SCORE = 100
DEFAULT_WEIGHTS: Mapping[str, int] = {"cpu": 1, "memory": 1}


def binpack_node_score(request: Mapping[str, int], allocatable: Mapping[str, int],
                       used: Mapping[str, int], weights: Mapping[str, int] = DEFAULT_WEIGHTS,
                       weight: int = 1) -> float:
    """Σ_r w_r (used_r + request_r) / allocatable_r / Σ w_r, times 100 and the plugin
    weight, over the weighted resources the pod requests; 0 when one does not fit."""
    score = 0.0
    total = 0
    for name, value in request.items():
        if value == 0 or name not in weights:
            continue
        w = weights[name]
        capacity = allocatable.get(name, 0)
        if capacity == 0 or w == 0:
            total += w
            continue
        final = value + used.get(name, 0)
        if final > capacity:
            return 0.0
        score += final * w / capacity
        total += w
    if total > 0:
        score /= total
    return score * MAX_NODE_SCORE * weight
