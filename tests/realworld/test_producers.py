"""Pod-producing kinds as people write them (JobSet, LeaderWorkerSet, Deployment,
StatefulSet, ReplicaSet, Job): which pods tasplan creates from their templates, with which
names and labels, in which group, and how pods that already exist count."""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path

import pytest

from tasplan import InputError, JobOverrides, load_inputs, plan
from tasplan.model.group import Policy

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
CLUSTER = REPO / "samples" / "cluster"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def brief(group) -> list[tuple[str, str, int, int]]:
    """Which objects were expanded into the group, into how many new and existing pods."""
    return [(e.kind, e.name, e.synthesised, e.existing) for e in group.expansions]


def names(snapshot, group: str) -> list[str]:
    return [p.name for p in snapshot.pods_by_group.get(group, [])]


# --------------------------------------------------------------------------- JobSet


def test_jobset_template_joins_the_podgroup_it_names() -> None:
    """The report of issue 13: the PodGroup 'had no pods' because the JobSet was skipped."""
    snapshot = load_inputs([FIXTURES / "jobset-podgroup.yaml"], [CLUSTER])
    assert [g.key for g in snapshot.groups] == ["ml/trainer"]  # no group of the JobSet's own
    (group,) = snapshot.groups
    assert names(snapshot, "ml/trainer") == ["pytorch-workers-0-0", "pytorch-workers-0-1",
                                             "pytorch-workers-1-0", "pytorch-workers-1-1"]
    assert brief(group) == [("JobSet", "ml/pytorch", 4, 0)]
    result = plan(snapshot)
    (g,) = result.groups
    assert g.schedulable and g.selected == "rack-b1"
    assert len(g.selected_placement.assignments) == 4


def test_jobset_pods_carry_the_labels_jobset_and_job_controllers_add() -> None:
    snapshot = load_inputs([FIXTURES / "jobset-podgroup.yaml"], [CLUSTER])
    pod = next(p for p in snapshot.pods if p.name == "pytorch-workers-1-0")
    assert pod.labels == {
        "jobset.sigs.k8s.io/jobset-name": "pytorch",
        "jobset.sigs.k8s.io/replicatedjob-name": "workers",
        "jobset.sigs.k8s.io/replicatedjob-replicas": "2",
        "jobset.sigs.k8s.io/job-index": "1",
        "jobset.sigs.k8s.io/job-global-index": "1",
        "jobset.sigs.k8s.io/global-replicas": "2",
        # groupName defaults to "default"; the group counts its replicas and Jobs
        "jobset.sigs.k8s.io/group-name": "default",
        "jobset.sigs.k8s.io/group-replicas": "2",
        "jobset.sigs.k8s.io/job-group-index": "1",
        "jobset.sigs.k8s.io/restart-attempt": "0",  # status.restarts
        # SHA1 of "<namespace>/<job name>", as the JobSet controller's jobHashKey
        "jobset.sigs.k8s.io/job-key": hashlib.sha1(b"ml/pytorch-workers-1").hexdigest(),
        "batch.kubernetes.io/job-name": "pytorch-workers-1",
        "job-name": "pytorch-workers-1",
        "batch.kubernetes.io/job-completion-index": "0",  # JobSet defaults Jobs to Indexed
    }


def test_jobset_without_a_podgroup_is_one_group_basic_or_a_gang_with_gang() -> None:
    path = FIXTURES / "jobset-plain.yaml"
    (group,) = load_inputs([path], [CLUSTER]).groups
    assert (group.key, group.kind, group.policy, group.min_count) == (
        "ml/pytorch", "JobSet", Policy.BASIC, 1)
    snapshot = load_inputs([path], [CLUSTER], jobs=JobOverrides(5, "topology.example.com/rack"))
    (group,) = snapshot.groups
    assert (group.policy, group.min_count, group.topology_key) == (
        Policy.GANG, 5, "topology.example.com/rack")
    # replicatedJobs x replicas x min(parallelism, completions): 1x1x1 + 1x2x2
    assert names(snapshot, "ml/pytorch") == [
        "pytorch-driver-0-0", "pytorch-workers-0-0", "pytorch-workers-0-1",
        "pytorch-workers-1-0", "pytorch-workers-1-1"]


@pytest.mark.parametrize(("policy", "expected"), [
    ("JobSetAsGang", {"ml/js": 5}),
    ("JobSetGangPerReplicatedJob", {"ml/js/driver": 1, "ml/js/workers": 4}),
])
def test_jobset_gang_policy_makes_the_gangs_its_controller_makes(
        tmp_path: Path, policy: str, expected: dict) -> None:
    """kubernetes-sigs/jobset pkg/workload: one gang of all pods, or one per replicated Job,
    each with minCount = its pods."""
    path = write(tmp_path, "js.yaml", f"""
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata: {{name: js, namespace: ml}}
        spec:
          gangPolicy: {{policy: {policy}}}
          replicatedJobs:
          - name: driver
            template: {{spec: {{template: {{spec: {{containers: [{{name: c}}]}}}}}}}}
          - name: workers
            replicas: 2
            template:
              spec:
                parallelism: 2
                template: {{spec: {{containers: [{{name: c}}]}}}}
        """)
    snapshot = load_inputs([path], [CLUSTER])
    assert {g.key: g.min_count for g in snapshot.groups} == expected
    assert all(g.policy == Policy.GANG for g in snapshot.groups)
    assert {k: len(names(snapshot, k)) for k in expected} == expected


# --------------------------------------------------------------------------- LeaderWorkerSet


def test_lws_is_one_group_per_replica_leader_first() -> None:
    snapshot = load_inputs([FIXTURES / "lws-plain.yaml"], [CLUSTER])
    assert [(g.key, g.policy) for g in snapshot.groups] == [
        ("serve/vllm-0", Policy.BASIC), ("serve/vllm-1", Policy.BASIC)]
    assert names(snapshot, "serve/vllm-1") == ["vllm-1", "vllm-1-1", "vllm-1-2", "vllm-1-3"]
    leader, worker = (next(p for p in snapshot.pods if p.name == n)
                      for n in ("vllm-1", "vllm-1-2"))
    # group-key: SHA1 of "<ns>/<leader pod>" (LWS pod webhook genGroupUniqueKey), on the
    # leader and copied to the workers by the worker StatefulSet
    group_key = hashlib.sha1(b"serve/vllm-1").hexdigest()
    assert leader.labels == {"role": "leader", "leaderworkerset.sigs.k8s.io/name": "vllm",
                             "leaderworkerset.sigs.k8s.io/group-index": "1",
                             "leaderworkerset.sigs.k8s.io/worker-index": "0",
                             "leaderworkerset.sigs.k8s.io/group-key": group_key,
                             "statefulset.kubernetes.io/pod-name": "vllm-1",
                             "apps.kubernetes.io/pod-index": "1"}
    assert worker.labels == {"leaderworkerset.sigs.k8s.io/name": "vllm",
                             "leaderworkerset.sigs.k8s.io/group-index": "1",
                             "leaderworkerset.sigs.k8s.io/worker-index": "2",
                             "leaderworkerset.sigs.k8s.io/group-key": group_key,
                             "statefulset.kubernetes.io/pod-name": "vllm-1-2",
                             "apps.kubernetes.io/pod-index": "2"}


def test_lws_scheduling_is_a_gang_of_size_per_replica() -> None:
    """LWS's scheduling provider defaults an omitted gang minCount to the group size."""
    snapshot = load_inputs([FIXTURES / "lws-podgroup.yaml"], [CLUSTER])
    assert [(g.key, g.policy, g.min_count, g.topology_key) for g in snapshot.groups] == [
        ("serve/vllm-0", Policy.GANG, 4, "topology.example.com/rack"),
        ("serve/vllm-1", Policy.GANG, 4, "topology.example.com/rack")]
    result = plan(snapshot)
    # Two 4-node gangs of whole-GPU pods: the two empty racks, one each.
    assert [g.selected for g in result.groups] == ["rack-b1", "rack-b3"]


def test_lws_running_leader_counts_and_keeps_its_name(tmp_path: Path) -> None:
    running = write(tmp_path, "running.yaml", """
        apiVersion: v1
        kind: Pod
        metadata:
          name: vllm-0
          namespace: serve
          labels: {leaderworkerset.sigs.k8s.io/name: vllm}
        spec:
          nodeName: gpu-b1-0
          containers: [{name: c, resources: {limits: {nvidia.com/gpu: "8"}}}]
        status: {phase: Running}
        """)
    snapshot = load_inputs([FIXTURES / "lws-podgroup.yaml"], [CLUSTER, running])
    group = snapshot.group_index["serve/vllm-0"]
    assert brief(group) == [("LeaderWorkerSet", "serve/vllm", 3, 1)]
    assert sorted(names(snapshot, "serve/vllm-0")) == ["vllm-0", "vllm-0-1", "vllm-0-2",
                                                       "vllm-0-3"]
    (g0, _) = plan(snapshot).groups
    assert g0.selected == "rack-b1"  # the running leader pins the group to its rack


# --------------------------------------------------------------------------- apps/v1


def test_deployment_statefulset_replicaset_replicas() -> None:
    snapshot = load_inputs([FIXTURES / "apps.yaml"], [CLUSTER])
    assert [(g.key, g.kind) for g in snapshot.groups] == [
        ("serve/web", "Deployment"), ("serve/db", "StatefulSet"), ("serve/cache", "ReplicaSet")]
    assert names(snapshot, "serve/web") == ["web-0", "web-1", "web-2"]
    assert names(snapshot, "serve/db") == ["db-0", "db-1"]
    db1 = next(p for p in snapshot.pods if p.name == "db-1")
    assert db1.labels == {"app": "db", "statefulset.kubernetes.io/pod-name": "db-1",
                          "apps.kubernetes.io/pod-index": "1"}
    assert all(g.schedulable for g in plan(snapshot).groups)


def test_running_pods_of_a_deployment_count(tmp_path: Path) -> None:
    """ReplicaSet controller: active pods matching the selector count towards replicas;
    terminal ones do not."""
    running = write(tmp_path, "pods.yaml", """
        apiVersion: v1
        kind: List
        items:
        - apiVersion: v1
          kind: Pod
          metadata:
            name: web-7d9c-abcde
            namespace: serve
            labels: {app: web, pod-template-hash: 7d9c}
          spec: {nodeName: cpu-0, containers: [{name: nginx}]}
          status: {phase: Running}
        - apiVersion: v1
          kind: Pod
          metadata: {name: web-7d9c-fghjk, namespace: serve, labels: {app: web}}
          spec: {nodeName: cpu-1, containers: [{name: nginx}]}
          status: {phase: Failed}
        - apiVersion: v1
          kind: Pod
          metadata: {name: web-other, namespace: other, labels: {app: web}}
          spec: {nodeName: cpu-1, containers: [{name: nginx}]}
          status: {phase: Running}
        """)
    snapshot = load_inputs([FIXTURES / "apps.yaml"], [CLUSTER, running])
    web = snapshot.group_index["serve/web"]
    assert brief(web) == [("Deployment", "serve/web", 2, 1)]
    assert sorted(names(snapshot, "serve/web")) == ["web-0", "web-1", "web-7d9c-abcde",
                                                    "web-7d9c-fghjk"]


def test_a_deployments_replicaset_is_expanded_through_its_owner(tmp_path: Path) -> None:
    path = write(tmp_path, "rs.yaml", """
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata:
          name: web-7d9c
          namespace: serve
          ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: u,
                             controller: true}]
        spec:
          replicas: 3
          selector: {matchLabels: {app: web}}
          template:
            metadata: {labels: {app: web}}
            spec: {containers: [{name: nginx}]}
        """)
    snapshot = load_inputs([FIXTURES / "apps.yaml", path], [CLUSTER])
    assert "serve/web-7d9c" not in snapshot.group_index
    assert len(names(snapshot, "serve/web")) == 3


# --------------------------------------------------------------------------- one rule for all


@pytest.mark.parametrize("kind_yaml", [
    """
    apiVersion: batch/v1
    kind: Job
    metadata: {name: worker, namespace: ml}
    spec:
      parallelism: 3
      template: {spec: {schedulingGroup: {podGroupName: shared}, containers: [{name: c}]}}
    """,
    """
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: worker, namespace: ml}
    spec:
      replicas: 3
      selector: {matchLabels: {app: w}}
      template:
        metadata: {labels: {app: w}}
        spec: {schedulingGroup: {podGroupName: shared}, containers: [{name: c}]}
    """,
    """
    apiVersion: apps/v1
    kind: StatefulSet
    metadata: {name: worker, namespace: ml}
    spec:
      replicas: 3
      template: {spec: {schedulingGroup: {podGroupName: shared}, containers: [{name: c}]}}
    """,
])
def test_any_template_naming_a_group_joins_it_whatever_gang_says(tmp_path: Path,
                                                                  kind_yaml: str) -> None:
    """Issue 10's bullet: a template's schedulingGroup joins that PodGroup instead of making
    a group of its own, and --gang does not turn it into one."""
    podgroup = textwrap.dedent("""
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: shared, namespace: ml}
        spec: {schedulingPolicy: {gang: {minCount: 3}}}
        ---
        """)
    path = write(tmp_path, "w.yaml", podgroup + textwrap.dedent(kind_yaml))
    snapshot = load_inputs([path], [CLUSTER], jobs=JobOverrides(2, "topology.example.com/rack"))
    assert [g.key for g in snapshot.groups] == ["ml/shared"]
    assert len(names(snapshot, "ml/shared")) == 3
    (g,) = plan(snapshot).groups
    assert g.group.min_count == 3 and g.schedulable


def test_a_v1_35_workload_ref_in_a_template_joins_the_workload_group(tmp_path: Path) -> None:
    path = write(tmp_path, "w.yaml", """
        apiVersion: scheduling.k8s.io/v1alpha1
        kind: Workload
        metadata: {name: train, namespace: ml}
        spec:
          podGroups:
          - name: workers
            policy: {gang: {minCount: 2}}
        ---
        apiVersion: batch/v1
        kind: Job
        metadata: {name: train, namespace: ml}
        spec:
          parallelism: 2
          template:
            spec:
              workloadRef: {name: train, podGroup: workers}
              containers: [{name: c}]
        """)
    snapshot = load_inputs([path], [CLUSTER])
    assert [g.key for g in snapshot.groups] == ["ml/train/workers"]
    assert names(snapshot, "ml/train/workers") == ["train-0", "train-1"]


def test_a_bad_template_field_names_the_object_and_its_path(tmp_path: Path) -> None:
    path = write(tmp_path, "js.yaml", """
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata: {name: js, namespace: ml}
        spec:
          replicatedJobs:
          - name: w
            template: {spec: {parallelism: many, template: {spec: {containers: [{name: c}]}}}}
        """)
    with pytest.raises(InputError) as err:
        load_inputs([path], [CLUSTER])
    assert err.value.field == "spec.replicatedJobs[0].template.spec.parallelism"
    assert "JobSet ml/js" in str(err.value)


def test_a_failed_pod_does_not_count_and_its_name_is_not_reused(tmp_path: Path) -> None:
    """Job controller: a Failed pod is replaced by a new pod (a new name); the Failed one
    stays a member of the group and counts for nothing."""
    failed = write(tmp_path, "failed.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: train-0, namespace: ml, labels: {batch.kubernetes.io/job-name: train}}
        spec: {nodeName: cpu-0, containers: [{name: c}]}
        status: {phase: Failed}
        """)
    job = write(tmp_path, "job.yaml", """
        apiVersion: batch/v1
        kind: Job
        metadata: {name: train, namespace: ml}
        spec:
          parallelism: 3
          template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
        """)
    snapshot = load_inputs([job], [CLUSTER, failed])
    assert names(snapshot, "ml/train") == ["train-0", "train-1", "train-2", "train-3"]
    (group,) = snapshot.groups
    assert brief(group) == [("Job", "ml/train", 3, 0)]


def test_statefulset_recreates_only_missing_ordinals(tmp_path: Path) -> None:
    running = write(tmp_path, "db-1.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: db-1, namespace: serve, labels: {app: db}}
        spec: {nodeName: cpu-0, containers: [{name: postgres}]}
        status: {phase: Running}
        """)
    snapshot = load_inputs([FIXTURES / "apps.yaml"], [CLUSTER, running])
    assert sorted(names(snapshot, "serve/db")) == ["db-0", "db-1"]
    assert brief(snapshot.group_index["serve/db"]) == [("StatefulSet", "serve/db", 1, 1)]
