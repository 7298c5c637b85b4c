"""batch/v1 Job -> a pod group and the pods its controller would create.

With ``.spec.scheduling`` (WorkloadWithJob, alpha) the Job controller creates a Workload
and a PodGroup: no ``scheduling`` means basic, an omitted ``gang.minCount`` defaults to
``parallelism``. A plain Job can be planned as a gang with ``--gang`` / ``--topology-key``.
Upstream names the generated PodGroup after a hash of the Job's UID; tasplan calls the
group ``<namespace>/<job>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tasplan.dra.references import pod_claims
from tasplan.limits import MAX_CONTROLLER_PODS
from tasplan.load.fields import ObjectFields
from tasplan.load.scheduling import GroupSpec, policy_of, topology_key_of
from tasplan.model.group import Policy
from tasplan.model.source import Source

JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
LEGACY_JOB_NAME_LABEL = "job-name"


@dataclass(frozen=True, slots=True)
class JobDef:
    namespace: str
    name: str
    spec: GroupSpec
    pods: int  # how many pods the controller keeps running at once
    indexed: bool
    template: Mapping[str, Any]
    source: Source
    explicit: bool  # .spec.scheduling was given
    obj: Mapping[str, Any]  # the Job itself, for error messages about its template


@dataclass(frozen=True, slots=True)
class JobOverrides:
    """``--gang`` / ``--topology-key`` for Jobs without ``.spec.scheduling``."""

    min_count: int | None = None
    topology_key: str | None = None


def decode_job(source: Source, obj: Mapping[str, Any], overrides: JobOverrides) -> JobDef:
    f = ObjectFields(source, obj)
    meta = f.mapping(obj.get("metadata"), "metadata")
    name = f.string(meta.get("name"), "metadata.name", required=True)
    namespace = f.string(meta.get("namespace"), "metadata.namespace") or "default"
    spec = f.mapping(obj.get("spec"), "spec")
    parallelism = spec.get("parallelism")
    parallelism = 1 if parallelism is None else f.int32(parallelism, "spec.parallelism",
                                                        minimum=0)
    completions = spec.get("completions")
    if completions is not None:
        completions = f.int32(completions, "spec.completions", minimum=0)
    succeeded = f.mapping(obj.get("status"), "status").get("succeeded")
    succeeded = 0 if succeeded is None else f.int32(succeeded, "status.succeeded", minimum=0)
    pods = parallelism if completions is None else min(parallelism,
                                                       max(completions - succeeded, 0))
    check_expansion(f, "spec.parallelism", pods)
    template = f.mapping(spec.get("template"), "spec.template")
    f.mapping(template.get("spec"), "spec.template.spec")
    f.string_map(f.mapping(template.get("metadata"), "spec.template.metadata").get("labels"),
                 "spec.template.metadata.labels")
    indexed = spec.get("completionMode") == "Indexed"

    scheduling = spec.get("scheduling")
    if scheduling is not None:
        scheduling = f.mapping(scheduling, "spec.scheduling")
        policy, min_count = policy_of(f, scheduling.get("schedulingPolicy"),
                                      "spec.scheduling.schedulingPolicy")
        policy = policy or Policy.BASIC
        if policy == Policy.GANG and min_count is None:
            min_count = max(parallelism, 1)
        key = topology_key_of(f, scheduling.get("schedulingConstraints"),
                              "spec.scheduling.schedulingConstraints")
        group = GroupSpec(policy, min_count or 1, key,
                          claims=pod_claims(f, scheduling.get("resourceClaims"),
                                            "spec.scheduling.resourceClaims"))
    elif overrides.min_count is not None:
        group = GroupSpec(Policy.GANG, overrides.min_count, overrides.topology_key)
    else:
        group = GroupSpec(Policy.BASIC, 1, overrides.topology_key)
    return JobDef(namespace, name, group, pods, indexed, template, source,
                  scheduling is not None, obj)


def check_expansion(f: ObjectFields, field: str, pods: int, total: int = 0) -> None:
    """Refuse a controller whose pods (``total`` with those of earlier controllers) would
    exceed the shared limit: expansion is linear, but 10^8 pods is hours of planning."""
    limit = MAX_CONTROLLER_PODS.get_int()
    if pods + total > limit:
        before = f" (with {total:,} pods of earlier controllers)" if total else ""
        raise f.error(field, f"{pods:,} pods to create{before} exceed the limit of {limit:,} "
                      f"pods synthesised from controllers ({MAX_CONTROLLER_PODS.hint()})")


def job_pod(job: JobDef, index: int) -> dict[str, Any]:
    """The pod object the Job controller would create for ``index``."""
    meta = job.template.get("metadata") or {}
    labels = {**(meta.get("labels") or {}), JOB_NAME_LABEL: job.name}
    if job.indexed:
        labels["batch.kubernetes.io/job-completion-index"] = str(index)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"{job.name}-{index}", "namespace": job.namespace,
                     "labels": labels},
        "spec": job.template.get("spec") or {},
    }
