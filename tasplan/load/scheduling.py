"""scheduling.k8s.io Workload and PodGroup, every served version, -> group definitions.

v1alpha1 (v1.35): Workload ``spec.podGroups[] {name, policy}``; pods point at it with
``spec.workloadRef``. v1alpha2 (v1.36), v1alpha3 and v1beta1 (v1.37): Workload
``spec.podGroupTemplates[]`` plus standalone PodGroups (``podGroupTemplateRef.workload`` in
v1alpha2, ``workloadRef`` later); pods point at a PodGroup with ``spec.schedulingGroup``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tasplan.load.composite import parent_name
from tasplan.load.composite_templates import decode_template_tree
from tasplan.load.dra_references import claim_statuses, pod_claims
from tasplan.load.fields import ObjectFields
from tasplan.load.group_fields import (
    disruption_mode_of,
    policy_of,
    priority_fields,
    topology_key_of,
)
from tasplan.model.composite import API_VERSIONS as COMPOSITE_VERSIONS
from tasplan.model.dra_inputs import PodClaim
from tasplan.model.group import Policy
from tasplan.model.source import Source

GROUP = "scheduling.k8s.io"
LEGACY = f"{GROUP}/v1alpha1"
TEMPLATED = (f"{GROUP}/v1alpha2", f"{GROUP}/v1alpha3", f"{GROUP}/v1beta1")
MAX_TEMPLATES = 8


@dataclass(frozen=True, slots=True)
class GroupSpec:
    """Policy, constraint and priority of a group or template; None = not given here."""

    policy: Policy | None
    min_count: int | None
    topology_key: str | None
    priority: int | None = None
    priority_class_name: str = ""
    claims: tuple[PodClaim, ...] = ()  # resourceClaims shared by the group (KEP-5729)
    preemption_policy: str | None = None
    disrupt_all: bool | None = None  # spec.disruptionMode: None = not given


@dataclass(frozen=True, slots=True)
class WorkloadDef:
    namespace: str
    name: str
    api_version: str
    # podGroups (v1alpha1) or podGroupTemplates, including those nested in
    # compositePodGroupTemplates
    groups: Mapping[str, GroupSpec]
    source: Source
    # compositePodGroupTemplates (v1alpha3+): template name -> spec, and each nested
    # template's parent template name.
    composites: Mapping[str, Any] = field(default_factory=dict)
    template_parent: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PodGroupDef:
    namespace: str
    name: str
    api_version: str
    spec: GroupSpec
    workload: str | None  # referenced Workload name
    template: str | None
    source: Source
    scheduled_condition: bool | None = None
    parent: str | None = None  # spec.parentCompositePodGroupName
    claim_statuses: tuple[tuple[str, str], ...] = ()


def _meta(f: ObjectFields, obj: Mapping[str, Any]) -> tuple[str, str]:
    meta = f.mapping(obj.get("metadata"), "metadata")
    name = f.string(meta.get("name"), "metadata.name", required=True)
    return f.string(meta.get("namespace"), "metadata.namespace") or "default", name


def _spec(f: ObjectFields, raw: Mapping[str, Any], path: str, policy_field: str) -> GroupSpec:
    policy, min_count = policy_of(f, raw.get(policy_field), f"{path}.{policy_field}")
    if policy == Policy.GANG and min_count is None:
        raise f.error(f"{path}.{policy_field}.gang.minCount", "required field is missing")
    key = topology_key_of(f, raw.get("schedulingConstraints"), f"{path}.schedulingConstraints")
    priority, pcn, policy_name = priority_fields(f, raw, path)
    claims = pod_claims(f, raw.get("resourceClaims"), f"{path}.resourceClaims")
    return GroupSpec(policy, min_count, key, priority, pcn, claims, policy_name,
                     disruption_mode_of(f, raw.get("disruptionMode"), f"{path}.disruptionMode"))


def decode_workload(source: Source, obj: Mapping[str, Any]) -> WorkloadDef:
    f = ObjectFields(source, obj)
    namespace, name = _meta(f, obj)
    spec = f.mapping(obj.get("spec"), "spec")
    version = obj["apiVersion"]
    legacy = version == LEGACY
    field = "spec.podGroups" if legacy else "spec.podGroupTemplates"
    items = f.sequence(spec.get(field.split(".")[1]), field)
    composite_items = None if legacy else spec.get("compositePodGroupTemplates")
    if composite_items is not None and version not in COMPOSITE_VERSIONS:
        raise f.error("spec.compositePodGroupTemplates", f"not served in {version} (served "
                      f"from {', '.join(COMPOSITE_VERSIONS)})")
    if items and composite_items:
        raise f.error("spec", "expected exactly one of podGroupTemplates or "
                      "compositePodGroupTemplates, got both")
    if not items and not composite_items:
        raise f.error(field, "required field is missing")
    if len(items) > MAX_TEMPLATES:
        raise f.error(field, f"expected at most {MAX_TEMPLATES} items, got {len(items)}")
    groups: dict[str, GroupSpec] = {}
    for i, raw in enumerate(items):
        path = f"{field}[{i}]"
        raw = f.mapping(raw, path)
        gname = f.string(raw.get("name"), f"{path}.name", required=True)
        if gname in groups:
            raise f.error(f"{path}.name", f"duplicate name {gname!r}")
        if legacy:
            policy, min_count = policy_of(f, raw.get("policy"), f"{path}.policy")
            if policy is None:
                raise f.error(f"{path}.policy", "required field is missing")
            if min_count is None:
                raise f.error(f"{path}.policy.gang.minCount", "required field is missing")
            groups[gname] = GroupSpec(policy, min_count, None)
        else:
            groups[gname] = _spec(f, raw, path, "schedulingPolicy")
    if composite_items:
        tree = decode_template_tree(
            f, composite_items, "spec.compositePodGroupTemplates",
            lambda f, raw, path: _spec(f, raw, path, "schedulingPolicy"))
        return WorkloadDef(namespace, name, version, tree.leaves, source, tree.composites,
                           tree.parent)
    return WorkloadDef(namespace, name, version, groups, source)


def decode_pod_group(source: Source, obj: Mapping[str, Any]) -> PodGroupDef:
    f = ObjectFields(source, obj)
    namespace, name = _meta(f, obj)
    spec = f.mapping(obj.get("spec"), "spec")
    version = obj["apiVersion"]
    workload = template = None
    if version == f"{GROUP}/v1alpha2":
        ref = f.mapping(spec.get("podGroupTemplateRef"), "spec.podGroupTemplateRef")
        wl = f.mapping(ref.get("workload"), "spec.podGroupTemplateRef.workload")
        if wl:
            workload = f.string(wl.get("workloadName"),
                                "spec.podGroupTemplateRef.workload.workloadName", required=True)
            template = f.string(wl.get("podGroupTemplateName"),
                                "spec.podGroupTemplateRef.workload.podGroupTemplateName",
                                required=True)
    else:
        ref = f.mapping(spec.get("workloadRef"), "spec.workloadRef")
        if ref:
            workload = f.string(ref.get("workloadName"), "spec.workloadRef.workloadName",
                                required=True)
            template = f.string(ref.get("templateName"), "spec.workloadRef.templateName",
                                required=True)
    group_spec = _spec(f, spec, "spec", "schedulingPolicy")
    if group_spec.policy is None and workload is None:
        raise f.error("spec.schedulingPolicy", "required field is missing")
    parent = None
    if version in COMPOSITE_VERSIONS:
        parent = parent_name(f, spec)
        if parent is not None and workload is None:
            raise f.error("spec.workloadRef", "required when spec.parentCompositePodGroupName "
                          "is set (only root PodGroups may be standalone)")
    status = f.mapping(obj.get("status"), "status")
    return PodGroupDef(namespace, name, version, group_spec, workload, template, source,
                       scheduled_condition(f, status),
                       parent=parent,
                       claim_statuses=claim_statuses(f, status.get("resourceClaimStatuses"),
                                                     "status.resourceClaimStatuses"))


SCHEDULED_CONDITIONS = ("PodGroupScheduled", "PodGroupInitiallyScheduled")


def scheduled_condition(f: ObjectFields, raw: object) -> bool | None:
    """The group's scheduled condition from ``status.conditions``: False if either
    ``PodGroupScheduled`` or ``PodGroupInitiallyScheduled`` is False, True if one is True,
    None if neither is present (``status`` is written by the scheduler, not the user)."""
    status = f.mapping(raw, "status")
    seen: bool | None = None
    for i, cond in enumerate(f.sequence(status.get("conditions"), "status.conditions")):
        cond = f.mapping(cond, f"status.conditions[{i}]")
        if cond.get("type") not in SCHEDULED_CONDITIONS:
            continue
        value = f.string(cond.get("status"), f"status.conditions[{i}].status")
        if value == "False":
            return False
        if value == "True":
            seen = True
    return seen
