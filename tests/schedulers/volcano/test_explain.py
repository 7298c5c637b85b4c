"""``tasplan explain`` for groups Volcano plans (tasplan/explain/volcano.py): Volcano's own
reason, tasplan's per-HyperNode count, and suggestions each proven by planning again with
the change made in the input itself."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import yaml

from tasplan.explain.explainer import explain
from tasplan.load.loader import load_inputs
from tasplan.model.volcano import VolcanoInputs, VolcanoPodGroup
from tasplan.schedulers.planner import plan
from tests.builders import make_group, make_node, make_pod, snapshot

SAMPLES = Path(__file__).parents[3] / "samples"
TOO_BIG = SAMPLES / "volcano" / "train-vcjob-too-big.yaml"
CLUSTER = [SAMPLES / "cluster", SAMPLES / "volcano" / "hypernodes.yaml"]
KEY = "ml/llm-train-5"


def _edited(tmp_path: Path, edit) -> Path:
    job = yaml.safe_load(TOO_BIG.read_text())
    edit(job)
    path = tmp_path / "edited.yaml"
    path.write_text(yaml.safe_dump(job))
    return path


def test_sample_too_big_for_a_rack(tmp_path: Path) -> None:
    result = explain(load_inputs([TOO_BIG], CLUSTER))
    e = result.explanations[KEY]
    assert not e.fits_empty_cluster  # five nodes never fit in a four-node rack
    rows = {d.name: (d.fit, dict(d.shortfall), dict(d.excluded)) for d in e.domains}
    assert [d.name for d in e.domains[:2]] == ["rack-b1", "rack-b3"]  # closest first
    assert rows["rack-b1"] == (4, {"nvidia.com/gpu": 8}, {})
    assert rows["rack-b2"][2] == {"node(s) were unschedulable": 1}
    assert [s.kind for s in e.suggestions] == ["highestTierAllowed", "networkTopologyMode",
                                               "addNodes"]
    tier, soft, nodes = e.suggestions
    assert tier.details == {"highestTierAllowed": 2} and tier.result.selected == "block-a"
    assert nodes.cost == {"nodesAdded": 1} and nodes.result.selected == "rack-b1"
    # each change made in the vcjob itself plans as the suggestion says
    for suggestion, edit in (
            (tier, lambda j: j["spec"]["networkTopology"].update(highestTierAllowed=2)),
            (soft, lambda j: j["spec"]["networkTopology"].update(mode="soft"))):
        (g,) = plan(load_inputs([_edited(tmp_path, edit)], CLUSTER)).groups
        assert g.schedulable and g.selected == suggestion.result.selected
    # minMember 4 would not help: Volcano needs room for every pending pod in the rack
    # (SubJobInfo.GetMinResources sums them all), which the search found by re-planning
    (g,) = plan(load_inputs([_edited(tmp_path, lambda j: j["spec"].update(minAvailable=4))],
                            CLUSTER)).groups
    assert not g.schedulable


def test_added_nodes_fit_when_added_to_the_input(tmp_path: Path) -> None:
    """One more node like gpu-b1-3, in rack-b1 (a labelled member), makes the job fit."""
    nodes = yaml.safe_load((SAMPLES / "cluster" / "nodes.yaml").read_text())["items"]
    (model,) = [n for n in nodes if n["metadata"]["name"] == "gpu-b1-3"]
    model["metadata"]["name"] = "gpu-b1-3-added-0"
    model["metadata"]["labels"]["kubernetes.io/hostname"] = "gpu-b1-3-added-0"
    extra = tmp_path / "node.yaml"
    extra.write_text(yaml.safe_dump(model))
    (g,) = plan(load_inputs([TOO_BIG], [*CLUSTER, extra])).groups
    e = explain(load_inputs([TOO_BIG], CLUSTER)).explanations[KEY]
    assert g.schedulable and g.selected == e.suggestions[-1].result.selected == "rack-b1"


def test_min_member_suggestion_is_the_largest_that_fits() -> None:
    """Five 1-CPU pods, room for four: minMember 4 is suggested; 4 fits and 5 does not."""
    group = make_group("job", min_count=5)
    pods = [replace(make_pod(f"job-{i}", 1, group=group.key), scheduler_name="volcano")
            for i in range(5)]
    nodes = [make_node("n1", 2), make_node("n2", 2)]
    snap = snapshot(nodes, pods, [group])

    def spec(m: int):
        return replace(snap, volcano=VolcanoInputs({}, {group.key: VolcanoPodGroup(
            group.key, m)}))

    e = explain(spec(5)).explanations[group.key]
    s, nodes = e.suggestions
    assert s.kind == "minMember" and s.details == {"minMember": 4}
    assert nodes.kind == "addNodes" and nodes.cost == {"nodesAdded": 1}
    assert nodes.change == "add 1 node(s) like n2 to the cluster"
    assert s.change == "lower minMember from 5 to 4"
    assert plan(spec(4)).groups[0].schedulable and not plan(spec(5)).groups[0].schedulable
    assert e.fits_empty_cluster is False and e.domains[0].fit == 4


def test_explaining_changes_no_plan_and_sees_earlier_groups(tmp_path: Path) -> None:
    """Three copies of the one-rack vcjob: the first two take the empty racks, the third is
    explained in that state (rack-b1 and rack-b3 now hold none of it), and the report's plan
    is exactly check's."""
    text = (SAMPLES / "volcano" / "train-vcjob.yaml").read_text()
    paths = []
    for n in range(3):
        path = tmp_path / f"job{n}.yaml"
        path.write_text(text.replace("name: llm-train", f"name: llm-train-{n}"))
        paths.append(path)
    snap = load_inputs(paths, CLUSTER)
    result = explain(snap)
    assert result.plan.groups == plan(snap).groups
    assert [g.selected for g in result.plan.groups] == ["rack-b1", "rack-b3", None]
    e = result.explanations["ml/llm-train-2"]
    fit = {d.name: d.fit for d in e.domains}
    assert fit["rack-b1"] == fit["rack-b3"] == 0
    assert set(result.explanations) == {"ml/llm-train-2"}
    tier = next(s for s in e.suggestions if s.kind == "highestTierAllowed")
    assert tier.result.schedulable and tier.result.selected.startswith("block-")


def test_no_suggestion_when_no_change_helps() -> None:
    """A node selector no node matches: no tier, mode, minMember or copied node fixes it."""
    group = make_group("job", min_count=2)
    pods = [replace(make_pod(f"job-{i}", 1, group=group.key), scheduler_name="volcano",
                    node_selector={"pool": "missing"}) for i in range(2)]
    snap = snapshot([make_node("n1", 4)], pods, [group])
    e = explain(snap).explanations[group.key]
    assert e.suggestions == () and not e.fits_empty_cluster
    assert dict(e.domains[0].excluded) == {
        "node(s) didn't match Pod's node affinity/selector": 1}


def test_explain_json_matches_the_report_schema() -> None:
    import json

    from typer.testing import CliRunner

    from tasplan.cli.app import app
    from tests.realworld.test_schemas import REPORT, errors

    result = CliRunner().invoke(app, ["explain", str(TOO_BIG), "-c", str(CLUSTER[0]), "-c",
                                      str(CLUSTER[1]), "-o", "json"])
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    assert not errors(REPORT, doc)
    (group,) = doc["groups"]
    assert group["scheduler"] == "volcano"
    assert [s["kind"] for s in group["explanation"]["suggestions"]] == [
        "highestTierAllowed", "networkTopologyMode", "addNodes"]
    assert group["explanation"]["domains"][0] == {
        "name": "rack-b1", "nodes": 4, "fit": 4, "needed": 5,
        "shortfall": {"nvidia.com/gpu": "8"}, "perPod": {"cpu": "48", "memory": "400Gi",
                                                          "nvidia.com/gpu": "8"},
        "excluded": {}, "consumers": []}
