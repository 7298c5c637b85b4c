"""policy/v1 PodDisruptionBudget -> model."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tasplan.load.core_v1 import timestamp_field
from tasplan.load.fields import ObjectFields
from tasplan.load.pod_affinity import label_selector
from tasplan.model.disruption import PodDisruptionBudget
from tasplan.model.source import Source


def decode_pdb(source: Source, obj: Mapping[str, Any]) -> PodDisruptionBudget:
    f = ObjectFields(source, obj)
    meta = f.mapping(obj.get("metadata"), "metadata")
    name = f.string(meta.get("name"), "metadata.name", required=True)
    namespace = f.string(meta.get("namespace"), "metadata.namespace") or "default"
    spec = f.mapping(obj.get("spec"), "spec")
    status = f.mapping(obj.get("status"), "status")
    selector = label_selector(f, spec.get("selector"), "spec.selector")
    bounds = []
    for field in ("minAvailable", "maxUnavailable"):
        value = spec.get(field)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | str)
                                  or (isinstance(value, str) and not _PERCENT.fullmatch(value))):
            raise f.expected(f"spec.{field}", 'an integer or a percentage such as "50%"', value)
        # Upstream ValidatePositiveIntOrPercent and IsNotMoreThan100Percent
        # (pkg/apis/policy/validation ValidatePodDisruptionBudgetSpec).
        if isinstance(value, int):
            value = f.int32(value, f"spec.{field}", minimum=0)
        elif isinstance(value, str) and int(value[:-1].lstrip("0")[:4] or 0) > 100:
            raise f.error(f"spec.{field}", f"must not be greater than 100%, got {value}")
        bounds.append(value)
    if bounds[0] is not None and bounds[1] is not None:
        raise f.error("spec", "minAvailable and maxUnavailable cannot be both set")
    allowed = status.get("disruptionsAllowed")
    if allowed is not None:
        allowed = f.int32(allowed, "status.disruptionsAllowed", minimum=0)
    disrupted = f.mapping(status.get("disruptedPods"), "status.disruptedPods")
    for pod, when in disrupted.items():
        if when is not None:
            timestamp_field(f, when, f"status.disruptedPods.{pod}")
    return PodDisruptionBudget(namespace, name, selector, bounds[0], bounds[1], allowed,
                               source, frozenset(disrupted))


_PERCENT = re.compile(r"[0-9]+%")
