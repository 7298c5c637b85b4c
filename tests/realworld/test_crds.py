"""Training and serving CRDs (issue 21) as their controllers expand them: pod count, names,
labels and gang, checked by hand against each controller's code (named in each module's
docstring and in the fixtures' headers)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tasplan import InputError, JobOverrides, load_inputs, plan
from tasplan.limits import MAX_CONTROLLER_PODS
from tasplan.model.group import Policy

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
CLUSTER = REPO / "samples" / "cluster"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def names(snapshot, group: str) -> list[str]:
    return [p.name for p in snapshot.pods_by_group.get(group, [])]


def pod(snapshot, name: str):
    return next(p for p in snapshot.pods if p.name == name)


def group(snapshot, key: str):
    return snapshot.group_index[key]


def summary(g) -> tuple:
    return g.key, g.kind, g.policy, g.min_count


# --------------------------------------------------------------------------- Kubeflow v1


def test_pytorchjob_pods_and_labels_as_the_training_operator_makes_them() -> None:
    snapshot = load_inputs([FIXTURES / "kubeflow-pytorchjob.yaml"], [CLUSTER])
    assert names(snapshot, "ml/pytorch-simple") == [
        "pytorch-simple-master-0", "pytorch-simple-worker-0", "pytorch-simple-worker-1",
        "pytorch-simple-worker-2"]
    common = {"training.kubeflow.org/operator-name": "pytorchjob-controller",
              "training.kubeflow.org/job-name": "pytorch-simple"}
    # IsMasterRole: with a Master replica type, the master is the Master pod.
    assert pod(snapshot, "pytorch-simple-master-0").labels == {
        **common, "training.kubeflow.org/replica-type": "master",
        "training.kubeflow.org/replica-index": "0", "training.kubeflow.org/job-role": "master"}
    assert pod(snapshot, "pytorch-simple-worker-0").labels == {
        **common, "training.kubeflow.org/replica-type": "worker",
        "training.kubeflow.org/replica-index": "0"}
    # No schedulingPolicy: the operator's gang scheduler makes no PodGroup; basic pods.
    assert summary(group(snapshot, "ml/pytorch-simple")) == (
        "ml/pytorch-simple", "PyTorchJob", Policy.BASIC, 1)
    gang = group(snapshot, "ml/pytorch-gang")
    assert summary(gang) == ("ml/pytorch-gang", "PyTorchJob", Policy.GANG, 3)  # minAvailable
    assert [c for c, _ in gang.notes] == ["gang-assumed"]
    (expansion,) = gang.expansions
    assert [(ps.name, ps.count) for ps in expansion.pod_sets] == [("worker", 4)]
    # Worker-only PyTorchJob: worker 0 is the master (IsMasterRole).
    assert pod(snapshot, "pytorch-gang-worker-0").labels["training.kubeflow.org/job-role"] \
        == "master"
    assert "training.kubeflow.org/job-role" not in pod(snapshot, "pytorch-gang-worker-1").labels


def test_schedulingpolicy_without_minavailable_gangs_every_replica(tmp_path: Path) -> None:
    """common/job.go: minMember = total replicas unless minAvailable; TFJob's chief is the
    master; replica types keep the input order."""
    path = write(tmp_path, "tf.yaml", """
        apiVersion: kubeflow.org/v1
        kind: TFJob
        metadata: {name: tf, namespace: ml}
        spec:
          runPolicy: {schedulingPolicy: {queue: default}}
          tfReplicaSpecs:
            Chief:
              template: {spec: {containers: [{name: tensorflow, image: tf}]}}
            Worker:
              replicas: 2
              template: {spec: {containers: [{name: tensorflow, image: tf}]}}
        """)
    snapshot = load_inputs([path], [CLUSTER])
    assert summary(group(snapshot, "ml/tf")) == ("ml/tf", "TFJob", Policy.GANG, 3)
    assert names(snapshot, "ml/tf") == ["tf-chief-0", "tf-worker-0", "tf-worker-1"]
    assert pod(snapshot, "tf-chief-0").labels["training.kubeflow.org/job-role"] == "master"
    assert "training.kubeflow.org/job-role" not in pod(snapshot, "tf-worker-0").labels


def test_v1_mpijob_launcher_has_no_index(tmp_path: Path) -> None:
    """training-operator's v1 MPIJob (mpi/mpijob_controller.go): <job>-launcher and
    <job>-worker-<i>, labelled by the mpijob-controller."""
    path = write(tmp_path, "mpi.yaml", """
        apiVersion: kubeflow.org/v1
        kind: MPIJob
        metadata: {name: mpi, namespace: ml}
        spec:
          mpiReplicaSpecs:
            Launcher:
              replicas: 1
              template: {spec: {containers: [{name: l, image: mpi}]}}
            Worker:
              replicas: 2
              template: {spec: {containers: [{name: w, image: mpi}]}}
        """)
    snapshot = load_inputs([path], [CLUSTER])
    assert names(snapshot, "ml/mpi") == ["mpi-launcher", "mpi-worker-0", "mpi-worker-1"]
    assert pod(snapshot, "mpi-launcher").labels == {
        "training.kubeflow.org/operator-name": "mpijob-controller",
        "training.kubeflow.org/job-name": "mpi",
        "training.kubeflow.org/replica-type": "launcher",
        "training.kubeflow.org/job-role": "master"}


# --------------------------------------------------------------------------- MPI Operator


def test_mpi_operator_launcher_job_and_workers() -> None:
    snapshot = load_inputs([FIXTURES / "mpijob-pi.yaml"], [CLUSTER])
    # The launcher is a batch Job <job>-launcher (its pod named by tasplan
    # <job>-launcher-0); workers are pods <job>-worker-<i>.
    assert names(snapshot, "ml/pi") == ["pi-launcher-0", "pi-worker-0", "pi-worker-1"]
    common = {"training.kubeflow.org/operator-name": "mpi-operator",
              "training.kubeflow.org/job-name": "pi"}
    assert pod(snapshot, "pi-launcher-0").labels == {
        **common, "training.kubeflow.org/job-role": "launcher",
        "batch.kubernetes.io/job-name": "pi-launcher", "job-name": "pi-launcher"}
    assert pod(snapshot, "pi-worker-1").labels == {
        **common, "training.kubeflow.org/job-role": "worker",
        "training.kubeflow.org/replica-index": "1"}
    # calculateMinAvailable: workers + 1 without minAvailable.
    g = group(snapshot, "ml/pi")
    assert summary(g) == ("ml/pi", "MPIJob", Policy.GANG, 3)
    assert [(ps.name, ps.count) for ps in g.expansions[0].pod_sets] == [
        ("launcher", 1), ("worker", 2)]


def test_mpi_operator_run_launcher_as_worker_pads_the_worker_index(tmp_path: Path) -> None:
    text = (FIXTURES / "mpijob-pi.yaml").read_text().replace(
        "  slotsPerWorker: 1\n", "  slotsPerWorker: 1\n  runLauncherAsWorker: true\n")
    snapshot = load_inputs([write(tmp_path, "pi.yaml", text)], [CLUSTER])
    assert pod(snapshot, "pi-launcher-0").labels["training.kubeflow.org/replica-index"] == "0"
    assert pod(snapshot, "pi-worker-0").labels["training.kubeflow.org/replica-index"] == "1"


# --------------------------------------------------------------------------- Trainer v2


def test_trainjob_volcano_runtime_gangs_all_nodes() -> None:
    snapshot = load_inputs([FIXTURES / "trainjob-volcano.yaml"], [CLUSTER])
    g = group(snapshot, "ml/volcano-example")
    assert summary(g) == ("ml/volcano-example", "TrainJob", Policy.GANG, 4)
    # JobSet <trainjob>, replicated Job "node" of numNodes (4) pods, one replica.
    assert names(snapshot, "ml/volcano-example") == [
        f"volcano-example-node-0-{i}" for i in range(4)]
    p = pod(snapshot, "volcano-example-node-0-3")
    assert p.labels["jobset.sigs.k8s.io/jobset-name"] == "volcano-example"
    # The ancestor label is the Job template's (the runtime's), not the pods'.
    assert "trainer.kubeflow.org/trainjob-ancestor-step" not in p.labels
    # resourcesPerNode merged into the node container: requests cpu 1, memory 2Gi.
    assert p.requests["cpu"] == 1000 and p.requests["memory"] == 2 * 2**30
    (ps,) = g.expansions[0].pod_sets
    assert ps.annotation("scheduling.k8s.io/group-name") == "volcano-example"
    assert "podGroupPolicy.volcano" in dict(g.notes)["gang-assumed"]


def test_trainjob_without_its_runtime_is_skipped_not_invalid(tmp_path: Path) -> None:
    text = (FIXTURES / "trainjob-volcano.yaml").read_text().split("---\n", 1)[1]
    snapshot = load_inputs([write(tmp_path, "tj.yaml", text)], [CLUSTER])
    assert not [g for g in snapshot.groups if g.planned]
    (skipped,) = snapshot.skipped
    assert (skipped.kind, skipped.names, skipped.checked) == (
        "TrainJob", ("ml/volcano-example",), False)
    assert "ClusterTrainingRuntime torch-distributed-volcano" in skipped.reason


def test_skipped_kinds_that_make_pods_say_how_to_plan_them(tmp_path: Path) -> None:
    """Kueue ff69552e79 site/static/examples/jobs/sample-cronjob.yaml: a CronJob next to a
    Job is skipped with a hint and makes the run "could not check"; a runtime no TrainJob
    uses is listed (it makes no pods of its own), without making the run unchecked."""
    text = """
        apiVersion: batch/v1
        kind: CronJob
        metadata: {name: cron, namespace: ml}
        spec:
          schedule: "* * * * *"
          jobTemplate:
            spec:
              template:
                spec:
                  restartPolicy: Never
                  containers: [{name: c, image: busybox}]
        ---
        apiVersion: batch/v1
        kind: Job
        metadata: {name: j, namespace: ml}
        spec:
          template:
            spec:
              restartPolicy: Never
              containers: [{name: c, image: busybox}]
        """
    snapshot = load_inputs([write(tmp_path, "cron.yaml", text)], [CLUSTER])
    assert [g.key for g in snapshot.groups if g.planned] == ["ml/j"]
    (cron,) = snapshot.skipped
    assert (cron.kind, cron.names, cron.checked) == ("CronJob", ("ml/cron",), False)
    assert cron.hint == "it makes one Job per schedule: plan spec.jobTemplate as a Job"
    runtime = TORCH_RUNTIME.split("---\n", 1)[0]
    snapshot = load_inputs([write(tmp_path, "rt.yaml", runtime)], [CLUSTER])
    (rt,) = snapshot.skipped
    assert (rt.kind, rt.names, rt.checked) == ("TrainingRuntime", ("ml/torch-distributed",),
                                               True)
    assert "no TrainJob in the inputs" in rt.reason and "spec.runtimeRef" in rt.hint
    snapshot = load_inputs([write(tmp_path, "tj.yaml", TORCH_RUNTIME)], [CLUSTER])
    assert snapshot.skipped == ()


TORCH_RUNTIME = """\
    # Shaped like Trainer's manifests/base/runtimes/torch_distributed.yaml (kubeflow/trainer
    # 8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3) with a dataset initializer.
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: TrainingRuntime
    metadata: {name: torch-distributed, namespace: ml}
    spec:
      mlPolicy: {numNodes: 1, torch: {}}
      template:
        spec:
          replicatedJobs:
          - name: dataset-initializer
            replicas: 3
            template:
              metadata:
                labels: {trainer.kubeflow.org/trainjob-ancestor-step: dataset-initializer}
              spec:
                template:
                  spec:
                    containers:
                    - {name: dataset-initializer, image: init}
          - name: node
            template:
              metadata:
                labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
              spec:
                template:
                  spec:
                    containers:
                    - name: node
                      image: pytorch/pytorch
                      resources: {requests: {cpu: "4"}}
    ---
    # Shaped like Trainer's examples/yaml/01-multi-node.yaml and 02-runtime-patches.yaml.
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: TrainJob
    metadata: {name: multi-node-example, namespace: ml}
    spec:
      runtimeRef: {name: torch-distributed, kind: TrainingRuntime}
      trainer: {numNodes: 3}
      runtimePatches:
      - manager: example.com/patcher
        trainingRuntimeSpec:
          template:
            spec:
              replicatedJobs:
              - name: node
                template:
                  spec:
                    template:
                      spec:
                        nodeSelector: {topology.example.com/block: block-b}
    """


def test_trainjob_torch_runtime_with_initializer_and_patches(tmp_path: Path) -> None:
    snapshot = load_inputs([write(tmp_path, "torch.yaml", TORCH_RUNTIME)], [CLUSTER])
    g = group(snapshot, "ml/multi-node-example")
    # No podGroupPolicy: the JobSet's own scheduling (none): basic.
    assert summary(g) == ("ml/multi-node-example", "TrainJob", Policy.BASIC, 1)
    # Initializer Jobs get one replica (builder.go Initializer); the trainer Job numNodes.
    assert names(snapshot, "ml/multi-node-example") == [
        "multi-node-example-dataset-initializer-0-0",
        "multi-node-example-node-0-0", "multi-node-example-node-0-1",
        "multi-node-example-node-0-2"]
    # The runtime patch reached the node pods only.
    assert pod(snapshot, "multi-node-example-node-0-2").node_selector == {
        "topology.example.com/block": "block-b"}
    assert pod(snapshot, "multi-node-example-dataset-initializer-0-0").node_selector == {}
    assert [(ps.name, ps.count) for ps in g.expansions[0].pod_sets] == [
        ("dataset-initializer", 1), ("node", 3)]


def test_trainjob_mpi_runtime_launcher_as_node(tmp_path: Path) -> None:
    """mpi.go EnforceMLPolicy: with runLauncherAsNode the node Job gets numNodes - 1."""
    text = """\
        apiVersion: trainer.kubeflow.org/v1alpha1
        kind: ClusterTrainingRuntime
        metadata: {name: deepspeed-distributed}
        spec:
          mlPolicy:
            numNodes: 1
            mpi: {numProcPerNode: 1, runLauncherAsNode: true}
          podGroupPolicy:
            coscheduling: {scheduleTimeoutSeconds: 120}
          template:
            spec:
              replicatedJobs:
              - name: node
                template:
                  spec:
                    template:
                      spec:
                        containers: [{name: node, image: deepspeed}]
              - name: launcher
                template:
                  metadata:
                    labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
                  spec:
                    template:
                      spec:
                        containers: [{name: node, image: deepspeed}]
        ---
        apiVersion: trainer.kubeflow.org/v1alpha1
        kind: TrainJob
        metadata: {name: ds, namespace: ml}
        spec:
          runtimeRef: {name: deepspeed-distributed}
          trainer: {numNodes: 3}
        """
    snapshot = load_inputs([write(tmp_path, "ds.yaml", text)], [CLUSTER])
    assert names(snapshot, "ml/ds") == ["ds-node-0-0", "ds-node-0-1", "ds-launcher-0-0"]
    g = group(snapshot, "ml/ds")
    # coscheduling: minMember = the PodSets' counts (2 nodes + 1 launcher).
    assert summary(g) == ("ml/ds", "TrainJob", Policy.GANG, 3)
    assert pod(snapshot, "ds-node-0-1").labels["scheduling.x-k8s.io/pod-group"] == "ds"


# --------------------------------------------------------------------------- KubeRay


def test_raycluster_gang_as_kuberay_writes_its_podgroup() -> None:
    snapshot = load_inputs([FIXTURES / "raycluster-gang.yaml"], [CLUSTER])
    g = group(snapshot, "ml/test-podgroup-0-cluster")
    # 1 head + 2 workers + 1 replica x 4 hosts
    assert summary(g) == ("ml/test-podgroup-0-cluster", "RayCluster", Policy.GANG, 7)
    assert names(snapshot, "ml/test-podgroup-0-cluster") == [
        "test-podgroup-0-head", "test-podgroup-0-worker-worker-0",
        "test-podgroup-0-worker-worker-1", *(f"test-podgroup-0-gpu-group-worker-{i}"
                                             for i in range(4))]
    head = pod(snapshot, "test-podgroup-0-head")
    assert head.labels == {
        "ray.io/is-ray-node": "yes", "ray.io/cluster": "test-podgroup-0",
        "ray.io/node-type": "head", "ray.io/group": "headgroup",
        "ray.io/identifier": "test-podgroup-0-head", "app.kubernetes.io/name": "kuberay",
        "app.kubernetes.io/created-by": "kuberay-operator"}
    host = pod(snapshot, "test-podgroup-0-gpu-group-worker-3")
    assert host.labels["ray.io/group"] == "gpu-group"
    assert host.labels["ray.io/worker-group-replica-index"] == "0"
    assert host.labels["ray.io/replica-host-index"] == "3"
    # The wait-gcs-ready init container (200m) does not raise a 1-cpu worker's request.
    assert pod(snapshot, "test-podgroup-0-worker-worker-0").requests["cpu"] == 1000
    assert [(ps.name, ps.count) for ps in g.expansions[0].pod_sets] == [
        ("head", 1), ("worker", 2), ("gpu-group", 4)]


def test_raycluster_autoscaling_sidecar_and_no_gang(tmp_path: Path) -> None:
    text = (FIXTURES / "raycluster-gang.yaml").read_text().replace(
        "  rayVersion: \"2.52.0\"\n", "  rayVersion: \"2.52.0\"\n  enableInTreeAutoscaling: true\n")
    snapshot = load_inputs([write(tmp_path, "ray.yaml", text)], [CLUSTER])
    # kubernetes-was writes no gang for an autoscaling cluster
    g = group(snapshot, "ml/test-podgroup-0")
    assert (g.policy, g.min_count) == (Policy.BASIC, 1)
    # The autoscaler sidecar (500m) is added to the head's 1 cpu.
    assert pod(snapshot, "test-podgroup-0-head").requests["cpu"] == 1500


def test_rayjob_cluster_and_cluster_selector(tmp_path: Path) -> None:
    path = write(tmp_path, "rayjob.yaml", """
        # Shaped like KubeRay's ray-operator/config/samples/ray-job.sample.yaml
        apiVersion: ray.io/v1
        kind: RayJob
        metadata: {name: rayjob-sample, namespace: ml}
        spec:
          entrypoint: python /home/ray/samples/sample_code.py
          rayClusterSpec:
            headGroupSpec:
              rayStartParams: {}
              template: {spec: {containers: [{name: ray-head, image: rayproject/ray}]}}
            workerGroupSpecs:
            - groupName: small-group
              replicas: 1
              rayStartParams: {}
              template: {spec: {containers: [{name: ray-worker, image: rayproject/ray}]}}
        ---
        apiVersion: ray.io/v1
        kind: RayJob
        metadata: {name: on-existing, namespace: ml}
        spec:
          entrypoint: python x.py
          clusterSelector: {ray.io/cluster: existing}
        """)
    snapshot = load_inputs([path], [CLUSTER])
    assert names(snapshot, "ml/rayjob-sample-00000") == [
        "rayjob-sample-00000-head", "rayjob-sample-00000-small-group-worker-0"]
    g = group(snapshot, "ml/rayjob-sample-00000")
    assert {c for c, _ in g.notes} == {"ray-submitter", "ray-cluster-name"}
    (skipped,) = snapshot.skipped
    assert (skipped.kind, skipped.names, skipped.checked) == ("RayJob", ("ml/on-existing",),
                                                              False)


# --------------------------------------------------------------------------- Grove


def test_podcliqueset_podgangs_as_grove_makes_them() -> None:
    snapshot = load_inputs([FIXTURES / "grove-pipeline.yaml"], [CLUSTER])
    base = group(snapshot, "serve/comp-inf-ppln-0")
    # The base PodGang: the cliques' minAvailable: frontend 2 + vision-encoder 1 +
    # pleader 1 + pworker 3 (minAvailable) + decode replica 0 (dleader 1 + dworker 2).
    assert summary(base) == ("serve/comp-inf-ppln-0", "PodCliqueSet", Policy.GANG, 10)
    assert len(names(snapshot, "serve/comp-inf-ppln-0")) == 11  # pworker keeps 4 pods
    scaled = group(snapshot, "serve/comp-inf-ppln-0-decode-cluster-0")
    assert summary(scaled) == ("serve/comp-inf-ppln-0-decode-cluster-0", "PodCliqueSet",
                               Policy.GANG, 3)
    assert names(snapshot, "serve/comp-inf-ppln-0-decode-cluster-0") == [
        "comp-inf-ppln-0-decode-cluster-1-dleader-0",
        "comp-inf-ppln-0-decode-cluster-1-dworker-0",
        "comp-inf-ppln-0-decode-cluster-1-dworker-1"]
    p = pod(snapshot, "comp-inf-ppln-0-decode-cluster-1-dworker-1")
    assert p.labels == {
        "app.kubernetes.io/managed-by": "grove-operator",
        "app.kubernetes.io/part-of": "comp-inf-ppln",
        "app.kubernetes.io/name": "comp-inf-ppln-0-decode-cluster-1-dworker",
        "app.kubernetes.io/component": "pcsg-podclique",
        "grove.io/podgang": "comp-inf-ppln-0-decode-cluster-0",
        "grove.io/base-podgang": "comp-inf-ppln-0",
        "grove.io/podcliqueset-replica-index": "0",
        "grove.io/podcliquescalinggroup": "comp-inf-ppln-0-decode-cluster",
        "grove.io/podcliquescalinggroup-replica-index": "1",
        "grove.io/podclique": "comp-inf-ppln-0-decode-cluster-1-dworker"}
    sets = {ps.name: (ps.count, ps.min_count) for ps in base.expansions[0].pod_sets}
    assert sets["comp-inf-ppln-0-prefill-0-pworker"] == (4, 3)


# --------------------------------------------------------------------------- AppWrapper


def test_appwrapper_components_expand_as_their_kinds() -> None:
    snapshot = load_inputs([FIXTURES / "appwrapper.yaml"], [CLUSTER])
    g = group(snapshot, "ml/pytorch-simple")
    assert g.kind == "PyTorchJob"
    assert g.expansions[0].via == ("AppWrapper ml/sample-pytorch-job",)
    assert names(snapshot, "ml/pytorch-simple") == [
        "pytorch-simple-master-0", "pytorch-simple-worker-0", "pytorch-simple-worker-1"]
    assert pod(snapshot, "pytorch-simple-worker-1").labels[
        "workload.codeflare.dev/appwrapper"] == "sample-pytorch-job"
    assert names(snapshot, "ml/sample-pod") == ["sample-pod"]
    assert group(snapshot, "ml/sample-pod").kind == "AppWrapper"


def test_appwrapper_component_errors_name_the_field_in_the_appwrapper(tmp_path: Path) -> None:
    text = (FIXTURES / "appwrapper.yaml").read_text().replace(
        "            replicas: 2\n", "            replicas: two\n", 1)
    path = write(tmp_path, "aw.yaml", text)
    with pytest.raises(InputError) as err:
        load_inputs([path], [CLUSTER])
    assert err.value.field == ("spec.components[0].template.spec.pytorchReplicaSpecs.Worker."
                               "replicas")
    assert err.value.line == 31  # the Worker's replicas line
    assert "expected an integer" in str(err.value)


# --------------------------------------------------------------------------- pod groups


def test_kueue_plain_pod_group_is_one_gang_of_its_total_count() -> None:
    snapshot = load_inputs([FIXTURES / "kueue-pod-group.yaml"], [CLUSTER])
    g = group(snapshot, "ml/sample-group")
    assert summary(g) == ("ml/sample-group", "Pod", Policy.GANG, 2)
    assert names(snapshot, "ml/sample-group") == ["sample-leader-00000", "sample-worker-00000"]
    (ps,) = g.expansions[0].pod_sets  # both pods look alike
    assert (ps.name, ps.count, ps.annotation("kueue.x-k8s.io/pod-group-total-count")) == (
        "main", 2, "2")


def test_kueue_total_count_must_be_a_positive_integer(tmp_path: Path) -> None:
    text = (FIXTURES / "kueue-pod-group.yaml").read_text().replace('count: "2"', 'count: "two"',
                                                                   1)
    with pytest.raises(InputError) as err:
        load_inputs([write(tmp_path, "pods.yaml", text)], [CLUSTER])
    assert err.value.field == "metadata.annotations.kueue.x-k8s.io/pod-group-total-count"
    assert err.value.line == 13  # the leader's annotation


@pytest.mark.parametrize("meta, key", [
    ("annotations: {scheduling.k8s.io/group-name: vg}", "ml/vg"),
    ("annotations: {pod-group-name: kai-pg}", "ml/kai-pg"),
    ("labels: {scheduling.x-k8s.io/pod-group: cpg}", "ml/cpg"),
])
def test_pods_named_by_another_schedulers_group_form_one_gang(tmp_path: Path, meta: str,
                                                             key: str) -> None:
    pods = "".join(f"""
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: p-{i}
          namespace: ml
          {meta}
        spec: {{containers: [{{name: c, image: busybox}}]}}
        """ for i in range(3))
    snapshot = load_inputs([write(tmp_path, "pods.yaml", pods)], [CLUSTER])
    assert summary(group(snapshot, key)) == (key, "Pod", Policy.GANG, 3)
    # --gang overrides the size of a group whose PodGroup tasplan does not read
    snapshot = load_inputs([write(tmp_path, "pods.yaml", pods)], [CLUSTER],
                           jobs=JobOverrides(2, "topology.example.com/rack"))
    assert (group(snapshot, key).min_count, group(snapshot, key).topology_key) == (
        2, "topology.example.com/rack")


def test_a_template_naming_another_schedulers_group_joins_it(tmp_path: Path) -> None:
    """KAI-Scheduler d5bc503a examples/topology-aliases/topology-aliases.yaml: a Job whose
    template carries ``pod-group-name`` (the Job and the PodGroup share a name) is KAI's
    PodGroup of 3, not a basic Job; the PodGroup's topology constraint is warned about
    when kube-scheduler plans it.
    A coscheduling label on a Job template makes it one gang of the PodGroup's minMember,
    with pods of the same label that are already in the inputs."""
    text = """
        apiVersion: scheduling.run.ai/v2alpha2
        kind: PodGroup
        metadata: {name: aliased, namespace: default}
        spec:
          minMember: 3
          topologyConstraint: {topology: network, requiredTopologyLevel: rack}
        ---
        apiVersion: batch/v1
        kind: Job
        metadata: {name: aliased, namespace: default}
        spec:
          parallelism: 3
          completions: 3
          template:
            metadata:
              annotations: {pod-group-name: aliased}
            spec:
              schedulerName: kai-scheduler
              restartPolicy: Never
              containers: [{name: worker, image: busybox, resources: {requests: {cpu: 250m}}}]
        """
    snapshot = load_inputs([write(tmp_path, "kai.yaml", text)], [CLUSTER])
    g = group(snapshot, "default/aliased")
    assert summary(g) == ("default/aliased", "PodGroup", Policy.GANG, 3)
    assert [(e.kind, e.name, e.synthesised, [ps.count for ps in e.pod_sets])
            for e in g.expansions] == [("Job", "default/aliased", 3, [3])]
    assert len(names(snapshot, "default/aliased")) == 3
    assert "default/aliased" not in [g.key for g in snapshot.groups if g.kind == "Job"]
    # kube-scheduler does not read the PodGroup's constraint: warned; kai (auto, the pods
    # ask for kai-scheduler) does.
    warned = [w for w in plan(snapshot, scheduler="kube-scheduler").warnings
              if "topologyConstraint.requiredTopologyLevel" in w]
    assert warned and "--scheduler kai" in warned[0] and "'rack'" in warned[0]
    assert not [w for w in plan(snapshot).warnings
                if "topologyConstraint.requiredTopologyLevel" in w]

    text = """
        apiVersion: scheduling.x-k8s.io/v1alpha1
        kind: PodGroup
        metadata: {name: cpg, namespace: ml}
        spec: {minMember: 4}
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: loose
          namespace: ml
          labels: {scheduling.x-k8s.io/pod-group: cpg}
        spec: {containers: [{name: c, image: busybox}]}
        ---
        apiVersion: batch/v1
        kind: Job
        metadata: {name: j, namespace: ml}
        spec:
          parallelism: 3
          completions: 3
          template:
            metadata:
              labels: {scheduling.x-k8s.io/pod-group: cpg}
            spec:
              restartPolicy: Never
              containers: [{name: c, image: busybox}]
        """
    snapshot = load_inputs([write(tmp_path, "cos.yaml", text)], [CLUSTER])
    g = group(snapshot, "ml/cpg")
    assert summary(g) == ("ml/cpg", "Pod", Policy.GANG, 4)
    assert sorted(names(snapshot, "ml/cpg"))[-1] == "loose" and len(names(snapshot, "ml/cpg")) == 4
    assert [(e.kind, e.synthesised, e.existing) for e in g.expansions] == [
        ("Pod", 0, 1), ("Job", 3, 0)]
    assert "ml/j" not in snapshot.group_index


def test_coscheduling_podgroup_min_member(tmp_path: Path) -> None:
    text = """
        apiVersion: scheduling.x-k8s.io/v1alpha1
        kind: PodGroup
        metadata: {name: cpg, namespace: ml}
        spec: {minMember: 2}
        """ + "".join(f"""
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: p-{i}
          namespace: ml
          labels: {{scheduling.x-k8s.io/pod-group: cpg}}
        spec: {{containers: [{{name: c, image: busybox}}]}}
        """ for i in range(3))
    snapshot = load_inputs([write(tmp_path, "pods.yaml", text)], [CLUSTER])
    assert summary(group(snapshot, "ml/cpg")) == ("ml/cpg", "Pod", Policy.GANG, 2)


# --------------------------------------------------------------------------- strictness


@pytest.mark.parametrize("text, field", [
    ("""
     apiVersion: kubeflow.org/v1
     kind: PyTorchJob
     metadata: {name: x, namespace: ml}
     spec:
       pytorchReplicaSpecs:
         Worker: {replicas: -1, template: {spec: {containers: [{name: c}]}}}
     """, "spec.pytorchReplicaSpecs.Worker.replicas"),
    ("""
     apiVersion: kubeflow.org/v2beta1
     kind: MPIJob
     metadata: {name: x, namespace: ml}
     spec:
       mpiReplicaSpecs:
         Worker: {replicas: 1, template: {spec: {containers: [{name: c}]}}}
     """, "spec.mpiReplicaSpecs.Launcher"),
    ("""
     apiVersion: ray.io/v1
     kind: RayCluster
     metadata: {name: x, namespace: ml}
     spec:
       headGroupSpec: {template: {spec: {containers: [{name: c}]}}}
       workerGroupSpecs:
       - {groupName: g, replicas: "2", template: {spec: {containers: [{name: c}]}}}
     """, "spec.workerGroupSpecs[0].replicas"),
    ("""
     apiVersion: grove.io/v1alpha1
     kind: PodCliqueSet
     metadata: {name: x, namespace: ml}
     spec:
       replicas: 1
       template:
         cliques: [{name: a, spec: {roleName: a, podSpec: {containers: [{name: c}]}}}]
         podCliqueScalingGroups: [{name: sg, cliqueNames: [b]}]
     """, "spec.template.podCliqueScalingGroups[0].cliqueNames[0]"),
    ("""
     apiVersion: batch/v1
     kind: Job
     metadata: {name: x, namespace: ml}
     spec: {parallelism: 1}
     """, "spec.template"),
    ("""
     apiVersion: ray.io/v1
     kind: RayCluster
     metadata: {name: x, namespace: ml}
     spec:
       headGroupSpec: {template: {spec: {containers: []}}}
     """, "spec.headGroupSpec.template.spec.containers"),
])
def test_malformed_objects_are_refused_with_their_field(tmp_path: Path, text: str,
                                                        field: str) -> None:
    with pytest.raises(InputError) as err:
        load_inputs([write(tmp_path, "bad.yaml", text)], [CLUSTER])
    assert err.value.field == field
    assert err.value.line is not None


def test_expansion_is_bounded_by_the_pod_limit(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(MAX_CONTROLLER_PODS.env, "100")
    path = write(tmp_path, "ray.yaml", """
        apiVersion: ray.io/v1
        kind: RayCluster
        metadata: {name: x, namespace: ml}
        spec:
          headGroupSpec: {template: {spec: {containers: [{name: c}]}}}
          workerGroupSpecs:
          - {groupName: g, replicas: 1000, numOfHosts: 1000,
             template: {spec: {containers: [{name: c}]}}}
        """)
    with pytest.raises(InputError) as err:
        load_inputs([path], [CLUSTER])
    assert "exceed the limit of 100" in str(err.value)
