"""Kubeflow Trainer v2 trainer.kubeflow.org/v1alpha1 TrainJob -> the JobSet its runtime
makes, and that JobSet's pods (see ``producers`` and ``jobset``).

Mirrors kubeflow/trainer v2.3.0 (658725bdae5c7e3a0854d93ac6ff492e109a22ab; unchanged in
these parts at master 8c0f5059): ``pkg/runtime/core/trainingruntime.go``
(``newRuntimeInfo``, ``mergeRuntimePatches``), the framework plugins ``jobset``
(``syncParallelCount``, ``Build``; ``builder.go``: ``Initializer``, ``Trainer``), ``plainml``,
``torch``, ``jax``, ``xgboost``, ``mpi`` (``EnforceMLPolicy``), ``coscheduling`` and
``volcano`` (``EnforcePodGroupPolicy``, ``Build``):

- the runtime (``spec.runtimeRef``: a ClusterTrainingRuntime by default, or a
  TrainingRuntime of the TrainJob's namespace) must be in the inputs (workload files,
  ``--cluster`` or ``--live``); without it the TrainJob is skipped and the report says so;
- its JobSet template, with the TrainJob's ``runtimePatches`` merged in (a strategic merge
  patch, see ``smp``), becomes JobSet ``<trainjob>`` with the runtime template's labels and
  annotations;
- each replicated Job is a PodSet of ``parallelism`` pods, the trainer one (label
  ``trainer.kubeflow.org/trainjob-ancestor-step: trainer``) of ``mlPolicy.numNodes``, both
  overridden by the TrainJob's ``trainer.numNodes`` (MPI: the ``node`` Job, one fewer with
  ``runLauncherAsNode``); the count becomes the Job's ``parallelism`` and ``completions``,
  and the initializer and trainer Jobs get one replica;
- ``trainer.resourcesPerNode`` is merged into the ``node`` container of the trainer Job;
- ``podGroupPolicy.coscheduling`` labels every pod ``scheduling.x-k8s.io/pod-group:
  <trainjob>`` and ``podGroupPolicy.volcano`` annotates it ``scheduling.k8s.io/group-name``,
  with a PodGroup of ``minMember`` = the sum of the PodSets' counts: planned as a
  kube-scheduler gang of that size, with a note. Without a podGroupPolicy the JobSet's own
  ``gangPolicy`` decides (JobSet's workload-aware scheduling), else basic (``--gang``).

The runtime's template fields are decoded against the runtime (its file and field paths,
reported as the JobSet the Trainer would create); the TrainJob's own fields against the
TrainJob.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from tasplan.load import smp
from tasplan.load.documents import Document
from tasplan.load.fields import ObjectFields
from tasplan.load.jobset import VERSIONS as JOBSET_VERSIONS
from tasplan.load.jobset import decode_jobset
from tasplan.load.producers import Overrides, Producer, Unplannable, identity
from tasplan.load.scheduling import GroupSpec
from tasplan.model.group import Policy
from tasplan.model.source import Source

GROUP = "trainer.kubeflow.org"
VERSIONS = (f"{GROUP}/v1alpha1",)
RUNTIME_KINDS = ("TrainingRuntime", "ClusterTrainingRuntime")
ANCESTOR = f"{GROUP}/trainjob-ancestor-step"
TRAINER = "trainer"
NODE = "node"
INITIALIZERS = ("dataset-initializer", "model-initializer")
COSCHEDULING_LABEL = "scheduling.x-k8s.io/pod-group"
VOLCANO_ANNOTATION = "scheduling.k8s.io/group-name"

Runtimes = Mapping[tuple[str, str, str], Document]  # (kind, namespace or "", name) -> doc


def runtime_index(docs: list[Document]) -> dict[tuple[str, str, str], Document]:
    """TrainingRuntimes by (kind, namespace, name), ClusterTrainingRuntimes with namespace
    ""; a later document replaces an earlier one (a workload file over the cluster)."""
    out = {}
    for d in docs:
        meta = d.obj.get("metadata")
        name = meta.get("name") if isinstance(meta, dict) else None
        if not isinstance(name, str):
            continue
        kind = d.obj["kind"]
        ns = (meta.get("namespace") or "default") if kind == "TrainingRuntime" else ""
        out[(kind, ns if isinstance(ns, str) else "", name)] = d
    return out


def _runtime(f: ObjectFields, namespace: str, spec: Mapping[str, Any], runtimes: Runtimes
             ) -> Document:
    ref = f.mapping(spec.get("runtimeRef"), "spec.runtimeRef")
    name = f.string(ref.get("name"), "spec.runtimeRef.name", required=True)
    group = f.string(ref.get("apiGroup"), "spec.runtimeRef.apiGroup") or GROUP
    if group != GROUP:
        raise f.expected("spec.runtimeRef.apiGroup", GROUP, group)
    kind = f.string(ref.get("kind"), "spec.runtimeRef.kind") or "ClusterTrainingRuntime"
    if kind not in RUNTIME_KINDS:
        raise f.expected("spec.runtimeRef.kind", "one of " + ", ".join(RUNTIME_KINDS), kind)
    doc = runtimes.get((kind, namespace if kind == "TrainingRuntime" else "", name))
    if doc is None:
        where = f" in namespace {namespace}" if kind == "TrainingRuntime" else ""
        raise Unplannable(f"its runtime, {kind} {name}{where}, is not in the inputs",
                          f"pass the runtime too: kubectl get {kind.lower()}s -o yaml")
    return doc


def decode_trainjob(source: Source, obj: Mapping[str, Any], overrides: Overrides,
                    runtimes: Runtimes) -> Producer:
    f = ObjectFields(source, obj)
    namespace, name, spec = identity(f)
    doc = _runtime(f, namespace, spec, runtimes)
    rt = ObjectFields(doc.source, doc.obj)
    rspec = rt.mapping(doc.obj.get("spec"), "spec")
    template = rt.mapping(rspec.get("template"), "spec.template")
    tmeta = rt.mapping(template.get("metadata"), "spec.template.metadata")
    labels = dict(rt.string_map(tmeta.get("labels"), "spec.template.metadata.labels"))
    annotations = dict(rt.string_map(tmeta.get("annotations"),
                                     "spec.template.metadata.annotations"))
    js_spec = dict(rt.mapping(template.get("spec"), "spec.template.spec"))
    rjobs = rt.sequence(js_spec.get("replicatedJobs"), "spec.template.spec.replicatedJobs")
    order = {rj.get("name"): i for i, rj in enumerate(rjobs) if isinstance(rj, dict)}
    for i, raw in enumerate(f.sequence(spec.get("runtimePatches"), "spec.runtimePatches")):
        path = f"spec.runtimePatches[{i}]"
        patch = f.mapping(raw, path)
        rts = f.mapping(patch.get("trainingRuntimeSpec"), f"{path}.trainingRuntimeSpec")
        tpl = f.mapping(rts.get("template"), f"{path}.trainingRuntimeSpec.template")
        tp = f"{path}.trainingRuntimeSpec.template"
        md = f.mapping(tpl.get("metadata"), f"{tp}.metadata")
        labels.update(f.string_map(md.get("labels"), f"{tp}.metadata.labels"))
        annotations.update(f.string_map(md.get("annotations"), f"{tp}.metadata.annotations"))
        patch_spec = f.mapping(tpl.get("spec"), f"{tp}.spec")
        for j, rjp in enumerate(f.sequence(patch_spec.get("replicatedJobs"),
                                           f"{tp}.spec.replicatedJobs")):
            rjp = f.mapping(rjp, f"{tp}.spec.replicatedJobs[{j}]")
            if rjp.get("name") not in order:
                raise f.error(f"{tp}.spec.replicatedJobs[{j}].name", "must not have replicated "
                              "job that doesn't exist in the runtime job template")
        js_spec = smp.merge(js_spec, patch_spec)
    rjobs = sorted((rj for rj in js_spec.get("replicatedJobs") or [] if isinstance(rj, dict)),
                   key=lambda rj: order.get(rj.get("name"), len(order)))

    ml = rt.mapping(rspec.get("mlPolicy"), "spec.mlPolicy")
    mpi = rt.mapping(ml.get("mpi"), "spec.mlPolicy.mpi") if ml.get("mpi") is not None else None
    launcher_as_node = bool(mpi and mpi.get("runLauncherAsNode") is True)
    ml_nodes = ml.get("numNodes")
    ml_nodes = 1 if ml_nodes is None else rt.int32(ml_nodes, "spec.mlPolicy.numNodes",
                                                   minimum=0)
    trainer = f.mapping(spec.get("trainer"), "spec.trainer")
    num_nodes = trainer.get("numNodes")
    num_nodes = None if num_nodes is None else f.int32(num_nodes, "spec.trainer.numNodes",
                                                       minimum=0)
    per_node = f.mapping(trainer.get("resourcesPerNode"), "spec.trainer.resourcesPerNode")
    group_policy = rt.mapping(rspec.get("podGroupPolicy"), "spec.podGroupPolicy")
    coscheduling = group_policy.get("coscheduling") is not None
    volcano = group_policy.get("volcano") is not None

    total = 0
    out = []
    for rj in rjobs:
        job = dict(rj.get("template") or {}) if isinstance(rj.get("template"), dict) else {}
        job_meta = job.get("metadata") if isinstance(job.get("metadata"), dict) else {}
        ancestor = (job_meta.get("labels") or {}).get(ANCESTOR) \
            if isinstance(job_meta.get("labels") or {}, dict) else None
        job_spec = dict(job.get("spec") or {}) if isinstance(job.get("spec"), dict) else {}
        count = job_spec.get("parallelism", 1)
        count = count if isinstance(count, int) else 1  # the JobSet decoder reports it
        if ancestor == TRAINER and ml:
            count = ml_nodes
        if num_nodes is not None:
            if mpi is not None:
                if rj.get("name") == NODE:
                    count = max(num_nodes - 1, 1) if launcher_as_node else num_nodes
            elif ancestor == TRAINER:
                count = num_nodes
        job_spec["parallelism"] = job_spec["completions"] = count
        rj = dict(rj)
        if ancestor in (TRAINER, *INITIALIZERS):
            rj["replicas"] = 1
        pod = job_spec.get("template")
        if isinstance(pod, dict):
            pod = _pod_policy(pod, name, coscheduling, volcano)
            if per_node and ((ancestor == TRAINER and ml)
                             or (launcher_as_node and rj.get("name") == NODE)):
                pod = _with_resources(pod, per_node)
            job_spec["template"] = pod
        rj["template"] = {**job, "spec": job_spec}
        out.append(rj)
        total += count

    jobset = {"apiVersion": JOBSET_VERSIONS[0], "kind": "JobSet",
              "metadata": {"name": name, "namespace": namespace, "labels": labels,
                           "annotations": annotations},
              "spec": {**js_spec, "replicatedJobs": out}}
    runtime_source = doc.source._replace(nested=_join(doc.source.nested, "spec.template"))
    made = decode_jobset(runtime_source, jobset, overrides)
    kind = doc.obj["kind"]
    via = f"{kind} {rt.name}"
    notes: tuple[tuple[str, str], ...] = ()
    explicit, default, specs = made.explicit, made.default, made.specs
    if coscheduling or volcano:
        which = "coscheduling (scheduler-plugins)" if coscheduling else "Volcano"
        notes = (("gang-assumed", f"TrainJob {namespace}/{name}: runtime {via} sets "
                  f"podGroupPolicy.{'coscheduling' if coscheduling else 'volcano'}: the "
                  f"Trainer writes a {which} PodGroup {name} with minMember {total}; planned "
                  "as a kube-scheduler gang of that size"),)
        explicit, specs = True, {}
        default = GroupSpec(Policy.GANG, max(total, 1), overrides.topology_key)
    owner = ObjectFields(runtime_source, jobset)
    return replace(made, kind="TrainJob", api_version=obj["apiVersion"], source=source,
                   obj=obj, default=default, explicit=explicit, specs=specs, notes=notes,
                   batches=tuple(replace(b, owner=owner) for b in made.batches),
                   related=(doc,), takes_topology_key=True,
                   pod_group=name if coscheduling or volcano else None)


def _join(prefix: str, path: str) -> str:
    return f"{prefix}.{path}" if prefix else path


def _pod_policy(pod: Mapping[str, Any], name: str, coscheduling: bool, volcano: bool
                ) -> Mapping[str, Any]:
    """EnforcePodGroupPolicy: the pod group label or annotation on every pod."""
    meta = pod.get("metadata") if isinstance(pod.get("metadata"), dict) else {}
    meta = dict(meta)
    if coscheduling and isinstance(meta.get("labels") or {}, dict):
        meta["labels"] = {**(meta.get("labels") or {}), COSCHEDULING_LABEL: name}
    if volcano and isinstance(meta.get("annotations") or {}, dict):
        meta["annotations"] = {**(meta.get("annotations") or {}), VOLCANO_ANNOTATION: name}
    return {**pod, "metadata": meta}


def _with_resources(pod: Mapping[str, Any], per_node: Mapping[str, Any]) -> Mapping[str, Any]:
    """``trainer.resourcesPerNode`` merged (strategic merge) into the ``node`` container."""
    spec = pod.get("spec")
    if not isinstance(spec, dict) or not isinstance(spec.get("containers"), list):
        return pod
    containers = []
    done = False
    for c in spec["containers"]:
        if not done and isinstance(c, dict) and c.get("name") == NODE:
            c = {**c, "resources": smp.merge(c.get("resources") or {}, dict(per_node))}
            done = True
        containers.append(c)
    return {**pod, "spec": {**spec, "containers": containers}}
