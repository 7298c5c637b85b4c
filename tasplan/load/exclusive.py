"""Exclusive topology placement as JobSet's and LeaderWorkerSet's pod webhooks write it.

Both give the pods of one unit (a JobSet child Job, an LWS group) a required pod affinity
to the unit's own hash label and a required anti-affinity to every other unit's, both over
the annotated topology key: each unit lands in a domain of its own. Upstream gives these
terms to the unit's leader pod and pins its followers to the leader's domain with a
``nodeSelector`` once the leader is bound; tasplan gives the terms to every pod of the unit,
which places the followers in the same domain (affinity to their own unit) and keeps the
same domains free of other units (anti-affinity, checked both ways), without a bound
leader to read the domain from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


def with_exclusive_affinity(template: Mapping[str, Any], key: str, value: str,
                            topology_key: str, anti_extra: Sequence[Mapping[str, Any]] = (),
                            all_namespaces: bool = False) -> dict[str, Any]:
    """A copy of ``template`` with the affinity term (``key In [value]``) and the
    anti-affinity term (``key Exists``, ``key NotIn [value]`` and ``anti_extra``) appended
    over ``topology_key``; ``all_namespaces`` adds the empty namespaceSelector JobSet sets.
    A malformed template is returned as it is: decoding it reports the field."""
    spec = template.get("spec") or {}
    affinity = spec.get("affinity") or {} if isinstance(spec, dict) else None
    if not isinstance(affinity, dict) or any(
            not isinstance(affinity.get(k) or {}, dict)
            or not isinstance((affinity.get(k) or {}).get(_REQUIRED) or [], list)
            for k in ("podAffinity", "podAntiAffinity")):
        return dict(template)
    spec, affinity = dict(spec), dict(affinity)

    def term(expressions: list[dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {"labelSelector": {"matchExpressions": expressions},
                               "topologyKey": topology_key}
        if all_namespaces:
            out["namespaceSelector"] = {}
        return out

    for kind, new in (
            ("podAffinity", term([{"key": key, "operator": "In", "values": [value]}])),
            ("podAntiAffinity", term([{"key": key, "operator": "Exists"},
                                      {"key": key, "operator": "NotIn", "values": [value]},
                                      *anti_extra]))):
        section = dict(affinity.get(kind) or {})
        section[_REQUIRED] = [*(section.get(_REQUIRED) or []), new]
        affinity[kind] = section
    spec["affinity"] = affinity
    return {**template, "spec": spec}
