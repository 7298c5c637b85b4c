"""Kueue Workload objects without their job in the inputs -> a group of their own.

A ``kueue.x-k8s.io`` Workload is what Kueue admits: its ``spec.podSets`` carry the pod
templates, counts and topology requests its job integration read from the job. When the
inputs hold the job (a Job, JobSet, plain-pod group, ...) the job's group is the workload
(its Workload object then only says whether and where it was admitted). A Workload whose
job is not there (``kubectl get workloads`` without the jobs, or a Workload made by hand)
becomes a group ``<ns>/<name>`` of kind Workload: one PodSet per ``spec.podSets[]``, its
pods made from the template as the job's controller would make them once Kueue starts it.
Pods in the inputs that name the Workload (``kueue.x-k8s.io/workload``, per PodSet by the
``kueue.x-k8s.io/podset`` label) and belong to no group count as its existing pods.

Workloads of the cluster inputs become groups only while pending (no quota reserved): an
admitted one's topology assignment already holds its domains. ``tasplan explain
unschedulable`` finds the pending ones, and the jobs whose Workload is pending (a
suspended Job has no pod to wait), by ``PodGroup.scheduled_condition`` False.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from tasplan.load.core_v1 import PriorityResolver, decode_pod
from tasplan.load.document import Document
from tasplan.load.fields import ObjectFields
from tasplan.load.producers import check_expansion
from tasplan.model import kueue as k
from tasplan.model.group import Expansion, PodGroup, PodSet, Policy, pairs
from tasplan.model.pod import DEFAULT_SCHEDULER, Pod

PODSET_LABEL = "kueue.x-k8s.io/podset"
NOTE = "kueue-workload"


def add_groups(docs: Sequence[Document], kueue: k.KueueInputs, groups: list[PodGroup],
               pods: dict[tuple[str, str], Pod], priorities: PriorityResolver, order: int,
               positions: Mapping, total: int) -> tuple[int, int]:
    """Append a group (and its pods) for every Workload of ``docs`` no group stands for.
    Returns the next pod order and the pods synthesised so far (one limit for all)."""
    if not kueue.workloads:
        return order, total  # everything below looks Workloads up: not a pass over the pods
    owners = k.owner_index(kueue.workloads)
    by_group: dict[str, list[Pod]] = {}
    loose: dict[tuple[str, str], list[Pod]] = {}  # (ns, workload) -> pods of no group
    for pod in pods.values():
        if pod.group is not None:
            by_group.setdefault(pod.group, []).append(pod)
        elif pod.kueue_workload and not pod.terminal:
            loose.setdefault((pod.namespace, pod.kueue_workload), []).append(pod)
    matched = set()
    for i, g in enumerate(groups):
        wl = k.workload_for(g, by_group.get(g.key, ()), kueue.workloads, owners)
        if wl is None:
            continue
        matched.add(wl.key)
        if not wl.quota_reserved and g.scheduled_condition is None:
            # A job Kueue holds back (suspended, or its pods gated) has no pending pod yet:
            # its Workload's missing quota reservation is what says it waits.
            groups[i] = replace(g, scheduled_condition=False)
    for doc in docs:
        meta = doc.obj.get("metadata") or {}
        key = f"{meta.get('namespace') or 'default'}/{meta.get('name')}"
        wl = kueue.workloads.get(key)
        if wl is None or wl.source != doc.source or wl.key in matched or wl.finished:
            continue  # a duplicate (the one kept is elsewhere), its job's group, or history
        if wl.quota_reserved and not doc.source.workload:
            continue
        group, order, total = _group(doc, wl, pods, loose.get((wl.namespace, wl.name), []),
                                     priorities, order, positions[doc.source], total)
        groups.append(group)
    return order, total


def _group(doc: Document, wl: k.Workload, pods: dict[tuple[str, str], Pod],
           loose: list[Pod], priorities: PriorityResolver, order: int, position: int,
           total: int) -> tuple[PodGroup, int, int]:
    f = ObjectFields(doc.source, doc.obj)
    spec = doc.obj.get("spec") or {}
    raw_sets = spec.get("podSets") or []
    sets, made, existing = [], 0, 0
    for i, (ps, raw) in enumerate(zip(wl.pod_sets, raw_sets, strict=True)):
        path = f"spec.podSets[{i}].template"
        template = raw.get("template") or {}
        tmeta = template.get("metadata") or {}
        labels = {**(tmeta.get("labels") or {}), PODSET_LABEL: ps.name}
        mine = [p for p in loose if p.labels.get(PODSET_LABEL, ps.name) == ps.name]
        loose = [p for p in loose if p not in mine]
        for p in mine:
            pods[(p.namespace, p.name)] = replace(p, group=wl.key)
        names = [p.name for p in mine]
        index_label = (ps.topology or {}).get("podIndexLabel")
        taken = {p.labels.get(index_label) for p in mine} if index_label else set()
        free = (str(j) for j in range(ps.count + len(mine)) if str(j) not in taken)
        missing = max(ps.count - len(mine), 0)
        check_expansion(f, f"spec.podSets[{i}].count", missing, total)
        total += missing
        j = 0
        while len(names) < ps.count:
            name = f"{wl.name}-{ps.name}-{j}"
            j += 1
            if (wl.namespace, name) in pods:
                continue
            pod_labels = dict(labels)
            if index_label:
                pod_labels[index_label] = next(free)
            obj: dict[str, Any] = {
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": wl.namespace, "labels": pod_labels},
                "spec": template.get("spec") or {}}
            pod = decode_pod(doc.source, obj, order, priorities, group=wl.key,
                             spec_path=f"{path}.spec", synthesised=True, owner=f)
            order += 1
            pods[(wl.namespace, name)] = pod
            names.append(name)
            made += 1
        existing += len(mine)
        tspec = template.get("spec") or {}
        scheduler = tspec.get("schedulerName")
        sets.append(PodSet(ps.name, ps.count, tuple(names), pairs(labels),
                           pairs(tmeta.get("annotations")),
                           scheduler if isinstance(scheduler, str) and scheduler
                           else DEFAULT_SCHEDULER, ps.min_count, path))
    meta = doc.obj.get("metadata") or {}
    state = "admitted" if wl.quota_reserved else "pending"
    note = (NOTE, f"Kueue Workload {wl.key} ({state}) without its job in the inputs: planned "
                  "from its spec.podSets, each pod made from the PodSet's template as the "
                  "job's controller would make it once Kueue starts the job")
    group = PodGroup(
        key=wl.key, namespace=wl.namespace, policy=Policy.BASIC, min_count=1,
        topology_key=None, kind="Workload", api_version=wl.api_version, source=wl.source,
        order=position, priority=wl.priority, scheduled_condition=wl.quota_reserved,
        expansions=(Expansion("Workload", wl.key, made, existing, wl.api_version,
                              pairs(meta.get("labels")), pairs(meta.get("annotations")),
                              tuple(sets)),),
        notes=(note,))
    return group, order, total
