"""Pods that form a group by a label or annotation of another scheduler's, and bare pods
grouped with ``--gang`` / ``--topology-key``: one group ``<ns>/<name>`` each.

- Kueue plain-pod groups (kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7,
  ``pkg/controller/jobs/pod``): label ``kueue.x-k8s.io/pod-group-name``, annotation
  ``kueue.x-k8s.io/pod-group-total-count`` (a positive integer, required, as Kueue's pod
  webhook). Kueue admits the group when all its pods exist and ungates them together;
  kube-scheduler then places them: planned as a gang of the total count.
- scheduler-plugins coscheduling: label ``scheduling.x-k8s.io/pod-group``; the gang is the
  ``scheduling.x-k8s.io/v1alpha1`` PodGroup's ``minMember`` when the inputs hold it, else all
  the group's pods.
- Volcano: annotation ``scheduling.k8s.io/group-name`` (or ``scheduling.volcano.sh/
  group-name``); KAI: annotation ``pod-group-name``. Their PodGroups (``minMember``) are
  their schedulers' to read: planned as a gang of the group's pods, ``--gang`` overriding.

Pods of one group that differ in shape form one PodSet each (``main`` when they all look
alike, else ``role-<i>`` in order of appearance; Kueue names them by a hash of the shape).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from tasplan.errors import InputError
from tasplan.load.documents import locate
from tasplan.load.group_names import COSCHEDULING, KUEUE_GROUP, named_group
from tasplan.load.producers import Overrides
from tasplan.model.group import Expansion, PodGroup, PodSet, Policy, pairs
from tasplan.model.pod import Pod
from tasplan.model.source import Source
from tasplan.untrusted import quote

KUEUE_TOTAL = "kueue.x-k8s.io/pod-group-total-count"
COSCHEDULING_API = "scheduling.x-k8s.io/v1alpha1"
BARE = "pods"  # the group of bare pods (per namespace) with --gang / --topology-key


@dataclass
class _Found:
    owner: str  # Kueue, scheduler-plugins, Volcano, KAI, or "" for bare pods
    key: str  # the label/annotation that named the group
    pods: list[Pod] = field(default_factory=list)
    annotations: list[Mapping[str, str]] = field(default_factory=list)
    total: int | None = None
    position: int = 0
    source: Source | None = None


def group_pods(pods: dict[tuple[str, str], Pod], annotations: Mapping[tuple[str, str], Any],
               positions: Mapping[Source, int], overrides: Overrides,
               coscheduling: Mapping[tuple[str, str], int],
               existing: set[str] = frozenset()) -> list[PodGroup]:
    """Groups for the pods that name one by label or annotation (``annotations``: pod key
    -> its metadata.annotations where known), and with ``--gang`` / ``--topology-key`` one
    group per namespace of the workload inputs' bare pending pods. Member pods get the
    group (``pods`` is updated). ``coscheduling``: minMember of scheduler-plugins PodGroups
    by (namespace, name). A pod naming a group the inputs define otherwise (``existing``:
    a Volcano PodGroup object) joins it. ``positions``: input position by pod source."""
    found: dict[str, _Found] = {}
    bare = overrides.min_count is not None or overrides.topology_key is not None
    for pkey, pod in pods.items():
        if pod.group is not None:
            continue
        notes = annotations.get(pkey) if annotations else None
        labels = pod.labels
        if notes is None and KUEUE_GROUP not in labels and COSCHEDULING not in labels:
            named = None  # named_group's answer without those labels and annotations
            notes = {}
        else:
            notes = notes or {}
            named = named_group(labels, notes if isinstance(notes, dict) else {})
        if named is None:
            if not (bare and pod.source.workload and not pod.node_name and not pod.terminal):
                continue
            named = ("", "", BARE)
        owner, key, name = named
        if f"{pod.namespace}/{name}" in existing:
            pods[pkey] = replace(pod, group=f"{pod.namespace}/{name}")
            continue
        group = found.setdefault(f"{pod.namespace}/{name}", _Found(
            owner, key, position=positions.get(pod.source, 0), source=pod.source))
        group.pods.append(pod)
        group.annotations.append(notes if isinstance(notes, dict) else {})
        if owner == "Kueue" and isinstance(notes, dict) and KUEUE_TOTAL in notes:
            group.total = _total(pod, notes[KUEUE_TOTAL])
    out = []
    for gkey, g in found.items():
        ns, name = gkey.split("/", 1)
        live = [p for p in g.pods if not p.terminal]
        size, note = _size(g, ns, name, len(live), overrides, coscheduling)
        for p in g.pods:
            pods[(p.namespace, p.name)] = replace(p, group=gkey)
        # Pods synthesised from a template that names the group are recorded by their
        # object's expansion (merged in by the loader).
        own = [p for p in live if not p.synthesised]
        out.append(PodGroup(
            key=gkey, namespace=ns, policy=Policy.GANG, min_count=max(size, 1),
            topology_key=overrides.topology_key, kind="Pod", api_version="v1",
            source=g.source, order=g.position, notes=(note,),
            expansions=(Expansion("Pod", gkey, 0, len(own), "v1",
                                  pod_sets=_pod_sets(own, g)),) if own else ()))
    return out


def _size(g: _Found, ns: str, name: str, pods: int, overrides: Overrides,
          coscheduling: Mapping[tuple[str, str], int]) -> tuple[int, tuple[str, str]]:
    if g.owner == "Kueue" and g.total is not None:
        return g.total, ("gang-assumed", f"Kueue plain-pod group {name} "
                         f"({KUEUE_TOTAL}={g.total}): Kueue admits the pods together once all "
                         "exist, then kube-scheduler places them; planned as a gang of "
                         f"{g.total} (Kueue's quota and TAS are not modelled)")
    if g.owner == "scheduler-plugins" and (ns, name) in coscheduling:
        size = coscheduling[(ns, name)]
        return size, ("gang-assumed", f"coscheduling PodGroup {name} (minMember {size}) is "
                      "honoured by scheduler-plugins' Coscheduling plugin; planned as a "
                      "kube-scheduler gang of that size")
    size = overrides.min_count if overrides.min_count is not None else pods
    what = f"--gang {size}" if overrides.min_count is not None else f"all {pods} pod(s)"
    if not g.owner:
        return size, ("gang-assumed", f"bare pods of namespace {ns}, grouped by --gang / "
                      f"--topology-key: a gang of {size}")
    return size, ("gang-assumed", f"{g.owner} pod group {name} (pods' {g.key}): its "
                  f"PodGroup's minMember is {g.owner}'s to read; planned as a kube-scheduler "
                  f"gang of {what}")


def _total(pod: Pod, value: object) -> int:
    """Kueue's pod webhook: the total count must be a positive integer."""
    if isinstance(value, str) and value.isdigit() and int(value) > 0 and len(value) < 10:
        return int(value)
    field = f"metadata.annotations.{KUEUE_TOTAL}"
    prefix = pod.source.field_prefix()
    full = f"{prefix}.{field}" if prefix else field
    raise InputError(pod.source.path, f"expected a positive integer, got {quote(value)}",
                     field=full, obj=f"Pod {pod.key}",
                     line=locate(pod.source.path, pod.source.document, full))


def _pod_sets(pods: Iterable[Pod], g: _Found) -> tuple[PodSet, ...]:
    keep = {p.key for p in pods}
    roles: dict[tuple, list[Pod]] = {}
    notes: dict[tuple, Mapping[str, str]] = {}
    for pod, meta in zip(g.pods, g.annotations, strict=True):
        if pod.key not in keep:
            continue
        role = pod.signature()
        roles.setdefault(role, []).append(pod)
        notes.setdefault(role, meta)
    named = len(roles) == 1
    return tuple(PodSet("main" if named else f"role-{i}", len(members),
                        tuple(p.name for p in members), pairs(dict(members[0].labels)),
                        pairs(notes[role]), members[0].scheduler_name)
                 for i, (role, members) in enumerate(roles.items()))


def coscheduling_groups(docs: Iterable[Any]) -> dict[tuple[str, str], int]:
    """minMember of the scheduler-plugins PodGroups among ``docs`` (skipped objects of the
    inputs), by (namespace, name); malformed ones are left out (the planner then gangs
    all the group's pods)."""
    out = {}
    for d in docs:
        obj = d.obj
        if obj.get("apiVersion") != COSCHEDULING_API or obj.get("kind") != "PodGroup":
            continue
        meta, spec = obj.get("metadata"), obj.get("spec")
        if not isinstance(meta, dict) or not isinstance(spec, dict):
            continue
        name, ns = meta.get("name"), meta.get("namespace") or "default"
        size = spec.get("minMember")
        if isinstance(name, str) and isinstance(ns, str) and type(size) is int and size > 0:
            out[(ns, name)] = size
    return out
