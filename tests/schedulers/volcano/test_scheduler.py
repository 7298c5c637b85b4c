"""``--scheduler volcano`` through the scheduler interface (tasplan/schedulers/planner.plan)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from tasplan.load.loader import load_inputs
from tasplan.schedulers.planner import plan

SAMPLES = Path(__file__).parents[3] / "samples"


def sample(*workloads: Path):
    return load_inputs(list(workloads) or [SAMPLES / "volcano" / "train-vcjob.yaml"],
                       [SAMPLES / "cluster", SAMPLES / "volcano" / "hypernodes.yaml"])


def test_auto_gives_the_vcjob_to_volcano_and_the_rest_to_kube_scheduler() -> None:
    snapshot = sample(SAMPLES / "volcano" / "train-vcjob.yaml",
                      SAMPLES / "workloads" / "job.yaml")
    result = plan(snapshot)
    by = {g.group.key: g for g in result.groups}
    vc = by["ml/llm-train"]
    assert vc.scheduler == "volcano" and vc.schedulable and vc.selected == "rack-b1"
    assert vc.tied_with == ("rack-b3",)
    assert {n.code for n in vc.notes} >= {"random-ties", "volcano-offline", "scheduler-auto"}
    assert all(g.scheduler == "kube-scheduler" for k, g in by.items() if k != "ml/llm-train")


def test_volcano_and_kube_scheduler_see_each_others_pods() -> None:
    """Two copies of the one-rack job: the second takes the other empty rack."""
    first = (SAMPLES / "volcano" / "train-vcjob.yaml").read_text()
    with tempfile.TemporaryDirectory() as d:
        second = Path(d) / "second.yaml"
        second.write_text(first.replace("llm-train", "llm-train-2"))
        result = plan(sample(SAMPLES / "volcano" / "train-vcjob.yaml", second))
    assert [g.selected for g in result.groups] == ["rack-b1", "rack-b3"]


def test_named_scheduler_plans_every_group_with_volcano() -> None:
    result = plan(sample(SAMPLES / "workloads" / "train-rack.yaml"), scheduler="volcano")
    (g,) = [g for g in result.groups if g.group.key == "ml/train-workers-0"]
    # no Volcano PodGroup: a job of the group's minCount over the whole cluster (no
    # network topology), placed wherever the four pods fit
    assert g.scheduler == "volcano" and g.schedulable and g.selected == "cluster"


def test_hypernodes_survive_a_tasplan_snapshot(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from tasplan.cli.app import app

    out = tmp_path / "snap.json"
    result = CliRunner().invoke(app, ["snapshot", "-c", str(SAMPLES / "cluster"), "-c",
                                      str(SAMPLES / "volcano" / "hypernodes.yaml"), "-f",
                                      str(out)])
    assert result.exit_code == 0, result.output
    again = load_inputs([SAMPLES / "volcano" / "train-vcjob.yaml"], [out])
    assert sorted(again.volcano.hypernodes) == sorted(sample().volcano.hypernodes)
    assert plan(again).groups[0].selected == "rack-b1"


def test_network_topology_is_honoured_by_volcano_and_warned_under_kube_scheduler() -> None:
    snapshot = sample()
    assert not any("networkTopology" in w for w in plan(snapshot).warnings)
    forced = plan(snapshot, scheduler="kube-scheduler").warnings
    assert any("spec.networkTopology" in w and "honoured by --scheduler volcano" in w
               for w in forced)


def test_auto_gives_pods_asking_for_volcano_to_volcano() -> None:
    from dataclasses import replace

    from tests.builders import gang_pods, make_group, rack_nodes, snapshot

    group = make_group("vc", min_count=2)
    pods = [replace(p, scheduler_name="volcano") for p in gang_pods(group, 2)]
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"]})
    (g,) = plan(snapshot(nodes, pods, [group])).groups
    assert g.scheduler == "volcano" and g.schedulable and g.selected == "cluster"
    assert any(n.code == "scheduler-auto" and "schedulerName" in n.message for n in g.notes)


PENDING_PG = """
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: pg, namespace: ml}
spec: {minMember: 1}
status: {phase: PHASE}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml}
spec:
  schedulerName: volcano
  schedulingGroup: {podGroupName: pg}
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
"""


def test_a_pending_podgroup_is_planned_as_if_admitted_and_says_so(tmp_path: Path) -> None:
    """Volcano's allocate action skips a PodGroup still Pending when the enqueue action is
    configured (allocate.go buildAllocateContext, volcano
    ed72c7c815a9fd547a787134676f73d42e9d049c): tasplan plans it, with a note."""
    notes = {}
    for phase in ("Pending", "Inqueue"):
        path = tmp_path / f"{phase}.yaml"
        path.write_text(PENDING_PG.replace("PHASE", phase))
        (g,) = plan(load_inputs([path], [SAMPLES / "cluster"])).groups
        assert g.scheduler == "volcano" and g.schedulable
        notes[phase] = {n.code for n in g.notes}
    assert "volcano-pending" in notes["Pending"] and "volcano-pending" not in notes["Inqueue"]


def test_a_vcjob_given_as_a_workload_is_not_called_waiting(tmp_path: Path) -> None:
    """The cluster holds the vcjob, Pending (no pods yet); the same vcjob as a workload input
    is planned, so the warning about waiting vcjobs leaves it out."""
    import yaml

    job = yaml.safe_load((SAMPLES / "volcano" / "train-vcjob.yaml").read_text())
    job["metadata"]["uid"] = "u-1"
    job["status"] = {"state": {"phase": "Pending"}}
    other = yaml.safe_load(yaml.safe_dump(job))
    other["metadata"].update(name="other", uid="u-2")
    cluster = tmp_path / "vcjobs.yaml"
    cluster.write_text(yaml.safe_dump_all([job, other]))
    snapshot = load_inputs([SAMPLES / "volcano" / "train-vcjob.yaml"],
                           [SAMPLES / "cluster", cluster])
    (warning,) = [w for w in snapshot.warnings if "vcjob" in w]
    assert "1 vcjob(s)" in warning and "'ml/other'" in warning and "llm-train" not in warning


RUNNING_JOB = [
    {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
     "metadata": {"name": "serve-pg", "namespace": "ml"},
     "spec": {"minMember": 3, "networkTopology": {"mode": "hard", "highestTierAllowed": 2}},
     "status": {"phase": "Running"}},
    *({"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": f"serve-{i}", "namespace": "ml",
                    "annotations": {key: "serve-pg"}},
       "spec": {**({"nodeName": "gpu-a2-0", "priority": 0} if i == 0 else {}),
                "schedulerName": "volcano",
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
                "containers": [{"name": "c", "resources": {"requests": {
                    "cpu": "1", "nvidia.com/gpu": "8" if i else "1"}}}]},
       "status": {"phase": "Running" if i == 0 else "Pending"}}
      for i, key in enumerate(("scheduling.k8s.io/group-name",
                               "scheduling.volcano.sh/group-name",
                               "scheduling.k8s.io/group-name")))]


def test_a_running_job_in_the_cluster_joins_its_podgroup_on_every_reader(
        tmp_path: Path, monkeypatch) -> None:
    """Pods name their Volcano PodGroup by annotation; whichever reader decodes a cluster
    dump (dict JSON, the typed reader of large dumps, a tasplan snapshot), the running pod
    is the job's and bounds it to its block (volcano
    ed72c7c815a9fd547a787134676f73d42e9d049c recoverAllocatedHyperNode): the two pending
    pods go to block-a, where rack-a2's running pod is."""
    import json

    from typer.testing import CliRunner

    from tasplan.cli.app import app
    from tasplan.explain.selection import select
    from tasplan.load import documents

    dump = tmp_path / "running.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": RUNNING_JOB}))
    snap = tmp_path / "snap.json"
    assert CliRunner().invoke(app, ["snapshot", "-c", str(SAMPLES / "cluster"), "-c",
                                    str(SAMPLES / "volcano" / "hypernodes.yaml"), "-c",
                                    str(dump), "-f", str(snap), "-q"]).exit_code == 0
    sample_cluster = [SAMPLES / "cluster", SAMPLES / "volcano" / "hypernodes.yaml"]
    for name, clusters, strict in (("dict", [*sample_cluster, dump], None),
                                   ("typed", [*sample_cluster, dump], 0),
                                   ("snapshot", [snap], None)):
        with monkeypatch.context() as m:
            if strict is not None:
                m.setattr(documents, "STRICT_TYPED_BYTES", strict)
            loaded = load_inputs([], clusters)
        members = sorted(p.name for p in loaded.pods if p.group == "ml/serve-pg")
        assert members == ["serve-0", "serve-1", "serve-2"], name
        (g,) = plan(select(loaded, ["ml/serve-pg"], unschedulable=False)).groups
        assert g.schedulable and g.scheduled == 1 and g.scheduler == "volcano", name
        assert g.selected.startswith("rack-a"), (name, g.selected)


def test_an_unknown_highest_tier_name_is_said(tmp_path: Path) -> None:
    """A tierName no HyperNode has: upstream only logs a warning (session.go
    translateHighestTierNameToAllowed, volcano ed72c7c815a9fd547a787134676f73d42e9d049c);
    the report says so, and a known name gives no such note."""
    text = (SAMPLES / "volcano" / "train-vcjob.yaml").read_text()
    codes = {}
    for name in ("rack", "rakc"):
        path = tmp_path / f"{name}.yaml"
        path.write_text(text.replace("highestTierAllowed: 1", f"highestTierName: {name}"))
        (g,) = plan(sample(path)).groups
        codes[name] = {n.code: n.message for n in g.notes}
        assert g.scheduler == "volcano"
    assert "volcano-tier-name" not in codes["rack"]
    assert codes["rakc"]["volcano-tier-name"].startswith(
        "highestTierName rakc names no HyperNode's tierName")
