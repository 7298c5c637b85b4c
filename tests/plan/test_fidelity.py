"""Fidelity notes: each appears when the input uses the feature, and only then."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tasplan.model.group import Policy
from tasplan.model.pod import UNMODELLED_VOLUMES
from tasplan.model.pod_affinity import LabelSelector, PodAffinity, PodAffinityTerm
from tasplan.model.selectors import Requirement
from tasplan.schedulers.planner import plan
from tests.builders import (
    gang_pods,
    make_group,
    make_node,
    make_pod,
    rack_nodes,
    release,
    snapshot,
)


def _codes(snap, **kw) -> list[str]:
    return [n.code for n in plan(snap, **kw).groups[0].notes]


def _fits(pods=None, group=None, nodes=None, **snap_kw):
    group = group or make_group(min_count=1)
    nodes = nodes or rack_nodes(**{"rack-1": ["n1", "n2"]})
    return snapshot(nodes, pods if pods is not None else gang_pods(group, 1), [group])


def test_a_plain_gang_that_fits_gets_no_notes():
    assert _codes(_fits()) == []


@pytest.mark.parametrize(("feature", "code"), [
    (UNMODELLED_VOLUMES, "volumes"),
])
def test_pod_features_tasplan_does_not_simulate(feature, code):
    group = make_group(min_count=1)
    pods = [replace(gang_pods(group, 1)[0], unmodelled=frozenset({feature}))]
    assert _codes(_fits(pods, group)) == [code]


def test_image_locality_note_needs_image_data_on_nodes():
    group = make_group(min_count=1)
    with_images = [replace(n, has_images=True) for n in rack_nodes(**{"rack-1": ["n1"]})]
    assert _codes(_fits(group=group, nodes=with_images)) == ["image-locality"]


def test_node_sampling_note_only_for_placements_over_100_nodes():
    group = make_group(min_count=1)
    small = [make_node(f"n{i:03}", labels={"rack": "r"}) for i in range(100)]
    assert "node-sampling" not in _codes(_fits(group=group, nodes=small))
    big = [make_node(f"n{i:03}", labels={"rack": "r"}) for i in range(101)]
    notes = plan(_fits(group=group, nodes=big)).groups[0].notes
    sampling = [n for n in notes if n.code == "node-sampling"]
    # 101 nodes: 50 - 0 = 50% -> 50, raised to the minimum of 100
    assert sampling and "finds 100 feasible nodes of the 101 in placement 'r' " \
        "(percentageOfNodesToScore 50%)" in sampling[0].message


def test_basic_timing_note_for_basic_groups_with_several_pods():
    group = make_group(min_count=None)
    assert group.policy == Policy.BASIC
    assert _codes(_fits(gang_pods(group, 2), group)) == ["basic-timing"]
    assert _codes(_fits(gang_pods(group, 1), group)) == []


def test_random_ties_note_names_the_tied_placements():
    group = make_group(min_count=1)
    nodes = rack_nodes(**{"rack-1": ["n1"], "rack-2": ["n2"]})
    notes = plan(snapshot(nodes, gang_pods(group, 1), [group])).groups[0].notes
    assert [(n.code, n.message) for n in notes] == [(
        "random-ties", "placements 'rack-1', 'rack-2' tie on score: upstream picks one at "
        "random, tasplan the first by name ('rack-1')")]


def test_preemption_note_only_when_preemption_is_not_simulated():
    """1.37 runs workload-aware preemption (simulated: no note); 1.36 runs it only with the
    WorkloadAwarePreemption gate and never for a group with a topology constraint, so the
    note says upstream's per-pod path is not modelled. Pods that may not preempt: none."""
    group = make_group(min_count=1)
    nodes = rack_nodes(**{"rack-1": ["n1"]})
    too_big = gang_pods(group, 1, cpu=3)
    snap = snapshot(nodes, too_big, [group])
    assert _codes(snap) == []
    assert _codes(snap, preempt=False) == ["preemption"]
    old = release(snap, "1.36")
    assert _codes(snap, target=old) == ["preemption"]
    never = [replace(p, preemption_policy="Never") for p in too_big]
    assert _codes(snapshot(nodes, never, [group]), preempt=False) == []


def test_namespace_labels_note_when_a_namespace_selector_meets_unknown_namespaces():
    group = make_group(min_count=1)
    term = PodAffinityTerm(LabelSelector(), "kubernetes.io/hostname",
                           namespace_selector=LabelSelector((Requirement("team", "In", ("b",)),)))
    pods = [replace(gang_pods(group, 1)[0], pod_affinity=PodAffinity(preferred_anti=()),
                    labels={"app": "x"})]
    other = make_pod("elsewhere", node="n2", namespace="team-b")
    plain = _fits([*pods, other], group)
    assert "namespace-labels" not in _codes(plain)
    pods = [replace(pods[0], pod_affinity=PodAffinity(required_anti=(term,)))]
    codes = _codes(_fits([*pods, other], group))
    assert "namespace-labels" in codes
    known = replace(_fits([*pods, other], group),
                    namespaces={"default": {}, "team-b": {}})
    assert "namespace-labels" not in _codes(known)
    # An empty namespaceSelector selects every namespace, labels or not (JobSet's
    # exclusive placement writes one): nothing was guessed, no note.
    every = replace(term, namespace_selector=LabelSelector())
    pods = [replace(pods[0], pod_affinity=PodAffinity(required_anti=(every,)))]
    assert "namespace-labels" not in _codes(_fits([*pods, other], group))
