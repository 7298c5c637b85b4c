"""CompositePodGroup objects (scheduling.k8s.io v1alpha3, v1beta1) -> model objects, with
fields a controller would copy from the Workload's CompositePodGroupTemplate filled in."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tasplan.load.composite_templates import CompositeSpec, composite_spec
from tasplan.load.fields import ObjectFields
from tasplan.model.composite import CompositePodGroup
from tasplan.model.source import Source


@dataclass(frozen=True, slots=True)
class CompositeDef:
    namespace: str
    name: str
    api_version: str
    spec: CompositeSpec
    parent: str | None
    workload: str
    template: str
    source: Source


def parent_name(f: ObjectFields, spec: Mapping[str, Any]) -> str | None:
    """``spec.parentCompositePodGroupName`` (a DNS subdomain), None when unset."""
    raw = spec.get("parentCompositePodGroupName")
    if raw is None:
        return None
    name = f.string(raw, "spec.parentCompositePodGroupName")
    if not name:
        raise f.error("spec.parentCompositePodGroupName", "must not be empty when set")
    return name


def decode_composite(source: Source, obj: Mapping[str, Any]) -> CompositeDef:
    f = ObjectFields(source, obj)
    meta = f.mapping(obj.get("metadata"), "metadata")
    name = f.string(meta.get("name"), "metadata.name", required=True)
    namespace = f.string(meta.get("namespace"), "metadata.namespace") or "default"
    spec = f.mapping(obj.get("spec"), "spec")
    ref = f.mapping(spec.get("workloadRef"), "spec.workloadRef")
    if not ref:
        # Unlike a PodGroup, a CompositePodGroup is never standalone.
        raise f.error("spec.workloadRef", "required field is missing (a CompositePodGroup "
                      "always refers to its Workload's CompositePodGroupTemplate)")
    workload = f.string(ref.get("workloadName"), "spec.workloadRef.workloadName", required=True)
    template = f.string(ref.get("templateName"), "spec.workloadRef.templateName", required=True)
    return CompositeDef(namespace, name, obj["apiVersion"],
                        composite_spec(f, spec, "spec"),
                        parent_name(f, spec), workload, template, source)


def resolve(d: CompositeDef, templates: Mapping[str, CompositeSpec] | None, priorities,
            order: int) -> CompositePodGroup:
    """The object's own fields win; missing ones come from its template (as the controller
    that created it copies them). ``priorities`` resolves a priorityClassName."""
    f = ObjectFields(d.source, {"kind": "CompositePodGroup",
                                "metadata": {"name": d.name, "namespace": d.namespace}})
    spec = d.spec
    template = (templates or {}).get(d.template)
    if template is not None:
        spec = CompositeSpec(
            spec.policy or template.policy,
            spec.min_group_count if spec.policy else template.min_group_count,
            spec.topology_key or template.topology_key,
            spec.priority if spec.priority is not None else template.priority,
            spec.priority_class_name or template.priority_class_name,
            spec.disrupt_all if spec.disrupt_all is not None else template.disrupt_all,
            spec.preemption_policy or template.preemption_policy)
    if spec.policy is None:
        raise f.error("spec.schedulingPolicy", "required field is missing, and the referenced "
                      f"Workload template {d.workload}/{d.template} is not in the inputs")
    priority = spec.priority
    if priority is None and spec.priority_class_name:
        priority = priorities.resolve(f, spec.priority_class_name, "spec.priorityClassName",
                                      "CompositePodGroup")
    parent = f"{d.namespace}/{d.parent}" if d.parent else None
    return CompositePodGroup(
        key=f"{d.namespace}/{d.name}", namespace=d.namespace, name=d.name, policy=spec.policy,
        min_group_count=spec.min_group_count or 1, topology_key=spec.topology_key,
        parent=parent, workload=d.workload, template=d.template, api_version=d.api_version,
        source=d.source, order=order, priority=priority,
        priority_class_name=spec.priority_class_name, disrupt_all=bool(spec.disrupt_all),
        preemption_policy=spec.preemption_policy)
