"""``tasplan check`` and ``tasplan lint`` agree (issue 21): what check plans, lint lints;
what lint rejects, check refuses, naming the same field in the same words; and the
scheduling keys check warns about are lint warnings."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tasplan import InputError, load_inputs
from tasplan.lint.engine import lint

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "realworld" / "fixtures"
CLUSTER = REPO / "samples" / "cluster"

C = "{containers: [{name: c, image: busybox}]}"

CASES = [
    pytest.param("""
        apiVersion: batch/v1
        kind: Job
        metadata: {name: x, namespace: ml}
        spec: {parallelism: 2}
        """, "spec.template", "required field is missing", id="job-without-template"),
    pytest.param(f"""
        apiVersion: batch/v1
        kind: Job
        metadata: {{name: x, namespace: ml}}
        spec: {{parallelism: "2", template: {{spec: {C}}}}}
        """, "spec.parallelism", "expected an integer, got '2'", id="job-parallelism-string"),
    pytest.param("""
        apiVersion: batch/v1
        kind: Job
        metadata: {name: x, namespace: ml}
        spec: {template: {spec: {containers: []}}}
        """, "spec.template.spec.containers", "expected at least 1 item(s), got 0",
        id="job-no-containers"),
    pytest.param("""
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata: {name: x, namespace: ml}
        spec: {}
        """, "spec.replicatedJobs", "required field is missing", id="jobset-no-jobs"),
    pytest.param(f"""
        apiVersion: leaderworkerset.x-k8s.io/v1
        kind: LeaderWorkerSet
        metadata: {{name: x, namespace: ml}}
        spec:
          leaderWorkerTemplate: {{size: 0, workerTemplate: {{spec: {C}}}}}
        """, "spec.leaderWorkerTemplate.size", "expected an integer >= 1, got 0",
        id="lws-size-zero"),
    pytest.param(f"""
        apiVersion: kubeflow.org/v1
        kind: PyTorchJob
        metadata: {{name: x, namespace: ml}}
        spec:
          pytorchReplicaSpecs:
            Worker: {{replicas: -1, template: {{spec: {C}}}}}
        """, "spec.pytorchReplicaSpecs.Worker.replicas", "expected an integer >= 0, got -1",
        id="pytorchjob-negative-replicas"),
    pytest.param(f"""
        apiVersion: kubeflow.org/v2beta1
        kind: MPIJob
        metadata: {{name: x, namespace: ml}}
        spec:
          mpiReplicaSpecs:
            Worker: {{replicas: 1, template: {{spec: {C}}}}}
        """, "spec.mpiReplicaSpecs.Launcher", "required field is missing",
        id="mpijob-no-launcher"),
    pytest.param("""
        apiVersion: ray.io/v1
        kind: RayCluster
        metadata: {name: x, namespace: ml}
        spec: {workerGroupSpecs: []}
        """, "spec.headGroupSpec", "required field is missing", id="raycluster-no-head"),
    pytest.param(f"""
        apiVersion: ray.io/v1
        kind: RayCluster
        metadata: {{name: x, namespace: ml}}
        spec:
          headGroupSpec: {{rayStartParams: {{}}, template: {{spec: {C}}}}}
          workerGroupSpecs:
          - {{groupName: g, replicas: two, rayStartParams: {{}}, template: {{spec: {C}}}}}
        """, "spec.workerGroupSpecs[0].replicas", "expected an integer, got 'two'",
        id="raycluster-replicas-string"),
    pytest.param(f"""
        apiVersion: grove.io/v1alpha1
        kind: PodCliqueSet
        metadata: {{name: x, namespace: ml}}
        spec:
          replicas: 1
          template:
            cliques: [{{name: a, spec: {{roleName: a, podSpec: {C}}}}}]
            podCliqueScalingGroups: [{{name: sg, cliqueNames: [b]}}]
        """, "spec.template.podCliqueScalingGroups[0].cliqueNames[0]", "no clique named 'b'",
        id="podcliqueset-unknown-clique"),
    pytest.param("""
        apiVersion: trainer.kubeflow.org/v1alpha1
        kind: TrainJob
        metadata: {name: x, namespace: ml}
        spec: {runtimeRef: {name: rt, kind: Runtime}}
        """, "spec.runtimeRef.kind",
        "expected one of TrainingRuntime, ClusterTrainingRuntime, got 'Runtime'",
        id="trainjob-bad-runtime-kind"),
]


def _check_error(path: Path) -> InputError:
    with pytest.raises(InputError) as err:
        load_inputs([path], [CLUSTER])
    return err.value


@pytest.mark.parametrize("text, field, message", CASES)
def test_lint_and_check_refuse_alike(tmp_path: Path, text: str, field: str,
                                     message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(textwrap.dedent(text))
    err = _check_error(path)
    report = lint([path])
    found = [(f.path, f.message) for f in report.findings if f.severity == "error"]
    assert (err.field, err.detail) == (field, message), str(err)
    assert (field, message) in found, found


def test_everything_check_plans_lint_lints() -> None:
    """No fixture of a kind check plans is 'skipped' by lint."""
    report = lint(sorted(FIXTURES.glob("*.yaml")))
    planned = {"Job", "JobSet", "LeaderWorkerSet", "Deployment", "ReplicaSet", "StatefulSet",
               "PyTorchJob", "MPIJob", "TrainJob", "ClusterTrainingRuntime", "RayCluster",
               "PodCliqueSet", "AppWrapper", "Pod", "PodGroup", "Workload"}
    assert not planned & set(report.skipped) - {"PodGroup", "Job"}, report.skipped
    # (the skipped PodGroups and Jobs are other schedulers' kinds: foreign.yaml)
    assert set(report.skipped) <= {"PodGroup", "Job"}


def test_scheduling_keys_no_scheduler_honours_are_lint_warnings(tmp_path: Path) -> None:
    """TP220 for the keys no scheduler of tasplan's honours, in check's words; a key some
    scheduler honours (check's auto plans the workload with it) is not a lint warning."""
    from tasplan.model.scheduling_keys import BY_KEY, Status, Where, describe

    path = tmp_path / "lws.yaml"
    path.write_text(textwrap.dedent("""
        apiVersion: leaderworkerset.x-k8s.io/v1
        kind: LeaderWorkerSet
        metadata:
          name: lws
          namespace: ml
          labels: {kueue.x-k8s.io/queue-name: user-queue}
          annotations:
            leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology: kubernetes.io/hostname
        spec:
          leaderWorkerTemplate:
            size: 2
            workerTemplate: {spec: {containers: [{name: c, image: busybox}]}}
        """))
    warned = {f.path: f.message for f in lint([path]).findings if f.rule.id == "TP220"}
    subgroup = BY_KEY[(Where.ANNOTATION,
                       "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology")]
    path_of = 'metadata.annotations["leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology"]'
    assert warned[path_of] == f"'kubernetes.io/hostname': {describe(subgroup, 'x')}".replace(
        "'x'", "'kubernetes.io/hostname'")
    queue = BY_KEY[(Where.LABEL, "kueue.x-k8s.io/queue-name")]
    honoured = any(status != Status.WARNED for status in queue.planned.values())
    assert ('metadata.labels["kueue.x-k8s.io/queue-name"]' in warned) is not honoured


def test_a_trainjob_without_its_runtime_is_a_lint_warning(tmp_path: Path) -> None:
    text = (FIXTURES / "trainjob-volcano.yaml").read_text().split("---\n", 1)[1]
    path = tmp_path / "tj.yaml"
    path.write_text(text)
    (finding,) = [f for f in lint([path]).findings if f.rule.id == "TP219"]
    assert "ClusterTrainingRuntime torch-distributed-volcano" in finding.message
