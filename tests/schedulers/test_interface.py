"""The scheduler interface's contract (tasplan/schedulers/interface.py), shown with the minimal
scheduler of docs/design.md "Adding a scheduler": groups of different schedulers in one run
share the node state and one queue (priority, then input order), a unit may span several
PodGroups, ``auto`` asks each scheduler whether it claims a group, and a named scheduler
plans every group."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import pytest

from tasplan.errors import UsageError
from tasplan.model.group import PodGroup
from tasplan.model.pod import DEFAULT_SCHEDULER, Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.pod_fit import PodFit
from tasplan.plan.result import GroupResult, PlacementResult
from tasplan.plan.state import PlanState
from tasplan.report.document import plan_document
from tasplan.schedulers.interface import Scheduler, UnitResult
from tasplan.schedulers.kube.scheduler import KUBE_SCHEDULER, KubeScheduler
from tasplan.schedulers.planner import plan
from tasplan.schedulers.registry import in_tree_schedulers, names
from tests.builders import gang_pods, make_group, rack_nodes, snapshot

# -- the worked example ---------------------------------------------------------------------


@dataclass(frozen=True)
class Workload:
    """First-fit's unit: every group of one namespace, all or nothing."""

    groups: tuple[PodGroup, ...]
    priority: int

    @property
    def order(self) -> int:
        return self.groups[0].order


class FirstFit:
    """Claims groups whose pods ask for schedulerName ``first-fit``; puts each pending pod
    on the first node, by name, where kube-scheduler's filters let it fit."""

    name = "first-fit"
    summary = "each pod on the first node where it fits; a namespace's groups all or nothing"

    def claim(self, group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot
              ) -> str | None:
        if pods and all(p.scheduler_name == self.name for p in pods):
            return f'its pods ask for schedulerName "{self.name}"'
        return None

    def start(self, state: PlanState, groups: Sequence[PodGroup]) -> FirstFitRun:
        return FirstFitRun(state, groups)


class FirstFitRun:
    def __init__(self, state: PlanState, groups: Sequence[PodGroup]) -> None:
        self.state, self.groups = state, groups

    def units(self) -> list[Workload]:
        by_namespace: dict[str, list[PodGroup]] = {}
        for g in self.groups:
            by_namespace.setdefault(g.namespace, []).append(g)
        return [Workload(tuple(gs), max(g.priority or 0 for g in gs))
                for gs in by_namespace.values()]

    def schedule(self, unit: Workload) -> UnitResult:
        state, statement = self.state, self.state.statement
        fw = state.framework(DEFAULT_SCHEDULER)  # kube-scheduler's filters
        checkpoint = statement.checkpoint()
        pending = {g.key: [p for p in state.snapshot.pods_by_group[g.key] if not p.node_name]
                   for g in unit.groups}
        placed: dict[str, str] = {}
        for pod in (p for pods in pending.values() for p in pods):
            node = next(iter(PodFit(fw, pod, state.nodes, statement).feasible()), None)
            if node is None:
                break
            statement.assume(pod, node)
            placed[pod.key] = node.name
        fits = len(placed) == sum(map(len, pending.values()))
        if fits:
            statement.commit()  # the next units see these pods
        else:
            statement.rollback(checkpoint)  # all or nothing
        nodes = tuple(n.name for n in state.nodes)
        return UnitResult(tuple(
            GroupResult(g, len(pending[g.key]), 0, fits,
                        "every pod fits" if fits else "some pod of the workload fits nowhere",
                        placements=(PlacementResult(
                            "cluster", nodes, fits, "", len(pending[g.key]) if fits else 0,
                            {p.key: placed[p.key] for p in pending[g.key]} if fits else {},
                            {}),),
                        selected="cluster" if fits else None)
            for g in unit.groups))


def schedulers() -> dict[str, Scheduler]:
    return {**in_tree_schedulers(), FirstFit.name: FirstFit()}


# -- the cluster: two racks of two 2-CPU nodes ------------------------------------------------


def cluster(*groups_and_pods: tuple[PodGroup, list[Pod]]) -> ClusterSnapshot:
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"], "rack-2": ["n3", "n4"]})
    return snapshot(nodes, [p for _, pods in groups_and_pods for p in pods],
                    [g for g, _ in groups_and_pods])


def train(priority: int) -> tuple[PodGroup, list[Pod]]:
    """kube-scheduler's: a gang of four 1-CPU pods in one rack."""
    g = make_group("train", min_count=4, priority=priority)
    return g, gang_pods(g, 4, priority=priority)


def first_fit(name: str, pods: int, priority: int, namespace: str = "default"
              ) -> tuple[PodGroup, list[Pod]]:
    """first-fit's: ``pods`` 2-CPU pods (one fills a node)."""
    g = make_group(name, min_count=None, key=None, priority=priority, namespace=namespace)
    return g, [replace(p, scheduler_name=FirstFit.name)
               for p in gang_pods(g, pods, cpu=2, priority=priority)]


def by_key(result) -> dict[str, GroupResult]:
    return {g.group.key: g for g in result.groups}


def nodes_of(result: GroupResult) -> list[str]:
    chosen = result.selected_placement
    assert chosen is not None
    return sorted(chosen.assignments.values())


# -- the contract -----------------------------------------------------------------------------


def test_auto_gives_each_group_to_the_scheduler_that_claims_it() -> None:
    result = plan(cluster(train(200), first_fit("etl", 2, 100)), schedulers=schedulers())
    groups = by_key(result)
    assert result.scheduler == "auto"
    assert groups["default/train"].scheduler == KUBE_SCHEDULER
    assert groups["default/etl"].scheduler == "first-fit"
    notes = {n.code: n.message for n in groups["default/etl"].notes}
    assert notes == {"scheduler-auto":
                     'planned with first-fit: its pods ask for schedulerName "first-fit"'}
    # the default scheduler's groups carry no such note
    assert not [n for n in groups["default/train"].notes if n.code == "scheduler-auto"]


def test_a_peer_sees_what_kube_scheduler_placed_before_it() -> None:
    """train (priority 200) goes first and fills rack-1 (the racks tie; the first by
    name wins); first-fit's etl would take n1 and n2, but finds them full."""
    groups = by_key(plan(cluster(train(200), first_fit("etl", 2, 100)),
                         schedulers=schedulers()))
    assert groups["default/train"].selected == "rack-1"
    assert groups["default/etl"].schedulable
    assert nodes_of(groups["default/etl"]) == ["n3", "n4"]


def test_kube_scheduler_sees_what_a_peer_placed_before_it() -> None:
    """etl (priority 300) goes first and takes n1 and n2; train no longer fits rack-1."""
    result = plan(cluster(train(200), first_fit("etl", 2, 300)), schedulers=schedulers())
    groups = by_key(result)
    assert nodes_of(groups["default/etl"]) == ["n1", "n2"]
    assert groups["default/train"].selected == "rack-2"
    assert [g.group.key for g in result.groups] == ["default/etl", "default/train"]


def test_a_unit_spans_several_groups_and_fails_as_a_whole() -> None:
    """batch/a and batch/b are one first-fit unit (one namespace): 2 + 3 pods of a full
    node each do not fit 4 nodes, so neither is placed and nothing stays assumed: train,
    after them, still finds both racks empty and takes the first."""
    a, b = first_fit("a", 2, 300, "batch"), first_fit("b", 3, 300, "batch")
    result = plan(cluster(a, train(100), b), schedulers=schedulers())
    groups = by_key(result)
    assert [g.group.key for g in result.groups] == ["batch/a", "batch/b", "default/train"]
    assert not groups["batch/a"].schedulable and not groups["batch/b"].schedulable
    assert groups["default/train"].selected == "rack-1"


def test_a_named_scheduler_plans_every_group() -> None:
    inputs = cluster(train(200), first_fit("etl", 2, 100))
    everything = plan(inputs, schedulers=schedulers(), scheduler="first-fit")
    assert {g.scheduler for g in everything.groups} == {"first-fit"}
    assert everything.scheduler == "first-fit"
    # kube-scheduler named: first-fit's pods ask for a profile it does not have
    kube = by_key(plan(inputs, schedulers=schedulers(), scheduler=KUBE_SCHEDULER))
    assert kube["default/etl"].scheduler == KUBE_SCHEDULER
    assert kube["default/etl"].outcome == "not-planned"
    assert 'no scheduler profile "first-fit"' in kube["default/etl"].message


def test_an_unknown_scheduler_is_a_usage_error() -> None:
    known = ", ".join(["auto", *schedulers()])  # kube-scheduler first, first-fit last
    assert known.startswith("auto, kube-scheduler, ") and known.endswith(", first-fit")
    with pytest.raises(UsageError, match=re.escape(
            f"unknown scheduler 'kueu': expected one of {known}")):
        plan(cluster(train(200)), schedulers=schedulers(), scheduler="kueu")


def test_the_report_names_the_schedulers() -> None:
    document = plan_document(plan(cluster(train(200), first_fit("etl", 2, 100)),
                                  schedulers=schedulers()))
    assert document["summary"]["scheduler"] == "auto"
    assert [(g["name"], g["scheduler"]) for g in document["groups"]] == [
        ("default/train", KUBE_SCHEDULER), ("default/etl", "first-fit")]


def test_the_registry() -> None:
    registry = in_tree_schedulers()
    assert names() == ("auto", *registry)
    assert isinstance(registry[KUBE_SCHEDULER], KubeScheduler)
    for name, s in registry.items():
        assert s.name == name and s.summary
