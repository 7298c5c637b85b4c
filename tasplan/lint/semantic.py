"""Semantic rules over the manifests alone: references between objects, gang sizes, and
the consistency the pod-group cycle demands of a group's pods.

Runs on every object that has a schema, also on those with schema violations (so that a
PodGroup with a bad field still resolves the references to it): every field is read
defensively, through ``_get`` / ``_text`` / ``_items``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tasplan.lint.fields import get as _get
from tasplan.lint.fields import items as _items
from tasplan.lint.fields import text as _text
from tasplan.lint.reader import Manifest
from tasplan.lint.report import Path, Violation
from tasplan.lint.schema import SCHEMA_GROUP
from tasplan.model.pod import DEFAULT_SCHEDULER

LEGACY = f"{SCHEMA_GROUP}/v1alpha1"
Found = tuple[Manifest, Violation]


def _where(m: Manifest) -> str:
    line, _ = m.locate(("metadata", "name"))
    return f"{m.file.label}:{line}" if line else m.file.label


@dataclass
class _Group:
    """A pod group the manifests define: a PodGroup, or one (podGroup, replicaKey) of a
    v1alpha1 Workload."""

    label: str
    owner: Manifest
    policy: Any  # the schedulingPolicy / policy mapping
    policy_path: Path
    priority_class: str = ""
    pods: list[Manifest] = field(default_factory=list)


class _Index:
    def __init__(self, manifests: Iterable[Manifest], namespace: str) -> None:
        self.namespace = namespace
        self.pod_groups: dict[tuple[str, str], Manifest] = {}
        self.workloads: dict[tuple[str, str], Manifest] = {}
        self.pods: list[Manifest] = []
        self.jobs: list[Manifest] = []
        self.all: list[Manifest] = list(manifests)
        for m in self.all:
            key = (self.ns(m), m.name)
            if m.kind == "PodGroup":
                self.pod_groups.setdefault(key, m)
            elif m.kind == "Workload":
                self.workloads.setdefault(key, m)
            elif m.kind == "Pod":
                self.pods.append(m)
            elif m.kind == "Job":
                self.jobs.append(m)

    def ns(self, m: Manifest) -> str:
        return m.namespace or self.namespace


def check(manifests: Iterable[Manifest], namespace: str = "default") -> list[Found]:
    """Every semantic violation; ``namespace`` stands in for a missing metadata.namespace
    (what ``kubectl apply -n`` would set)."""
    index = _Index(manifests, namespace)
    out: list[Found] = []
    out.extend(_duplicates(index))
    groups: dict[tuple, _Group] = {}
    for (ns, name), m in index.pod_groups.items():
        groups[("PodGroup", ns, name)] = _Group(
            f"PodGroup {ns}/{name}", m, _get(m.obj, "spec", "schedulingPolicy"),
            ("spec", "schedulingPolicy"), _text(m.obj, "spec", "priorityClassName"))
        out.extend(_template_reference(index, m))
    for pod in index.pods:
        out.extend(_pod_reference(index, pod, groups))
    for group in groups.values():
        out.extend(_gang_size(group))
        out.extend(_consistency(group))
    for m in index.all:
        if m.kind == "Workload" and m.api_version == LEGACY:
            out.extend(_legacy_topology(m))
    for job in index.jobs:
        out.extend(_job_gang(job))
    for m in index.all:
        if m.kind == "WhatIf" and m.api_version == "tasplan/v1":
            out.extend(_what_if(m))
    from tasplan.lint.composite import check as composite_check  # it reads with our helpers

    out.extend(composite_check(index.all, namespace))
    return out


def _what_if(m: Manifest) -> Iterator[Found]:
    """Targets must read as the flags read them; the cluster is not needed for that."""
    from tasplan.lint.whatif_file import check_target

    for i, edit in _items(m.obj, "edits"):
        op, target = edit.get("op"), edit.get("target")
        if isinstance(op, str) and isinstance(target, str) and target:
            problem = check_target(op, target)
            if problem:
                yield m, Violation("TP210", ("edits", i, "target"), problem)


def _duplicates(index: _Index) -> Iterator[Found]:
    first: dict[tuple, Manifest] = {}
    for m in index.all:
        if not m.name:
            continue
        key = (m.api_version.rpartition("/")[0], m.kind, m.namespace or index.namespace,
               m.name)
        if key in first:
            yield m, Violation("TP209", ("metadata", "name"), f"{m.kind} {key[2]}/{m.name} is "
                               f"also defined at {_where(first[key])}")
        else:
            first[key] = m
        if m.kind in _CLAIM_KINDS:
            if m.kind == "Workload":
                yield from _duplicate_templates(m)
            for path in _claim_lists(m):
                yield from _duplicate_names(m, path, "resource claim")


def _duplicate_templates(m: Manifest) -> Iterator[Found]:
    """Template names are unique across a Workload's whole template tree."""
    seen: dict[str, Path] = {}
    for path, name, _ in _template_names(m):
        if name in seen:
            yield m, Violation("TP209", (*path, "name"), f"template name {name!r} is used "
                               "more than once in this Workload")
        else:
            seen[name] = path


def _template_names(m: Manifest) -> Iterator[tuple[Path, str, bool]]:
    """(path, name, is_composite) of every template in the Workload's template tree."""
    lists = ["podGroups"] if m.api_version == LEGACY else ["podGroupTemplates",
                                                           "compositePodGroupTemplates"]
    stack: list[Path] = [("spec", key) for key in lists]
    while stack:
        path = stack.pop(0)
        composite = path[-1] == "compositePodGroupTemplates"
        for i, item in _items(m.obj, *path):
            if isinstance(item.get("name"), str):
                yield (*path, i), item["name"], composite
            for key in ("podGroupTemplates", "compositePodGroupTemplates"):
                if composite and item.get(key):
                    stack.append((*path, i, key))


_CLAIM_KINDS = frozenset({"PodGroup", "Workload", "Job"})  # what _claim_lists reads


def _claim_lists(m: Manifest) -> Iterator[Path]:
    if m.kind == "PodGroup":
        yield ("spec", "resourceClaims")
    elif m.kind == "Workload":
        for i, _ in _items(m.obj, "spec", "podGroupTemplates"):
            yield ("spec", "podGroupTemplates", i, "resourceClaims")
    elif m.kind == "Job":
        yield ("spec", "scheduling", "resourceClaims")


def _duplicate_names(m: Manifest, path: Path, what: str) -> Iterator[Found]:
    seen: set[str] = set()
    for i, item in _items(m.obj, *path):
        name = item.get("name")
        if isinstance(name, str) and name in seen:
            yield m, Violation("TP209", (*path, i, "name"),
                               f"{what} name {name!r} is used more than once")
        seen.add(name)


def _resolve(index: _Index, table: dict, kind: str, holder: Manifest, name: str,
             path: Path) -> tuple[Manifest | None, list[Found]]:
    """The object ``name`` refers to in the holder's namespace, or the violation saying
    why there is none (missing, or only in another namespace)."""
    ns = index.ns(holder)
    target = table.get((ns, name))
    if target is not None:
        return target, []
    elsewhere = sorted(other for other, n in table if n == name and other != ns)
    if elsewhere:
        return None, [(holder, Violation("TP203", path, (
            f"{kind} {name!r} is in namespace {', '.join(elsewhere)}, not {ns!r}: references "
            "are namespace-local")))]
    if kind == "Workload" and holder.kind == "PodGroup":
        # kube-scheduler schedules a PodGroup from its own spec: upstream's topology-aware
        # scheduling integration tests create PodGroups whose Workload never exists.
        why = ("the PodGroup is still scheduled from its own spec (kube-scheduler does not "
               "read the Workload); only the controller that created the PodGroup uses it")
    else:
        why = ("the pods stay pending until it exists (GangScheduling's PreEnqueue waits for "
               "the group)")
    return None, [(holder, Violation("TP201", path, (
        f"{kind} {ns}/{name} is not in the inputs: {why}")))]


def _template_reference(index: _Index, pg: Manifest) -> list[Found]:
    if pg.api_version.endswith("/v1alpha2"):
        base, template_field = ("spec", "podGroupTemplateRef", "workload"), "podGroupTemplateName"
    else:
        base, template_field = ("spec", "workloadRef"), "templateName"
    name, template = _text(pg.obj, *base, "workloadName"), _text(pg.obj, *base, template_field)
    if not name or not template:
        return []
    workload, found = _resolve(index, index.workloads, "Workload", pg, name,
                               (*base, "workloadName"))
    if workload is None:
        return found
    names = {name for _, name, composite in _template_names(workload) if not composite}
    if template not in names:
        return [(pg, Violation("TP202", (*base, template_field), (
            f"Workload {index.ns(workload)}/{workload.name} has no pod group template "
            f"{template!r} (it has {', '.join(sorted(names)) or 'none'})")))]
    return []


def _pod_reference(index: _Index, pod: Manifest, groups: dict[tuple, _Group]) -> list[Found]:
    spec = pod.obj.get("spec")
    if not isinstance(spec, dict) or ("schedulingGroup" not in spec
                                      and "workloadRef" not in spec):
        return []  # most pods: no reference to read
    ns = index.ns(pod)
    name = _text(pod.obj, "spec", "schedulingGroup", "podGroupName")
    if name:
        target, found = _resolve(index, index.pod_groups, "PodGroup", pod, name,
                                 ("spec", "schedulingGroup", "podGroupName"))
        if target is not None:
            groups[("PodGroup", ns, name)].pods.append(pod)
        return found
    name = _text(pod.obj, "spec", "workloadRef", "name")
    pod_group = _text(pod.obj, "spec", "workloadRef", "podGroup")
    if not name or not pod_group:
        return []
    workload, found = _resolve(index, index.workloads, "Workload", pod, name,
                               ("spec", "workloadRef", "name"))
    if workload is None or workload.api_version != LEGACY:
        return found
    for i, item in _items(workload.obj, "spec", "podGroups"):
        if item.get("name") == pod_group:
            replica = _text(pod.obj, "spec", "workloadRef", "podGroupReplicaKey")
            key = ("Workload", ns, workload.name, pod_group, replica)
            if key not in groups:
                label = f"Workload {ns}/{workload.name} pod group {pod_group!r}" + (
                    f" replica {replica!r}" if replica else "")
                groups[key] = _Group(label, workload, item.get("policy"),
                                     ("spec", "podGroups", i, "policy"))
            groups[key].pods.append(pod)
            return []
    names = [str(p.get("name")) for _, p in _items(workload.obj, "spec", "podGroups")]
    return [(pod, Violation("TP202", ("spec", "workloadRef", "podGroup"), (
        f"Workload {ns}/{workload.name} has no podGroup {pod_group!r} "
        f"(it has {', '.join(sorted(names))})")))]


def _gang_size(group: _Group) -> list[Found]:
    min_count = _get(group.policy, "gang", "minCount")
    pods = len(group.pods)
    if not isinstance(min_count, int) or not pods or pods >= min_count:
        return []
    return [(group.owner, Violation("TP204", (*group.policy_path, "gang", "minCount"), (
        f"gang minCount is {min_count} but only {pods} pod(s) in the inputs join "
        f"{group.label}; GangScheduling holds them until {min_count} exist")))]


def _consistency(group: _Group) -> list[Found]:
    """One schedulerName and one priority class per group (upstream validatePodGroup)."""
    out: list[Found] = []
    if not group.pods:
        return out
    checks = (
        ("TP205", "schedulerName", DEFAULT_SCHEDULER, "", "the pod-group cycle rejects the "
         "group"),
        ("TP206", "priorityClassName", "", group.priority_class,
         "the pod-group cycle requires one priority"),
    )
    for rule_id, name, default, expected, why in checks:
        first = group.pods[0]
        reference = expected or _text(first.obj, "spec", name) or default
        whose = f"{group.label}'s" if expected else f"pod {first.name}'s"
        for pod in group.pods:
            value = _text(pod.obj, "spec", name) or default
            if value != reference:
                out.append((pod, Violation(rule_id, ("spec", name), (
                    f"{name} {value!r} differs from {whose} {reference!r} in "
                    f"{group.label}; {why}"))))
    return out


def _legacy_topology(m: Manifest) -> Iterator[Found]:
    for i, item in _items(m.obj, "spec", "podGroups"):
        if "schedulingConstraints" in item:
            yield m, Violation("TP207", ("spec", "podGroups", i, "schedulingConstraints"), (
                f"{LEGACY} (Kubernetes v1.35) has no topology constraints; they exist from "
                f"{SCHEMA_GROUP}/v1alpha2 (podGroupTemplates[].schedulingConstraints)"),
                key=True)


def _job_gang(job: Manifest) -> list[Found]:
    min_count = _get(job.obj, "spec", "scheduling", "schedulingPolicy", "gang", "minCount")
    parallelism = _get(job.obj, "spec", "parallelism")
    parallelism = 1 if parallelism is None else parallelism
    completions = _get(job.obj, "spec", "completions")
    if not all(isinstance(v, int | None) for v in (min_count, parallelism, completions)):
        return []
    if min_count is None:
        return []  # omitted: defaults to parallelism
    running = parallelism if completions is None else min(parallelism, completions)
    if min_count <= running:
        return []
    why = f"parallelism {parallelism}" + ("" if completions is None
                                          else f", completions {completions}")
    return [(job, Violation("TP208", ("spec", "scheduling", "schedulingPolicy", "gang",
                                      "minCount"), (
        f"gang minCount {min_count} exceeds the {running} pod(s) the Job runs at once "
        f"({why}); the gang can never be complete")))]
