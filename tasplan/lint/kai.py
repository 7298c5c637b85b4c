"""Lint rules for KAI-Scheduler's objects and the annotations that ask for it.

Structure through the loader's own decoders (``tasplan.load.kai``: what ``check`` reads), the
PodGroup and Topology webhooks' rules (``podgroup_webhook.go``, ``topology_validator.go``),
and the constraints KAI's scheduler cannot honour: a level the Topology lacks, a preferred
level above the required one, a topology without levels (``calculateRelevantDomainLevels``
then fails and KAI never places the job), levels without a topology (ignored), a subgroup
required to stay in a level coarser than its parent's (its domain counts as empty: free
capacity is summed below the parent's domain only), and pods of a subgroup the PodGroup does
not define (never scheduled). KAI at d5bc503a.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from tasplan.errors import InputError
from tasplan.lint.reader import Manifest
from tasplan.lint.report import Violation
from tasplan.model.kai_inputs import (
    POD_GROUP_ANNOTATION,
    POD_GROUP_API,
    SCHEDULER_NAME,
    SUBGROUP_LABEL,
    TOPOLOGY_API,
)
from tasplan.model.source import Source

if TYPE_CHECKING:
    from tasplan.model.kai import Constraint, KaiPodGroup, KaiTopology

Found = tuple[Manifest, Violation]
_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def is_kai(m: Manifest) -> bool:
    return (m.api_version, m.kind) in ((TOPOLOGY_API, "Topology"), (POD_GROUP_API, "PodGroup"))


def _path(field: str) -> tuple:
    return tuple(int(n) if n else name for name, n in _TOKEN.findall(field))


def _decoded(m: Manifest):
    # KAI's decoders (and records): only for a KAI object
    from tasplan.load.kai import decode_pod_group, decode_topology

    if m.kind == "Topology":
        return decode_topology(Source(m.file.label), m.obj)
    return decode_pod_group(Source(m.file.label), m.obj)


def validate(m: Manifest) -> list[Violation]:
    """The decoder's complaint as a schema finding, else the webhook's rules."""
    try:
        _, problems = _decoded(m)
    except InputError as exc:
        detail = exc.detail
        rule = ("TP102" if "required field is missing" in detail
                else "TP103" if "expected a DNS label" in detail or "label key" in detail
                else "TP104" if "at most" in detail or "at least" in detail
                else "TP106" if "expected an integer >=" in detail
                or "expected an integer <=" in detail
                else "TP107" if "expected one of" in detail
                else "TP209" if "must be unique" in detail
                else "TP101")
        return [Violation(rule, _path(exc.field), detail)]
    return [Violation("TP240" if p.hard else "TP241", _path(p.field), p.message)
            for p in problems]


def _annotation(m: Manifest, key: str) -> str:
    meta = m.obj.get("metadata") if isinstance(m.obj, dict) else None
    values = meta.get("annotations") if isinstance(meta, dict) else None
    value = values.get(key) if isinstance(values, dict) else None
    return value if isinstance(value, str) else ""


def _label(m: Manifest, key: str) -> str:
    meta = m.obj.get("metadata") if isinstance(m.obj, dict) else None
    values = meta.get("labels") if isinstance(meta, dict) else None
    value = values.get(key) if isinstance(values, dict) else None
    return value if isinstance(value, str) else ""


def _scheduler(m: Manifest) -> str:
    spec = m.obj.get("spec") if isinstance(m.obj, dict) else None
    value = spec.get("schedulerName") if isinstance(spec, dict) else None
    return value if isinstance(value, str) else ""


def check(manifests: Iterable[Manifest], namespace: str) -> Iterator[Found]:
    """Rules across objects: constraints against the Topologies of the inputs, and pods
    against their PodGroups."""
    topologies: dict[str, KaiTopology] = {}
    groups: list[tuple[Manifest, KaiPodGroup]] = []
    pods: list[Manifest] = []
    for m in manifests:
        if is_kai(m):
            try:
                decoded, _ = _decoded(m)
            except InputError:
                continue
            if m.kind == "Topology":
                topologies.setdefault(decoded.name, decoded)
            else:
                groups.append((m, decoded))
        elif m.kind == "Pod":
            pods.append(m)
    by_key: dict[str, KaiPodGroup] = {}
    for m, group in groups:
        key = f"{m.namespace or namespace}/{group.name}"
        by_key.setdefault(key, group)
        yield from ((m, v) for v in constraint_rules(group, topologies))
    for m in pods:
        name = _annotation(m, POD_GROUP_ANNOTATION)
        if not name:
            continue
        group = by_key.get(f"{m.namespace or namespace}/{name}")
        if _scheduler(m) != SCHEDULER_NAME:
            yield m, Violation("TP249", ("metadata", "annotations", POD_GROUP_ANNOTATION),
                               f"the pod joins KAI PodGroup {name} but asks for schedulerName "
                               f"{_scheduler(m) or 'default-scheduler'!r}: KAI schedules "
                               f"pods of {SCHEDULER_NAME!r} only")
        if group is None:
            continue
        subgroup = _label(m, SUBGROUP_LABEL)
        names = {sg.name for sg in group.subgroups}
        if group.subgroups and subgroup not in names:
            what = f"subgroup {subgroup!r}" if subgroup else "no subgroup"
            yield m, Violation("TP248", ("metadata", "labels", SUBGROUP_LABEL), (
                f"the pod names {what} but PodGroup {name} defines "
                f"{', '.join(sorted(names))}: KAI never schedules it"))
        elif not group.subgroups and subgroup:
            yield m, Violation("TP248", ("metadata", "labels", SUBGROUP_LABEL), (
                f"the pod names subgroup {subgroup!r} but PodGroup {name} has no subgroups: "
                "KAI never schedules it"))


def constraint_rules(group: KaiPodGroup, topologies: dict[str, KaiTopology]
                     ) -> Iterator[Violation]:
    parents = {sg.name: sg for sg in group.subgroups}
    required_of: dict[str, tuple[str, str]] = {}  # subgroup name -> (topology, level)
    entries: list[tuple[str, str | None, tuple, Constraint]] = [
        ("", None, ("spec", "topologyConstraint"), group.constraint)]
    entries += sorted(((sg.name, sg.parent or "", ("spec", "subGroups", i, "topologyConstraint"),
                        sg.constraint) for i, sg in enumerate(group.subgroups)
                       if sg.constraint is not None),
                      key=lambda e: _depth(e[0], parents))  # parents before children
    for name, parent, path, c in entries:
        if not c.topology:
            if c.required or c.preferred:
                yield Violation("TP246", (*path, "topology"), (
                    "topologyConstraint has levels but no topology: KAI ignores the "
                    "constraint (it reads the levels of a named Topology only)"))
            continue
        if not c.required and not c.preferred:
            yield Violation("TP244", path, (
                f"topologyConstraint names topology {c.topology} but neither "
                "requiredTopologyLevel nor preferredTopologyLevel: KAI never places the job "
                "(no topology constraints were found)"))
            continue
        topology = topologies.get(c.topology)
        if topology is None:
            yield Violation("TP242", (*path, "topology"), (
                f"Topology {c.topology} (kai.scheduler/v1alpha1) is not in the inputs: KAI "
                f"never places the job without it (Requested topology {c.topology} does "
                "not exist)"))
            continue
        labels = topology.labels
        required, preferred = topology.resolve(c.required), topology.resolve(c.preferred)
        missing = False
        for kind, level, field in (("required", required, "requiredTopologyLevel"),
                                   ("preferred", preferred, "preferredTopologyLevel")):
            if level and level not in labels:
                missing = True
                yield Violation("TP243", (*path, field), (
                    f"{kind} level {level!r} is not a level of Topology {topology.name} "
                    f"({', '.join(labels)}): KAI never places the job"))
        if missing:
            continue
        if required and preferred and labels.index(preferred) < labels.index(required):
            yield Violation("TP245", (*path, "preferredTopologyLevel"), (
                f"preferred level {preferred} is above the required level {required}: KAI "
                "finds no preferred level between the required one and the nodes and never "
                "places the job"))
        if required:
            required_of[name] = (c.topology, required)
        if parent is not None and required:
            above = _parent_required(parent, parents, required_of)
            if above is not None and above[0] == c.topology and \
                    labels.index(required) < labels.index(above[1]):
                yield Violation("TP247", (*path, "requiredTopologyLevel"), (
                    f"required level {required} is coarser than its parent's {above[1]}: KAI "
                    "sums free capacity only inside the parent's domain, so every "
                    f"{required} domain counts as empty and the subgroup never fits"))


def _depth(name: str, subgroups: dict) -> int:
    """How many ancestors a subgroup has (bounded by the subgroups: cycles are TP240's)."""
    depth, at = 0, subgroups[name].parent
    while at is not None and at in subgroups and depth <= len(subgroups):
        depth, at = depth + 1, subgroups[at].parent
    return depth


def _parent_required(parent: str, subgroups: dict, required_of: dict) -> tuple | None:
    """The nearest ancestor's required (topology, level); bounded by the subgroups."""
    at: str | None = parent
    for _ in range(len(subgroups) + 1):
        if at is None:
            return None
        if at in required_of:
            return required_of[at]
        if at == "":
            return None
        sg = subgroups.get(at)
        at = "" if sg is None or sg.parent is None else sg.parent
    return None
