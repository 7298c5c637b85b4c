"""A Workload's ``compositePodGroupTemplates`` (v1alpha3, v1beta1): a tree of templates whose
leaves are PodGroupTemplates. Checked as the API server checks a Workload: at most 8 entries
per list, at most 4 levels, template names unique across the whole tree, every composite
template with at least one child."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tasplan.load.fields import ObjectFields
from tasplan.load.group_fields import (
    disruption_mode_of,
    policy_of,
    priority_fields,
    topology_key_of,
)
from tasplan.model.composite import MAX_TREE_DEPTH
from tasplan.model.group import Policy

MAX_TEMPLATES = 8


@dataclass(frozen=True, slots=True)
class CompositeSpec:
    """Policy, constraint and priority of a CompositePodGroup or its template; None = not
    given here."""

    policy: Policy | None
    min_group_count: int | None
    topology_key: str | None
    priority: int | None = None
    priority_class_name: str = ""
    # spec.disruptionMode: True for all (the whole subtree is one preemption victim)
    disrupt_all: bool | None = None
    # spec.preemptionPolicy (Never | PreemptLowerPriority): a root's decides for its tree
    # with the PodGroupPreemptionPolicy gate
    preemption_policy: str | None = None


@dataclass(frozen=True, slots=True)
class TemplateTree:
    """``composites``: composite template name -> spec; ``leaves``: PodGroupTemplate name ->
    the parser's spec; ``parent``: template name -> its composite template's name."""

    composites: Mapping[str, CompositeSpec]
    leaves: Mapping[str, Any]
    parent: Mapping[str, str]


def composite_policy(f: ObjectFields, raw: object, path: str) -> tuple[Policy | None, int | None]:
    """Exactly one of ``basic: {}`` / ``gang: {minGroupCount}`` (required)."""
    policy, count = policy_of(f, raw, path, "minGroupCount")
    if policy == Policy.GANG and count is None:
        raise f.error(f"{path}.gang.minGroupCount", "required field is missing")
    return policy, count


def composite_spec(f: ObjectFields, raw: Mapping[str, Any], path: str) -> CompositeSpec:
    policy, count = composite_policy(f, raw.get("schedulingPolicy"), f"{path}.schedulingPolicy")
    key = topology_key_of(f, raw.get("schedulingConstraints"), f"{path}.schedulingConstraints")
    priority, pcn, preemption = priority_fields(f, raw, path)
    return CompositeSpec(policy, count, key, priority, pcn, disruption_mode_of(
        f, raw.get("disruptionMode"), f"{path}.disruptionMode"), preemption)


def decode_template_tree(f: ObjectFields, items: object, path: str,
                         leaf_spec: Callable[[ObjectFields, Mapping[str, Any], str], Any]
                         ) -> TemplateTree:
    """``leaf_spec`` decodes one PodGroupTemplate (the loader's own parser)."""
    composites: dict[str, CompositeSpec] = {}
    leaves: dict[str, Any] = {}
    parent: dict[str, str] = {}
    where: dict[str, str] = {}

    def name_of(raw: Mapping[str, Any], at: str) -> str:
        name = f.string(raw.get("name"), f"{at}.name", required=True)
        if name in where:
            raise f.error(f"{at}.name", f"duplicate template name {name!r} (also at "
                          f"{where[name]}); names must be unique in the whole template tree")
        where[name] = at
        return name

    def bounded(raw: object, at: str) -> list:
        seq = f.sequence(raw, at)
        if len(seq) > MAX_TEMPLATES:
            raise f.error(at, f"expected at most {MAX_TEMPLATES} items, got {len(seq)}")
        return seq

    # Explicit stack (name, raw list, path, level): depth is bounded by MAX_TREE_DEPTH.
    stack: list[tuple[str | None, object, str, int]] = [(None, items, path, 1)]
    while stack:
        owner, raw_list, at, level = stack.pop()
        for i, raw in enumerate(bounded(raw_list, at)):
            here = f"{at}[{i}]"
            raw = f.mapping(raw, here)
            name = name_of(raw, here)
            if owner is not None:
                parent[name] = owner
            if level >= MAX_TREE_DEPTH:
                raise f.error(here, f"the template tree is deeper than {MAX_TREE_DEPTH} "
                              "levels (a composite template here would need children at "
                              f"level {level + 1})")
            spec = composite_spec(f, raw, here)
            if spec.policy is None:
                raise f.error(f"{here}.schedulingPolicy", "required field is missing")
            composites[name] = spec
            pgs = raw.get("podGroupTemplates")
            cpgs = raw.get("compositePodGroupTemplates")
            if not pgs and not cpgs:
                raise f.error(here, "expected at least one of podGroupTemplates or "
                              "compositePodGroupTemplates")
            for j, leaf in enumerate(bounded(pgs, f"{here}.podGroupTemplates")):
                leaf_at = f"{here}.podGroupTemplates[{j}]"
                leaf = f.mapping(leaf, leaf_at)
                leaf_name = name_of(leaf, leaf_at)
                leaves[leaf_name] = leaf_spec(f, leaf, leaf_at)
                parent[leaf_name] = name
            if cpgs:
                stack.append((name, cpgs, f"{here}.compositePodGroupTemplates", level + 1))
    return TemplateTree(composites, leaves, parent)
