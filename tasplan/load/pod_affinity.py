"""Pod spec fields that relate pods to other pods -> model: label selectors,
``topologySpreadConstraints`` and ``affinity.podAffinity`` / ``podAntiAffinity``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tasplan.load.fields import ObjectFields
from tasplan.model.pod_affinity import (
    DO_NOT_SCHEDULE,
    HONOR,
    IGNORE,
    LABEL_SELECTOR_OPERATORS,
    SCHEDULE_ANYWAY,
    LabelSelector,
    PodAffinity,
    PodAffinityTerm,
    SpreadConstraint,
    WeightedPodAffinityTerm,
    label_key_requirements,
)
from tasplan.model.selectors import Requirement

_AFFINITY_KINDS = ("podAffinity", "podAntiAffinity")
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def has_pod_affinity(spec: Mapping[str, Any]) -> bool:
    """Cheap test for the bound-pod fast path: only pods with these fields pay to decode."""
    affinity = spec.get("affinity")
    return isinstance(affinity, dict) and any(affinity.get(k) for k in _AFFINITY_KINDS)


def label_selector(f: ObjectFields, raw: object, path: str) -> LabelSelector | None:
    """None when the field is absent (selects nothing), as ``LabelSelectorAsSelector``."""
    if raw is None:
        return None
    raw = f.mapping(raw, path)
    reqs = [Requirement(k, "In", (v,)) for k, v in
            sorted(f.string_map(raw.get("matchLabels"), f"{path}.matchLabels").items())]
    for i, r in enumerate(f.sequence(raw.get("matchExpressions"), f"{path}.matchExpressions")):
        rp = f"{path}.matchExpressions[{i}]"
        r = f.mapping(r, rp)
        op = f.string(r.get("operator"), f"{rp}.operator", required=True)
        if op not in LABEL_SELECTOR_OPERATORS:
            raise f.expected(f"{rp}.operator", ", ".join(LABEL_SELECTOR_OPERATORS), op)
        values = tuple(f.string(v, f"{rp}.values[{k}]")
                       for k, v in enumerate(f.sequence(r.get("values"), f"{rp}.values")))
        if (op in ("In", "NotIn")) != bool(values):
            raise f.error(f"{rp}.values", "must be non-empty for In and NotIn and empty for "
                          "Exists and DoesNotExist")
        reqs.append(Requirement(f.string(r.get("key"), f"{rp}.key", required=True), op, values))
    return LabelSelector(tuple(reqs))


def _keys(f: ObjectFields, raw: Mapping, key: str, path: str) -> tuple[str, ...]:
    return tuple(f.string(v, f"{path}.{key}[{i}]", required=True)
                 for i, v in enumerate(f.sequence(raw.get(key), f"{path}.{key}")))


def _choice(f: ObjectFields, raw: Mapping, key: str, path: str, allowed: tuple[str, ...],
            default: str) -> str:
    value = f.string(raw.get(key), f"{path}.{key}") or default
    if value not in allowed:
        raise f.expected(f"{path}.{key}", " or ".join(allowed), value)
    return value


def spread_constraints(f: ObjectFields, spec: Mapping[str, Any], labels: Mapping[str, str],
                       path: str) -> tuple[SpreadConstraint, ...]:
    out = []
    key = "topologySpreadConstraints"
    for i, raw in enumerate(f.sequence(spec.get(key), f"{path}.{key}")):
        cp = f"{path}.{key}[{i}]"
        raw = f.mapping(raw, cp)
        selector = label_selector(f, raw.get("labelSelector"), f"{cp}.labelSelector")
        match_keys = _keys(f, raw, "matchLabelKeys", cp)
        if selector is not None:
            selector = selector.merged(label_key_requirements(labels, match_keys))
        min_domains = raw.get("minDomains")
        if min_domains is not None:
            min_domains = f.int32(min_domains, f"{cp}.minDomains", minimum=1)
        when = f.string(raw.get("whenUnsatisfiable"), f"{cp}.whenUnsatisfiable", required=True)
        if when not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            raise f.expected(f"{cp}.whenUnsatisfiable", f"{DO_NOT_SCHEDULE} or "
                             f"{SCHEDULE_ANYWAY}", when)
        if min_domains is not None and when != DO_NOT_SCHEDULE:
            raise f.error(f"{cp}.minDomains", "may only be set with whenUnsatisfiable: "
                          "DoNotSchedule")
        out.append(SpreadConstraint(
            max_skew=f.int32(raw.get("maxSkew"), f"{cp}.maxSkew", minimum=1),
            topology_key=f.string(raw.get("topologyKey"), f"{cp}.topologyKey", required=True),
            when_unsatisfiable=when,
            selector=selector,
            min_domains=min_domains,
            node_affinity_policy=_choice(f, raw, "nodeAffinityPolicy", cp, (HONOR, IGNORE),
                                         HONOR),
            node_taints_policy=_choice(f, raw, "nodeTaintsPolicy", cp, (HONOR, IGNORE),
                                       IGNORE),
        ))
    return tuple(out)


def _term(f: ObjectFields, raw: object, namespace: str, labels: Mapping[str, str],
          path: str) -> PodAffinityTerm:
    raw = f.mapping(raw, path)
    selector = label_selector(f, raw.get("labelSelector"), f"{path}.labelSelector")
    extra = label_key_requirements(labels, _keys(f, raw, "matchLabelKeys", path),
                                   _keys(f, raw, "mismatchLabelKeys", path))
    if selector is not None:
        selector = selector.merged(extra)
    namespaces = frozenset(_keys(f, raw, "namespaces", path))
    ns_selector = label_selector(f, raw.get("namespaceSelector"), f"{path}.namespaceSelector")
    if not namespaces and ns_selector is None:
        namespaces = frozenset((namespace,))
    return PodAffinityTerm(
        selector=selector,
        topology_key=f.string(raw.get("topologyKey"), f"{path}.topologyKey", required=True),
        namespaces=namespaces,
        namespace_selector=ns_selector,
    )


def pod_affinity(f: ObjectFields, spec: Mapping[str, Any], namespace: str,
                 labels: Mapping[str, str], path: str) -> PodAffinity | None:
    affinity = f.mapping(spec.get("affinity"), f"{path}.affinity")
    parts: dict[str, tuple] = {}
    for kind, prefix in zip(_AFFINITY_KINDS, ("", "_anti"), strict=True):
        kp = f"{path}.affinity.{kind}"
        block = f.mapping(affinity.get(kind), kp)
        parts["required" + prefix] = tuple(
            _term(f, t, namespace, labels, f"{kp}.{_REQUIRED}[{i}]")
            for i, t in enumerate(f.sequence(block.get(_REQUIRED), f"{kp}.{_REQUIRED}")))
        weighted = []
        for i, w in enumerate(f.sequence(block.get(_PREFERRED), f"{kp}.{_PREFERRED}")):
            wp = f"{kp}.{_PREFERRED}[{i}]"
            w = f.mapping(w, wp)
            weight = f.integer(w.get("weight"), f"{wp}.weight", minimum=1, maximum=100)
            if weight > 100:
                raise f.error(f"{wp}.weight", f"expected 1..100, got {weight}")
            weighted.append(WeightedPodAffinityTerm(
                weight, _term(f, w.get("podAffinityTerm"), namespace, labels,
                              f"{wp}.podAffinityTerm")))
        parts["preferred" + prefix] = tuple(weighted)
    result = PodAffinity(**parts)
    return result if any(parts.values()) else None
