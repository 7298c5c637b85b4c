"""batch/v1 Job -> the pods its controller would create (see ``producers``).

With ``.spec.scheduling`` (WorkloadWithJob, alpha) the Job controller creates a Workload
and a PodGroup: no ``scheduling`` means basic, an omitted ``gang.minCount`` defaults to
``parallelism``. A plain Job can be planned as a gang with ``--gang`` / ``--topology-key``.
Upstream names the generated PodGroup after a hash of the Job's UID; tasplan calls the
group ``<namespace>/<job>``. Pods are named ``<job>-<index>`` (upstream adds a random
suffix) and carry the labels the Job controller adds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tasplan.load.dra_references import pod_claims
from tasplan.load.fields import ObjectFields
from tasplan.load.group_fields import policy_of, topology_key_of
from tasplan.load.producers import (
    Overrides,
    PodBatch,
    Producer,
    check_expansion,
    identity,
    pod_template,
)
from tasplan.load.scheduling import GroupSpec
from tasplan.model.group import Policy
from tasplan.model.source import Source

JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
LEGACY_JOB_NAME_LABEL = "job-name"
COMPLETION_INDEX_LABEL = "batch.kubernetes.io/job-completion-index"

# The library's name for --gang / --topology-key (they apply to every pod-producing kind).
JobOverrides = Overrides


def job_size(f: ObjectFields, spec: Mapping[str, Any], path: str,
             succeeded: int = 0) -> tuple[int, int]:
    """(parallelism, pods the controller keeps running at once)."""
    parallelism = spec.get("parallelism")
    parallelism = 1 if parallelism is None else f.int32(parallelism, f"{path}.parallelism",
                                                        minimum=0)
    completions = spec.get("completions")
    if completions is None:
        return parallelism, parallelism
    completions = f.int32(completions, f"{path}.completions", minimum=0)
    return parallelism, min(parallelism, max(completions - succeeded, 0))


def job_batch(f: ObjectFields, job_name: str, spec: Mapping[str, Any], path: str, group: str,
              extra_labels: Mapping[str, str], succeeded: int = 0,
              indexed_default: bool = False) -> tuple[PodBatch, int]:
    """One Job's pods as a batch, and its parallelism (a JobSet's child Jobs use this
    too)."""
    parallelism, count = job_size(f, spec, path, succeeded)
    check_expansion(f, f"{path}.parallelism", count)
    template = pod_template(f, spec.get("template"), f"{path}.template")
    mode = spec.get("completionMode")
    indexed = mode == "Indexed" or (mode is None and indexed_default)
    selectors = ({JOB_NAME_LABEL: job_name}, {LEGACY_JOB_NAME_LABEL: job_name})

    def pod(i: int) -> tuple[str, Mapping[str, str]]:
        labels = {**extra_labels, JOB_NAME_LABEL: job_name, LEGACY_JOB_NAME_LABEL: job_name}
        if indexed:
            labels[COMPLETION_INDEX_LABEL] = str(i)
        return f"{job_name}-{i}", labels

    return PodBatch(template, f"{path}.template", count, pod, selectors, group), parallelism


def decode_job(source: Source, obj: Mapping[str, Any], overrides: Overrides) -> Producer:
    f = ObjectFields(source, obj)
    namespace, name, spec = identity(f)
    succeeded = f.mapping(obj.get("status"), "status").get("succeeded")
    succeeded = 0 if succeeded is None else f.int32(succeeded, "status.succeeded", minimum=0)
    batch, parallelism = job_batch(f, name, spec, "spec", name, {}, succeeded)

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
    else:
        group = overrides.group_spec()
    return Producer("Job", "batch/v1", namespace, name, source, obj, (batch,), group,
                    scheduling is not None, count_field="spec.parallelism")
