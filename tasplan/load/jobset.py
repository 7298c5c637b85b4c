"""jobset.x-k8s.io JobSet -> its child Jobs' pods (see ``producers``).

A JobSet creates, per ``replicatedJobs[]`` entry, ``replicas`` Jobs named
``<jobset>-<replicatedJob>-<jobIndex>`` (Indexed by default), each running
``min(parallelism, completions)`` pods; tasplan names them
``<jobset>-<replicatedJob>-<jobIndex>-<podIndex>`` (upstream adds a random suffix) and
gives them the labels the JobSet and Job controllers add, so spread and affinity
selectors written against them match.

Without a template that names a group, the whole JobSet is one group ``<ns>/<jobset>``:
basic, or a gang with ``--gang``. ``spec.gangPolicy.policy`` (JobSet's workload-aware
scheduling) makes it a gang of all pods (``JobSetAsGang``) or one gang per replicated Job
(``JobSetGangPerReplicatedJob``, groups ``<ns>/<jobset>/<replicatedJob>``), as the JobSet
controller's generated Workload does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from tasplan.load.batch import job_batch, job_size
from tasplan.load.fields import ObjectFields
from tasplan.load.producers import (
    Overrides,
    PodBatch,
    Producer,
    check_expansion,
    identity,
    replicas,
)
from tasplan.load.scheduling import GroupSpec
from tasplan.model.group import Policy
from tasplan.model.source import Source
from tasplan.untrusted import quote

GROUP = "jobset.x-k8s.io"
VERSIONS = (f"{GROUP}/v1alpha2",)
_LABEL = "jobset.sigs.k8s.io/"
AS_GANG = "JobSetAsGang"
GANG_PER_REPLICATED_JOB = "JobSetGangPerReplicatedJob"


def decode_jobset(source: Source, obj: Mapping[str, Any], overrides: Overrides) -> Producer:
    f = ObjectFields(source, obj)
    namespace, name, spec = identity(f)
    entries = f.sequence(spec.get("replicatedJobs"), "spec.replicatedJobs")
    if not entries:
        raise f.error("spec.replicatedJobs", "required field is missing (a JobSet needs at "
                      "least one replicated Job)")
    global_replicas = pods = 0
    decoded = []
    for i, raw in enumerate(entries):
        path = f"spec.replicatedJobs[{i}]"
        rj = f.mapping(raw, path)
        rj_name = f.string(rj.get("name"), f"{path}.name", required=True)
        if any(rj_name == seen for seen, *_ in decoded):  # the JobSet webhook refuses it
            raise f.error(f"{path}.name", f"duplicate replicatedJob name {quote(rj_name)}")
        count = replicas(f, rj, f"{path}.replicas")
        job = f.mapping(rj.get("template"), f"{path}.template")
        job_spec = f.mapping(job.get("spec"), f"{path}.template.spec")
        decoded.append((rj_name, count, job_spec, f"{path}.template.spec"))
        global_replicas += count
        pods += count * job_size(f, job_spec, f"{path}.template.spec")[1]
    check_expansion(f, "spec.replicatedJobs", pods)  # before listing them

    policy = f.string(f.mapping(spec.get("gangPolicy"), "spec.gangPolicy").get("policy"),
                      "spec.gangPolicy.policy")
    if policy and policy not in (AS_GANG, GANG_PER_REPLICATED_JOB):
        raise f.expected("spec.gangPolicy.policy", f"{AS_GANG} or {GANG_PER_REPLICATED_JOB} "
                         "(tasplan does not read a JobSet's Workload template)", policy)
    batches: list[PodBatch] = []
    sizes: dict[str, int] = {}
    global_index = 0
    for rj_name, count, job_spec, path in decoded:
        group = f"{name}/{rj_name}" if policy == GANG_PER_REPLICATED_JOB else name
        for j in range(count):
            job_name = f"{name}-{rj_name}-{j}"
            labels = {
                f"{_LABEL}jobset-name": name,
                f"{_LABEL}replicatedjob-name": rj_name,
                f"{_LABEL}replicatedjob-replicas": str(count),
                f"{_LABEL}job-index": str(j),
                f"{_LABEL}job-global-index": str(global_index),
                f"{_LABEL}global-replicas": str(global_replicas),
                f"{_LABEL}job-key": hashlib.sha1(f"{namespace}/{job_name}".encode()).hexdigest(),
            }
            batch, _ = job_batch(f, job_name, job_spec, path, group, labels,
                                 indexed_default=True)
            batches.append(batch)
            sizes[group] = sizes.get(group, 0) + batch.count
            global_index += 1
    if policy:
        specs = {g: GroupSpec(Policy.GANG, max(n, 1), overrides.topology_key)
                 for g, n in sizes.items()}
        return Producer("JobSet", obj["apiVersion"], namespace, name, source, obj,
                        tuple(batches), overrides.group_spec(), True, specs,
                        count_field="spec.replicatedJobs")
    return Producer("JobSet", obj["apiVersion"], namespace, name, source, obj, tuple(batches),
                    overrides.group_spec(), False, count_field="spec.replicatedJobs")
