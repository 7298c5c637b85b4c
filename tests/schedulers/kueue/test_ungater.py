"""The topology ungater's hand-out of an admitted Workload's domains to its pods, mirroring
cases of Kueue's ``TestReconcile`` (kubernetes-sigs/kueue
``pkg/controller/tas/topology_ungater_test.go`` at
ff69552e79ad21652c36caa97038382e55625cf7), named as upstream names them. Each case gives
the PodSet's assignment (levels block, rack), its pods (index labels, node selectors of
pods already released, the ``kueue.x-k8s.io/topology`` gate) and, like upstream's
``wantCounts``, how many pods end up per domain; rank cases also check which pod goes
where. Cases about expectations, other scheduling gates, the Workload annotation and the
PodSet label are the controller's bookkeeping, not the hand-out, and are not here."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from tasplan.model import kueue as k
from tasplan.schedulers.kueue.request import TopologyRequest
from tasplan.schedulers.kueue.ungater import TOPOLOGY_GATE, assign
from tests.builders import make_pod

BLOCK, RACK = "cloud.com/topology-block", "cloud.com/topology-rack"
INDEX = "batch.kubernetes.io/job-completion-index"
JOB_INDEX = "jobset.sigs.k8s.io/job-index"


def psa(*domains: tuple[str, str, int]) -> k.PodSetAssignment:
    return k.PodSetAssignment("main", {"cpu": "f"}, sum(c for *_, c in domains), (BLOCK, RACK),
                              tuple(k.DomainCount((b, r), c) for b, r, c in domains))


def pod(name: str, *, index: int | None = None, job: int | None = None,
        at: tuple[str, str] | None = None, phase: str | None = None):
    """A pod of the PodSet: gated unless ``at`` (released with that block/rack selector)."""
    labels = {}
    if index is not None:
        labels[INDEX] = str(index)
    if job is not None:
        labels[JOB_INDEX] = str(job)
    p = make_pod(name, phase=phase, node_selector={BLOCK: at[0], RACK: at[1]} if at else None)
    return replace(p, labels=labels, scheduling_gates=() if at else (TOPOLOGY_GATE,))


def counts(result: dict, pods) -> Counter:
    """Pods per domain after the hand-out: those released now and those released before."""
    out = Counter(result.values())
    for p in pods:
        if not p.scheduling_gates and p.key not in result and not p.terminal:
            out[(p.node_selector[BLOCK], p.node_selector[RACK])] += 1
    return out


JOB_RANKS = TopologyRequest(pod_index_label=INDEX)

CASES = [
    pytest.param(psa(("b1", "r1", 1), ("b1", "r2", 1)), [pod("pod1"), pod("pod2")], None,
                 {("b1", "r1"): 1, ("b1", "r2"): 1}, None,
                 id="ungate multiple pods across multiple domains"),
    pytest.param(psa(("b1", "r1", 1)),
                 [pod("pod-already-running", at=("b1", "r1"), phase="Running"),
                  pod("pod-gated")], None, {("b1", "r1"): 1},
                 {"pod-already-running": ("b1", "r1")},
                 id="expect single pod; one already running - don't ungate second pod"),
    pytest.param(psa(("b1", "r1", 1)),
                 [pod("pod-already-running", at=("b1", "r1"), phase="Failed"),
                  pod("pod-gated")], None, {("b1", "r1"): 1},
                 {"pod-gated": ("b1", "r1")},
                 id="expect single pod; one ungated pod failed - ungate second pod"),
    pytest.param(psa(("b1", "r1", 2)), [pod("pod1", at=("b1", "r1")), pod("pod2")], None,
                 {("b1", "r1"): 2}, {"pod1": ("b1", "r1"), "pod2": ("b1", "r1")},
                 id="two pods, one already ungated, second to ungate"),
    pytest.param(psa(("b1", "r1", 2), ("b1", "r2", 1), ("b2", "r1", 2)),
                 [pod("p0", index=0, at=("b1", "r1")), pod("p1", index=1),
                  pod("p2", index=2), pod("p3", index=3, at=("b2", "r1")),
                  pod("p4", index=4)], (JOB_RANKS, 5),
                 {("b1", "r1"): 2, ("b1", "r2"): 1, ("b2", "r1"): 2},
                 {"p0": ("b1", "r1"), "p1": ("b1", "r1"), "p2": ("b1", "r2"),
                  "p3": ("b2", "r1"), "p4": ("b2", "r1")},
                 id="ranks: ungate pods according to their ranks for batch/Job - some Pods "
                    "already scheduled"),
    pytest.param(psa(("b1", "r1", 2), ("b1", "r2", 1), ("b2", "r1", 1)),
                 [pod("p0", index=0), pod("p1", index=1), pod("p2", index=0),
                  pod("p3", index=1)], None,
                 {("b1", "r1"): 2, ("b1", "r2"): 1, ("b2", "r1"): 1}, None,
                 id="ranks: gracefully handle situation with repeated ranks"),
    pytest.param(psa(("b1", "r1", 2), ("b1", "r2", 1), ("b2", "r1", 1)),
                 [pod("p0", index=0, job=0), pod("p1", index=1, job=0),
                  pod("p2", index=0, job=1), pod("p3", index=1, job=1)],
                 (TopologyRequest(pod_index_label=INDEX, sub_group_index_label=JOB_INDEX,
                                  sub_group_count=2), 4),
                 {("b1", "r1"): 2, ("b1", "r2"): 1, ("b2", "r1"): 1},
                 {"p0": ("b1", "r1"), "p1": ("b1", "r1"), "p2": ("b1", "r2"),
                  "p3": ("b2", "r1")},
                 id="ranks: support rank-based ordering for JobSet - for all Pods"),
    pytest.param(psa(("b1", "r1", 1)), [pod("w1", index=1)], (JOB_RANKS, 2),
                 {("b1", "r1"): 1}, {"w1": ("b1", "r1")},
                 id="ranks: TopologyAssignment shorter than the PodSet count falls back to "
                    "greedy assignment"),
]


@pytest.mark.parametrize(("assignment", "pods", "ranks", "want_counts", "want"), CASES)
def test_topology_ungater(assignment, pods, ranks, want_counts, want) -> None:
    request, count = ranks if ranks is not None else (None, None)
    got = assign(assignment, pods, {}, request, count)
    assert counts(got, pods) == Counter(want_counts)
    if want is not None:
        assert {key.split("/")[1]: values for key, values in got.items()} == want


def test_ranks_by_index_not_by_order() -> None:
    """Index 0 and 3 of a 4-pod Job are left (1 and 2 finished and gone): their ranks are
    0 and 3, so they take the first and the last slot, not the first two."""
    pods = [pod("p0", index=0), pod("p3", index=3)]
    got = assign(psa(("b1", "r1", 2), ("b2", "r1", 2)), pods, {}, JOB_RANKS, 4)
    assert got == {"default/p0": ("b1", "r1"), "default/p3": ("b2", "r1")}
