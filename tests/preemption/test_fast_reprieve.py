"""The reprieve that tries only the units on the placed pods' nodes (``evaluator.FAST``)
against upstream's loop over every candidate, on generated clusters: the same victims,
nominations, budget violations and notes (victim-order ties, budgets) for every release
that reprieves by filters (1.37, 1.38)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from tasplan.model.disruption import PodDisruptionBudget
from tasplan.model.pod_affinity import LabelSelector
from tasplan.model.selectors import Requirement
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.preemption import evaluator
from tasplan.preemption.victims import Hierarchy, ranked, units
from tasplan.schedulers.planner import plan
from tests.builders import (
    CLUSTER,
    gang_pods,
    make_group,
    make_node,
    make_pod,
    node_infos,
    release,
    snapshot,
)

STARTS = ("", "2026-03-01T08:00:00Z", "2026-03-01T09:00:00Z")


@pytest.fixture(autouse=True)
def reprieve_path() -> None:
    """This module sets ``evaluator.FAST`` itself (overrides the conftest's)."""


def _cluster(rng: random.Random) -> ClusterSnapshot:
    nodes = [make_node(f"n{r}{k}", rng.choice((2, 3, 4, 5)), labels={"rack": f"r{r}"})
             for r in range(rng.choice((1, 2, 3))) for k in range(rng.choice((1, 2, 3)))]
    groups = []
    for name in ("g1", "g2", "g3"):
        group = replace(make_group(name, min_count=1, key=None,
                                   priority=rng.choice((10, 100, None))),
                        planned=False, disrupt_all=rng.random() < 0.5)
        groups.append(group)
    pods = []
    for n, node in enumerate(nodes):
        for k in range(rng.randrange(0, 6)):
            group = rng.choice((None, None, "default/g1", "default/g2", "default/g3"))
            pod = make_pod(f"v{n}-{k}", rng.choice((0.5, 1, 1, 2)), node=node.name,
                           priority=rng.choice((10, 10, 100, 1000)), group=group)
            pods.append(replace(pod, start_time=rng.choice(STARTS),
                                uid=rng.choice(("", f"uid-{n}-{k}", "uid-same")),
                                labels={"app": rng.choice(("a", "b", "c"))}))
    budgets = tuple(
        PodDisruptionBudget("default", f"pdb-{app}",
                            LabelSelector((Requirement("app", "In", (app,)),)), None, None,
                            rng.choice((0, 1, 2)), CLUSTER)
        for app in ("a", "b") if rng.random() < 0.4)
    preemptor = make_group("preemptor", min_count=rng.choice((1, 2, 3, 4)),
                           key=rng.choice((None, "rack")), priority=1000)
    pending = gang_pods(preemptor, preemptor.min_count, rng.choice((1, 1, 2)), priority=1000)
    snap = snapshot(nodes, [*pods, *pending], [preemptor, *groups])
    return ClusterSnapshot(snap.nodes, snap.pods, snap.groups, disruption_budgets=budgets)


@pytest.mark.parametrize("version", ["1.37", "1.38"])
def test_fast_reprieve_is_the_plain_one(version: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(28)
    preempted = noted = violated = 0
    for _ in range(300):
        snap = _cluster(rng)
        target = release(snap, version)
        results = {}
        for fast in (False, True):
            monkeypatch.setattr(evaluator, "FAST", fast)
            results[fast] = plan(snap, target=target)
        assert results[True].groups == results[False].groups
        found = results[True].groups[0].preemption
        if found is not None and found.victims:
            preempted += 1
            noted += any(code == "victim-order" for code, _ in found.notes)
            violated += found.pdb_violations > 0
    # The generator reaches what the fast path must keep: evictions, ties, budgets.
    assert preempted > 60 and noted > 10 and violated > 5, (preempted, noted, violated)


def test_ranked_is_decided_and_importance() -> None:
    rng = random.Random(7)
    seen = 0
    for _ in range(50):
        snap = _cluster(rng)
        infos = node_infos(snap.nodes, [p for p in snap.pods if p.node_name])
        for unit in units(infos, Hierarchy(snap.group_index)):
            for tiebreak in (False, True):
                assert ranked(unit, tiebreak) == (unit.decided(tiebreak), unit.importance)
            seen += len(unit.pods) > 1
    assert seen  # groups evicted whole take the general path


def test_units_below_a_priority_are_the_lower_units() -> None:
    rng = random.Random(9)
    for _ in range(100):
        snap = _cluster(rng)
        infos = node_infos(snap.nodes, [p for p in snap.pods if p.node_name])
        hierarchy = Hierarchy(snap.group_index)
        every = units(infos, hierarchy)
        for below in (10, 50, 100, 1000, 5000):
            assert units(infos, hierarchy, below) == [u for u in every if u.priority < below]
