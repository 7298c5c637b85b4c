"""check --compare: each group's intent, read by its own scheduler and planned by every
scheduler that can write it in its dialect, each in a run of its own."""

from __future__ import annotations

from dataclasses import replace

from tasplan.model.group import PodGroup, Policy
from tasplan.model.kai import (
    Constraint,
    KaiInputs,
    KaiPodGroup,
    KaiTopology,
    SubGroup,
    TopologyLevel,
)
from tasplan.plan.intent import Intent, left_out
from tasplan.report.compare import comparisons_document
from tasplan.schedulers.compare import compare, comparers
from tasplan.schedulers.planner import plan
from tasplan.schedulers.registry import in_tree_schedulers
from tests.builders import WORKLOAD, make_group, make_node, make_pod, snapshot

GPU = "nvidia.com/gpu"
RACK, BLOCK = "topology.example.com/rack", "topology.example.com/block"
DC = KaiTopology("dc", (TopologyLevel(BLOCK, "block"), TopologyLevel(RACK, "rack")), WORKLOAD)


def nodes():
    return [make_node(f"n{r}{i}", 8, labels={RACK: f"r{r}", BLOCK: "b"}, **{GPU: 8})
            for r in range(3) for i in range(2)]


def kai_group(name: str, n: int, constraint: Constraint, subgroups=()):
    group = PodGroup(f"ml/{name}", "ml", Policy.GANG, n, None, "PodGroup",
                     "scheduling.run.ai/v2alpha2", WORKLOAD, 1, priority=200, planned=True)
    pods = [replace(make_pod(f"{name}-{i}", 1, namespace="ml", group=group.key, priority=200,
                             **{GPU: 8}), scheduler_name="kai-scheduler") for i in range(n)]
    return group, pods, KaiPodGroup("ml", name, n, None, "q", "", constraint, subgroups,
                                    WORKLOAD)


def inputs(*kai, kube=()):
    groups = [g for g, _, _ in kai] + [g for g, _ in kube]
    pods = [make_pod("busy", 1, node="n00", **{GPU: 4})]
    pods += [p for _, ps, _ in kai for p in ps] + [p for _, ps in kube for p in ps]
    return replace(snapshot(nodes(), pods, groups),
                   kai=KaiInputs({"dc": DC}, {s.key: s for _, _, s in kai}))


def run(snap, schedulers=None):
    native = plan(snap, schedulers=schedulers)
    return {c.group: c for c in compare(
        snap, native, lambda s, **kw: plan(s, schedulers=schedulers, **kw), lambda s: None,
        schedulers)}


def rows(c):
    return [(r.scheduler, r.native, r.outcome, r.result.selected if r.result else None,
             dict(r.per_domain), r.reason) for r in c.rows]


def test_one_intent_each_scheduler() -> None:
    """KAI's gang of 2 in one rack (priority 200, planned first) and kube-scheduler's: each
    is read by its own scheduler and planned by both; in each run the groups see each other."""
    kube = make_group("kube", min_count=2, key=RACK)
    kube_pods = [make_pod(f"kube-{i}", 1, group=kube.key, **{GPU: 8}) for i in range(2)]
    out = run(inputs(kai_group("train", 2, Constraint("dc", "rack")), kube=[(kube, kube_pods)]))
    assert out["ml/train"].intent.describe() == f"gang of 2 · all in one {RACK}"
    assert out["ml/train"].intent.source == "kai"
    assert rows(out["ml/train"]) == [
        ("kube-scheduler", False, "scheduled", "r1", {"r1": 2}, ""),
        ("kai", True, "scheduled", "b.r1", {"r1": 2}, "")]
    assert rows(out["default/kube"]) == [
        ("kube-scheduler", True, "scheduled", "r2", {"r2": 2}, ""),
        ("kai", False, "scheduled", "b.r2", {"r2": 2}, "")]


def test_what_does_not_translate_says_why() -> None:
    preferred = kai_group("pref", 2, Constraint("dc", "", "rack"))
    sub = kai_group("sub", 2, Constraint("dc", "rack"),
                    (SubGroup("a", 2, None, None, None),))
    out = run(inputs(preferred, sub))
    (kube, kai) = out["ml/pref"].rows
    assert kube.result is None and kube.reason == (
        f"does not translate: kube-scheduler (KEP-5732) has no preferred topology level "
        f"({RACK})")
    assert kai.native and kai.outcome == "scheduled"
    (kube, _) = out["ml/sub"].rows
    assert kube.reason == "does not translate: KAI subgroups (spec.subGroups)"
    document = comparisons_document(tuple(out.values()))
    assert document[0]["schedulers"][0] == {
        "scheduler": "kube-scheduler", "native": False, "outcome": "not-translated",
        "selected": None, "placed": 0, "pending": None, "podsPerDomain": {},
        "message": f"does not translate: kube-scheduler (KEP-5732) has no preferred topology "
                   f"level ({RACK})"}


class Echo:
    """A scheduler that lands later: it only reads and writes intents (translating every
    group to kube-scheduler's dialect and back), and appears in --compare by having them."""

    name = "echo"
    summary = "test"

    def __init__(self) -> None:
        self.kube = in_tree_schedulers()["kube-scheduler"]

    def claim(self, group, pods, snapshot):
        return None

    def start(self, state, groups):
        return self.kube.start(state, groups)

    def intent(self, group, pods, snapshot) -> Intent:
        return self.kube.intent(group, pods, snapshot)

    def translate(self, snapshot, intents):
        translated, reasons = self.kube.translate(snapshot, intents)
        return left_out(translated, reasons), reasons


def test_a_scheduler_with_intents_takes_part_without_changes() -> None:
    schedulers = {**in_tree_schedulers(), "echo": Echo()}
    assert list(comparers(schedulers)) == ["kube-scheduler", "kai", "echo"]
    kube = make_group("kube", min_count=2, key=RACK)
    kube_pods = [make_pod(f"kube-{i}", 1, group=kube.key, **{GPU: 8}) for i in range(2)]
    out = run(inputs(kube=[(kube, kube_pods)]), schedulers)
    assert [r.scheduler for r in out["default/kube"].rows] == ["kube-scheduler", "kai", "echo"]
    kube_row, _, echo_row = out["default/kube"].rows
    assert echo_row.result.selected == kube_row.result.selected is not None


def test_cli_compare(monkeypatch) -> None:
    import json
    from pathlib import Path

    from typer.testing import CliRunner

    from tasplan.cli.app import app

    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    args = ["check", "samples/workloads/train-rack.yaml", "-c", "samples/cluster", "--compare"]
    result = CliRunner().invoke(app, [*args, "-o", "json"])
    assert result.exit_code == 0, result.output
    (compared,) = json.loads(result.stdout)["comparisons"]
    assert compared["group"] == "ml/train-workers-0"
    assert compared["intent"] == {"minCount": 4, "required": RACK, "preferred": None,
                                  "readAs": "kube-scheduler"}
    assert [(s["scheduler"], s["native"], s["outcome"], s["podsPerDomain"])
            for s in compared["schedulers"]] == [
        ("kube-scheduler", True, "scheduled", {"rack-b1": 4}),
        ("kai", False, "scheduled", {"rack-b1": 4})]
    table = CliRunner().invoke(app, args).stdout
    assert "COMPARE ml/train-workers-0  gang of 4" in table


def test_a_scheduler_without_intents_shows_its_own_plan_only(monkeypatch) -> None:
    """Kueue has no intent/translate yet: its group gets its own row and intent null; the
    comparing schedulers say why they have none."""
    import json
    from pathlib import Path

    from typer.testing import CliRunner

    from tasplan.cli.app import app

    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    args = ["check", "samples/kueue", "-c", "samples/cluster", "--compare"]
    (compared,) = json.loads(CliRunner().invoke(app, [*args, "-o", "json"]).stdout)[
        "comparisons"]
    assert compared["intent"] is None
    rows = compared["schedulers"]
    assert (rows[0]["scheduler"], rows[0]["native"], rows[0]["outcome"]) == (
        "kueue", True, "scheduled")
    assert {r["outcome"] for r in rows[1:]} == {"not-translated"}
    assert "kueue states no intent: its own plan" in CliRunner().invoke(app, args).stdout
