"""Volcano objects through the loader: HyperNodes, PodGroups, vcjobs expanded as volcano's
job controller names their pods (``createJobPod``) and sizes their PodGroup
(``createOrUpdatePodGroup``, ``calcPGMinResources``; volcano commit
ed72c7c815a9fd547a787134676f73d42e9d049c)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml

from tasplan.errors import InputError
from tasplan.load.volcano import decode_podgroup, decode_vcjob, volcano_inputs
from tasplan.model.source import Source
from tasplan.model.volcano import NetworkTopology

SAMPLES = Path(__file__).parents[3] / "samples"


def docs(path: Path) -> list[tuple[Source, dict]]:
    return [(Source(str(path), document=i, workload=True), obj)
            for i, obj in enumerate(yaml.safe_load_all(path.read_text())) if obj]


def load(tmp_path: Path, text: str):
    path = tmp_path / "in.yaml"
    path.write_text(textwrap.dedent(text))
    return volcano_inputs(docs(path))


def pods(source: Source, obj: dict) -> dict[str, dict]:
    producer = decode_vcjob(source, obj)[0]
    return {name: labels for b in producer.batches for i in range(b.count)
            for name, labels in [b.pod(i)]}


def test_sample_vcjob_and_hypernodes() -> None:
    job = docs(SAMPLES / "volcano" / "train-vcjob.yaml")
    s = volcano_inputs([*docs(SAMPLES / "volcano" / "hypernodes.yaml"), *job])
    assert len(s.hypernodes) == 8 and s.hypernodes["block-a"].tier == 2
    pg = s.podgroups["ml/llm-train"]
    assert pg.min_member == 4 and pg.network_topology == NetworkTopology("hard", 1)
    assert pg.min_resources["nvidia.com/gpu"] == 32
    made = pods(*job[0])
    assert list(made) == [f"llm-train-worker-{i}" for i in range(4)]
    assert made["llm-train-worker-2"]["volcano.sh/task-index"] == "2"
    assert decode_vcjob(*job[0])[0].default.min_count == 4


def test_vcjob_defaults_and_partitions(tmp_path: Path) -> None:
    path = tmp_path / "j.yaml"
    path.write_text(textwrap.dedent("""
        apiVersion: batch.volcano.sh/v1alpha1
        kind: Job
        metadata: {name: j}
        spec:
          tasks:
          - replicas: 4
            partitionPolicy: {totalPartitions: 2, partitionSize: 2, minPartitions: 1,
                              networkTopology: {mode: hard, highestTierAllowed: 1}}
            template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
          - name: ps
            replicas: 1
            template: {spec: {containers: [{name: c, resources: {requests: {cpu: "2"}}}]}}
        """))
    (job,) = docs(path)
    pg = decode_vcjob(*job)[1]
    # minAvailable defaults to Σ task minAvailable: 1 partition x 2 pods, plus 1 ps
    assert pg.min_member == 3 and dict(pg.min_task_member) == {"default0": 2, "ps": 1}
    assert pg.min_resources == {"cpu": 4000}
    (policy,) = pg.sub_group_policies
    assert policy.name == "default0" and policy.match_label_keys == ("volcano.sh/partition-id",)
    parts = {name: labels.get("volcano.sh/partition-id") for name, labels in pods(*job).items()}
    assert parts == {"j-default0-0": "0", "j-default0-1": "0", "j-default0-2": "1",
                     "j-default0-3": "1", "j-ps-0": None}


def test_volcano_podgroup_is_a_gang(tmp_path: Path) -> None:
    path = tmp_path / "pg.yaml"
    path.write_text(textwrap.dedent("""
        apiVersion: scheduling.volcano.sh/v1beta1
        kind: PodGroup
        metadata: {name: pg, namespace: ml,
                   annotations: {volcano.sh/job-allocated-hypernode: rack-a1}}
        spec:
          minMember: 3
          minResources: {cpu: "3", nvidia.com/gpu: "24"}
          networkTopology: {mode: soft}
          subGroupPolicy:
          - {name: w, subGroupSize: 2, matchLabelKeys: [role]}
        """))
    g, v = decode_podgroup(*docs(path)[0], order=0)
    assert g.min_count == 3 and g.api_version == "scheduling.volcano.sh/v1beta1"
    assert v.min_resources == {"cpu": 3000, "nvidia.com/gpu": 24}
    assert v.network_topology == NetworkTopology("soft")
    assert v.allocated_hypernode == "rack-a1" and v.sub_group_policies[0].sub_group_size == 2


@pytest.mark.parametrize("spec,message", [
    ("{tier: 1, members: [{type: Rack, selector: {exactMatch: {name: a}}}]}",
     "expected Node or HyperNode"),
    ("{tier: 1, members: [{type: Node, selector: {}}]}", "Either ExactMatch"),
    ("{tier: 1, members: [{type: Node, selector: {exactMatch: {name: a}, "
     "regexMatch: {pattern: b}}}]}", "Only one of"),
    ("{tier: -1, members: []}", "expected an integer >= 0"),
    ("{tier: 1, colour: red}", "unknown field"),
])
def test_hypernode_refusals(tmp_path: Path, spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        load(tmp_path, f"""
            apiVersion: topology.volcano.sh/v1alpha1
            kind: HyperNode
            metadata: {{name: h}}
            spec: {spec}
            """)


def test_network_topology_mode_is_an_enum(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="expected hard or soft"):
        load(tmp_path, """
            apiVersion: scheduling.volcano.sh/v1beta1
            kind: PodGroup
            metadata: {name: pg}
            spec: {minMember: 1, networkTopology: {mode: strict}}
            """)
