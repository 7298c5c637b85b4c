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

``alpha.jobset.sigs.k8s.io/exclusive-topology`` (on the JobSet or a replicated Job's
template) is modelled as JobSet's pod webhook makes it: each child Job in a topology domain
of its own (see ``exclusive``); with ``alpha.jobset.sigs.k8s.io/node-selector`` the child
Jobs instead select nodes labelled ``alpha.jobset.sigs.k8s.io/namespaced-job=<ns>_<job>``
and tolerate the ``alpha.jobset.sigs.k8s.io/no-schedule`` taint, as the controller makes
them. The pods carry every label JobSet's ``labelAndAnnotateObject`` sets (``jobset-uid``
only when the input has ``metadata.uid``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from tasplan.load.batch import job_batch, job_size
from tasplan.load.exclusive import with_exclusive_affinity
from tasplan.load.fields import ObjectFields
from tasplan.load.producers import (
    Overrides,
    PodBatch,
    Producer,
    check_expansion,
    identity,
    replicas,
    required_list,
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
EXCLUSIVE = "alpha.jobset.sigs.k8s.io/exclusive-topology"
NODE_SELECTOR_STRATEGY = "alpha.jobset.sigs.k8s.io/node-selector"
NAMESPACED_JOB = "alpha.jobset.sigs.k8s.io/namespaced-job"
NO_SCHEDULE_TAINT = "alpha.jobset.sigs.k8s.io/no-schedule"
PRIORITY = f"{_LABEL}priority"
JOB_KEY = f"{_LABEL}job-key"


def _exclusive(template_annotations: Mapping[str, Any], jobset_annotations: Mapping[str, Any]
               ) -> tuple[str | None, bool]:
    """The exclusive topology key and whether the node-selector strategy is used: a
    replicated Job's own annotation wins over the JobSet's (upstream labelAndAnnotateObject)."""
    for source in (template_annotations, jobset_annotations):
        key = source.get(EXCLUSIVE)
        if isinstance(key, str):
            return key, NODE_SELECTOR_STRATEGY in source
    return None, False


def _webhook(topology_key: str, job_key: str):
    """JobSet's pod webhook for exclusive placement (``setExclusiveAffinities``, see
    ``exclusive``): the priority label and the affinity to the pod's own child Job."""
    def apply(template: Mapping[str, Any], priority: int) -> Mapping[str, Any]:
        meta = dict(template.get("metadata") or {})
        meta["labels"] = {**(meta.get("labels") or {}), PRIORITY: str(priority)}
        return with_exclusive_affinity(
            {**template, "metadata": meta}, JOB_KEY, job_key, topology_key,
            [{"key": PRIORITY, "operator": "In", "values": [str(priority)]}],
            all_namespaces=True)
    return apply


def _node_selector_strategy(template: Mapping[str, Any], namespace: str, job_name: str
                            ) -> Mapping[str, Any]:
    """The node-selector strategy (``addNamespacedJobNodeSelector``, ``addTaintToleration``):
    nodes labelled per child Job beforehand (JobSet's hack/label_nodes) and tainted."""
    spec = template.get("spec")
    if not isinstance(spec, dict) or not isinstance(spec.get("nodeSelector") or {}, dict) \
            or not isinstance(spec.get("tolerations") or [], list):
        return template
    spec = {**spec,
            "nodeSelector": {**(spec.get("nodeSelector") or {}),
                             NAMESPACED_JOB: f"{namespace}_{job_name}"},
            "tolerations": [*(spec.get("tolerations") or []),
                            {"key": NO_SCHEDULE_TAINT, "operator": "Exists",
                             "effect": "NoSchedule"}]}
    return {**template, "spec": spec}


def decode_jobset(source: Source, obj: Mapping[str, Any], overrides: Overrides) -> Producer:
    import hashlib  # OpenSSL's loader: only when a JobSet is read

    f = ObjectFields(source, obj)
    namespace, name, spec = identity(f)
    meta = f.mapping(obj.get("metadata"), "metadata")
    annotations = f.string_map(meta.get("annotations"), "metadata.annotations")
    entries = required_list(f, spec.get("replicatedJobs"), "spec.replicatedJobs")
    global_replicas = pods = 0
    decoded = []
    group_replicas: dict[str, int] = {}
    for i, raw in enumerate(entries):
        path = f"spec.replicatedJobs[{i}]"
        rj = f.mapping(raw, path)
        rj_name = f.string(rj.get("name"), f"{path}.name", required=True)
        if any(rj_name == seen for seen, *_ in decoded):  # the JobSet webhook refuses it
            raise f.error(f"{path}.name", f"duplicate replicatedJob name {quote(rj_name)}")
        group_name = f.string(rj.get("groupName"), f"{path}.groupName") or "default"
        count = replicas(f, rj, f"{path}.replicas")
        job = f.mapping(rj.get("template"), f"{path}.template")
        job_meta = f.mapping(job.get("metadata"), f"{path}.template.metadata")
        job_annotations = f.string_map(job_meta.get("annotations"),
                                       f"{path}.template.metadata.annotations")
        job_spec = f.mapping(job.get("spec"), f"{path}.template.spec")
        decoded.append((rj_name, group_name, count, job_annotations, job_spec,
                        f"{path}.template.spec"))
        global_replicas += count
        group_replicas[group_name] = group_replicas.get(group_name, 0) + count
        pods += count * job_size(f, job_spec, f"{path}.template.spec")[1]
    check_expansion(f, "spec.replicatedJobs", pods)  # before listing them

    policy = f.string(f.mapping(spec.get("gangPolicy"), "spec.gangPolicy").get("policy"),
                      "spec.gangPolicy.policy")
    if policy and policy not in (AS_GANG, GANG_PER_REPLICATED_JOB):
        # (JobSetWorkloadTemplate, a Workload template of the JobSet's own, is not read)
        raise f.expected("spec.gangPolicy.policy",
                         f"one of {AS_GANG}, {GANG_PER_REPLICATED_JOB}", policy)
    status = f.mapping(obj.get("status"), "status")
    restarts = status.get("restarts")
    restarts = 0 if restarts is None else f.int32(restarts, "status.restarts", minimum=0)
    uid = f.string(meta.get("uid"), "metadata.uid")
    batches: list[PodBatch] = []
    sizes: dict[str, int] = {}
    global_index = 0
    group_index: dict[str, int] = {}
    for rj_name, group_name, count, job_annotations, job_spec, path in decoded:
        group = f"{name}/{rj_name}" if policy == GANG_PER_REPLICATED_JOB else name
        exclusive, node_selector = _exclusive(job_annotations, annotations)
        for j in range(count):
            job_name = f"{name}-{rj_name}-{j}"
            job_key = hashlib.sha1(f"{namespace}/{job_name}".encode()).hexdigest()
            # labelAndAnnotateObject: the same keys as labels and as annotations.
            labels = {
                f"{_LABEL}jobset-name": name,
                **({f"{_LABEL}jobset-uid": uid} if uid else {}),
                f"{_LABEL}replicatedjob-name": rj_name,
                f"{_LABEL}restart-attempt": str(restarts),
                f"{_LABEL}replicatedjob-replicas": str(count),
                f"{_LABEL}global-replicas": str(global_replicas),
                f"{_LABEL}job-index": str(j),
                JOB_KEY: job_key,
                f"{_LABEL}job-global-index": str(global_index),
                f"{_LABEL}group-name": group_name,
                f"{_LABEL}group-replicas": str(group_replicas[group_name]),
                f"{_LABEL}job-group-index": str(group_index.get(group_name, 0)),
            }
            extra = dict(labels)
            if exclusive is not None:
                extra[EXCLUSIVE] = exclusive
                if node_selector:
                    extra[NODE_SELECTOR_STRATEGY] = annotations.get(
                        NODE_SELECTOR_STRATEGY, job_annotations.get(NODE_SELECTOR_STRATEGY))
            batch, _ = job_batch(f, job_name, job_spec, path, group, labels,
                                 indexed_default=True)
            template = batch.template
            webhook = None
            if exclusive is not None and node_selector:
                template = _node_selector_strategy(template, namespace, job_name)
            elif exclusive is not None:
                webhook = _webhook(exclusive, job_key)
            batches.append(replace(batch, template=template, pod_set=rj_name.lower(),
                                   labels=labels, annotations=extra, webhook=webhook))
            sizes[group] = sizes.get(group, 0) + batch.count
            global_index += 1
            group_index[group_name] = group_index.get(group_name, 0) + 1
    if policy:
        specs = {g: GroupSpec(Policy.GANG, max(n, 1), overrides.topology_key)
                 for g, n in sizes.items()}
        return Producer("JobSet", obj["apiVersion"], namespace, name, source, obj,
                        tuple(batches), overrides.group_spec(), True, specs,
                        count_field="spec.replicatedJobs")
    return Producer("JobSet", obj["apiVersion"], namespace, name, source, obj, tuple(batches),
                    overrides.group_spec(), False, count_field="spec.replicatedJobs")
