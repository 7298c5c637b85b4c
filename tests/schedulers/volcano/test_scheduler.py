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
