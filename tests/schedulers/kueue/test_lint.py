"""``tasplan lint`` with Kueue: the webhooks' refusals of TAS annotations (TP230) and the
API server's of Topology and ResourceFlavor objects (TP231)."""

from __future__ import annotations

from pathlib import Path

from tasplan.lint.engine import lint

JOB = """
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: ml, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  parallelism: 4
  completions: 4
  template:
    metadata:
      annotations:
%s
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""

JOBSET = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, namespace: ml}
spec:
  replicatedJobs:
  - name: leader
    replicas: 1
    template:
      spec:
        parallelism: 1
        template:
          metadata:
            annotations:
              kueue.x-k8s.io/podset-required-topology: cloud.com/rack
              kueue.x-k8s.io/podset-group-name: g
          spec:
            containers: [{name: c, image: x}]
  - name: workers
    replicas: 2
    template:
      spec:
        parallelism: 4
        template:
          metadata:
            annotations:
              kueue.x-k8s.io/podset-preferred-topology: cloud.com/rack
              kueue.x-k8s.io/podset-group-name: g
          spec:
            containers: [{name: c, image: x}]
"""


def _findings(tmp_path: Path, text: str) -> list[tuple[str, str, str]]:
    path = tmp_path / "in.yaml"
    path.write_text(text)
    return [(f.rule.id, f.path, f.message) for f in lint([path]).findings]


def _job(tmp_path: Path, *annotations: str) -> list[tuple[str, str, str]]:
    return _findings(tmp_path, JOB % "\n".join(f"        {a}" for a in annotations))


def test_valid_annotations_pass(tmp_path: Path) -> None:
    assert _job(tmp_path, "kueue.x-k8s.io/podset-required-topology: cloud.com/rack",
                "kueue.x-k8s.io/podset-slice-required-topology: cloud.com/host",
                'kueue.x-k8s.io/podset-slice-size: "2"') == []


def test_two_levels_at_once(tmp_path: Path) -> None:
    (found,) = _job(tmp_path, "kueue.x-k8s.io/podset-required-topology: cloud.com/rack",
                    "kueue.x-k8s.io/podset-preferred-topology: cloud.com/block")
    assert found[0] == "TP230" and found[1] == "spec.template.metadata.annotations"
    assert found[2].startswith("must not contain more than one topology annotation")


def test_slice_size_above_the_podset(tmp_path: Path) -> None:
    """The Job runs 4 pods at once: a slice of 8 never fills (Kueue's upper bound)."""
    (found,) = _job(tmp_path, "kueue.x-k8s.io/podset-required-topology: cloud.com/block",
                    "kueue.x-k8s.io/podset-slice-required-topology: cloud.com/rack",
                    'kueue.x-k8s.io/podset-slice-size: "8"')
    assert found == ("TP230", 'spec.template.metadata.annotations["kueue.x-k8s.io/'
                     'podset-slice-size"]', "must not be greater than pod set count 4")


def test_bad_constraints_json(tmp_path: Path) -> None:
    (found,) = _job(tmp_path, "kueue.x-k8s.io/podset-required-topology: cloud.com/block",
                    "kueue.x-k8s.io/podset-slice-required-topology-constraints: '[{\"topology\""
                    ": \"cloud.com/rack\", \"size\": 4}, {\"topology\": \"cloud.com/host\", "
                    "\"size\": 3}]'")
    assert found[0] == "TP230" and found[2] == "must evenly divide the parent layer size 4"


def test_podset_groups_of_a_jobset(tmp_path: Path) -> None:
    """The leader requires the rack, the workers prefer it: Kueue refuses the pair."""
    found = _findings(tmp_path, JOBSET)
    assert [f[0] for f in found] == ["TP230", "TP230"]
    assert found[0][1] == "spec.replicatedJobs[0].template.spec.template.metadata.annotations"
    assert "consistent with" in found[0][2] and "in group 'g'" in found[0][2]


def test_topology_and_flavor_objects(tmp_path: Path) -> None:
    text = """
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: t}
spec:
  levels:
  - nodeLabel: kubernetes.io/hostname
  - nodeLabel: cloud.com/rack
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: f}
spec: {topologyName: t}
"""
    assert _findings(tmp_path, text) == [
        ("TP231", "spec.levels[0].nodeLabel", "the kubernetes.io/hostname label can only be "
         "used at the lowest level of topology"),
        ("TP231", "spec.nodeLabels", "at least one nodeLabel is required when topologyName "
         "is set")]


def test_samples_are_clean() -> None:
    samples = Path(__file__).parents[3] / "samples" / "kueue"
    assert lint([samples]).findings == ()


def test_with_the_cluster_a_kueue_workload_gets_kueue_s_never_fits(tmp_path: Path) -> None:
    """5 whole GPU nodes in one rack of 4: never, even empty (TP302, Kueue's words); the
    sample JobSet fits (Kueue adds the flavor's toleration: no TP304)."""
    from tasplan.lint import LintOptions

    repo = Path(__file__).parents[3]
    for name in ("topology.yaml", "flavor.yaml", "queues.yaml", "jobset-tas.yaml"):
        (tmp_path / name).write_text((repo / "samples" / "kueue" / name).read_text())
    (tmp_path / "wide.yaml").write_text(
        (repo / "samples" / "explain" / "kueue-wide.yaml").read_text())
    report = lint([tmp_path], LintOptions(clusters=(repo / "samples" / "cluster",)))
    assert [(f.rule.id, f.resource, f.message) for f in report.findings] == [
        ("TP302", "Job ml/wide", 'ml/wide cannot be placed even in an empty cluster: topology '
         '"gpu-topology" allows to fit only 4 out of 5 pod(s)')]


WORKLOAD = """
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: job-train-1, namespace: ml}
spec:
  queueName: team-ml
  podSets:
  - name: main
    count: %d
    topologyRequest: {%s}
    template:
      spec:
        containers: [{name: c, image: x, resources: {requests: {cpu: "40", nvidia.com/gpu: "8"}}}]
"""


def test_workload_slice_sizes(tmp_path: Path) -> None:
    """Kueue 0.20's Workload webhook (validateTASSliceSize): a slice size only with a slice
    topology, and above 0."""
    found = _findings(tmp_path, WORKLOAD % (4, "required: cloud.com/rack, podSetSliceSize: 2"))
    assert found == [("TP231", "spec.podSets[0].topologyRequest.podSetSliceSize",
                      "may not be set when podSetSliceRequiredTopology is not specified")]
    found = _findings(tmp_path, WORKLOAD % (4, "podSetSliceRequiredTopology: cloud.com/rack"))
    assert found == [("TP231", "spec.podSets[0].topologyRequest.podSetSliceSize",
                      "must be set when podSetSliceRequiredTopology is specified")]
    assert _findings(tmp_path, WORKLOAD % (4, "podSetSliceRequiredTopology: cloud.com/rack, "
                                               "podSetSliceSize: 2")) == []


def test_with_the_cluster_a_pending_workload_object_is_checked(tmp_path: Path) -> None:
    """A Kueue Workload without its job (kubectl get workloads): planned from its
    topologyRequest alone on an empty cluster, not refused as 'no TAS request'. 4 whole
    GPU nodes fit a rack of 4; 5 never do (TP302, Kueue's words)."""
    from tasplan.lint import LintOptions

    repo = Path(__file__).parents[3]
    for name in ("topology.yaml", "flavor.yaml"):
        (tmp_path / name).write_text((repo / "samples" / "kueue" / name).read_text())
    rack = "required: topology.example.com/rack"
    options = LintOptions(clusters=(repo / "samples" / "cluster",))
    (tmp_path / "wl.yaml").write_text(WORKLOAD % (4, rack))
    assert lint([tmp_path], options).findings == ()
    (tmp_path / "wl.yaml").write_text(WORKLOAD % (5, rack))
    assert [(f.rule.id, f.message) for f in lint([tmp_path], options).findings] == [
        ("TP302", 'ml/job-train-1 cannot be placed even in an empty cluster: topology '
         '"gpu-topology" allows to fit only 4 out of 5 pod(s)')]
