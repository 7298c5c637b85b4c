"""A Kueue-planned group's header shows the workload Kueue admits (queue, PodSets with their
counts and topology requests), not kube-scheduler's PodGroup view, in the table, ``-o wide``,
explain, JSON (against the published schema) and the HTML report alike."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from typer.testing import CliRunner

from tasplan.cli.app import app
from tasplan.plan.result import GroupResult, PodSetView, WorkloadView
from tasplan.report.group_header import group_header, pod_set_text
from tests.builders import make_group
from tests.realworld.test_schemas import REPORT, errors

REPO = Path(__file__).resolve().parents[3]
SAMPLE = [REPO / "samples" / "kueue", "-c", REPO / "samples" / "cluster"]
BLOCK = "topology.example.com/block"
RACK = "topology.example.com/rack"
HEADER = (f"JobSet · kueue queue=team-ml · workers=6 required={BLOCK} slice=3@{RACK} · "
          "pending=6 scheduled=0")


def run(*args: object) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def test_table_header_is_kueue_s_workload() -> None:
    out = run("check", *SAMPLE).splitlines()
    assert out[1] == f"ml/llm-pretrain  {HEADER}"
    assert "minCount" not in "\n".join(out)
    assert out[3].split()[-2:] == ["PODS", "SCORE"]
    assert out[4].split()[-2:] == ["6/6", "-"]  # admitted whole: no gang minimum


def test_wide_names_the_cluster_queue_and_flavor() -> None:
    out = run("check", *SAMPLE, "-o", "wide").splitlines()
    assert out[1] == ("ml/llm-pretrain  JobSet · kueue queue=team-ml clusterQueue=training "
                      f"flavor=h100 · workers=6 required={BLOCK} slice=3@{RACK} · pending=6 "
                      "scheduled=0")


def test_json_carries_the_workload_and_matches_the_schema() -> None:
    doc = json.loads(run("check", *SAMPLE, "-o", "json"))
    assert errors(REPORT, doc) == []
    workload = doc["groups"][0]["workload"]
    assert workload == {
        "queue": "team-ml", "clusterQueue": "training", "flavor": "h100",
        "workloadObject": None, "admitted": False,
        "podSets": [{"name": "workers", "count": 6, "pendingPods": 6, "mode": "required",
                     "level": BLOCK, "implied": False,
                     "slices": [{"level": RACK, "size": 3}], "podSetGroup": None}]}
    for damage in (lambda w: w.pop("podSets"),
                   lambda w: w["podSets"][0].__setitem__("mode", "strict"),
                   lambda w: w["podSets"][0]["slices"][0].pop("size")):
        broken = copy.deepcopy(doc)
        damage(broken["groups"][0]["workload"])
        assert errors(REPORT, broken), damage


def test_kube_scheduler_groups_have_no_workload_key() -> None:
    doc = json.loads(run("check", *SAMPLE, "--scheduler", "kube-scheduler", "-o", "json"))
    assert "workload" not in doc["groups"][0]
    out = run("check", *SAMPLE, "--scheduler", "kube-scheduler").splitlines()
    assert out[1] == ("ml/llm-pretrain  JobSet · basic minCount=1 · topology=(none) · "
                      "pending=6 scheduled=0")


def test_explain_and_html_show_the_same_header(tmp_path: Path) -> None:
    html = tmp_path / "report.html"
    kueue = REPO / "samples" / "kueue"
    out = run("explain", REPO / "samples" / "explain" / "kueue-wide.yaml",
              "-c", REPO / "samples" / "cluster", "-c", kueue / "topology.yaml",
              "-c", kueue / "flavor.yaml", "-c", kueue / "queues.yaml", "--html", html)
    assert out.splitlines()[1] == (
        "ml/wide  Job · kueue queue=team-ml · main=5 required=topology.example.com/rack · "
        "pending=5 scheduled=0")
    page = html.read_text()
    assert ("Job · kueue queue=team-ml clusterQueue=training flavor=h100 · main=5 "
            "required=topology.example.com/rack · pending=5 scheduled=0") in page


def _result(*sets: PodSetView, queue: str | None = "q", **kw) -> GroupResult:
    group = make_group("lws", min_count=4, key=None)
    return GroupResult(group, 4, 0, True, "", scheduler="kueue",
                       workload=WorkloadView(tuple(sets), queue, "cq", "tas", **kw))


def test_pod_sets_of_every_kind_of_request() -> None:
    """One text per request: required / preferred level, unconstrained (implied by a TAS-only
    queue or not), multi-layer slices, podset groups, and running pods."""
    assert pod_set_text(PodSetView("main", 4, 4)) == "main=4"
    assert pod_set_text(PodSetView("main", 4, 4, "preferred", RACK)) == f"main=4 preferred={RACK}"
    assert pod_set_text(PodSetView("main", 4, 4, "unconstrained")) == "main=4 unconstrained"
    assert pod_set_text(PodSetView("main", 4, 1, "unconstrained", implied=True)) == \
        "main=4 (1 pending) unconstrained (TAS-only queue)"
    assert pod_set_text(PodSetView("w", 8, 8, "required", BLOCK, ((BLOCK, 8), (RACK, 4)))) == \
        f"w=8 required={BLOCK} slice=8@{BLOCK},4@{RACK}"
    leader = PodSetView("leader", 1, 1, "required", RACK, group="g")
    workers = PodSetView("workers", 3, 3, "required", RACK, group="g")
    assert group_header(_result(leader, workers)) == (
        f"PodGroup · kueue queue=q · leader=1 required={RACK} group=g, workers=3 required={RACK} "
        "group=g · pending=4 scheduled=0")
    admitted = _result(workers, workload="default/job-lws-1a2b3", admitted=True)
    assert "workload=default/job-lws-1a2b3 (admitted)" in group_header(admitted)
    assert group_header(_result(workers, queue=None), wide=True).startswith(
        "PodGroup · kueue queue=(none) clusterQueue=cq flavor=tas · ")


def test_quota_explanation_in_json() -> None:
    kueue = REPO / "samples" / "kueue"
    doc = json.loads(run("explain", REPO / "samples" / "explain" / "kueue-quota.yaml",
                         "-c", REPO / "samples" / "cluster", "-c", kueue / "topology.yaml",
                         "-c", kueue / "flavor.yaml", "-o", "json"))
    assert errors(REPORT, doc) == []
    e = doc["groups"][0]["explanation"]
    assert e["cause"]["kind"] == "quota"
    assert e["cause"]["message"].startswith("the topology of flavor h100 holds it now")
    assert [(s["kind"], s["details"], s["result"]["schedulable"]) for s in e["suggestions"]] == [
        ("quota", {"clusterQueue": "interns", "flavor": "h100",
                   "nominalQuota": {"nvidia.com/gpu": "32"}}, True)]
