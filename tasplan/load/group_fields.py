"""Fields PodGroups, Workload templates, Jobs and CompositePodGroups share: the scheduling
policy union, the topology constraint, priority and preemption policy, the disruption mode.
One decoder each, so a composite is checked by the same rules (int32 priority, the same
enums) as a PodGroup."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tasplan.load.fields import ObjectFields
from tasplan.model.group import Policy
from tasplan.model.selectors import valid_label_key


def policy_of(f: ObjectFields, raw: object, path: str, count: str = "minCount"
              ) -> tuple[Policy | None, int | None]:
    """Exactly one of ``basic: {}`` / ``gang: {minCount}`` (a union upstream); ``count``:
    the gang's count field (``minGroupCount`` for a CompositePodGroup)."""
    if raw is None:
        return None, None
    raw = f.mapping(raw, path)
    chosen = [k for k in ("basic", "gang") if raw.get(k) is not None]
    if len(chosen) != 1:
        raise f.error(path, "expected exactly one of basic or gang")
    if chosen[0] == "basic":
        return Policy.BASIC, 1
    gang = f.mapping(raw["gang"], f"{path}.gang")
    if gang.get(count) is None:
        return Policy.GANG, None  # only Jobs may omit minCount (defaults to parallelism)
    return Policy.GANG, f.int32(gang[count], f"{path}.gang.{count}", minimum=1)


def topology_key_of(f: ObjectFields, raw: object, path: str) -> str | None:
    constraints = f.mapping(raw, path)
    topology = f.sequence(constraints.get("topology"), f"{path}.topology")
    if not topology:
        return None
    if len(topology) > 1:
        raise f.error(f"{path}.topology", f"expected at most 1 item, got {len(topology)}")
    item = f.mapping(topology[0], f"{path}.topology[0]")
    key = f.string(item.get("key"), f"{path}.topology[0].key", required=True)
    if not valid_label_key(key):  # the API server validates it as a qualified name
        raise f.expected(f"{path}.topology[0].key", "a label key (a qualified name such as "
                         "topology.kubernetes.io/zone)", key)
    return key


def priority_fields(f: ObjectFields, raw: Mapping[str, Any], path: str
                    ) -> tuple[int | None, str, str | None]:
    """(``priority``, ``priorityClassName``, ``preemptionPolicy``) of a group's spec."""
    priority = raw.get("priority")
    if priority is not None:
        priority = f.int32(priority, f"{path}.priority")
    pcn = f.string(raw.get("priorityClassName"), f"{path}.priorityClassName")
    preemption = f.string(raw.get("preemptionPolicy"), f"{path}.preemptionPolicy") or None
    if preemption not in (None, "Never", "PreemptLowerPriority"):
        raise f.expected(f"{path}.preemptionPolicy", "Never or PreemptLowerPriority",
                         preemption)
    return priority, pcn, preemption


def disruption_mode_of(f: ObjectFields, raw: object, path: str) -> bool | None:
    """True for "evict the whole group" (v1alpha2 ``PodGroup``, later ``all: {}``), False
    for pod by pod (``Pod`` / ``single: {}``), None when not given."""
    if raw is None:
        return None
    if isinstance(raw, str):
        if raw not in ("Pod", "PodGroup"):
            raise f.expected(path, "Pod or PodGroup", raw)
        return raw == "PodGroup"
    raw = f.mapping(raw, path)
    chosen = [k for k in ("single", "all") if raw.get(k) is not None]
    if len(chosen) != 1:
        raise f.error(path, "expected exactly one of single or all")
    return chosen[0] == "all"
