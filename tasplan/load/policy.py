"""policy/v1 PodDisruptionBudget -> model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tasplan.load.fields import ObjectFields
from tasplan.model.disruption import PodDisruptionBudget
from tasplan.model.source import Source


def decode_pdb(source: Source, obj: Mapping[str, Any]) -> PodDisruptionBudget:
    f = ObjectFields(source, obj)
    meta = f.mapping(obj.get("metadata"), "metadata")
    name = f.string(meta.get("name"), "metadata.name", required=True)
    namespace = f.string(meta.get("namespace"), "metadata.namespace") or "default"
    spec = f.mapping(obj.get("spec"), "spec")
    status = f.mapping(obj.get("status"), "status")
    selector = spec.get("selector")
    if selector is not None:
        selector = f.mapping(selector, "spec.selector")
    bounds = []
    for field in ("minAvailable", "maxUnavailable"):
        value = spec.get(field)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | str)):
            raise f.expected(f"spec.{field}", "an integer or a percentage", value)
        bounds.append(value)
    allowed = status.get("disruptionsAllowed", 0)
    return PodDisruptionBudget(namespace, name, selector, bounds[0], bounds[1],
                               f.integer(allowed, "status.disruptionsAllowed", minimum=0), source)
