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
        ("kueue", False, "scheduled", "r1", {"r1": 2}, ""),
        ("kai", True, "scheduled", "b.r1", {"r1": 2}, ""),
        ("volcano", False, "scheduled", "r1", {"r1": 2}, "")]
    assert rows(out["default/kube"]) == [
        ("kube-scheduler", True, "scheduled", "r2", {"r2": 2}, ""),
        ("kueue", False, "scheduled", "r2", {"r2": 2}, ""),
        ("kai", False, "scheduled", "b.r2", {"r2": 2}, ""),
        ("volcano", False, "scheduled", "r2", {"r2": 2}, "")]


def test_one_block_spread_by_kube_scheduler_packed_by_the_others() -> None:
    """All three pods of a gang in one block: kube-scheduler's default scoring
    (NodeResourcesFit LeastAllocated) spreads them over the emptiest nodes; Kueue (BestFit
    down to the hostname level), KAI (binpack) and Volcano (the tier walk tries racks first)
    pack them into the rack that is already in use."""
    kube = make_group("kube", min_count=3, key=BLOCK)
    kube_pods = [make_pod(f"kube-{i}", 1, group=kube.key, **{GPU: 4}) for i in range(3)]
    (compared,) = run(inputs(kube=[(kube, kube_pods)])).values()
    nodes = {r.scheduler: sorted(r.result.selected_placement.assignments.values())
             for r in compared.rows}
    assert nodes == {"kube-scheduler": ["n01", "n10", "n11"], "kueue": ["n00", "n01", "n01"],
                     "kai": ["n00", "n01", "n01"], "volcano": ["n00", "n01", "n01"]}
    assert {r.scheduler: dict(r.per_domain) for r in compared.rows} == {
        name: {"b": 3} for name in nodes}


def test_what_does_not_translate_says_why() -> None:
    """A preferred level: Kueue (podset-preferred-topology) and Volcano (soft mode, whose
    tier walk starts at the rack tier) say it, KEP-5732 cannot. Required and preferred
    together: Kueue takes one per PodSet. KAI subgroups: no other dialect."""
    preferred = kai_group("pref", 2, Constraint("dc", "", "rack"))
    both = kai_group("both", 2, Constraint("dc", "block", "rack"))
    sub = kai_group("sub", 2, Constraint("dc", "rack"),
                    (SubGroup("a", 2, None, None, None),))
    out = run(inputs(preferred, both, sub))
    no_preferred = ("does not translate: kube-scheduler (KEP-5732) has no preferred topology "
                    f"level ({RACK})")
    assert rows(out["ml/pref"]) == [
        ("kube-scheduler", False, "not-translated", None, {}, no_preferred),
        ("kueue", False, "scheduled", "r1", {"r1": 2}, ""),
        ("kai", True, "scheduled", "b.r1", {"r1": 2}, ""),
        ("volcano", False, "scheduled", "r1", {"r1": 2}, "")]
    assert [(r.scheduler, r.outcome, r.reason) for r in out["ml/both"].rows] == [
        ("kube-scheduler", "not-translated", no_preferred),
        ("kueue", "not-translated", "does not translate: Kueue takes a required or a "
         f"preferred level per PodSet, not both ({BLOCK}, {RACK})"),
        ("kai", "scheduled", ""), ("volcano", "scheduled", "")]
    assert [r.reason for r in out["ml/sub"].rows if not r.native] == [
        "does not translate: KAI subgroups (spec.subGroups)"] * 3
    document = comparisons_document(tuple(out.values()))
    assert document[0]["schedulers"][0] == {
        "scheduler": "kube-scheduler", "native": False, "outcome": "not-translated",
        "selected": None, "placed": 0, "pending": None, "podsPerDomain": {},
        "message": no_preferred}


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
    assert list(comparers(schedulers)) == ["kube-scheduler", "kueue", "kai", "volcano", "echo"]
    kube = make_group("kube", min_count=2, key=RACK)
    kube_pods = [make_pod(f"kube-{i}", 1, group=kube.key, **{GPU: 8}) for i in range(2)]
    out = run(inputs(kube=[(kube, kube_pods)]), schedulers)
    assert [r.scheduler for r in out["default/kube"].rows] == [
        "kube-scheduler", "kueue", "kai", "volcano", "echo"]
    kube_row, *_, echo_row = out["default/kube"].rows
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
        ("kueue", False, "scheduled", {"rack-b1": 4}),
        ("kai", False, "scheduled", {"rack-b1": 4}),
        ("volcano", False, "scheduled", {"rack-b1": 4})]
    table = CliRunner().invoke(app, args).stdout
    assert "COMPARE ml/train-workers-0  gang of 4" in table


class Plain:
    """A scheduler without intent/translate: it plans the groups it claims as
    kube-scheduler would, and states no intent."""

    name = "plain"
    summary = "test"

    def __init__(self) -> None:
        self.kube = in_tree_schedulers()["kube-scheduler"]

    def claim(self, group, pods, snapshot):
        return "test" if group.key.endswith("/plain") else None

    def start(self, state, groups):
        return self.kube.start(state, groups)


def test_a_scheduler_without_intents_shows_its_own_plan_only() -> None:
    """Its group gets its own row and intent null; the comparing schedulers say why they
    have none."""
    schedulers = {**in_tree_schedulers(), "plain": Plain()}
    group = make_group("plain", min_count=2, key=RACK)
    pods = [make_pod(f"plain-{i}", 1, group=group.key, **{GPU: 8}) for i in range(2)]
    out = run(inputs(kube=[(group, pods)]), schedulers)
    compared = out["default/plain"]
    assert not compared.stated
    assert [(r.scheduler, r.native, r.outcome, r.reason) for r in compared.rows] == [
        ("plain", True, "scheduled", ""),
        *[(name, False, "not-translated", "does not translate: plain states no intent")
          for name in ("kube-scheduler", "kueue", "kai", "volcano")]]
    (document,) = comparisons_document((compared,))
    assert document["intent"] is None


def test_kueue_slices_are_its_own() -> None:
    """The Kueue sample (a JobSet of 3-pod slices, each in one rack, all in one block) is
    read in Kueue's dialect; slices translate nowhere."""
    import json
    from pathlib import Path

    from typer.testing import CliRunner

    from tasplan.cli.app import app

    root = Path(__file__).resolve().parents[2]
    args = ["check", str(root / "samples/kueue"), "-c", str(root / "samples/cluster"),
            "--compare", "-o", "json"]
    (compared,) = json.loads(CliRunner().invoke(app, args).stdout)["comparisons"]
    assert compared["intent"] == {"minCount": 6, "required": BLOCK, "preferred": None,
                                  "readAs": "kueue"}
    assert [(r["scheduler"], r["outcome"], r["message"]) for r in compared["schedulers"]
            if not r["native"]] == [
        (name, "not-translated",
         "does not translate: Kueue slices (podset-slice-required-topology)")
        for name in ("kube-scheduler", "kai", "volcano")]
