"""Workload and cluster inputs -> one ClusterSnapshot.

Cluster inputs are read first and workload inputs after them, so an object in a workload
file replaces a cluster object of the same kind and name (a what-if edit).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from contextlib import suppress
from dataclasses import replace
from functools import partial

from tasplan.errors import InputError
from tasplan.gc_pause import gc_paused
from tasplan.load import (
    apps,
    appwrapper,
    grove,
    jobset,
    kubeflow,
    lws,
    mpijob,
    names,
    pod_groups,
    ray,
    scheduling,
    trainjob,
)
from tasplan.load.batch import JobOverrides, decode_job
from tasplan.load.composite import decode_composite
from tasplan.load.composite import resolve as resolve_composite
from tasplan.load.core_v1 import (
    PriorityResolver,
    decode_namespace,
    decode_node,
    decode_pod,
    decode_priority_class,
)
from tasplan.load.document import Document
from tasplan.load.documents import expand_paths, read_documents
from tasplan.load.fields import ObjectFields
from tasplan.load.inputs import generated_names, kind_hint, makes_pods, skipped_kinds
from tasplan.load.intents import find_intents
from tasplan.load.kinds import DRA_KINDS, KUEUE_INTERNAL, VOLCANO_KINDS
from tasplan.load.kinds import KINDS as PEER_KINDS
from tasplan.load.namespace import with_namespace
from tasplan.load.pod_table import decode_pod_table
from tasplan.load.policy import decode_pdb
from tasplan.load.producers import PodIndex, Producer, Unplannable, expand, merge_expansions
from tasplan.load.spread_selectors import KINDS as SPREAD_SELECTOR_KINDS
from tasplan.load.spread_selectors import controller_ref, decode_spread_selectors
from tasplan.load.yaml_loader import locate
from tasplan.model.bound_pods import BoundPods, LazyPods, Run
from tasplan.model.composite import API_VERSIONS as COMPOSITE_VERSIONS
from tasplan.model.composite import KIND as COMPOSITE_KIND
from tasplan.model.dra_inputs import NO_DRA, DraInputs
from tasplan.model.group import PodGroup, Policy
from tasplan.model.kai_inputs import (
    NO_KAI,
    POD_GROUP_ANNOTATION,
    PREFERRED_ANNOTATION,
    QUEUE_LABEL,
    REQUIRED_ANNOTATION,
    TOPOLOGY_ANNOTATION,
    KaiInputs,
)
from tasplan.model.kai_inputs import POD_GROUP_API as KAI_POD_GROUP_API
from tasplan.model.kai_inputs import SCHEDULER_NAME as KAI_SCHEDULER
from tasplan.model.kueue_inputs import NO_KUEUE, KueueInputs
from tasplan.model.node import Node
from tasplan.model.pod import Pod
from tasplan.model.scheduling_keys import Intent
from tasplan.model.skipped import Skipped
from tasplan.model.snapshot import ClusterSnapshot, PriorityClass
from tasplan.model.source import Source
from tasplan.model.spread_selectors import ControllerRef, SpreadSelectors
from tasplan.model.volcano_inputs import NO_VOLCANO
from tasplan.snapshot import format as snapshot_format
from tasplan.untrusted import quote

Progress = Callable[[str], None]
MPIJOB_V2 = "MPIJob (v2beta1)"  # the MPI Operator's MPIJob, next to training-operator's v1

_KINDS = {
    ("v1", "Node"): "Node",
    ("v1", "Pod"): "Pod",
    ("v1", "Namespace"): "Namespace",
    ("scheduling.k8s.io/v1", "PriorityClass"): "PriorityClass",
    ("batch/v1", "Job"): "Job",
    ("policy/v1", "PodDisruptionBudget"): "PodDisruptionBudget",
    # A snapshot document itself carries its pod table; its other objects are items.
    (snapshot_format.API_VERSION, snapshot_format.KIND): "Pod",
    (scheduling.LEGACY, "Workload"): "Workload",
    **{(v, "Workload"): "Workload" for v in scheduling.TEMPLATED},
    **{(v, "PodGroup"): "PodGroup" for v in scheduling.TEMPLATED},
    **{(v, COMPOSITE_KIND): COMPOSITE_KIND for v in COMPOSITE_VERSIONS},
    **SPREAD_SELECTOR_KINDS,
    **{(v, "JobSet"): "JobSet" for v in jobset.VERSIONS},
    **{(v, "LeaderWorkerSet"): "LeaderWorkerSet" for v in lws.VERSIONS},
    (apps.API_VERSION, "Deployment"): "Deployment",
    **{(kubeflow.API_VERSION, k): k for k in kubeflow.KINDS},
    (mpijob.API_VERSION, "MPIJob"): MPIJOB_V2,
    **{(v, k): k for v in trainjob.VERSIONS for k in ("TrainJob", *trainjob.RUNTIME_KINDS)},
    **{(v, k): k for v in ray.VERSIONS for k in ray.KINDS},
    **{(v, "PodCliqueSet"): "PodCliqueSet" for v in grove.VERSIONS},
    **{(v, "AppWrapper"): "AppWrapper" for v in appwrapper.VERSIONS},
    **PEER_KINDS,  # DRA, Kueue, KAI, Volcano: decoders imported when an input has them
}
_USED_KINDS = {kind for _, kind in _KINDS} | set(_KINDS.values())
_KUEUE_WORKLOAD = KUEUE_INTERNAL["Workload"]
# API groups whose kinds tasplan reads: another version of one of their kinds is an error
# (a typo or a version tasplan does not know), where a kind of another group is skipped.
_OWN_GROUPS = {api_version.rsplit("/", 1)[0] if "/" in api_version else ""
               for api_version, _ in _KINDS if not api_version.startswith("tasplan/")}


def _vcjob_producer(source: Source, obj: Mapping, overrides: object) -> Producer:
    from tasplan.load.volcano import vcjob_producer  # Volcano's decoder: when a vcjob is read

    return vcjob_producer(source, obj, overrides)


# Pod-producing kinds read from workload inputs (their pods are planned); in --cluster
# inputs only Jobs are expanded (as before), the others' pods are in the dump already.
# TrainJob and AppWrapper are bound to their context per load (see ``_decoders``).
_PRODUCERS = {"Job": decode_job, "JobSet": jobset.decode_jobset,
              "LeaderWorkerSet": lws.decode_lws, **dict.fromkeys(apps.KINDS, apps.decode_apps),
              **dict.fromkeys(kubeflow.KINDS, kubeflow.decode_kubeflow),
              MPIJOB_V2: mpijob.decode_mpijob, **dict.fromkeys(ray.KINDS, ray.decode_ray),
              "PodCliqueSet": grove.decode_grove, "VolcanoJob": _vcjob_producer,
              "TrainJob": None, "AppWrapper": None}


def pod_producers(runtime_docs: list[Document]) -> dict[tuple[str, str], Callable]:
    """(apiVersion, kind) -> the decoder of every pod-producing kind, TrainJob's with these
    runtimes (``tasplan lint`` expands the objects check would)."""
    decoders = _decoders(trainjob.runtime_index(runtime_docs))
    return {key: decoders[name] for key, name in _KINDS.items() if name in decoders}


def _decoders(runtimes: trainjob.Runtimes) -> dict[str, Callable]:
    """Every pod-producing kind's decoder, TrainJob's with the runtimes of the inputs and
    AppWrapper's with the decoders of the kinds it may wrap."""
    out = dict(_PRODUCERS)
    out["TrainJob"] = partial(trainjob.decode_trainjob, runtimes=runtimes)
    by_gvk = {key: out[name] for key, name in _KINDS.items() if out.get(name) is not None}
    out["AppWrapper"] = partial(appwrapper.decode_appwrapper, decoders=by_gvk)
    return out


def used_kind(obj: dict) -> bool:
    """Whether the loader reads objects of this apiVersion and kind."""
    key = (obj.get("apiVersion"), obj.get("kind"))
    return all(isinstance(part, str) for part in key) and key in _KINDS


def load_inputs(
    workloads: Iterable[str | os.PathLike],
    clusters: Iterable[str | os.PathLike] = (),
    *,
    jobs: JobOverrides | None = None,
    progress: Progress | None = None,
    cluster_documents: Iterable[Document] = (),
    namespace: str | None = None,
) -> ClusterSnapshot:
    """``cluster_documents`` are cluster objects already in memory (a live cluster read);
    they come before the ``clusters`` files and go through the same decoding.
    ``namespace``: of the workload objects that set none (``-n``, as kubectl apply)."""
    with gc_paused(freeze=True):
        docs: list[Document] = list(cluster_documents)
        notes: list[str] = []
        for role, paths in ((False, clusters), (True, workloads)):
            for path in paths:
                for file in expand_paths(path, notes):
                    if progress:
                        progress(f"reading {file}")
                    before = len(docs)
                    found = read_documents(file, workload=role, typed=not (role and namespace))
                    docs.extend(with_namespace(found, namespace) if role and namespace
                                else found)
                    if role and len(docs) == before:
                        notes.append(f"{file}: no Kubernetes objects in the file (empty, or "
                                     "only comments)")
        return assemble(docs, jobs or JobOverrides(), notes)


def require_kind(doc: Document) -> tuple[str, str]:
    """apiVersion and kind of an object; without them it is an error in every command
    (items of a NodeList / PodList get them from the list when read)."""
    obj = doc.obj
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(kind, str) or not kind or not isinstance(api_version, str):
        missing = "kind" if not isinstance(kind, str) or not kind else "apiVersion"
        raise ObjectFields(doc.source, obj).error(
            missing, "required field is missing (every object needs apiVersion and kind)")
    return api_version, kind


def _classify(docs: list[Document]) -> tuple[dict[str, list[Document]], Counter, dict]:
    """Documents by kind, ignored kinds counted (by apiVersion and kind; the workload
    inputs' ignored objects are kept under ``""`` for the scheduling keys they carry), and
    the input position of every object that defines a group (groups of equal priority are
    planned in input order)."""
    by_kind: dict[str, list[Document]] = {k: [] for k in _USED_KINDS}
    by_kind[""] = []
    ignored: Counter = Counter()
    positions: dict = {}
    typed_pods, typed_nodes = by_kind["Pod"], by_kind["Node"]
    skip = 0  # the pods of the Runs so far, less one each: positions count every object
    for position, doc in enumerate(docs):
        obj = doc.obj
        if doc.model is not None:  # the typed reader's Nodes and bound Pods
            (typed_pods if obj["kind"] == "Pod" else typed_nodes).append(doc)
            if type(doc.model) is Run:
                skip += len(doc.model) - 1
            continue
        position += skip
        api_version, kind = require_kind(doc)
        used = _KINDS.get((api_version, kind))
        if used is not None:
            by_kind[used].append(doc)
            if used in ("Workload", "PodGroup", "VolcanoPodGroup", COMPOSITE_KIND,
                        "KaiPodGroup", _KUEUE_WORKLOAD) \
                    or used in _PRODUCERS:
                positions[doc.source] = position
        elif kind in _USED_KINDS and (api_version.rsplit("/", 1)[0] if "/" in api_version
                                      else "") in _OWN_GROUPS:
            supported = sorted(v for v, k in _KINDS if k == kind)
            raise ObjectFields(doc.source, obj).error(
                "apiVersion", f"unsupported apiVersion {api_version!r} for {kind} "
                f"(supported: {', '.join(supported)})")
        else:
            ignored[(api_version, kind)] += 1
            if doc.source.workload:
                by_kind[""].append(doc)
    return by_kind, ignored, positions


def _table_annotations(table: dict, pods: list[Pod], base: int) -> dict[tuple[str, str], dict]:
    """The annotations of a snapshot table's pods that the pod grouping reads
    (``_grouping_annotations``), keyed like ``pod_annotations``: the table keeps them in the
    shared metadata, a pod's row is its order less ``base`` (``decode_pod_table`` checked
    the shape; pods it kept as records name no group). Rows are walked only when some
    metadata names a group or some spec asks for kai-scheduler."""
    columns = table["pods"]
    metas = columns["metadata"]
    named = {i for i, m in enumerate(metas)
             if isinstance(m.get("annotations"), dict)
             and pod_groups.named_group(m.get("labels") or {}, m["annotations"]) is not None}
    kai = any(s.get("schedulerName") == KAI_SCHEDULER for s in columns["specs"])
    if not named and not kai:
        return {}
    out = {}
    rows = columns["meta"]
    for pod in pods:
        mi = rows[pod.order - base]
        if pod.group is None and (mi in named or kai):
            found = _grouping_annotations(pod, metas[mi])
            if found is not None:
                out[(pod.namespace, pod.name)] = found
    return out


class _Plain(Exception):
    """The lazy collection of pods meets what only the plain path handles (a repeated name)."""


def _collect_pods(pod_docs: list[Document], priorities: PriorityResolver, has_selectors: bool,
                  lazy: bool) -> tuple:
    """The pods of the inputs by (namespace, name) in input order, the next pod order, the
    pending pods' controllers (when spread selectors exist), the annotations of pods that
    name a group by one, warnings, and (``lazy``) the stores of the records kept as records
    (``model.bound_pods``), their orders set. Not ``lazy``: every record becomes a Pod."""
    order = 0
    pods: dict[tuple[str, str], Pod] = {}
    owners: dict[tuple[str, str], ControllerRef | None] = {}
    pod_annotations: dict[tuple[str, str], dict] = {}  # of pods that name a group by one
    warnings: list[str] = []
    stores: list[BoundPods] = []  # in input order
    fresh: dict[int, BoundPods] = {}  # id of the typed reader's store -> this assembly's
    for d in pod_docs:
        pod = d.model
        if pod is not None:
            if type(pod) is Run:
                run = pod
                store = fresh.get(id(run.store))
                if store is None:
                    store = fresh[id(run.store)] = run.store.fresh()
                    stores.append(store)
                store.set_orders(order, run.start, run.end)
                order += len(run)
                if lazy:
                    continue
                for pod in store.pods(run.start, run.end):
                    key = (pod.namespace, pod.name)
                    if key in pods:
                        _put_pod(pods, pod, warnings)
                    else:
                        pods[key] = pod
                continue
            # A bound pod decoded by the typed reader with its order in the file; renumbered
            # only when other pods came before (a later file, live documents, a reassembly).
            if pod.order != order:
                pod = replace(pod, order=order)
            order += 1
            key = (pod.namespace, pod.name)
            if key in pods:
                if lazy:
                    raise _Plain
                _put_pod(pods, pod, warnings)
            else:
                pods[key] = pod
            continue
        if d.obj["kind"] == snapshot_format.KIND:
            table, base = d.obj, order
            decoded, store = decode_pod_table(d.source, table, order, priorities, lazy)
            pod_annotations.update(_table_annotations(table, decoded, base))
            if store is not None:
                store.set_orders(order)
                stores.append(store)
                order += len(store.records)

            def owner_fields(pod: Pod, table=table, base=base, source=d.source) -> ObjectFields:
                return ObjectFields(source, snapshot_format.expand_pod(table["pods"],
                                                                       pod.order - base))
        else:
            decoded = [decode_pod(d.source, d.obj, order, priorities)]
            found = _grouping_annotations(decoded[0], d.obj.get("metadata"))
            if found is not None:
                pod_annotations[(decoded[0].namespace, decoded[0].name)] = found

            def owner_fields(pod: Pod, obj=d.obj, source=d.source) -> ObjectFields:
                return ObjectFields(source, obj)
        order += len(decoded)
        _put_pods(pods, decoded, warnings, repeats=not lazy)
        for pod in decoded if has_selectors else ():
            if not pod.node_name:
                owners[(pod.namespace, pod.name)] = controller_ref(owner_fields(pod))
    return pods, order, owners, pod_annotations, warnings, stores if lazy else []


def _plain_records_pass(pods: dict[tuple[str, str], Pod], stores: list[BoundPods]) -> bool:
    """Whether the records need nothing of the passes over every pod: no name is repeated
    (among them or with a built pod), every name is printable and every namespace valid
    (``_check_names`` then has nothing to say about them; else the plain path says it).
    Names alone first: when no name repeats in any namespace, no (namespace, name) does."""
    seen = {name for _, name in pods}
    total = len(pods)
    for store in stores:
        seen.update(store.names())
        total += len(store.records)
        if not all(map(str.isprintable, store.names())) or any(
                map(names.namespace_problem, store.namespaces())):
            return False
    if len(seen) == total:
        return True
    keys = set(pods)
    for store in stores:
        keys.update(store.keys())
    return len(keys) == total


def _unique(kind: str, items: Iterable[tuple[tuple, object, object]],
            warnings: list[str]) -> dict:
    out: dict = {}
    where: dict = {}
    for key, value, source in items:
        if key in out and where[key].workload == source.workload:
            raise _defined_twice(kind, "/".join(key), source, where[key])
        if key in out:
            warnings.append(f"{kind} {'/'.join(key)} is defined more than once; using the one "
                            f"from {source} over {where[key]}")
        out[key] = value
        where[key] = source
    return out


def _put_pod(pods: dict[tuple[str, str], Pod], pod: Pod, warnings: list[str]) -> None:
    """Two pods of one name among the cluster inputs, or among the workload inputs, are
    refused as the API server would; a workload pod replaces a cluster pod of its name
    (the what-if), with a warning."""
    key = (pod.namespace, pod.name)
    other = pods.get(key)
    if other is not None:
        if other.source.workload == pod.source.workload:
            raise _defined_twice("Pod", pod.key, pod.source, other.source)
        warnings.append(f"Pod {pod.key} is defined more than once; using the one from "
                        f"{pod.source} over {other.source}")
    pods[key] = pod


def _put_pods(pods: dict[tuple[str, str], Pod], batch: list[Pod], warnings: list[str],
              repeats: bool = True) -> None:
    """``_put_pod`` of each pod of ``batch`` (a snapshot's pod table): one dict update
    when no name repeats, in the batch or before it (the usual case). A repeat with
    ``repeats`` false is left to the plain path (``_Plain``)."""
    fresh = {(p.namespace, p.name): p for p in batch}
    if len(fresh) == len(batch) and pods.keys().isdisjoint(fresh):
        pods.update(fresh)
        return
    if not repeats:
        raise _Plain
    for pod in batch:
        _put_pod(pods, pod, warnings)


def _defined_twice(kind: str, name: str, source: Source, first: Source) -> InputError:
    """Two objects of one kind and name among the cluster inputs, or among the workload
    inputs: the API server holds one, so which one is meant is not known. (A workload
    object replacing a cluster one is a what-if edit, and only a warning.)"""
    line = locate(source.path, source.document, source.field_prefix())
    first_line = locate(first.path, first.document, first.field_prefix())
    at = f"{first}" + (f" line {first_line}" if first_line else "")
    return InputError(source.path, f"{kind} {name} is defined twice (also at {at}); the API "
                      "server keeps one object per name", line=line)


def assemble(docs: list[Document], overrides: JobOverrides,
             notes: Iterable[str] = ()) -> ClusterSnapshot:
    """Documents already read (cluster ones first) -> the snapshot; ``tasplan lint`` calls
    this with the objects it has parsed itself. ``notes`` are warnings from reading."""
    docs, named = generated_names(docs)
    by_kind, ignored, positions = _classify(docs)
    warnings: list[str] = [*notes, *named, *skipped_kinds(ignored)]

    classes: dict[str, PriorityClass] = {}
    for d in by_kind["PriorityClass"]:
        pc = decode_priority_class(d.source, d.obj)
        classes[pc.name] = pc
    priorities = PriorityResolver(classes, no_cluster=not by_kind["Node"])

    nodes: dict[tuple, Node] = _unique("Node", [
        ((n.name,), n, d.source) for d in by_kind["Node"]
        for n in [d.model or decode_node(d.source, d.obj)]], warnings)
    if not nodes:
        warnings.append("the inputs contain no Nodes: pass a cluster snapshot with --cluster "
                        "(kubectl get nodes,pods,priorityclasses -A -o json)")
    for node in nodes.values():
        if node.allocatable.get("pods", 0) == 0:
            warnings.append(f"node {node.name} has no allocatable pods (status.allocatable.pods);"
                            " no pod fits on it")
    namespaces = {}
    for d in by_kind["Namespace"]:
        name, labels = decode_namespace(d.source, d.obj)
        namespaces[name] = labels
    workloads = _unique("Workload", [
        ((w.namespace, w.name), w, d.source) for d in by_kind["Workload"]
        for w in [scheduling.decode_workload(d.source, d.obj)]], warnings)
    pod_group_defs = _unique("PodGroup", [
        ((g.namespace, g.name), g, d.source) for d in by_kind["PodGroup"]
        for g in [scheduling.decode_pod_group(d.source, d.obj)]], warnings)
    composite_defs = _unique(COMPOSITE_KIND, [
        ((c.namespace, c.name), c, d.source) for d in by_kind[COMPOSITE_KIND]
        for c in [decode_composite(d.source, d.obj)]], warnings)
    producers, unplannable = _producers(by_kind, overrides, warnings)
    for d, exc in unplannable:
        f = ObjectFields(d.source, d.obj)
        warnings.append(f"skipped {f.kind} {f.name}: {exc.reason}"
                        + (f" ({exc.hint})" if exc.hint else ""))
    if overrides.min_count is not None or overrides.topology_key is not None:
        for producer in producers:
            if producer.explicit and producer.takes_topology_key:
                if overrides.min_count is not None:
                    warnings.append(f"{producer.kind} {producer.key} sizes its own gang; "
                                    "--gang does not apply to it")
            elif producer.explicit:
                warnings.append(f"{producer.kind} {producer.key} has scheduling of its own; "
                                "--gang and --topology-key do not apply to it")

    selectors = decode_spread_selectors(
        d for kind in SPREAD_SELECTOR_KINDS.values() for d in by_kind[kind])
    has_selectors = bool(selectors)
    pod_docs = by_kind["Pod"]
    # Plain bound cluster pods the typed reader kept as records stay records when no pass
    # can read them: no producer or Kueue Workload (they may adopt bound pods), no pod
    # name twice, names the fast check passes; else every pod is built (the plain path).
    lazy = (not producers and not by_kind[_KUEUE_WORKLOAD]
            and any(type(d.model) is Run or (d.model is None and not d.source.workload
                                             and d.obj["kind"] == snapshot_format.KIND)
                    for d in pod_docs))
    collected = None
    if lazy:
        with suppress(_Plain):
            collected = _collect_pods(pod_docs, priorities, has_selectors, True)
    if collected is None or (collected[5] and not _plain_records_pass(collected[0],
                                                                       collected[5])):
        collected = _collect_pods(pod_docs, priorities, has_selectors, False)
    pods, order, owners, pod_annotations, found, stores = collected
    warnings.extend(found)

    groups: list[PodGroup] = []
    joined: dict[str, list] = {}
    index = PodIndex(pods)
    synthesised = 0  # pods made from templates so far: one limit for all of them
    # id(producer) -> (its groups, its PodSets): what its scheduling keys apply to
    made: dict[int, tuple[tuple[str, ...], list]] = {}
    for producer in producers:
        before = order
        own, order, extra = expand(producer, pods, index, priorities, order,
                                   _position(positions, producer.source),
                                   owners if has_selectors else None, synthesised,
                                   pod_annotations)
        synthesised += order - before
        groups.extend(own)
        for key, expansion in extra.items():
            joined.setdefault(key, []).append(expansion)
        made[id(producer)] = (
            (*(g.key for g in own), *extra),
            [ps for g in own for e in g.expansions for ps in e.pod_sets]
            + [ps for e in extra.values() for ps in e.pod_sets])
    for pg in pod_group_defs.values():
        groups.append(_pod_group(pg, workloads, priorities, positions[pg.source]))
    volcano = NO_VOLCANO
    if any(by_kind[kind] for kind in VOLCANO_KINDS.values()):
        from tasplan.load.volcano import load_volcano

        volcano = load_volcano(by_kind, positions, groups, _unique, warnings)
    kai = _kai_bare_pods(pods, _kai_inputs(by_kind, warnings), pod_annotations)
    groups.extend(_kai_groups(pods, kai, {g.key for g in groups}, positions,
                              len(docs) + sum(len(d.model) - 1 for d in pod_docs
                                              if type(d.model) is Run),
                              pod_annotations))
    groups.extend(pod_groups.group_pods(
        pods, pod_annotations, positions, overrides,
        pod_groups.coscheduling_groups(by_kind[""]), {g.key for g in groups}))
    _legacy_groups(workloads, pods, groups, warnings, positions)
    groups = merge_expansions(groups, joined)
    kueue = _kueue_inputs(by_kind, warnings)
    if kueue.workloads:  # else no group has a Workload and none is made from one
        from tasplan.load.kueue_workloads import add_groups

        order, synthesised = add_groups(by_kind[_KUEUE_WORKLOAD], kueue, groups, pods,
                                        priorities, order, positions, synthesised)
    keys: dict[str, PodGroup] = {}
    for g in groups:  # a Job and a PodGroup of one name would merge their pods silently
        other = keys.setdefault(g.key, g)
        if other is not g:
            raise _defined_twice(f"pod group ({other.kind} and {g.kind})", g.key, g.source,
                                 other.source)
    if selectors:
        _default_spread_selectors(pods, owners, selectors)

    known = {g.key for g in groups}
    pending_from_workload: set[str] = set()
    dangling: Counter = Counter()
    for pod in pods.values():
        if pod.group is None:
            continue
        if pod.group not in known:
            dangling[pod.group] += 1
        elif not pod.node_name and not pod.terminal and pod.source.workload:
            pending_from_workload.add(pod.group)
    for key, n in sorted(dangling.items()):
        warnings.append(f"{n} pod(s) reference pod group {key}, which is not in the inputs; "
                        "upstream keeps them pending until it exists")
    _check_names(nodes.values(), pods.values(),
                 [*workloads.values(), *pod_group_defs.values(), *producers,
                  *composite_defs.values()])
    groups = [replace(g, planned=g.source.workload or g.key in pending_from_workload)
              for g in groups]
    groups.sort(key=lambda g: g.order)
    composites = [resolve_composite(c, _templates(workloads, c), priorities,
                                    positions[c.source])
                  for c in composite_defs.values()]
    composites.sort(key=lambda c: c.order)
    return ClusterSnapshot(
        nodes=tuple(sorted(nodes.values(), key=lambda n: n.name)),
        pods=LazyPods(tuple(pods.values()), stores) if stores else tuple(pods.values()),
        groups=tuple(groups),
        priority_classes=classes,
        namespaces=namespaces,
        ignored=dict(sorted(ignored.items())),
        warnings=tuple(warnings),
        disruption_budgets=tuple(_unique("PodDisruptionBudget", [
            ((b.namespace, b.name), b, d.source) for d in by_kind["PodDisruptionBudget"]
            for b in [decode_pdb(d.source, d.obj)]], warnings).values()),
        documents=tuple(docs),
        server_version=_server_version(by_kind["Pod"]),
        composites=tuple(composites),
        dra=_dra_inputs(by_kind, warnings),
        intents=_intents(by_kind, producers, made, pods),
        skipped=_skipped(by_kind[""], unplannable, pods.values(), _unused_runtimes(
            by_kind, producers)),
        volcano=volcano,
        kueue=kueue,
        kai=kai,
    )


def _intents(by_kind: dict[str, list[Document]], producers: list[Producer],
             made: dict[int, tuple[tuple[str, ...], list]],
             pods: dict[tuple[str, str], Pod]) -> tuple[Intent, ...]:
    """The recognised scheduling keys of the workload inputs' objects: those tasplan reads,
    and skipped ones (their kinds' fields only). A key of a pod-producing object (or of an
    object it is nested in, an AppWrapper) applies to its groups and counts the pods of the
    template it sits on (for the --gang hint); a TrainJob's runtime's keys apply to it; a
    Pod's keys to the group it joined (a KAI PodGroup by its pod-group-name)."""
    by_root: dict[Source, list[Producer]] = {}
    for producer in producers:
        by_root.setdefault(producer.source._replace(nested=""), []).append(producer)
    found: list[Intent] = []
    for kind, docs in by_kind.items():
        if kind in ("Node", "PriorityClass", "Namespace", *trainjob.RUNTIME_KINDS):
            continue  # runtimes: through the TrainJobs that use them
        for d in docs:
            if not d.source.workload:
                continue
            f = ObjectFields(d.source, d.obj)
            mine = by_root.get(d.source, [])
            groups = tuple(dict.fromkeys(g for p in mine for g in made[id(p)][0]))
            pod = pods.get(_pod_key(d.obj)) if kind == "Pod" and not groups else None
            if pod is not None and pod.group:
                groups = (pod.group,)
            if kind == "KaiPodGroup":  # its fields apply to the group of its name
                groups = (f.name if "/" in f.name else f"default/{f.name}",)
            sets = [(_join(p.source.nested, ps.template_path), ps)
                    for p in mine for ps in made[id(p)][1] if ps.template_path]
            total = sum(ps.count for p in mine for ps in made[id(p)][1])
            for intent in find_intents(d.obj, f"{f.kind} {f.name}", _kind_id(d.obj),
                                       fields_only=kind == ""):
                count = next((ps.count for path, ps in sets
                              if intent.path.startswith(f"{path}.")), total)
                found.append(replace(intent, count=count, groups=groups))
    for producer in producers:
        for d in producer.related:
            f = ObjectFields(d.source, d.obj)
            found.extend(replace(i, groups=made[id(producer)][0]) for i in find_intents(
                d.obj, f"{f.kind} {f.name}", _kind_id(d.obj)))
    return tuple(found)


def _unused_runtimes(by_kind: dict[str, list[Document]], producers: list[Producer]
                     ) -> list[Document]:
    """The workload inputs' training runtimes that no TrainJob of the inputs uses."""
    used = {id(d) for p in producers for d in p.related}
    return [d for kind in trainjob.RUNTIME_KINDS for d in by_kind[kind]
            if d.source.workload and id(d) not in used]


def _skipped(ignored: list[Document], unplannable: list[tuple[Document, Unplannable]],
             pods: Iterable[Pod], runtimes: Iterable[Document] = ()) -> tuple[Skipped, ...]:
    """What the workload inputs hold that is not planned: kinds tasplan does not read,
    objects it cannot expand from these inputs, pending pods in no group, training
    runtimes no TrainJob uses (a runtime makes no pods of its own)."""
    by: dict[tuple, list[str]] = {}
    for d in runtimes:
        f = ObjectFields(d.source, d.obj)
        by.setdefault((d.obj["apiVersion"], f.kind, "a runtime: planned with the TrainJobs "
                       "that use it, and no TrainJob in the inputs does",
                       "pass a TrainJob whose spec.runtimeRef names it", True),
                      []).append(f.name)
    for d in ignored:
        f = ObjectFields(d.source, d.obj)
        # Another scheduler's job (a Volcano job) was asked about and not answered.
        other_job = f.kind == "Job" and bool(kind_hint(d.obj["apiVersion"], f.kind))
        unchecked = other_job or makes_pods(d.obj["apiVersion"], f.kind)
        by.setdefault((d.obj["apiVersion"], f.kind, "tasplan does not read this kind",
                       kind_hint(d.obj["apiVersion"], f.kind), not unchecked),
                      []).append(f.name)
    for d, exc in unplannable:
        f = ObjectFields(d.source, d.obj)
        by.setdefault((d.obj["apiVersion"], f.kind, exc.reason, exc.hint, False),
                      []).append(f.name)
    loose = [p.key for p in pods if p.group is None and p.source.workload
             and not p.node_name and not p.terminal]
    if loose:
        by[("v1", "Pod", "pending pods in no pod group (no schedulingGroup, workloadRef or "
            "group label)", "--gang MINCOUNT --topology-key KEY plans a namespace's pods as "
            "one gang", True)] = loose
    return tuple(Skipped(kind, api, len(names), reason, hint, tuple(names[:3]), checked)
                 for (api, kind, reason, hint, checked), names in by.items())


def _join(prefix: str, path: str) -> str:
    return f"{prefix}.{path}" if prefix else path


def _pod_key(obj: dict) -> tuple[str, str]:
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    return (meta.get("namespace") or "default", meta.get("name") or "")


def _kind_id(obj: dict) -> str:
    """``group/Kind`` of an object (``Kind`` for the core group)."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    group = api_version.rsplit("/", 1)[0] if isinstance(api_version, str) \
        and "/" in api_version else ""
    return f"{group}/{kind}" if group else str(kind)


def _producers(by_kind: dict[str, list[Document]], overrides: JobOverrides,
               warnings: list[str]) -> tuple[list[Producer], list[tuple[Document, Unplannable]]]:
    """Every pod-producing object of the inputs that its controller would expand here (Jobs
    from every input; the others from workload inputs, unless another controller owns
    them), by kind; and the valid ones that cannot be expanded from these inputs."""
    runtimes = trainjob.runtime_index(
        [d for kind in trainjob.RUNTIME_KINDS for d in by_kind[kind]])
    by_producer_kind: dict[str, list] = {}
    unplannable = []
    for kind, decode in _decoders(runtimes).items():
        for d in by_kind[kind]:
            if kind != "Job" and (not d.source.workload or apps.owned(d.obj)):
                continue
            try:
                made = decode(d.source, d.obj, overrides)
            except Unplannable as exc:
                unplannable.append((d, exc))
                continue
            for p in made if isinstance(made, list) else [made]:
                by_producer_kind.setdefault(p.kind, []).append(((p.namespace, p.name), p,
                                                                p.source))
    return [p for kind, items in by_producer_kind.items()
            for p in _unique(kind, items, warnings).values()], unplannable


def _position(positions: dict, source: Source) -> int:
    """The input position of an object, or of the object it is nested in."""
    return positions[source] if source in positions else positions[source._replace(nested="")]


def _check_names(nodes: Iterable[Node], pods: Iterable[Pod], defs: Iterable) -> None:
    """Names, namespaces and labels by the API server's rules (see load/names.py). Labels
    of cluster pods are not checked (150k pods; they never reach the output)."""
    def fail(kind: str, name: str, source: Source, field: str, why: str) -> InputError:
        prefix = source.field_prefix()
        full = f"{prefix}.{field}" if prefix else field
        return InputError(source.path, why, field=full, obj=f"{kind} {quote(name)[1:-1]}",
                          line=locate(source.path, source.document, full))

    valid: set[tuple[str, str]] = set()
    for node in nodes:
        why = names.name_problem(node.name)
        if why:
            raise fail("Node", node.name, node.source, "metadata.name", why)
        bad = names.labels_problem(node.labels, valid)
        if bad:
            raise fail("Node", node.name, node.source, f"metadata.labels.{bad[0]}", bad[1])
    seen: set[str] = set()
    for pod in pods:
        if pod.namespace not in seen:
            why = names.namespace_problem(pod.namespace)
            if why:
                raise fail("Pod", pod.name, pod.source, "metadata.namespace", why)
            seen.add(pod.namespace)
        if pod.node_name and not pod.source.workload and pod.name.isprintable():
            continue  # a bound cluster pod forms no key: printable is all the output needs
        why = names.name_problem(pod.name)
        if why:
            raise fail("Pod", pod.name, pod.source, "metadata.name", why)
        if pod.source.workload and not pod.synthesised:
            bad = names.labels_problem(pod.labels, valid)
            if bad:
                raise fail("Pod", pod.name, pod.source, f"metadata.labels.{bad[0]}", bad[1])
    for d in defs:
        kind = getattr(d, "kind", "") or type(d).__name__.removesuffix("Def")
        why = names.name_problem(d.name) or names.namespace_problem(d.namespace)
        if why:
            field = "metadata.name" if names.name_problem(d.name) else "metadata.namespace"
            raise fail(kind, d.name, d.source, field, why)


def _dra_inputs(by_kind: dict[str, list[Document]], warnings: list[str]) -> DraInputs:
    """DeviceClasses, ResourceSlices, ResourceClaims, templates and DeviceTaintRules."""
    if not any(by_kind[kind] for kind in DRA_KINDS):
        return NO_DRA
    from tasplan.load.dra import DECODERS

    def decoded(kind: str) -> list:
        decode = DECODERS[kind]
        return [(d, decode(d.source, d.obj)) for d in by_kind[kind]]

    slices = _unique("ResourceSlice", [((s.name,), s, d.source)
                                       for d, s in decoded("ResourceSlice")], warnings)
    return DraInputs(
        classes={k[0]: v for k, v in _unique("DeviceClass", [
            ((c.name,), c, d.source) for d, c in decoded("DeviceClass")], warnings).items()},
        slices=tuple(slices.values()),
        claims=_unique("ResourceClaim", [((c.namespace, c.name), c, d.source)
                                         for d, c in decoded("ResourceClaim")], warnings),
        templates=_unique("ResourceClaimTemplate", [
            ((t.namespace, t.name), t, d.source)
            for d, t in decoded("ResourceClaimTemplate")], warnings),
        taint_rules=tuple(_unique("DeviceTaintRule", [
            ((r.name,), r, d.source) for d, r in decoded("DeviceTaintRule")],
            warnings).values()),
    )


def _kueue_inputs(by_kind: dict[str, list[Document]], warnings: list[str]) -> KueueInputs:
    """Topologies, ResourceFlavors, ClusterQueues, LocalQueues, Cohorts, Workloads."""
    if not any(by_kind[kind] for kind in KUEUE_INTERNAL.values()):
        return NO_KUEUE
    from tasplan.load.kueue import DECODERS

    def decoded(kind: str, namespaced: bool = False) -> dict:
        decode = DECODERS[kind]
        items = [(d, decode(d.source, d.obj)) for d in by_kind[KUEUE_INTERNAL[kind]]]
        return {"/".join(key): v for key, v in _unique(kind, [
            ((o.namespace, o.name) if namespaced else (o.name,), o, d.source)
            for d, o in items], warnings).items()}

    return KueueInputs(
        topologies=decoded("Topology"), flavors=decoded("ResourceFlavor"),
        cluster_queues=decoded("ClusterQueue"), local_queues=decoded("LocalQueue", True),
        cohorts=decoded("Cohort"), workloads=decoded("Workload", True))


def _kai_inputs(by_kind: dict[str, list[Document]], warnings: list[str]) -> KaiInputs:
    """KAI's Topologies and PodGroups, and what their admission webhooks would say."""
    if not by_kind["KaiTopology"] and not by_kind["KaiPodGroup"]:
        return NO_KAI
    from tasplan.load import kai as kai_decode

    problems: dict[tuple[str, str], tuple] = {}
    topologies = {}
    for key, (topology, found) in _unique("Topology (kai.scheduler)", [
            ((t.name,), (t, p), d.source) for d in by_kind["KaiTopology"]
            for t, p in [kai_decode.decode_topology(d.source, d.obj)]], warnings).items():
        topologies[key[0]] = topology
        if found:
            problems[("Topology", key[0])] = tuple(found)
    groups = {}
    for _key, (group, found) in _unique("PodGroup (scheduling.run.ai)", [
            ((g.namespace, g.name), (g, p), d.source) for d in by_kind["KaiPodGroup"]
            for g, p in [kai_decode.decode_pod_group(d.source, d.obj)]], warnings).items():
        groups[group.key] = group
        if found:
            problems[("PodGroup", group.key)] = tuple(found)
    return KaiInputs(topologies, groups, problems)


def _grouping_annotations(pod: Pod, meta: object) -> dict | None:
    """A pod's annotations when the pod grouping reads them, on every reader: it names its
    group by one (a KAI pod-group-name already gave it its group: kept for ``_kai_groups``),
    or it is a bare pending kai-scheduler pod with no owner, which KAI's pod grouper groups
    by itself (the "pod job" of ``DefaultGrouper.GetPodGroupMetadata``); else None."""
    meta = meta if isinstance(meta, dict) else {}
    notes = meta.get("annotations")
    notes = notes if isinstance(notes, dict) else None
    if notes is not None and pod_groups.named_group(pod.labels, notes) is not None:
        return notes
    if pod.scheduler_name == KAI_SCHEDULER and not pod.node_name and pod.group is None \
            and not meta.get("ownerReferences"):
        return notes or {}
    return None


def _kai_bare_pods(pods: dict, kai: KaiInputs,
                   annotations: Mapping[tuple[str, str], dict]) -> KaiInputs:
    """Each bare pending kai-scheduler pod in no group joins the PodGroup KAI's default
    grouper makes for it (KAI-Scheduler d5bc503a, ``defaultgrouper/default_grouper.go``):
    ``pg-<pod>-<uid>``, minMember 1, the pod's own kai.scheduler/topology* annotations."""
    made = {}
    for key, notes in annotations.items():
        pod = pods.get(key)
        if pod is None or pod.group is not None or pod.scheduler_name != KAI_SCHEDULER \
                or pod.node_name or pod_groups.named_group(pod.labels, notes) is not None:
            continue
        from tasplan.model.kai import Constraint, KaiPodGroup  # KAI's records: a bare pod

        name = f"pg-{pod.name}-{pod.uid}" if pod.uid else f"pg-{pod.name}"
        text = {k: v for k, v in notes.items() if isinstance(v, str)}
        spec = KaiPodGroup(pod.namespace, name, 1, None, pod.labels.get(QUEUE_LABEL, ""), "",
                           Constraint(text.get(TOPOLOGY_ANNOTATION, ""),
                                      text.get(REQUIRED_ANNOTATION, ""),
                                      text.get(PREFERRED_ANNOTATION, "")),
                           (), pod.source, synthesised=True)
        made[spec.key] = spec
        pods[key] = replace(pod, group=spec.key)
    return replace(kai, pod_groups={**kai.pod_groups, **made}) if made else kai


def _kai_groups(pods: dict, kai: KaiInputs, known: set[str], positions: dict,
                after: int, annotations: Mapping[tuple[str, str], dict]) -> list[PodGroup]:
    """One group per KAI PodGroup the pods name (``pod-group-name``): from the
    ``scheduling.run.ai`` PodGroup when the inputs hold it (in its input position), else,
    for pods asking for kai-scheduler, the one KAI's pod grouper made (minMember 1, after
    the groups the inputs define, in pod order). Pods of other names leave the annotation to
    the label/annotation pod groups (``pod_groups``): their group is unset here."""
    members: dict[str, list[Pod]] = {}
    for pod in pods.values():
        if pod.group is not None and pod.group not in known and pod.group.count("/") == 1:
            members.setdefault(pod.group, []).append(pod)
    out = []
    for key, group_pods in members.items():
        spec = kai.pod_groups.get(key)
        namespace = key.split("/", 1)[0]
        if spec is not None and spec.synthesised:  # a bare pod's: after the inputs' groups
            out.append(PodGroup(key, namespace, Policy.BASIC, 1, None, "PodGroup",
                                KAI_POD_GROUP_API, spec.source, after + group_pods[0].order))
        elif spec is not None:
            minimum = 1 if spec.min_member is None else spec.min_member
            out.append(PodGroup(key, namespace, Policy.GANG if minimum > 1 else Policy.BASIC,
                                max(minimum, 1), None, "PodGroup", KAI_POD_GROUP_API,
                                spec.source, positions[spec.source]))
        elif all(p.scheduler_name == KAI_SCHEDULER for p in group_pods if not p.node_name):
            first = min(group_pods, key=lambda p: p.order)
            out.append(PodGroup(key, namespace, Policy.BASIC, 1, None, "PodGroup",
                                KAI_POD_GROUP_API, first.source, after + first.order))
        else:
            for pod in group_pods:
                pkey = (pod.namespace, pod.name)
                if (annotations.get(pkey) or {}).get(POD_GROUP_ANNOTATION) == \
                        key.split("/", 1)[1]:
                    pods[pkey] = replace(pod, group=None)
    return out


def _server_version(pod_docs: list[Document]) -> str:
    """The API server version a tasplan snapshot (or a live read) recorded, "" if none."""
    for d in pod_docs:
        if d.model is None and snapshot_format.is_snapshot(d.obj):
            meta = d.obj.get("metadata")
            version = meta.get("serverVersion") if isinstance(meta, dict) else None
            if isinstance(version, str) and version:
                return version
    return ""


def _templates(workloads: dict, c) -> dict | None:
    wl = workloads.get((c.namespace, c.workload))
    return wl.composites if wl is not None else None


def _default_spread_selectors(pods: dict, owners: dict, selectors: SpreadSelectors) -> None:
    """Pending pods without spread constraints get the selector their default constraints
    count with (upstream computes it per scheduling attempt; the inputs do not change)."""
    for key, pod in pods.items():
        if not pod.node_name and not pod.spread_constraints:
            selector = selectors.default_selector(pod, owners.get(key))
            if selector is not None:
                pods[key] = replace(pod, default_spread_selector=selector)


def _group_priority(spec: scheduling.GroupSpec, f: ObjectFields, field: str,
                    priorities: PriorityResolver) -> int | None:
    if spec.priority is not None:
        return spec.priority
    if spec.priority_class_name:
        return priorities.resolve(f, spec.priority_class_name, field, "PodGroup")
    return None


def _pod_group(pg: scheduling.PodGroupDef, workloads: dict, priorities: PriorityResolver,
               order: int) -> PodGroup:
    spec = pg.spec
    f = ObjectFields(pg.source, {"kind": "PodGroup",
                                 "metadata": {"name": pg.name, "namespace": pg.namespace}})
    if pg.workload is not None:
        wl = workloads.get((pg.namespace, pg.workload))
        template = wl.groups.get(pg.template) if wl is not None else None
        if template is not None:
            # Controllers copy the template; a PodGroup without its own fields inherits them.
            spec = scheduling.GroupSpec(
                spec.policy or template.policy,
                spec.min_count if spec.policy else template.min_count,
                spec.topology_key or template.topology_key,
                spec.priority if spec.priority is not None else template.priority,
                spec.priority_class_name or template.priority_class_name,
                spec.claims or template.claims,
                spec.preemption_policy or template.preemption_policy,
                spec.disrupt_all if spec.disrupt_all is not None else template.disrupt_all,
            )
        elif spec.policy is None:
            raise f.error("spec.schedulingPolicy", "required field is missing, and the "
                          f"referenced Workload template {pg.workload}/{pg.template} is not in "
                          "the inputs")
    return PodGroup(
        key=f"{pg.namespace}/{pg.name}", namespace=pg.namespace, policy=spec.policy,
        min_count=spec.min_count or 1, topology_key=spec.topology_key, kind="PodGroup",
        api_version=pg.api_version, source=pg.source, order=order,
        priority=_group_priority(spec, f, "spec.priorityClassName", priorities),
        priority_class_name=spec.priority_class_name,
        scheduled_condition=pg.scheduled_condition,
        parent=f"{pg.namespace}/{pg.parent}" if pg.parent else None,
        claims=spec.claims, claim_statuses=pg.claim_statuses,
        preemption_policy=spec.preemption_policy, disrupt_all=bool(spec.disrupt_all),
    )


def _legacy_groups(workloads: dict, pods: dict, groups: list[PodGroup],
                   warnings: list[str], positions: dict) -> None:
    """v1alpha1: one group per (workload, podGroup, replicaKey) the pods name, plus one per
    declared podGroup no pod names yet."""
    if all(wl.api_version != scheduling.LEGACY for wl in workloads.values()):
        return  # below, every key without a v1alpha1 Workload is skipped: no pass over pods
    referenced: dict[str, None] = {}
    named: set[str] = set()  # the ns/workload/podGroup part of every referenced key
    for pod in pods.values():
        if pod.group and pod.group.count("/") >= 2 and pod.group not in referenced:
            referenced[pod.group] = None
            named.add("/".join(pod.group.split("/", 3)[:3]))
    for (ns, name), wl in workloads.items():
        if wl.api_version != scheduling.LEGACY:
            continue
        for pg_name in wl.groups:
            base = f"{ns}/{name}/{pg_name}"
            if base not in named:
                referenced.setdefault(base)
    for key in referenced:
        ns, wl_name, pg_name, *_ = key.split("/")
        wl = workloads.get((ns, wl_name))
        if wl is None or wl.api_version != scheduling.LEGACY:
            continue  # reported as dangling
        spec = wl.groups.get(pg_name)
        if spec is None:
            warnings.append(f"pods reference podGroup {pg_name!r}, which Workload {ns}/{wl_name} "
                            "does not declare")
            continue
        groups.append(PodGroup(
            key=key, namespace=ns, policy=spec.policy, min_count=spec.min_count or 1,
            topology_key=None, kind="Workload", api_version=wl.api_version, source=wl.source,
            order=positions[wl.source]))

