"""leaderworkerset.x-k8s.io LeaderWorkerSet -> its groups' pods (see ``producers``).

Each of ``replicas`` groups is a leader ``<lws>-<g>`` (from ``leaderTemplate``, else the
worker template) and ``size - 1`` workers ``<lws>-<g>-<w>``, with the labels the LWS
controller adds (``leaderworkerset.sigs.k8s.io/name``, ``group-index``, ``worker-index``).
Each group is one pod group ``<ns>/<lws>-<g>``, as LWS's own scheduling provider makes one
PodGroup per group: ``spec.scheduling`` gives its policy and constraint (an omitted gang
``minCount`` defaults to ``size``), else basic, or a gang with ``--gang``.

Every pod carries ``group-key`` (SHA1 of ``<ns>/<leader>``, LWS's pod webhook) and its
StatefulSet's ``pod-name`` / ``pod-index`` labels (the template revision hash is left
out). ``leaderworkerset.sigs.k8s.io/exclusive-topology`` is modelled as LWS's webhook makes
it: each group in a topology domain of its own (see ``exclusive``).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from tasplan.load.dra_references import pod_claims
from tasplan.load.exclusive import with_exclusive_affinity
from tasplan.load.fields import ObjectFields
from tasplan.load.group_fields import policy_of, topology_key_of
from tasplan.load.producers import (
    Overrides,
    PodBatch,
    Producer,
    check_expansion,
    identity,
    pod_template,
    replicas,
)
from tasplan.load.scheduling import GroupSpec
from tasplan.model.group import Policy
from tasplan.model.source import Source

GROUP = "leaderworkerset.x-k8s.io"
VERSIONS = (f"{GROUP}/v1",)
_LABEL = "leaderworkerset.sigs.k8s.io/"
EXCLUSIVE = f"{_LABEL}exclusive-topology"
GROUP_KEY = f"{_LABEL}group-key"
_STS_POD_NAME = "statefulset.kubernetes.io/pod-name"
_STS_POD_INDEX = "apps.kubernetes.io/pod-index"


def _leader(group: str, index: int, common: Mapping[str, str], _: int
            ) -> tuple[str, Mapping[str, str]]:
    return group, {**common, f"{_LABEL}worker-index": "0", _STS_POD_NAME: group,
                   _STS_POD_INDEX: str(index)}


def _worker(group: str, common: Mapping[str, str], i: int) -> tuple[str, Mapping[str, str]]:
    name = f"{group}-{i + 1}"  # the worker StatefulSet's ordinals start at 1
    return name, {**common, f"{_LABEL}worker-index": str(i + 1), _STS_POD_NAME: name,
                  _STS_POD_INDEX: str(i + 1)}


def _webhook(topology_key: str, group_key: str):
    def apply(template: Mapping[str, Any], _: int) -> Mapping[str, Any]:
        return with_exclusive_affinity(template, GROUP_KEY, group_key, topology_key)
    return apply


def decode_lws(source: Source, obj: Mapping[str, Any], overrides: Overrides) -> Producer:
    f = ObjectFields(source, obj)
    namespace, name, spec = identity(f)
    count = replicas(f, spec, "spec.replicas")
    lwt = f.mapping(spec.get("leaderWorkerTemplate"), "spec.leaderWorkerTemplate")
    path = "spec.leaderWorkerTemplate"
    size = lwt.get("size")
    size = 1 if size is None else f.int32(size, f"{path}.size", minimum=1)
    check_expansion(f, "spec.replicas", count * size)  # before listing them
    worker = pod_template(f, lwt.get("workerTemplate"), f"{path}.workerTemplate")
    if lwt.get("leaderTemplate") is not None:
        leader, leader_path = (pod_template(f, lwt["leaderTemplate"], f"{path}.leaderTemplate"),
                               f"{path}.leaderTemplate")
    else:
        leader, leader_path = worker, f"{path}.workerTemplate"
    meta = f.mapping(obj.get("metadata"), "metadata")
    exclusive = f.string_map(meta.get("annotations"), "metadata.annotations").get(EXCLUSIVE)
    annotations = {f"{_LABEL}size": str(size),
                   **({EXCLUSIVE: exclusive} if exclusive else {})}
    import hashlib  # OpenSSL's loader: only when a LeaderWorkerSet is read

    batches = []
    for g in range(count):
        group = f"{name}-{g}"
        group_key = hashlib.sha1(f"{namespace}/{group}".encode()).hexdigest()
        common = {f"{_LABEL}name": name, f"{_LABEL}group-index": str(g), GROUP_KEY: group_key}
        webhook = _webhook(exclusive, group_key) if exclusive else None
        batches.append(PodBatch(leader, leader_path, 1, partial(_leader, group, g, common), (),
                                group, pod_set="leader", labels=common,
                                annotations=annotations, webhook=webhook))
        if size > 1:
            batches.append(PodBatch(worker, f"{path}.workerTemplate", size - 1,
                                    partial(_worker, group, common), (), group,
                                    pod_set="worker", labels=common,
                                    annotations={**annotations,
                                                 f"{_LABEL}leader-name": group},
                                    webhook=webhook))

    scheduling = spec.get("scheduling")
    if scheduling is None:
        return Producer("LeaderWorkerSet", obj["apiVersion"], namespace, name, source, obj,
                        tuple(batches), overrides.group_spec(), False)
    scheduling = f.mapping(scheduling, "spec.scheduling")
    policy, min_count = policy_of(f, scheduling.get("schedulingPolicy"),
                                  "spec.scheduling.schedulingPolicy")
    policy = policy or Policy.GANG  # LWS defaults its template to a gang of the group
    if policy == Policy.GANG and min_count is None:
        min_count = size
    key = topology_key_of(f, scheduling.get("schedulingConstraints"),
                          "spec.scheduling.schedulingConstraints")
    claims = pod_claims(f, scheduling.get("resourceClaims"), "spec.scheduling.resourceClaims")
    return Producer("LeaderWorkerSet", obj["apiVersion"], namespace, name, source, obj,
                    tuple(batches), GroupSpec(policy, min_count or 1, key, claims=claims), True)
