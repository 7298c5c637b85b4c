"""The reprieve that tries only the units on the placed pods' nodes (``evaluator.FAST``)
against upstream's loop over every candidate, on generated clusters: the same victims,
nominations, budget violations and notes (victim-order ties, budgets) for every release
that reprieves by filters (1.37, 1.38). Clusters of many equal candidates (one class of
thousands at 5,000 nodes, as a snapshot without UIDs or start times has) get their own
generator, and the order note from classes is compared with the plain scan directly."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from tasplan.model.disruption import PodDisruptionBudget
from tasplan.model.pod import HostPort
from tasplan.model.pod_affinity import LabelSelector
from tasplan.model.selectors import Requirement
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.preemption import evaluator
from tasplan.preemption.budgets import disruption_budgets
from tasplan.preemption.evaluator import Rules, _order_notes, _order_notes_among, _violations
from tasplan.preemption.victims import Hierarchy, ranked, reprieve_order, units
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
    """This module sets ``evaluator.FAST`` and ``COUNTED`` itself (overrides the
    conftest's)."""


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


def _paths(snap: ClusterSnapshot, target, monkeypatch: pytest.MonkeyPatch) -> dict:
    """The plan on the plain path (False), the fast one (True: ``FAST`` and ``COUNTED``)
    and upstream's loop over every candidate with counted node checks ("counted")."""
    results = {}
    for name, fast, counted in ((False, False, False), (True, True, True),
                                ("counted", False, True)):
        monkeypatch.setattr(evaluator, "FAST", fast)
        monkeypatch.setattr(evaluator, "COUNTED", counted)
        results[name] = plan(snap, target=target)
    return results


def _crowd(rng: random.Random) -> ClusterSnapshot:
    """Many equal candidates: most pods alike (one priority, no UID, no start time, one
    size) beside a few that differ in priority, size, start, UID or group, and budgets
    over some of them."""
    nodes = [make_node(f"n{r}{k}", rng.choice((4, 6, 8)), labels={"rack": f"r{r}"})
             for r in range(rng.choice((1, 2, 3))) for k in range(rng.choice((1, 2, 4)))]
    groups = [replace(make_group(name, min_count=1, key=None, priority=10), planned=False,
                      disrupt_all=name == "g1") for name in ("g1", "g2")]
    pods = []
    for n, node in enumerate(nodes):
        for k in range(rng.randrange(2, 9)):
            odd = rng.random() < 0.2
            group = rng.choice(("default/g1", "default/g2")) if odd and rng.random() < 0.3 \
                else None
            # namespaces one the prefix of another: pod keys compare at the "/"
            namespace = "default" if group else rng.choice(("default", "default-x", "def"))
            pod = make_pod(f"v{n}-{k}", rng.choice((0.5, 1)) if odd else 1, node=node.name,
                           priority=rng.choice((5, 10, 100)) if odd else 10, group=group,
                           namespace=namespace)
            pods.append(replace(pod, start_time=rng.choice(STARTS) if odd else "",
                                uid=rng.choice(("", f"uid-{n}-{k}")) if odd else "",
                                labels={"app": rng.choice(("a", "b"))}))
    budgets = tuple(
        PodDisruptionBudget("default", f"pdb-{app}",
                            LabelSelector((Requirement("app", "In", (app,)),)), None, None,
                            rng.choice((0, 1, 3)), CLUSTER)
        for app in ("a", "b") if rng.random() < 0.3)
    preemptor = make_group("preemptor", min_count=rng.choice((2, 4, 8)),
                           key=rng.choice((None, "rack")), priority=1000)
    pending = gang_pods(preemptor, preemptor.min_count, rng.choice((1, 2, 3)), priority=1000)
    if rng.random() < 0.2:  # a host port: one gang pod per node, none beside a victim's
        port = (HostPort(8080),)
        pending = [replace(p, host_ports=port) for p in pending]
        pods = [replace(p, host_ports=port) if rng.random() < 0.2 else p for p in pods]
    if rng.random() < 0.1:  # a pod nominated to a node: that node is checked pod by pod
        late = make_pod("late", 1, priority=2000)
        pods.append(replace(late, nominated_node_name=rng.choice(nodes).name))
    snap = snapshot(nodes, [*pods, *pending], [preemptor, *groups])
    return ClusterSnapshot(snap.nodes, snap.pods, snap.groups, disruption_budgets=budgets)


def _all_paths_agree(generate, seed: int, count: int, version: str,
                     monkeypatch: pytest.MonkeyPatch) -> tuple[int, int, int]:
    """Plans ``count`` generated clusters on every reprieve path and asserts equal groups;
    returns how many preempted, got a victim-order note, and violated a budget."""
    rng = random.Random(seed)
    preempted = noted = violated = 0
    for _ in range(count):
        snap = generate(rng)
        results = _paths(snap, release(snap, version), monkeypatch)
        assert results[True].groups == results[False].groups == results["counted"].groups
        found = results[True].groups[0].preemption
        if found is not None and found.victims:
            preempted += 1
            noted += any(code == "victim-order" for code, _ in found.notes)
            violated += found.pdb_violations > 0
    return preempted, noted, violated


@pytest.mark.parametrize("version", ["1.37", "1.38"])
def test_fast_reprieve_among_equals_is_the_plain_one(version: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    preempted, noted, violated = _all_paths_agree(_crowd, 2028, 150, version, monkeypatch)
    assert preempted > 45 and noted > 40 and violated > 5, (preempted, noted, violated)


@pytest.mark.parametrize("tiebreak", [False, True])
def test_order_note_from_classes_is_the_scan(tiebreak: bool) -> None:
    """Any set of evicted units (not only the ones a reprieve leaves): the note computed
    from the classes of the evicted units names the units the scan of the whole reprieve
    order names, budgets spent or not."""
    rng = random.Random(11)
    rules = Rules(uid_tiebreak=tiebreak)
    named = 0
    for n in range(300):
        snap = (_crowd if n % 2 else _cluster)(rng)
        infos = node_infos(snap.nodes, [p for p in snap.pods if p.node_name])
        candidates = units(infos, Hierarchy(snap.group_index), 1000)
        if not candidates:
            continue
        budgets = disruption_budgets(snap)
        broken = _violations(candidates, budgets, False)
        evicted = rng.sample(candidates, rng.randrange(0, len(candidates) + 1))
        order = [u for u, _ in reprieve_order(candidates, budgets)]
        scan = _order_notes(order, {id(u) for u in evicted}, rules)
        assert _order_notes_among(candidates, evicted, broken, rules) == scan
        named += bool(scan)
    assert named > 100, named


@pytest.mark.parametrize("version", ["1.37", "1.38"])
def test_fast_reprieve_is_the_plain_one(version: str, monkeypatch: pytest.MonkeyPatch) -> None:
    preempted, noted, violated = _all_paths_agree(_cluster, 28, 300, version, monkeypatch)
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
