"""Every recognised scheduling key (``tasplan.model.scheduling_keys.KEYS``) is either
honoured by the plan or warned about: for each key, a probe manifest is loaded and planned
with the key and without it.

- *warned*: a warning names the object and the key (or field), and what would honour it;
- *planned*: the key changes the model (pods, groups, affinity, selectors) and draws no
  warning;
- *planned with a note*: as planned, and the groups' notes differ.

A key added to the registry without a probe here fails ``test_every_key_has_a_probe``: no
scheduling intent is dropped without a word (issue 21).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tasplan import load_inputs, plan
from tasplan.model.scheduling_keys import KEYS, KUBE_SCHEDULER, SchedulingKey, Status, Where

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "samples" / "cluster"

CONTAINER = {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
TEMPLATE = {"spec": {"containers": [CONTAINER]}}


def job() -> dict:
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "probe", "namespace": "ml"},
            "spec": {"parallelism": 2, "completions": 2, "template": copy.deepcopy(TEMPLATE)}}


def pods(extra_labels: dict | None = None, extra_annotations: dict | None = None) -> list:
    return [{"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": f"probe-{i}", "namespace": "ml",
                          "labels": dict(extra_labels or {}),
                          "annotations": dict(extra_annotations or {})},
             "spec": {"containers": [CONTAINER]}} for i in range(2)]


def jobset() -> dict:
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "probe", "namespace": "ml", "annotations": {}},
            "spec": {"replicatedJobs": [{"name": "w", "replicas": 2, "template": {"spec": {
                "parallelism": 2, "completions": 2, "template": copy.deepcopy(TEMPLATE)}}}]}}


def lws() -> dict:
    return {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
            "metadata": {"name": "probe", "namespace": "ml", "annotations": {}},
            "spec": {"replicas": 2, "leaderWorkerTemplate": {
                "size": 2, "workerTemplate": copy.deepcopy(TEMPLATE)}}}


def ray() -> dict:
    return {"apiVersion": "ray.io/v1", "kind": "RayCluster",
            "metadata": {"name": "probe", "namespace": "ml", "labels": {}},
            "spec": {"headGroupSpec": {"rayStartParams": {}, "template": copy.deepcopy(TEMPLATE)},
                     "workerGroupSpecs": [{"groupName": "w", "replicas": 2, "rayStartParams": {},
                                           "template": copy.deepcopy(TEMPLATE)}]}}


def pytorch() -> dict:
    return {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
            "metadata": {"name": "probe", "namespace": "ml"},
            "spec": {"pytorchReplicaSpecs": {"Worker": {"replicas": 2,
                                                        "template": copy.deepcopy(TEMPLATE)}}}}


def trainjob() -> list:
    runtime = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
               "metadata": {"name": "rt"},
               "spec": {"mlPolicy": {"numNodes": 2, "torch": {}}, "template": {"spec": {
                   "replicatedJobs": [{"name": "node", "template": {
                       "metadata": {"labels": {
                           "trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                       "spec": {"template": {"spec": {"containers": [
                           {**CONTAINER, "name": "node"}]}}}}}]}}}}
    train = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
             "metadata": {"name": "probe", "namespace": "ml"},
             "spec": {"runtimeRef": {"name": "rt"}}}
    return [runtime, train]


def grove() -> dict:
    return {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet",
            "metadata": {"name": "probe", "namespace": "ml"},
            "spec": {"replicas": 1, "template": {"cliques": [
                {"name": "w", "spec": {"roleName": "w", "replicas": 2,
                                       "podSpec": {"containers": [CONTAINER]}}}]}}}


def vcjob() -> dict:
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": "vc", "namespace": "ml"},
            "spec": {"minAvailable": 2, "schedulerName": "volcano",
                     "tasks": [{"name": "t", "replicas": 2, "template": copy.deepcopy(TEMPLATE)}]}}


def volcano_podgroup() -> dict:
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": "vpg", "namespace": "ml"}, "spec": {"minMember": 2}}


def kai_podgroup() -> list:
    """KAI's PodGroup object and two pods that name it (KAI-Scheduler d5bc503a,
    examples/topology-aliases/topology-aliases.yaml)."""
    return [{"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
             "metadata": {"name": "kpg", "namespace": "ml"}, "spec": {}},
            *pods(extra_annotations={"pod-group-name": "kpg"})]


def label(obj: dict, key: str, value: str, section: str = "labels") -> None:
    obj.setdefault("metadata", {}).setdefault(section, {})[key] = value


Probe = Callable[[bool], list]  # with the key? -> the documents


def on_job(section: str, where: str, value: str) -> Callable[[str], Probe]:
    """A Job carrying the key on its own metadata (where="object") or on its pod template."""
    def make(key: str) -> Probe:
        def docs(on: bool) -> list:
            j = job()
            if on:
                label(j if where == "object" else j["spec"]["template"], key, value, section)
            return [j]
        return docs
    return make


def on_pods(section: str, value: str, base: dict | None = None,
            base_annotations: dict | None = None) -> Callable[[str], Probe]:
    def make(key: str) -> Probe:
        def docs(on: bool) -> list:
            extra = {key: value} if on else {}
            if section == "labels":
                return pods({**(base or {}), **extra}, base_annotations)
            return pods(base, {**(base_annotations or {}), **extra})
        return docs
    return make


def on(factory: Callable[[], Any], edit: Callable[[Any], None]) -> Callable[[str], Probe]:
    def make(_: str) -> Probe:
        def docs(with_key: bool) -> list:
            made = factory()
            out = made if isinstance(made, list) else [made]
            if with_key:
                edit(out)
            return out
        return docs
    return make


def at(path: list, value: Any, index: int = -1) -> Callable[[list], None]:
    """Set ``value`` at ``path`` in the ``index``-th document."""
    def edit(docs: list) -> None:
        node = docs[index]
        for part in path[:-1]:
            node = node.setdefault(part, {}) if isinstance(part, str) else node[part]
        node[path[-1]] = value
    return edit


KUEUE_GROUP = {"kueue.x-k8s.io/pod-group-name": "g"}

PROBES: dict[str, Callable[[str], Probe]] = {
    "*spec.schedulingGroup": on(
        lambda: [*pods(), {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
                           "metadata": {"name": "pg", "namespace": "ml"},
                           "spec": {"schedulingPolicy": {"basic": {}}}}],
        lambda docs: [d["spec"].__setitem__("schedulingGroup", {"podGroupName": "pg"})
                      for d in docs[:2]]),
    "*spec.workloadRef": on(
        lambda: [*pods(), {"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
                           "metadata": {"name": "wl", "namespace": "ml"},
                           "spec": {"podGroups": [{"name": "pg", "policy": {"basic": {}}}]}}],
        lambda docs: [d["spec"].__setitem__("workloadRef", {"name": "wl", "podGroup": "pg"})
                      for d in docs[:2]]),
    "spec.scheduling": on(job, at(["spec", "scheduling"],
                                  {"schedulingPolicy": {"gang": {"minCount": 2}}})),
    "spec.gangPolicy": on(jobset, at(["spec", "gangPolicy"], {"policy": "JobSetAsGang"})),
    "*schedulerName": on(job, at(["spec", "template", "spec", "schedulerName"], "volcano")),
    "alpha.jobset.sigs.k8s.io/exclusive-topology": on(jobset, at(
        ["metadata", "annotations", "alpha.jobset.sigs.k8s.io/exclusive-topology"],
        "topology.example.com/rack")),
    "alpha.jobset.sigs.k8s.io/node-selector": on(
        lambda: [{**jobset(), "metadata": {"name": "probe", "namespace": "ml", "annotations": {
            "alpha.jobset.sigs.k8s.io/exclusive-topology": "topology.example.com/rack"}}}],
        at(["metadata", "annotations", "alpha.jobset.sigs.k8s.io/node-selector"], "true")),
    "leaderworkerset.sigs.k8s.io/exclusive-topology": on(lws, at(
        ["metadata", "annotations", "leaderworkerset.sigs.k8s.io/exclusive-topology"],
        "topology.example.com/rack")),
    "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology": on(lws, at(
        ["metadata", "annotations", "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology"],
        "kubernetes.io/hostname")),
    "kueue.x-k8s.io/queue-name": on_job("labels", "object", "user-queue"),
    "kueue.x-k8s.io/priority-class": on_job("labels", "object", "high"),
    "kueue.x-k8s.io/prebuilt-workload-name": on_job("labels", "object", "wl"),
    "kueue.x-k8s.io/podset-required-topology": on_job("annotations", "template",
                                                      "topology.example.com/rack"),
    "kueue.x-k8s.io/podset-preferred-topology": on_job("annotations", "template",
                                                       "topology.example.com/rack"),
    "kueue.x-k8s.io/podset-unconstrained-topology": on_job("annotations", "template", "true"),
    "kueue.x-k8s.io/podset-slice-required-topology": on_job("annotations", "template",
                                                            "kubernetes.io/hostname"),
    "kueue.x-k8s.io/podset-slice-size": on_job("annotations", "template", "1"),
    "kueue.x-k8s.io/podset-slice-required-topology-constraints": on_job(
        "annotations", "template", '[{"topology": "kubernetes.io/hostname", "size": 1}]'),
    "kueue.x-k8s.io/podset-group-name": on_job("annotations", "template", "g"),
    "kueue.x-k8s.io/pod-group-name": on_pods("labels", "g"),
    "kueue.x-k8s.io/pod-group-total-count": on_pods("annotations", "3", base=KUEUE_GROUP),
    "kueue.x-k8s.io/pod-group-fast-admission": on_pods("annotations", "true", base=KUEUE_GROUP),
    "kueue.x-k8s.io/pod-group-serving": on_pods("annotations", "true", base=KUEUE_GROUP),
    "kai.scheduler/queue": on_job("labels", "object", "team-a"),
    "kai.scheduler/node-pool": on_job("labels", "object", "pool-a"),
    "kai.scheduler/topology": on_job("annotations", "object", "cluster-topology"),
    "kai.scheduler/topology-required-placement": on_job("annotations", "object",
                                                        "topology.example.com/rack"),
    "kai.scheduler/topology-preferred-placement": on_job("annotations", "object",
                                                         "topology.example.com/rack"),
    "kai.scheduler/segment-size": on_job("annotations", "object", "2"),
    "kai.scheduler/segment-topology-required-placement": on_job(
        "annotations", "object", "kubernetes.io/hostname"),
    "kai.scheduler/segment-topology-preferred-placement": on_job(
        "annotations", "object", "kubernetes.io/hostname"),
    "kai.scheduler/subgroup-name": on_job("labels", "template", "workers"),
    "kai.scheduler/task-priority": on_job("labels", "template", "5"),
    "kai.scheduler/batch-min-member": on_job("annotations", "object", "2"),
    "kai.scheduler/preemptibility": on_job("labels", "object", "non-preemptible"),
    "pod-group-name": on_pods("annotations", "kai-pg"),
    "scheduling.k8s.io/group-name": on_pods("annotations", "vpg"),
    "scheduling.volcano.sh/group-name": on_pods("annotations", "vpg"),
    "scheduling.volcano.sh/queue-name": on_job("annotations", "object", "q"),
    "volcano.sh/queue-name": on(ray, at(["metadata", "labels", "volcano.sh/queue-name"], "q")),
    "volcano.sh/network-topology-mode": on(ray, at(
        ["metadata", "labels", "volcano.sh/network-topology-mode"], "hard")),
    "volcano.sh/network-topology-highest-tier-allowed": on(ray, at(
        ["metadata", "labels", "volcano.sh/network-topology-highest-tier-allowed"], "1")),
    "spec.networkTopology": on(vcjob, at(["spec", "networkTopology"],
                                         {"mode": "hard", "highestTierAllowed": 1})),
    "*tasks.partitionPolicy.networkTopology": on(
        vcjob, lambda docs: docs[0]["spec"]["tasks"][0].__setitem__("partitionPolicy", {
            "totalPartitions": 1, "partitionSize": 2,
            "networkTopology": {"mode": "hard", "highestTierAllowed": 1}})),
    "scheduling.x-k8s.io/pod-group": on_pods("labels", "cpg"),
    "spec.runPolicy.schedulingPolicy.minAvailable": on(pytorch, at(
        ["spec", "runPolicy", "schedulingPolicy", "minAvailable"], 1)),
    "spec.runPolicy.schedulingPolicy.queue": on(pytorch, at(
        ["spec", "runPolicy", "schedulingPolicy", "queue"], "q")),
    "spec.runPolicy.schedulingPolicy.priorityClass": on(pytorch, at(
        ["spec", "runPolicy", "schedulingPolicy", "priorityClass"], "high")),
    "spec.runPolicy.schedulingPolicy.minResources": on(pytorch, at(
        ["spec", "runPolicy", "schedulingPolicy", "minResources"], {"cpu": "2"})),
    "spec.runPolicy.schedulingPolicy.scheduleTimeoutSeconds": on(pytorch, at(
        ["spec", "runPolicy", "schedulingPolicy", "scheduleTimeoutSeconds"], 60)),
    "spec.elasticPolicy.minReplicas": on(pytorch, at(["spec", "elasticPolicy", "minReplicas"],
                                                     1)),
    "spec.podGroupPolicy.coscheduling": on(trainjob, at(
        ["spec", "podGroupPolicy", "coscheduling"], {"scheduleTimeoutSeconds": 60}, 0)),
    "spec.podGroupPolicy.volcano": on(trainjob, at(["spec", "podGroupPolicy", "volcano"], {},
                                                   0)),
    "spec.podGroupPolicy.volcano.networkTopology": on(trainjob, at(
        ["spec", "podGroupPolicy", "volcano"],
        {"networkTopology": {"mode": "hard", "highestTierAllowed": 1}}, 0)),
    "ray.io/gang-scheduling-enabled": on(ray, at(
        ["metadata", "labels", "ray.io/gang-scheduling-enabled"], "true")),
    "ray.io/priority-class-name": on(ray, at(["metadata", "labels",
                                              "ray.io/priority-class-name"], "high")),
    "*topologyConstraint.requiredTopologyLevel": on(kai_podgroup, at(
        ["spec", "topologyConstraint"], {"topology": "t", "requiredTopologyLevel": "rack"}, 0)),
    "*topologyConstraint.preferredTopologyLevel": on(kai_podgroup, at(
        ["spec", "subGroups"], [{"name": "s", "topologyConstraint": {
            "topology": "t", "preferredTopologyLevel": "rack"}}], 0)),
    "spec.queue": on(kai_podgroup, at(["spec", "queue"], "q", 0)),
    # KubeRay ray-operator/config/samples/ray-cluster.yunikorn-scheduler.yaml (feeaf72fa)
    "yunikorn.apache.org/queue": on(ray, at(["metadata", "labels",
                                             "yunikorn.apache.org/queue"], "root.test")),
    "yunikorn.apache.org/app-id": on(ray, at(["metadata", "labels",
                                              "yunikorn.apache.org/app-id"], "app")),
    "*topologyConstraint.packDomain": on(grove, at(
        ["spec", "template", "topologyConstraint"], {"packDomain": "rack"})),
}


def test_every_key_has_a_probe() -> None:
    assert sorted(PROBES) == sorted(k.key for k in KEYS)
    assert len({(k.where, k.key) for k in KEYS}) == len(KEYS)  # one entry per key


def _run(tmp_path: Path, name: str, docs: list):
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    snapshot = load_inputs([path], [CLUSTER])
    # kube-scheduler's plan: the statuses under test are its (auto would give a workload
    # to the scheduler that honours its keys, see test_peers_honour_their_keys_under_auto).
    return snapshot, plan(snapshot, scheduler=KUBE_SCHEDULER)


def _model(snapshot, result) -> tuple:
    """What planning reads of the inputs: groups and their pods' scheduling fields."""
    groups = sorted((g.key, g.policy, g.min_count, g.topology_key) for g in snapshot.groups
                    if g.planned)
    pods = sorted((p.key, p.group, tuple(sorted(p.labels.items())), p.pod_affinity,
                   tuple(sorted(p.node_selector.items())), p.tolerations, p.scheduler_name)
                  for p in snapshot.pods if p.source.workload)
    return groups, pods


def _notes(result) -> list:
    return sorted(n.message for g in result.groups for n in g.notes
                  if n.code == "gang-assumed")


@pytest.mark.parametrize("key", KEYS, ids=lambda k: k.key)
def test_every_key_is_honoured_or_warned(key: SchedulingKey, tmp_path: Path) -> None:
    probe = PROBES[key.key](key.key)
    snap_on, on_result = _run(tmp_path, "on", probe(True))
    snap_off, off_result = _run(tmp_path, "off", probe(False))
    named = key.key.lstrip("*") if key.where == Where.FIELD else key.key
    new = [w for w in on_result.warnings if w not in off_result.warnings]
    status = key.status(KUBE_SCHEDULER)
    if status == Status.WARNED:
        assert [w for w in new if named.split(".")[-1] in w and "not honoured by kube-scheduler"
                in w], (key.key, new)
        if key.honoured_by:
            assert any(key.honoured_by in w for w in new), (key.key, new)
        return
    assert not [w for w in new if named in w], (key.key, new)
    assert _model(snap_on, on_result) != _model(snap_off, off_result), key.key
    if status == Status.NOTED:
        assert _notes(on_result) != _notes(off_result), key.key


@pytest.mark.parametrize("key", [k for k in KEYS if any(
    name != KUBE_SCHEDULER and status != Status.WARNED for name, status in k.planned.items())
    and k.status(KUBE_SCHEDULER) == Status.WARNED], ids=lambda k: k.key)
def test_peers_honour_their_keys_under_auto(key: SchedulingKey, tmp_path: Path) -> None:
    """A key a peer scheduler honours draws no warning when that scheduler plans it."""
    probe = PROBES[key.key](key.key)
    path = tmp_path / "on.yaml"
    path.write_text(yaml.safe_dump_all(probe(True)))
    snapshot = load_inputs([path], [CLUSTER])
    peer = next(name for name, status in key.planned.items()
                if name != KUBE_SCHEDULER and status != Status.WARNED)
    named = key.key.lstrip("*") if key.where == Where.FIELD else key.key
    warnings = plan(snapshot, scheduler=peer).warnings
    assert not [w for w in warnings if named.split(".")[-1] in w
                and f"not honoured by {peer}" in w], (key.key, warnings)
