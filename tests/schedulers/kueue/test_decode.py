"""Kueue objects from files: the samples, both Workload versions, and the API's refusals."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import tasplan
from tasplan.errors import InputError
from tasplan.model.kueue import DomainCount

SAMPLES = Path(__file__).parents[3] / "samples"

V1BETA1_WORKLOAD = """
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: job-a, namespace: ml}
spec:
  queueName: team-ml
  podSets:
  - name: main
    count: 3
    template:
      spec:
        containers: [{name: c, resources: {requests: {cpu: "2", nvidia.com/gpu: "8"}}}]
    topologyRequest: {required: topology.example.com/rack}
status:
  conditions:
  - {type: QuotaReserved, status: "True"}
  - {type: Admitted, status: "True"}
  admission:
    clusterQueue: training
    podSetAssignments:
    - name: main
      count: 3
      flavors: {nvidia.com/gpu: h100}
      topologyAssignment:
        levels: [kubernetes.io/hostname]
        domains:
        - {values: [gpu-a1-0], count: 1}
        - {values: [gpu-a1-1], count: 2}
"""

# The same assignment in v1beta2's compressed form (hostname prefix, per-domain counts).
V1BETA2_WORKLOAD = V1BETA1_WORKLOAD.replace("v1beta1", "v1beta2").replace("""        domains:
        - {values: [gpu-a1-0], count: 1}
        - {values: [gpu-a1-1], count: 2}
""", """        slices:
        - domainCount: 2
          valuesPerLevel:
          - individual: {prefix: gpu-a1-, roots: ["0", "1"]}
          podCounts: {individual: [1, 2]}
""")


def _load(tmp_path: Path, text: str, name: str = "kueue.yaml") -> tasplan.ClusterSnapshot:
    path = tmp_path / name
    path.write_text(text)
    return tasplan.load_inputs([path], [SAMPLES / "cluster"])


def test_samples_decode() -> None:
    snapshot = tasplan.load_inputs([SAMPLES / "kueue"], [SAMPLES / "cluster"])
    kueue = snapshot.kueue
    assert kueue.topologies["gpu-topology"].levels == (
        "topology.example.com/block", "topology.example.com/rack", "kubernetes.io/hostname")
    flavor = kueue.flavors["h100"]
    assert flavor.topology_name == "gpu-topology"
    assert flavor.node_labels == {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}
    assert [f.name for f in kueue.tas_flavors()] == ["h100"]
    cq = kueue.cluster_queues["training"]
    quotas = cq.resource_groups[0].flavors[0].resources
    assert quotas["nvidia.com/gpu"].nominal == 96 and quotas["cpu"].nominal == 2304 * 1000
    assert quotas["memory"].nominal == 24 * 2**40
    assert kueue.local_queues["ml/team-ml"].cluster_queue == "training"


@pytest.mark.parametrize("text", [V1BETA1_WORKLOAD, V1BETA2_WORKLOAD],
                         ids=["v1beta1-domains", "v1beta2-slices"])
def test_workload_topology_assignment_both_versions(tmp_path: Path, text: str) -> None:
    wl = _load(tmp_path, text).kueue.workloads["ml/job-a"]
    assert wl.holds_capacity and wl.admitted and wl.cluster_queue == "training"
    (psa,) = wl.assignments
    assert psa.levels == ("kubernetes.io/hostname",)
    assert psa.domains == (DomainCount(("gpu-a1-0",), 1), DomainCount(("gpu-a1-1",), 2))
    (ps,) = wl.pod_sets
    assert ps.count == 3 and ps.requests == {"cpu": 2000, "nvidia.com/gpu": 8}
    assert ps.topology == {"required": "topology.example.com/rack"}


def test_finished_workload_holds_nothing(tmp_path: Path) -> None:
    text = V1BETA1_WORKLOAD.replace("  - {type: Admitted, status: \"True\"}",
                                    "  - {type: Finished, status: \"True\"}")
    assert not _load(tmp_path, text).kueue.workloads["ml/job-a"].holds_capacity


@pytest.mark.parametrize("levels,field,message", [
    (["kubernetes.io/hostname", "topology.example.com/rack"], "spec.levels[0].nodeLabel",
     "only be used at the lowest level"),
    (["topology.example.com/rack", "topology.example.com/rack"], "spec.levels",
     "must be unique"),
    ([], "spec.levels", "must have 1 to 16 items"),
    (["bad key/with/slashes"], "spec.levels[0].nodeLabel", "not a valid label key"),
])
def test_topology_refused_as_the_api_server_would(tmp_path: Path, levels: list[str],
                                                  field: str, message: str) -> None:
    obj = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology",
           "metadata": {"name": "t"}, "spec": {"levels": [{"nodeLabel": v} for v in levels]}}
    with pytest.raises(InputError) as err:
        _load(tmp_path, yaml.safe_dump(obj))
    assert err.value.field == field and message in err.value.detail


def test_tas_flavor_needs_node_labels(tmp_path: Path) -> None:
    text = ("apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: f}\n"
            "spec: {topologyName: t}\n")
    with pytest.raises(InputError, match="at least one nodeLabel is required"):
        _load(tmp_path, text)


def test_compressed_assignment_must_match_domain_count(tmp_path: Path) -> None:
    text = V1BETA2_WORKLOAD.replace("podCounts: {individual: [1, 2]}",
                                    "podCounts: {individual: [1]}")
    with pytest.raises(InputError, match=r"podCounts\.individual must have length"):
        _load(tmp_path, text)
