"""Decode KAI's Topology and PodGroup as strictly as its API server and webhooks do.

Schema rules come from the CRDs (``deployments/kai-scheduler/crds/``), the rest from the
validating webhooks: ``pkg/apis/scheduling/v2alpha2/podgroup_webhook.go``
(``validatePodGroupSpec``) and ``pkg/admission/webhook/topologyhooks/topology_validator.go``
(``validateAliases``), at d5bc503a. Webhook rules come back as ``Problem``s, so a PodGroup
already in a cluster dump is still read (the loader warns) while lint and workload inputs
report them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tasplan.load.fields import ObjectFields
from tasplan.model.kai import (
    POD_GROUP_API,
    Constraint,
    KaiPodGroup,
    KaiTopology,
    Problem,
    SubGroup,
    TopologyLevel,
)
from tasplan.model.source import Source

MAX_LEVELS = 16
MAX_LABEL = 316
_LABEL = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                    r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$")
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
PREEMPTIBILITY = ("preemptible", "non-preemptible")
HOSTNAME = "kubernetes.io/hostname"


def _meta(f: ObjectFields, obj: Mapping[str, Any], *, namespaced: bool) -> tuple[str, str]:
    meta = f.mapping(obj.get("metadata"), "metadata")
    name = f.string(meta.get("name"), "metadata.name", required=True)
    if not namespaced:
        return "", name
    return f.string(meta.get("namespace"), "metadata.namespace") or "default", name


def _label(f: ObjectFields, value: object, field: str, *, required: bool) -> str:
    text = f.string(value, field, required=required)
    if not text:
        return ""
    if len(text) > MAX_LABEL:
        raise f.error(field, f"expected at most {MAX_LABEL} characters, got {len(text)}")
    if not _LABEL.match(text):
        raise f.error(field, "expected a label key (an optional DNS subdomain prefix and '/', "
                      "then alphanumerics, '-', '_' or '.')")
    return text


def decode_topology(source: Source, obj: Mapping[str, Any]) -> tuple[KaiTopology, list[Problem]]:
    """A Topology and the alias rules its webhook checks."""
    f = ObjectFields(source, obj)
    _, name = _meta(f, obj, namespaced=False)
    spec = f.mapping(obj.get("spec"), "spec")
    raw_levels = f.sequence(spec.get("levels"), "spec.levels")
    if not raw_levels:
        raise f.error("spec.levels", "required field is missing (at least 1 level)")
    if len(raw_levels) > MAX_LEVELS:
        raise f.error("spec.levels", f"expected at most {MAX_LEVELS} items, got "
                      f"{len(raw_levels)}")
    levels: list[TopologyLevel] = []
    for i, raw in enumerate(raw_levels):
        path = f"spec.levels[{i}]"
        raw = f.mapping(raw, path)
        label = _label(f, raw.get("nodeLabel"), f"{path}.nodeLabel", required=True)
        alias = _label(f, raw.get("alias"), f"{path}.alias", required=False)
        if any(level.node_label == label for level in levels):
            raise f.error(f"{path}.nodeLabel", "nodeLabel must be unique")
        levels.append(TopologyLevel(label, alias))
    if any(level.node_label == HOSTNAME for level in levels[:-1]):
        raise f.error("spec.levels", "the kubernetes.io/hostname label can only be used at the "
                      "lowest level of topology")
    problems = []
    aliases = [level.alias for level in levels if level.alias]
    duplicated = sorted({a for a in aliases if aliases.count(a) > 1})
    colliding = sorted({a for a in aliases if a in {lv.node_label for lv in levels}})
    if duplicated:
        problems.append(Problem("spec.levels", "invalid topology aliases: aliases must be "
                                f"unique within the topology; duplicated: {_go_list(duplicated)}"))
    if colliding:
        problems.append(Problem("spec.levels", "invalid topology aliases: an alias must not "
                                f"equal a nodeLabel; conflicting: {_go_list(colliding)}"))
    return KaiTopology(name, tuple(levels), source), problems


def _go_list(items: list[str]) -> str:
    return "[" + " ".join(items) + "]"


def _constraint(f: ObjectFields, raw: object, path: str) -> Constraint:
    raw = f.mapping(raw, path)
    return Constraint(
        topology=f.string(raw.get("topology"), f"{path}.topology"),
        required=f.string(raw.get("requiredTopologyLevel"), f"{path}.requiredTopologyLevel"),
        preferred=f.string(raw.get("preferredTopologyLevel"), f"{path}.preferredTopologyLevel"),
    )


def _count(f: ObjectFields, raw: Mapping[str, Any], key: str, path: str) -> int | None:
    value = raw.get(key)
    return None if value is None else f.int32(value, f"{path}.{key}", minimum=0)


def _dns_label(f: ObjectFields, value: object, field: str, *, required: bool) -> str:
    text = f.string(value, field, required=required)
    if text and not _DNS_LABEL.match(text):
        raise f.error(field, "expected a DNS label (lowercase alphanumerics and '-', starting "
                      "and ending with an alphanumeric)")
    return text


def decode_pod_group(source: Source, obj: Mapping[str, Any]
                     ) -> tuple[KaiPodGroup, list[Problem]]:
    """A ``scheduling.run.ai/v2alpha2`` PodGroup and what its webhook would say."""
    f = ObjectFields(source, obj)
    namespace, name = _meta(f, obj, namespaced=True)
    spec = f.mapping(obj.get("spec"), "spec")
    preemptibility = f.string(spec.get("preemptibility"), "spec.preemptibility")
    if preemptibility and preemptibility not in PREEMPTIBILITY:
        raise f.expected("spec.preemptibility", "one of " + ", ".join(PREEMPTIBILITY),
                         preemptibility)
    subgroups = []
    for i, raw in enumerate(f.sequence(spec.get("subGroups"), "spec.subGroups")):
        path = f"spec.subGroups[{i}]"
        raw = f.mapping(raw, path)
        constraint = raw.get("topologyConstraint")
        subgroups.append(SubGroup(
            name=_dns_label(f, raw.get("name"), f"{path}.name", required=True),
            min_member=_count(f, raw, "minMember", path),
            min_subgroup=_count(f, raw, "minSubGroup", path),
            parent=_dns_label(f, raw.get("parent"), f"{path}.parent", required=False) or None,
            constraint=None if constraint is None
            else _constraint(f, constraint, f"{path}.topologyConstraint"),
        ))
    group = KaiPodGroup(
        namespace=namespace, name=name,
        min_member=_count(f, spec, "minMember", "spec"),
        min_subgroup=_count(f, spec, "minSubGroup", "spec"),
        queue=f.string(spec.get("queue"), "spec.queue"),
        priority_class_name=f.string(spec.get("priorityClassName"), "spec.priorityClassName"),
        constraint=_constraint(f, spec.get("topologyConstraint"), "spec.topologyConstraint"),
        subgroups=tuple(subgroups), source=source, api_version=POD_GROUP_API,
        preemptibility=preemptibility,
    )
    return group, validate_pod_group(group)


def validate_pod_group(group: KaiPodGroup) -> list[Problem]:
    """Upstream ``validatePodGroupSpec`` on create: a structural error alone, else every
    min-field error (hard except ``minSubGroup`` above the child count, a warning)."""
    if group.min_member is not None and group.min_subgroup is not None:
        return [Problem("spec", "minMember and minSubGroup are mutually exclusive: set "
                        f"minMember ({group.min_member}) to schedule a fixed number of pods, or "
                        "set minSubGroup to require a minimum number of child SubGroups, but "
                        "not both")]
    by_name: dict[str, int] = {}
    for i, sg in enumerate(group.subgroups):
        if sg.name in by_name:
            return [Problem(f"spec.subGroups[{i}].name", f"duplicate subgroup name {sg.name}")]
        by_name[sg.name] = i
    for i, sg in enumerate(group.subgroups):
        if sg.parent is not None and sg.parent not in by_name:
            return [Problem(f"spec.subGroups[{i}].parent",
                            f"parent {sg.parent} of {sg.name} was not found")]
    children: dict[str, list[str]] = {}
    for sg in group.subgroups:
        if sg.parent is not None:
            children.setdefault(sg.parent, []).append(sg.name)
    if _has_cycle(group.subgroups):
        return [Problem("spec.subGroups", "cycle detected in subgroups")]
    problems = []
    for name in sorted(by_name):
        i = by_name[name]
        sg = group.subgroups[i]
        path = f"spec.subGroups[{i}]"
        if sg.min_member is not None and sg.min_subgroup is not None:
            return [Problem(path, f'subgroup "{name}": minMember and minSubGroup are '
                            "mutually exclusive")]
        kids = children.get(name, [])
        if not kids:
            if sg.min_subgroup is not None:
                problems.append(Problem(f"{path}.minSubGroup", f'subgroup "{name}": minSubGroup '
                                        "cannot be set on a leaf SubGroup (no child SubGroups)"))
            if sg.min_member is None:
                problems.append(Problem(f"{path}.minMember",
                                        f"subgroup {name}: minMember is required"))
        else:
            if sg.min_member is not None:
                problems.append(Problem(f"{path}.minMember", f'subgroup "{name}": minMember '
                                        "cannot be set on a mid-level SubGroup (has child "
                                        "SubGroups); use minSubGroup instead"))
            if sg.min_subgroup is not None and sg.min_subgroup > len(kids):
                problems.append(Problem(
                    f"{path}.minSubGroup", f'subgroup "{name}": minSubGroup ({sg.min_subgroup}) '
                    f"exceeds the number of direct child SubGroups ({len(kids)})", hard=False))
    if group.min_subgroup is not None:
        roots = sum(1 for sg in group.subgroups if sg.parent is None)
        if group.min_subgroup > roots:
            problems.append(Problem("spec.minSubGroup", f"minSubGroup ({group.min_subgroup}) "
                                    f"exceeds the number of direct child SubGroups ({roots})",
                                    hard=False))
    return problems


def _has_cycle(subgroups: tuple[SubGroup, ...]) -> bool:
    """A parent chain that returns to where it started (upstream ``detectCycle``); bounded
    by the number of subgroups."""
    parent = {sg.name: sg.parent for sg in subgroups}
    for sg in subgroups:
        seen = {sg.name}
        at = sg.parent
        while at is not None:
            if at in seen:
                return True
            seen.add(at)
            at = parent.get(at)
    return False
