"""The PodGroup KAI plans a group as: the ``scheduling.run.ai`` PodGroup of the group's name
when the inputs hold one, else the one KAI's pod grouper would create for its pods' top
owner (``pkg/podgrouper/podgrouper/plugins``, KAI d5bc503a): the default grouper gives
minMember 1 and copies the owner's ``kai.scheduler/topology*`` annotations into the topology
constraint; the Job grouper takes minMember from ``kai.scheduler/batch-min-member``; the
JobSet grouper (``jobset/jobset_grouper.go``) makes a subgroup per replicated Job and a leaf
per replica (its Job's parallelism or ``batch-min-member``, its Job template's topology
annotations); the Kubeflow groupers (``kubeflow/``) take the job's minimum and a
PyTorchJob's master and worker subgroups. The groupers of other kinds (LeaderWorkerSet, Ray,
Grove, ...) and PyTorch segments: not modelled, said in note kai-podgrouper."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tasplan.model.group import Expansion, PodGroup
from tasplan.model.kai import Constraint, KaiPodGroup, SubGroup
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.fidelity import Note

TOPOLOGY = "kai.scheduler/topology"
REQUIRED = "kai.scheduler/topology-required-placement"
PREFERRED = "kai.scheduler/topology-preferred-placement"
MIN_MEMBER = "kai.scheduler/batch-min-member"
SEGMENT_SIZE = "kai.scheduler/segment-size"
REPLICATED_JOB_LABEL = "jobset.sigs.k8s.io/replicatedjob-name"
JOB_INDEX_LABEL = "jobset.sigs.k8s.io/job-index"
REPLICA_TYPE_LABEL = "training.kubeflow.org/replica-type"
JOB_ROLE_LABEL = "training.kubeflow.org/job-role"
# The Kubeflow jobs' groupers (plugins/kubeflow): the replica specs' field and the replica
# types a job must have.
KUBEFLOW = {"TFJob": ("tfReplicaSpecs", ()), "PyTorchJob": ("pytorchReplicaSpecs", ()),
            "XGBoostJob": ("xgbReplicaSpecs", ()), "JAXJob": ("jaxReplicaSpecs", ("Worker",)),
            "MPIJob": ("mpiReplicaSpecs", ("Launcher", "Worker"))}
_MODELLED = ("Job", "JobSet", *KUBEFLOW)


class GrouperError(ValueError):
    """KAI's pod grouper fails on the workload: it creates no PodGroup, so KAI never
    schedules the pods (the grouper's own words)."""


def pod_group_for(group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot
                  ) -> tuple[KaiPodGroup, tuple[Note, ...]]:
    spec = snapshot.kai.pod_groups.get(group.key)
    if spec is not None:
        return spec, ()
    owner = _top_owner(group)
    name = group.key.rsplit("/", 1)[-1]
    if owner is None:
        return KaiPodGroup(group.namespace, name, 1, None, "", "", Constraint(), (),
                           group.source, synthesised=True), (Note("kai-podgrouper", (
            f"no scheduling.run.ai PodGroup {group.key} in the inputs: planned as the one "
            "KAI's pod grouper makes for a workload without annotations, minMember 1 and no "
            "topology constraint; the pods beyond the first are allocated one at a time")),)
    constraint = Constraint(owner.annotation(TOPOLOGY) or "", owner.annotation(REQUIRED) or "",
                            owner.annotation(PREFERRED) or "")
    if owner.kind == "JobSet":
        obj = _object_of(snapshot, group)
        if obj is not None and _whole_jobset(obj, pods):
            return jobset_pod_group(group, pods, obj)
    if owner.kind in KUBEFLOW:
        obj = _object_of(snapshot, group)
        if obj is not None:
            return kubeflow_pod_group(group, pods, obj, owner.kind)
    minimum, said = 1, "minMember 1"
    override = owner.annotation(MIN_MEMBER)
    if owner.kind == "Job" and override is not None:
        try:
            minimum, said = int(override), f"minMember {override} ({MIN_MEMBER})"
        except ValueError:
            said = (f"minMember 1 (KAI's pod grouper fails on {MIN_MEMBER}={override!r} "
                    "and makes no PodGroup: the pods would stay pending)")
    kind_note = "" if owner.kind in _MODELLED else (
        f"; KAI's grouper for a {owner.kind} may set a larger minMember and subgroups, "
        "not modelled: write a scheduling.run.ai PodGroup to plan them")
    if owner.kind == "JobSet":
        kind_note = ("; KAI's JobSet grouper makes one PodGroup with subgroups for the whole "
                     "JobSet, but this group holds only some of its replicated Jobs: not "
                     "modelled, write a scheduling.run.ai PodGroup to plan it")
    has_topology = constraint.required or constraint.preferred
    return KaiPodGroup(group.namespace, name, minimum, None, "", "", constraint, (),
                       group.source, synthesised=True), (Note("kai-podgrouper", (
        f"no scheduling.run.ai PodGroup {group.key} in the inputs: planned as the one KAI's "
        f"pod grouper makes from {owner.kind} {owner.name}: {said}, "
        + (f"topology {constraint.topology or '(none)'} required "
           f"{constraint.required or '-'} preferred {constraint.preferred or '-'} "
           "(its kai.scheduler/topology* annotations)" if has_topology
           else "no topology constraint") + kind_note)),)


def _top_owner(group: PodGroup) -> Expansion | None:
    """The object KAI's pod grouper reads: the one the group's pods were expanded from,
    when it is their top owner (nothing it was expanded through)."""
    if len(group.expansions) != 1 or group.expansions[0].via:
        return None
    return group.expansions[0]


def _object_of(snapshot: ClusterSnapshot, group: PodGroup) -> Mapping[str, Any] | None:
    """The top owner as written in the inputs (the document the group was expanded from)."""
    for doc in snapshot.documents:
        if doc.source == group.source:
            return doc.obj
    return None


def _replicated_jobs(obj: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    spec = obj.get("spec") or {}
    return [rj for rj in spec.get("replicatedJobs") or () if isinstance(rj, dict)]


def _whole_jobset(obj: Mapping[str, Any], pods: Sequence[Pod]) -> bool:
    """KAI makes one PodGroup for a whole JobSet; tasplan's group must hold the pods of every
    replicated Job for it to be that PodGroup (not one group per replicated Job)."""
    names = {rj.get("name") for rj in _replicated_jobs(obj)}
    return bool(names) and names <= {p.labels.get(REPLICATED_JOB_LABEL) for p in pods}


def _int32(text: str, what: str) -> int:
    """``strconv.ParseInt(text, 10, 32)``, at least 1, as the JobSet grouper requires."""
    body = text[1:] if text[:1] in "+-" else text
    if not body.isascii() or not body.isdigit() or not -2**31 <= int(text) < 2**31:
        raise GrouperError(f"invalid {MIN_MEMBER} annotation on {what}: strconv.ParseInt: "
                           f"parsing {text!r}: invalid syntax")
    value = int(text)
    if value < 1:
        raise GrouperError(f"invalid {MIN_MEMBER} annotation on {what}: value {value} must "
                           "be >= 1")
    return value


def _nested_int(obj: Mapping[str, Any], path: tuple[str, ...], default: int) -> int:
    value: Any = obj
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool):
        raise GrouperError(f"failed to read {'.'.join(path)}: not an integer")
    return value


def _template_annotations(rj: Mapping[str, Any]) -> Mapping[str, str]:
    meta = (rj.get("template") or {}).get("metadata") or {}
    annotations = meta.get("annotations") or {}
    return annotations if isinstance(annotations, dict) else {}


def jobset_pod_group(group: PodGroup, pods: Sequence[Pod], obj: Mapping[str, Any]
                     ) -> tuple[KaiPodGroup, tuple[Note, ...]]:
    """``JobSetGrouper.GetPodGroupMetadata``: the root needs ``minSubGroup`` replicated Jobs
    (all of them; 1 with ``startupPolicyOrder: InOrder``; the JobSet's ``batch-min-member``,
    at most their count), each replicated Job all its replicas, each replica (leaf
    ``<job>-replica-<i>``) its Job's parallelism or the template's ``batch-min-member``."""
    jobs = _replicated_jobs(obj)
    if not jobs:
        raise GrouperError(f"jobset {group.key} has no replicatedJobs")
    owner = (obj.get("metadata") or {}).get("annotations") or {}
    constraint = Constraint(str(owner.get(TOPOLOGY) or ""), str(owner.get(REQUIRED) or ""),
                            str(owner.get(PREFERRED) or ""))  # the default grouper's
    override = owner.get(MIN_MEMBER)
    if override is not None:
        root = min(_int32(str(override), "JobSet"), len(jobs))
    else:
        order = ((obj.get("spec") or {}).get("startupPolicy") or {}).get("startupPolicyOrder")
        root = 1 if order == "InOrder" else len(jobs)
    subgroups: list[SubGroup] = []
    for i, rj in enumerate(jobs):
        name = rj.get("name")
        if not isinstance(name, str) or not name:
            raise GrouperError(f"replicatedJobs[{i}] missing name")
        replicas = _nested_int(rj, ("replicas",), 1)
        annotations = _template_annotations(rj)
        leaf_min = _nested_int(rj, ("template", "spec", "parallelism"), 1)
        if annotations.get(MIN_MEMBER) is not None:
            leaf_min = _int32(str(annotations[MIN_MEMBER]), "replicatedJob template")
        leaf = Constraint(str(annotations.get(TOPOLOGY) or ""),
                          str(annotations.get(REQUIRED) or ""),
                          str(annotations.get(PREFERRED) or ""))
        leaf_constraint = leaf if leaf.topology and (leaf.required or leaf.preferred) else None
        subgroups.append(SubGroup(name, None, replicas, None, None))
        subgroups += [SubGroup(f"{name}-replica-{r}", leaf_min, None, name, leaf_constraint)
                      for r in range(replicas)]
    routed = []
    for pod in pods:
        for label in (REPLICATED_JOB_LABEL, JOB_INDEX_LABEL):
            if not pod.labels.get(label):
                raise GrouperError(f"pod {pod.key} missing required label {label!r}")
        routed.append((pod.name, f"{pod.labels[REPLICATED_JOB_LABEL]}-replica-"
                                  f"{pod.labels[JOB_INDEX_LABEL]}"))
    name = group.key.rsplit("/", 1)[-1]
    spec = KaiPodGroup(group.namespace, name, None, root, "", "", constraint, tuple(subgroups),
                       group.source, synthesised=True, pod_subgroups=tuple(routed))
    leaves = ", ".join(f"{rj['name']} ×{_nested_int(rj, ('replicas',), 1)}" for rj in jobs)
    return spec, (Note("kai-podgrouper", (
        f"no scheduling.run.ai PodGroup {group.key} in the inputs: planned as the one KAI's "
        f"JobSet grouper makes: {root} of {len(jobs)} replicated Job(s) ({leaves}), each "
        "replica a subgroup of its Job's parallelism (or its template's "
        f"{MIN_MEMBER}) with its template's kai.scheduler/topology* constraint; topology "
        f"{constraint.topology or '(none)'} required {constraint.required or '-'} preferred "
        f"{constraint.preferred or '-'} for the whole JobSet")),)


def _kubeflow_min_available(obj: Mapping[str, Any], kind: str, field: str,
                            mandatory: Sequence[str]) -> int:
    """``KubeflowDistributedGrouper``: ``runPolicy.schedulingPolicy.minAvailable``, else every
    replica of every replica type (none may have 0 replicas)."""
    spec = obj.get("spec") or {}
    name = (obj.get("metadata") or {}).get("name", "")
    minimum = _nested_int(spec, ("runPolicy", "schedulingPolicy", "minAvailable"), -1)
    if minimum >= 0:
        return minimum
    replicas = spec.get(field)
    if not isinstance(replicas, dict):
        raise GrouperError(f"the type of the job {name} doesn't have a {field} field. Please "
                           "fix the replica field")
    for required in mandatory:
        if required not in replicas:
            raise GrouperError(f"the type of the job {name} doesn't have a {required} replica "
                               "spec which is required. Please fix the replica field")
    total = 0
    for spec_name, replica in replicas.items():
        count = _nested_int(replica if isinstance(replica, dict) else {}, ("replicas",), 0)
        if count == 0:
            raise GrouperError(f"the type of the job {name} doesn't allow for 0 {spec_name} "
                               "pods. Please fix the replica field")
        total += count
    return total


def kubeflow_pod_group(group: PodGroup, pods: Sequence[Pod], obj: Mapping[str, Any],
                       kind: str) -> tuple[KaiPodGroup, tuple[Note, ...]]:
    """The Kubeflow groupers (``plugins/kubeflow``): minMember from the job's
    ``schedulingPolicy.minAvailable`` or all its replicas; a PyTorchJob's elastic
    ``minReplicas`` (then ``minAvailable``) wins and its Master and Worker replicas become
    subgroups ``master`` (all its replicas) and ``worker`` (the rest of the minimum); an
    MPIJob that creates its launcher once the workers are ready needs it only once it
    exists. Topology from the job's ``kai.scheduler/topology*`` annotations."""
    field, mandatory = KUBEFLOW[kind]
    minimum = _kubeflow_min_available(obj, kind, field, mandatory)
    spec = obj.get("spec") or {}
    said = [f"minMember {minimum}"]
    notes = []
    subgroups: list[SubGroup] = []
    routed: list[tuple[str, str]] = []
    if kind == "MPIJob" and spec.get("launcherCreationPolicy") == "WaitForWorkersReady" and \
            not any(p.labels.get(JOB_ROLE_LABEL) == "launcher" and not p.synthesised
                    and not p.deleting for p in pods):
        minimum -= _nested_int(spec, (field, "Launcher", "replicas"), 0)
        said = [f"minMember {minimum} (the launcher comes once the workers are ready)"]
    if kind == "PyTorchJob":
        minimum = _nested_int(spec, ("elasticPolicy", "minReplicas"), minimum)
        minimum = _nested_int(spec, ("runPolicy", "schedulingPolicy", "minAvailable"), minimum)
        said = [f"minMember {minimum}"]
        replicas = spec.get(field) or {}
        master = _nested_int(replicas.get("Master") or {}, ("replicas",), 0)
        if "Master" in replicas and master:
            subgroups.append(SubGroup("master", master, None, None, None))
        if "Worker" in replicas:
            worker = replicas.get("Worker") or {}
            annotations = ((worker.get("template") or {}).get("metadata") or {}).get(
                "annotations") or {}
            if isinstance(annotations, dict) and annotations.get(SEGMENT_SIZE):
                notes.append(f"segments ({SEGMENT_SIZE}) are not modelled: the workers are "
                             "one subgroup")
            subgroups.append(SubGroup("worker", max(0, minimum - master), None, None, None))
        for pod in pods:
            kind_of = pod.labels.get(REPLICA_TYPE_LABEL)
            if kind_of in ("master", "worker") and any(sg.name == kind_of for sg in subgroups):
                routed.append((pod.name, kind_of))
        said.append("subgroups " + ", ".join(f"{sg.name} (minMember {sg.min_member})"
                                             for sg in subgroups))
    owner = (obj.get("metadata") or {}).get("annotations") or {}
    constraint = Constraint(str(owner.get(TOPOLOGY) or ""), str(owner.get(REQUIRED) or ""),
                            str(owner.get(PREFERRED) or ""))
    name = group.key.rsplit("/", 1)[-1]
    pod_group = KaiPodGroup(group.namespace, name, minimum, None, "", "", constraint,
                            tuple(subgroups), group.source, synthesised=True,
                            pod_subgroups=tuple(routed))
    return pod_group, (Note("kai-podgrouper", (
        f"no scheduling.run.ai PodGroup {group.key} in the inputs: planned as the one KAI's "
        f"{kind} grouper makes: {', '.join(said)}; topology {constraint.topology or '(none)'} "
        f"required {constraint.required or '-'} preferred {constraint.preferred or '-'}"
        + "".join(f"; {n}" for n in notes))),)
