"""KAI inputs end to end: pods joining a PodGroup by KAI's ``pod-group-name`` annotation,
the PodGroup KAI's pod grouper makes from a Job's annotations when the inputs hold none, and
the sample. The Job grouper mirrors ``pkg/podgrouper/podgrouper/plugins/job/job_grouper.go``
and ``defaultgrouper/default_grouper.go`` of kai-scheduler/KAI-Scheduler (read at
d5bc503a146317e51037d89775d77172c6d12f71)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tasplan import load_inputs, plan
from tasplan.cli.app import app
from tasplan.model.scheduling_keys import KEYS, Status

REPO = Path(__file__).resolve().parents[3]
CLUSTER = REPO / "samples" / "cluster"
SAMPLE = REPO / "samples" / "kai" / "train.yaml"

TOPOLOGY = """\
apiVersion: kai.scheduler/v1alpha1
kind: Topology
metadata: {name: dc}
spec:
  levels:
  - {nodeLabel: topology.example.com/block, alias: block}
  - {nodeLabel: topology.example.com/rack, alias: rack}
"""


def job(annotations: str, parallelism: int = 3) -> str:
    return f"""\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: ml
  annotations: {{{annotations}}}
spec:
  parallelism: {parallelism}
  completions: {parallelism}
  template:
    spec:
      schedulerName: kai-scheduler
      restartPolicy: Never
      tolerations:
      - {{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}}
      containers:
      - name: t
        image: x
        resources:
          requests: {{cpu: "48", memory: 400Gi, nvidia.com/gpu: "8"}}
"""


def check(tmp_path: Path, text: str, *extra: str) -> dict:
    path = tmp_path / "in.yaml"
    path.write_text(text)
    result = CliRunner().invoke(app, ["check", str(path), "-c", str(CLUSTER), "--scheduler",
                                      "kai", "-o", "json", *extra])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def assigned(group: dict) -> dict[str, str]:
    (chosen,) = [p for p in group["placements"] if p["name"] == group["selected"]]
    return chosen["assignments"]


def test_sample_plans_each_replica_in_a_rack_of_one_block() -> None:
    result = plan(load_inputs([SAMPLE], [CLUSTER]))
    (group,) = result.groups
    assert group.group.key == "ml/llm" and group.schedulable
    racks = {}
    for pod, node in group.selected_placement.assignments.items():
        racks.setdefault(int(pod[-1]) // 2, set()).add(node.rsplit("-", 1)[0])
    assert all(len(r) == 1 for r in racks.values()) and len(racks) == 2


def test_pods_join_their_pod_group_by_annotation(tmp_path: Path) -> None:
    """Three pods name PodGroup ml/llm (minMember 3, one rack): one group of three."""
    pods = "".join(f"""---
apiVersion: v1
kind: Pod
metadata:
  name: p{i}
  namespace: ml
  annotations: {{pod-group-name: llm}}
spec:
  schedulerName: kai-scheduler
  tolerations:
  - {{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}}
  containers:
  - name: t
    image: x
    resources:
      requests: {{nvidia.com/gpu: "8"}}
""" for i in range(3))
    group = """---
apiVersion: scheduling.run.ai/v2alpha2
kind: PodGroup
metadata: {name: llm, namespace: ml}
spec:
  minMember: 3
  queue: q
  topologyConstraint: {topology: dc, requiredTopologyLevel: rack}
"""
    (g,) = check(tmp_path, TOPOLOGY + group + pods)["groups"]
    assert g["name"] == "ml/llm" and g["outcome"] == "scheduled" and g["minCount"] == 3
    nodes = assigned(g).values()
    assert len(nodes) == 3 and len({n.rsplit("-", 1)[0] for n in nodes}) == 1


def test_a_job_without_pod_group_gets_the_one_kais_job_grouper_makes(tmp_path: Path) -> None:
    """batch-min-member 3 and a required rack from the Job's annotations."""
    out = check(tmp_path, TOPOLOGY + "---\n" + job(
        "kai.scheduler/topology: dc, kai.scheduler/topology-required-placement: rack, "
        "kai.scheduler/batch-min-member: '3'"))
    (g,) = out["groups"]
    assert g["outcome"] == "scheduled"
    nodes = assigned(g).values()
    assert len(nodes) == 3 and len({n.rsplit("-", 1)[0] for n in nodes}) == 1
    (note,) = [n["message"] for n in g["notes"] if n["code"] == "kai-podgrouper"]
    assert "Job ml/train: minMember 3 (kai.scheduler/batch-min-member), topology dc " \
           "required rack preferred -" in note
    assert not any("kai.scheduler/topology" in w for w in out["warnings"])


def test_a_job_too_big_for_its_required_rack_is_unschedulable(tmp_path: Path) -> None:
    (g,) = check(tmp_path, TOPOLOGY + "---\n" + job(
        "kai.scheduler/topology: dc, kai.scheduler/topology-required-placement: rack, "
        "kai.scheduler/batch-min-member: '40'", 40))["groups"]
    assert g["outcome"] != "scheduled"


def test_kai_keys_are_planned_under_kai_and_warned_under_kube_scheduler() -> None:
    keys = {k.key: k for k in KEYS}
    for key in ("kai.scheduler/topology", "kai.scheduler/topology-required-placement",
                "kai.scheduler/subgroup-name", "pod-group-name"):
        assert keys[key].status("kai") is Status.PLANNED
    assert keys["kai.scheduler/queue"].status("kai") is Status.NOTED
    assert keys["kai.scheduler/topology"].status() is Status.WARNED


def _annotated_pod(name: str, node: str = "") -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ml",
                         "annotations": {"pod-group-name": "llm", "other": "dropped"}},
            "spec": {"schedulerName": "kai-scheduler", "nodeName": node, "priority": 0,
                     "containers": [{"name": "c", "image": "i",
                                     "resources": {"requests": {"cpu": "1"}}}]},
            "status": {"phase": "Running" if node else "Pending"}}


def test_snapshots_keep_the_pod_group_annotation() -> None:
    from tasplan.snapshot.prune import prune

    assert prune(_annotated_pod("p", "n1"))["metadata"]["annotations"] == {
        "pod-group-name": "llm"}


def test_pod_lists_read_the_group_on_the_fast_path_too(tmp_path: Path) -> None:
    """A ``kubectl get pods -o json`` list: the bound pod decoded by the typed reader (as
    large dumps are), the pending one by the dict path, both keep their KAI group; a group
    name that is not a string is refused by the dict path with the field."""
    import pytest

    from tasplan import InputError, JobOverrides
    from tasplan.load import typed
    from tasplan.load.loader import assemble

    path = tmp_path / "pods.json"
    data = json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        _annotated_pod("running", "n1"), _annotated_pod("pending")]}).encode()
    docs = typed.read_json_cluster(str(path), data, workload=False)
    assert docs is not None and typed.typed_objects(docs) == 1
    groups = {p.name: p.group for p in assemble(docs, JobOverrides()).pods}
    assert groups == {"running": "ml/llm", "pending": "ml/llm"}
    bad = _annotated_pod("bad", "n1")
    bad["metadata"]["annotations"]["pod-group-name"] = 7
    docs = typed.read_json_cluster(str(path), json.dumps(
        {"apiVersion": "v1", "kind": "List", "items": [bad]}).encode(), workload=False)
    assert docs is not None and all(d.model is None for d in docs)
    with pytest.raises(InputError, match="pod-group-name"):
        assemble(docs, JobOverrides())


def test_a_snapshot_keeps_kais_objects_and_plans_alike(tmp_path: Path) -> None:
    """``tasplan snapshot`` of the sample cluster with the KAI Topology: checking the
    sample's PodGroup against the snapshot places every pod as checking it against the
    dumps does."""
    text = SAMPLE.read_text()
    docs = text.split("\n---\n")
    (topology,) = [d for d in docs if "kind: Topology" in d]
    (cluster_file := tmp_path / "topology.yaml").write_text(topology)
    (workload := tmp_path / "train.yaml").write_text(
        "\n---\n".join(d for d in docs if d is not topology))
    snap = tmp_path / "snap.json"
    made = CliRunner().invoke(app, ["snapshot", "-c", str(CLUSTER), "-c", str(cluster_file),
                                    "-f", str(snap)])
    assert made.exit_code == 0, made.output
    assert [i["kind"] for i in json.loads(snap.read_text())["items"]].count("Topology") == 1
    runs = [CliRunner().invoke(app, ["check", str(workload), *cluster, "-o", "json"])
            for cluster in (["-c", str(CLUSTER), "-c", str(cluster_file)], ["-c", str(snap)])]
    groups = [json.loads(r.stdout)["groups"] for r in runs]
    assert all(r.exit_code == 0 for r in runs)
    assert [(g["scheduler"], g["selected"], assigned(g)) for g in groups[0]] == \
        [(g["scheduler"], g["selected"], assigned(g)) for g in groups[1]]
    assert groups[0][0]["scheduler"] == "kai"


BARE_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: solo
  namespace: ml
  uid: 0b6c
  annotations:
    kai.scheduler/topology: dc
    kai.scheduler/topology-required-placement: rack
spec:
  schedulerName: kai-scheduler
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  containers:
  - name: c
    image: x
    resources: {requests: {nvidia.com/gpu: "8"}, limits: {nvidia.com/gpu: "8"}}
"""


def test_a_bare_kai_pod_gets_the_pod_group_kais_default_grouper_makes(tmp_path: Path) -> None:
    """A pending kai-scheduler pod with no owner and no pod-group-name: KAI's default
    grouper makes ``pg-<pod>-<uid>`` with minAvailable 1 and the top owner's (here the
    pod's own) kai.scheduler/topology* annotations (TestGetPodGroupMetadata and
    GetPodGroupMetadata in defaultgrouper, d5bc503a). It is planned, not skipped."""
    path = tmp_path / "bare.yaml"
    path.write_text(TOPOLOGY + "---\n" + BARE_POD)
    result = plan(load_inputs([path], [CLUSTER]))
    (g,) = result.groups
    assert g.group.key == "ml/pg-solo-0b6c" and g.scheduler == "kai"
    assert g.schedulable and g.selected.split(".")[-1].startswith("rack-")
    (note,) = [n for n in g.notes if n.code == "kai-podgrouper"]
    assert "minMember 1, topology dc required rack" in note.message

    # with an owner the pod is left alone (KAI groups it by its top owner, which the
    # inputs do not hold): skipped with a hint, as before
    owned = tmp_path / "owned.yaml"
    owned.write_text(TOPOLOGY + "---\n" + BARE_POD.replace(
        "  uid: 0b6c\n", "  uid: 0b6c\n  ownerReferences: [{apiVersion: apps/v1, kind: "
        "ReplicaSet, name: rs, uid: r1, controller: true}]\n"))
    assert plan(load_inputs([owned], [CLUSTER])).groups == ()


def test_a_bare_kai_pod_in_the_cluster_is_grouped_alike_from_a_snapshot(tmp_path: Path) -> None:
    """The same pending bare pod read from a cluster dump and from a tasplan snapshot of it
    (the snapshot table keeps its kai.scheduler/topology* annotations): the same group with
    the same constraint, and ``explain unschedulable`` places it alike."""
    (tmp_path / "topology.yaml").write_text(TOPOLOGY)
    (tmp_path / "bare.yaml").write_text(BARE_POD)
    dump = ["-c", str(CLUSTER), "-c", str(tmp_path / "topology.yaml"), "-c",
            str(tmp_path / "bare.yaml")]
    snap = tmp_path / "snap.json"
    result = CliRunner().invoke(app, ["snapshot", *dump, "-f", str(snap)])
    assert result.exit_code == 0, result.output
    loaded = [load_inputs([], [CLUSTER, tmp_path / "topology.yaml", tmp_path / "bare.yaml"]),
              load_inputs([], [snap])]
    for s in loaded:
        assert [g.key for g in s.groups] == ["ml/pg-solo-0b6c"]
        spec = s.kai.pod_groups["ml/pg-solo-0b6c"]
        assert (spec.constraint.topology, spec.constraint.required) == ("dc", "rack")
    outputs = [CliRunner().invoke(app, ["explain", "unschedulable", *args, "-o", "json"])
               for args in (dump, ["-c", str(snap)])]
    docs = [json.loads(o.stdout) for o in outputs]
    assert [[g["name"], g["scheduler"], g["selected"]] for g in docs[0]["groups"]] == \
        [[g["name"], g["scheduler"], g["selected"]] for g in docs[1]["groups"]]
    assert docs[0]["groups"][0]["scheduler"] == "kai"
