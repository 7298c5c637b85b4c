"""Explanation -> the ``groups[].explanation`` object of the PlanReport document.

Quantities are Kubernetes quantity strings, as in ``placements[].free``. Keys may be added,
never renamed; order is fixed here so output is byte-identical for the same inputs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tasplan.explain.result import DomainExplanation, Explanation, Suggestion
from tasplan.model.quantity import format_quantity


def explanation_document(e: Explanation) -> dict[str, Any]:
    fits_at = e.fits_at
    return {
        "needed": e.needed,
        "cause": None if e.cause is None else {"kind": e.cause.kind, "message": e.cause.text},
        "fitsEmptyCluster": e.fits_empty_cluster,
        "fitsAt": None if fits_at is None else {
            "topologyKey": fits_at.details["topologyKey"], "placement": fits_at.result.selected},
        "unlabelledNodes": e.unlabelled,
        "failures": [{"message": message, "pods": list(pods)} for message, pods in e.failures],
        "domains": [_domain(d) for d in e.domains],
        "suggestions": [_suggestion(s) for s in e.suggestions],
    }


def _quantities(values: Mapping[str, int]) -> dict[str, str]:
    return {r: format_quantity(r, v) for r, v in values.items()}


def _domain(d: DomainExplanation) -> dict[str, Any]:
    return {
        "name": d.name,
        "nodes": d.nodes,
        "fit": d.fit,
        "needed": d.needed,
        "shortfall": _quantities(d.shortfall),
        "perPod": _quantities(d.per_pod),
        "excluded": dict(d.excluded),
        "consumers": [{"namespace": c.namespace, "priority": c.priority, "pods": c.pods,
                       "requests": _quantities(c.requests)} for c in d.consumers],
    }


def _suggestion(s: Suggestion) -> dict[str, Any]:
    chosen = s.result.selected_placement
    return {
        "kind": s.kind,
        "change": s.change,
        "cost": dict(s.cost),
        "minimal": s.minimal,
        "details": dict(s.details),
        "result": {
            "schedulable": s.result.schedulable,
            "selected": s.result.selected,
            "tiedWith": list(s.result.tied_with),
            "placed": chosen.placed if chosen is not None else 0,
            "message": s.result.message,
            "assignments": dict(chosen.assignments) if chosen is not None else {},
        },
    }
