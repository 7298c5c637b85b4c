"""Pod-producing objects (Job, JobSet, LeaderWorkerSet, Deployment, ReplicaSet, StatefulSet)
-> the pods their controllers would create, and the groups those pods form.

Every kind goes through ``expand``, with the same rules:

- a pod template whose spec names a group (``schedulingGroup``, v1.36+, or ``workloadRef``,
  v1.35) joins that group: its pods are planned with it and the object gets no group of its
  own, whatever ``--gang`` says;
- otherwise the object's pods form its own group(s): the object's own scheduling
  (``.spec.scheduling`` of a Job or LeaderWorkerSet, a JobSet ``gangPolicy``), else basic,
  or a gang with ``--gang`` / ``--topology-key``;
- pods the controller already created count as upstream's controllers count them: a
  running or pending pod of the controller (by its labels, or by its ordinal name for
  StatefulSet-style controllers) is one pod fewer to create, and its name is not reused.

The kinds' own decoders (``batch``, ``jobset``, ``lws``, ``apps``) only say which pods a
controller keeps, with which names and labels; they stay small so that they can move to a
typed decoder later.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tasplan.limits import MAX_CONTROLLER_PODS
from tasplan.load.core_v1 import PriorityResolver, _group_ref, decode_pod
from tasplan.load.fields import ObjectFields
from tasplan.load.group_names import named_group
from tasplan.load.scheduling import GroupSpec
from tasplan.model.group import Expansion, PodGroup, PodSet, Policy, pairs
from tasplan.model.pod import DEFAULT_SCHEDULER, Pod
from tasplan.model.source import Source
from tasplan.model.spread_selectors import ControllerRef


@dataclass(frozen=True, slots=True)
class Overrides:
    """``--gang`` / ``--topology-key`` for objects without scheduling of their own."""

    min_count: int | None = None
    topology_key: str | None = None

    def group_spec(self) -> GroupSpec:
        if self.min_count is not None:
            return GroupSpec(Policy.GANG, self.min_count, self.topology_key)
        return GroupSpec(Policy.BASIC, 1, self.topology_key)


@dataclass(frozen=True, slots=True)
class PodBatch:
    """The pods one template yields inside one object (a JobSet's child Job, an LWS
    replica's leader or workers, a Deployment).

    The controller keeps ``count`` pods; ``pod(i)`` is the name and the labels (added to
    the template's) of its ``i``-th pod. ``selectors`` find the pods it already created (a
    pod matches when all labels of one selector match), and a pod it recreates gets a new
    name; without selectors its pods have fixed ordinal names (StatefulSet,
    LeaderWorkerSet), found by name. ``group`` is the name of the object's own group these
    pods form (without namespace).

    ``pod_set`` names the PodSet the batch belongs to (batches of one template, such as a
    JobSet's replicas of one replicated Job, share it); ``labels`` and ``annotations`` are
    what the controller adds to every pod of the batch besides ``pod(i)``'s per-pod labels
    (recorded on the PodSet). ``webhook``, when set, is what an admission webhook does to
    the template given the pods' resolved priority (JobSet's exclusive placement).
    """

    template: Mapping[str, Any]
    template_path: str
    count: int
    pod: Callable[[int], tuple[str, Mapping[str, str]]]
    selectors: tuple[Mapping[str, str], ...]
    group: str
    controller: ControllerRef | None = None  # the pods' ownerReference (default spreading)
    pod_set: str = "main"
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    min_count: int | None = None  # the object's minimum for this PodSet, if it sets one
    webhook: Callable[[Mapping[str, Any], int], Mapping[str, Any]] | None = None
    # Where the pod spec sits (default ``<template_path>.spec``), and the object errors in
    # the template name (default: the producer's; a TrainingRuntime's JobSet template).
    spec_path: str = ""
    owner: ObjectFields | None = None


@dataclass(frozen=True, slots=True)
class Producer:
    """One pod-producing object and the groups its pods form when no template names one.

    ``specs`` gives each own group's policy (by group name); groups not listed use
    ``default``. ``notes`` are (code, message) pairs every own group carries into its
    report: what tasplan assumed about the controller (a gang its operator would make).
    ``via`` names the objects this one was expanded from (an AppWrapper around a Job).
    """

    kind: str
    api_version: str
    namespace: str
    name: str
    source: Source
    obj: Mapping[str, Any]
    batches: tuple[PodBatch, ...]
    default: GroupSpec
    explicit: bool  # the object has scheduling of its own: --gang does not apply
    specs: Mapping[str, GroupSpec] = field(default_factory=dict)
    count_field: str = "spec.replicas"  # the field an error about too many pods names
    notes: tuple[tuple[str, str], ...] = ()
    via: tuple[str, ...] = ()
    # With scheduling of its own (``explicit``), whether --topology-key still applies (a
    # gang the object sizes but does not constrain).
    takes_topology_key: bool = False
    # Other input objects whose scheduling keys apply to this one (a TrainJob's runtime).
    related: tuple[Any, ...] = ()
    # The PodGroup the controller itself writes (a TrainJob's coscheduling or Volcano
    # PodGroup): pods naming it by label or annotation stay in the object's own group.
    pod_group: str | None = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


class Unplannable(Exception):
    """A valid object tasplan cannot expand from these inputs (a TrainJob whose runtime is
    not among them): skipped with ``reason``, and ``hint`` says what would let it be
    planned. Not invalid input."""

    def __init__(self, reason: str, hint: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.hint = hint


def check_expansion(f: ObjectFields, field: str, pods: int, total: int = 0) -> None:
    """Refuse a controller whose pods (``total`` with those of earlier controllers) would
    exceed the shared limit: expansion is linear, but 10^8 pods is hours of planning.
    Every pod-producing kind checks before it lists its pods."""
    limit = MAX_CONTROLLER_PODS.get_int()
    if pods + total > limit:
        before = f" (with {total:,} pods of earlier controllers)" if total else ""
        raise f.error(field, f"{pods:,} pods to create{before} exceed the limit of {limit:,} "
                      f"pods synthesised from controllers ({MAX_CONTROLLER_PODS.hint()})")


def identity(f: ObjectFields) -> tuple[str, str, Mapping[str, Any]]:
    """Namespace (``default`` when unset), name and spec of a pod-producing object."""
    meta = f.mapping(f.obj.get("metadata"), "metadata")
    name = f.string(meta.get("name"), "metadata.name", required=True)
    return (f.string(meta.get("namespace"), "metadata.namespace") or "default", name,
            f.mapping(f.obj.get("spec"), "spec"))


def pod_template(f: ObjectFields, raw: object, path: str, spec_path: str = "") -> Mapping[str, Any]:
    """A PodTemplateSpec, checked as far as synthesising pods from it needs, with the
    wording ``tasplan lint``'s schema uses for the same faults: a template, its spec and
    named containers are required (the API server refuses a pod without them)."""
    if raw is None:
        raise f.error(path, "required field is missing")
    template = f.mapping(raw, path)
    spec_path = spec_path or f"{path}.spec"
    spec = template.get("spec")
    if spec is None:
        raise f.error(spec_path, "required field is missing")
    spec = f.mapping(spec, spec_path)
    containers = spec.get("containers")
    if containers is None:
        raise f.error(f"{spec_path}.containers", "required field is missing")
    containers = f.sequence(containers, f"{spec_path}.containers")
    if not containers:
        raise f.error(f"{spec_path}.containers", "expected at least 1 item(s), got 0")
    for i, c in enumerate(containers):
        if f.mapping(c, f"{spec_path}.containers[{i}]").get("name") is None:
            raise f.error(f"{spec_path}.containers[{i}].name", "required field is missing")
    meta = f.mapping(template.get("metadata"), f"{path}.metadata")
    f.string_map(meta.get("labels"), f"{path}.metadata.labels")
    f.string_map(meta.get("annotations"), f"{path}.metadata.annotations")
    return template


def required_list(f: ObjectFields, value: object, path: str) -> list:
    """A list that must have items, refused in the words lint's schemas use."""
    if value is None:
        raise f.error(path, "required field is missing")
    items = f.sequence(value, path)
    if not items:
        raise f.error(path, "expected at least 1 item(s), got 0")
    return items


def replicas(f: ObjectFields, spec: Mapping[str, Any], path: str, default: int = 1) -> int:
    value = spec.get(path.rsplit(".", 1)[-1])
    return default if value is None else f.int32(value, path, minimum=0)


def template_group(owner: ObjectFields, namespace: str, batch: PodBatch) -> str | None:
    """The group the template's pods name themselves, if any."""
    spec = batch.template.get("spec") or {}
    return _group_ref(batch.owner or owner, namespace, spec,
                      batch.spec_path or f"{batch.template_path}.spec")


def label_group(namespace: str, batch: PodBatch) -> tuple[str, str] | None:
    """(owner, ``<ns>/<name>``) of the group a template's pods name by another scheduler's
    label or annotation (a Job whose pods carry KAI's ``pod-group-name``), if any."""
    meta = batch.template.get("metadata") or {}
    named = named_group({**(meta.get("labels") or {}), **batch.labels},
                        {**(meta.get("annotations") or {}), **batch.annotations})
    return None if named is None else (named[0], f"{namespace}/{named[2]}")


def synthesise(template: Mapping[str, Any], namespace: str, name: str,
                labels: Mapping[str, str]) -> dict[str, Any]:
    meta = template.get("metadata") or {}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace,
                     "labels": {**(meta.get("labels") or {}), **labels}},
        "spec": template.get("spec") or {},
    }


def batch_priority(owner: ObjectFields, batch: PodBatch, priorities: PriorityResolver) -> int:
    """The priority the pods of a batch get at admission (what a webhook sees)."""
    spec = batch.template.get("spec") or {}
    if isinstance(spec.get("priority"), int):
        return spec["priority"]
    name = spec.get("priorityClassName") or ""
    path = batch.spec_path or f"{batch.template_path}.spec"
    return priorities.resolve(owner, name, f"{path}.priorityClassName")


class PodIndex:
    """Pods by (namespace, label key, value), built once per label key a selector leads
    with: finding a controller's pods costs its candidates, not every pod."""

    def __init__(self, pods: Mapping[tuple[str, str], Pod]) -> None:
        self._pods = pods
        self._by_label: dict[str, dict[tuple[str, str], list[tuple[str, str]]]] = {}

    def matching(self, namespace: str, selector: Mapping[str, str]) -> Iterator[tuple[str, str]]:
        if not selector:
            return
        first, value = next(iter(selector.items()))
        index = self._by_label.get(first)
        if index is None:
            index = self._by_label[first] = {}
            for pkey, pod in self._pods.items():
                v = pod.labels.get(first)
                if v is not None:
                    index.setdefault((pod.namespace, v), []).append(pkey)
        for pkey in index.get((namespace, value), ()):
            labels = self._pods[pkey].labels
            if all(labels.get(k) == v for k, v in selector.items()):
                yield pkey

    def add(self, pkey: tuple[str, str], pod: Pod) -> None:
        for key, index in self._by_label.items():
            v = pod.labels.get(key)
            if v is not None:
                index.setdefault((pod.namespace, v), []).append(pkey)


def expand(producer: Producer, pods: dict[tuple[str, str], Pod], index: PodIndex,
           priorities: PriorityResolver, order: int, position: int,
           owners: dict | None = None, total: int = 0,
           labelled: dict | None = None
           ) -> tuple[list[PodGroup], int, dict[str, Expansion]]:
    """Add the pods ``producer``'s controllers would still create to ``pods`` (existing
    ones of its own groups join them). Returns its own groups, the next pod order, and
    what it added to groups defined elsewhere (templates that name a group). ``total``:
    pods synthesised for earlier objects, which count towards the shared limit.

    ``owners`` (pod key -> controller) is filled for synthesised pods when default
    topology spreading needs it. Pods whose template names another scheduler's group by
    label or annotation go where pods of that name in the inputs would (KAI's groups, or the
    label/annotation pod groups); ``labelled`` gets their annotations."""
    ns = producer.namespace
    owner = ObjectFields(producer.source, producer.obj)
    counts: dict[str, list[int]] = {}  # group key -> [synthesised, existing]
    sets: dict[str, dict[str, _PodSetAcc]] = {}  # group key -> pod set name -> accumulator
    own: dict[str, None] = {}
    for batch in producer.batches:
        named = template_group(owner, ns, batch)
        own_key = f"{ns}/{batch.group}"
        label_named = None if named else label_group(ns, batch)
        by_label = label_named[1] if label_named else None
        if by_label == f"{ns}/{producer.pod_group}":
            by_label = None
        # KAI's pod-group-name gives a pod its group at decoding (the loader's KAI groups
        # take it); the other labels leave it to the label/annotation pod groups.
        joins = named is not None or by_label is not None
        group = named or by_label or own_key
        pod_group = group if not by_label or label_named[0] == "KAI" else None
        if not joins:
            own.setdefault(own_key)
        if not batch.selectors:
            existing = [key for i in range(batch.count)
                        if (key := (ns, batch.pod(i)[0])) in pods]
        else:
            existing = list(dict.fromkeys(
                k for selector in batch.selectors for k in index.matching(ns, selector)))
        acc = sets.setdefault(group, {}).get(batch.pod_set)
        if acc is None:
            acc = sets[group][batch.pod_set] = _PodSetAcc(batch)
        acc.count += batch.count
        active = 0
        for pkey in existing:
            pod = pods[pkey]
            active += not pod.terminal
            if not pod.terminal:
                acc.pods.append(pkey[1])
            if pod.group is None and not joins:
                pods[pkey] = replace(pod, group=own_key)
        missing = max(batch.count - active, 0)
        check_expansion(owner, producer.count_field, missing, total)
        total += missing
        template = batch.template
        fields = batch.owner or owner
        spec_path = batch.spec_path or f"{batch.template_path}.spec"
        if batch.webhook is not None and missing:
            template = batch.webhook(template, batch_priority(fields, batch, priorities))
        # Ordinal names are fixed; other controllers name a recreated pod anew, so names
        # taken by pods in the inputs are skipped (each skip is one of those pods).
        last = batch.count if not batch.selectors else batch.count + len(pods)
        synthesised = i = 0
        while synthesised < missing and i < last:
            name, labels = batch.pod(i)
            i += 1
            if (ns, name) in pods:
                continue
            pod = decode_pod(producer.source, synthesise(template, ns, name, labels), order,
                             priorities, group=pod_group,
                             spec_path=spec_path, synthesised=True, owner=fields)
            order += 1
            synthesised += 1
            pkey = (ns, pod.name)
            pods[pkey] = pod
            index.add(pkey, pod)
            acc.pods.append(pod.name)
            if by_label and labelled is not None:
                labelled[pkey] = {**((template.get("metadata") or {}).get("annotations")
                                     or {}), **batch.annotations}
            if owners is not None and batch.controller is not None:
                owners[pkey] = batch.controller
        entry = counts.setdefault(group, [0, 0])
        entry[0] += synthesised
        entry[1] += active
    groups = []
    for key in own:
        spec = producer.specs.get(key.split("/", 1)[1], producer.default)
        groups.append(PodGroup(
            key=key, namespace=ns, policy=spec.policy or Policy.BASIC,
            min_count=spec.min_count or 1, topology_key=spec.topology_key,
            kind=producer.kind, api_version=producer.api_version, source=producer.source,
            order=position, claims=spec.claims, notes=producer.notes))
    meta = producer.obj.get("metadata") or {}
    labels, annotations = pairs(meta.get("labels")), pairs(meta.get("annotations"))
    expansions = {key: Expansion(producer.kind, producer.key, s, e, producer.api_version,
                                 labels, annotations,
                                 tuple(a.pod_set() for a in sets[key].values()),
                                 producer.via)
                  for key, (s, e) in counts.items()}
    groups = [replace(g, expansions=(expansions[g.key],)) if g.key in expansions else g
              for g in groups]
    joined = {k: v for k, v in expansions.items() if k not in own}
    return groups, order, joined


class _PodSetAcc:
    """One PodSet being collected across the batches that share it."""

    __slots__ = ("batch", "count", "pods")

    def __init__(self, batch: PodBatch) -> None:
        self.batch = batch
        self.count = 0
        self.pods: list[str] = []

    def pod_set(self) -> PodSet:
        b = self.batch
        meta = b.template.get("metadata") or {}
        spec = b.template.get("spec") or {}
        scheduler = spec.get("schedulerName")
        return PodSet(
            name=b.pod_set, count=self.count, pods=tuple(self.pods),
            labels=pairs({**(meta.get("labels") or {}), **b.labels}),
            annotations=pairs({**(meta.get("annotations") or {}), **b.annotations}),
            scheduler_name=scheduler if isinstance(scheduler, str) and scheduler
            else DEFAULT_SCHEDULER,
            min_count=b.min_count, template_path=b.template_path)


def merge_expansions(groups: Sequence[PodGroup], joined: Mapping[str, list[Expansion]]
                     ) -> list[PodGroup]:
    """Record on each group the objects whose templates joined it."""
    return [replace(g, expansions=g.expansions + tuple(joined[g.key])) if g.key in joined
            else g for g in groups]
