"""The target release and its gates (``tasplan/target.py``), and the cycle details that
follow upstream per release: scheduling gates, GangScheduling gating from the profile,
GenericWorkload / TopologyAwareWorkloadScheduling switched off. Gate defaults are those of
``pkg/features/kube_features.go`` (main): GenericWorkload 1.35 alpha / 1.37 beta, both off;
TopologyAwareWorkloadScheduling 1.36 alpha off; PodGroupPreemptionPolicy 1.37 alpha off."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tasplan.errors import InputError, UsageError
from tasplan.framework.profile import PluginSet
from tasplan.plugins.defaults import resolve_profile
from tasplan.schedulers.planner import plan, target_for
from tasplan.target import parse_gates, parse_version, resolve
from tests.builders import gang_pods, make_group, make_node, rack_nodes, release, snapshot


@pytest.mark.parametrize(("text", "want"), [
    ("1.37", "1.37"), ("v1.36.2", "1.36"), ("1.38.0-gke.1", "1.38"), ("v1.35.0+k3s1", "1.35"),
])
def test_parse_version(text, want):
    assert parse_version(text) == want


@pytest.mark.parametrize("text", ["1.34", "2.0", "latest", "1"])
def test_unmodelled_versions_are_usage_errors(text):
    with pytest.raises(UsageError):
        parse_version(text)


def test_feature_gates_syntax():
    assert parse_gates("GenericWorkload=true, TopologyAwareWorkloadScheduling=false") == {
        "GenericWorkload": True, "TopologyAwareWorkloadScheduling": False}
    with pytest.raises(UsageError):
        parse_gates("GenericWorkload")


def test_defaults_per_release():
    assert resolve("1.36").gates == {
        "GenericWorkload": False, "GangScheduling": False,
        "TopologyAwareWorkloadScheduling": False, "WorkloadAwarePreemption": False,
        "DRAWorkloadResourceClaims": False}
    # 1.37 merged GangScheduling and WorkloadAwarePreemption into GenericWorkload.
    assert "WorkloadAwarePreemption" not in resolve("1.37").gates
    assert resolve("1.38").release.nominated_placement_fast_path
    assert not resolve("1.37").release.nominated_placement_fast_path


def test_needed_gates_are_assumed_on_with_a_note_unless_turned_off():
    target = resolve("1.37", needs=["GenericWorkload", "TopologyAwareWorkloadScheduling"])
    assert target.enabled("GenericWorkload") and target.enabled("TopologyAwareWorkloadScheduling")
    assert target.assumed == ("GenericWorkload", "TopologyAwareWorkloadScheduling")
    assert "assumed on because the inputs use them" in target.all_notes[0]
    off = resolve("1.37", {"TopologyAwareWorkloadScheduling": False},
                  needs=["GenericWorkload", "TopologyAwareWorkloadScheduling"])
    assert not off.enabled("TopologyAwareWorkloadScheduling")
    assert off.assumed == ("GenericWorkload",)


def test_gates_the_release_does_not_model_are_ignored_with_a_note():
    target = resolve("1.37", {"WorkloadAwarePreemption": True})
    assert "WorkloadAwarePreemption" not in target.gates
    assert "ignored" in target.notes[0]


def test_default_target_follows_the_server_then_the_inputs():
    group = make_group(min_count=1)
    snap = snapshot(rack_nodes(**{"rack-1": ["n1"]}), gang_pods(group, 1), [group])
    assert target_for(snap).version == "1.37" and not target_for(snap).strict
    live = replace(snap, server_version="v1.36.3")
    assert target_for(live).version == "1.36" and target_for(live).strict
    legacy = replace(snap, groups=(replace(group, api_version="scheduling.k8s.io/v1alpha1"),))
    assert target_for(legacy).version == "1.35"


def test_an_explicit_release_refuses_versions_it_does_not_serve():
    group = make_group(min_count=1)
    snap = snapshot(rack_nodes(**{"rack-1": ["n1"]}), gang_pods(group, 1), [group])
    with pytest.raises(InputError, match=r"v1beta1 is not served by Kubernetes 1\.36"):
        plan(snap, target=target_for(snap, "1.36"))


def test_generic_workload_off_means_no_pod_group_cycle():
    group = make_group(min_count=1)
    snap = snapshot(rack_nodes(**{"rack-1": ["n1"]}), gang_pods(group, 1), [group])
    g = plan(snap, target=release(snap, "1.37", GenericWorkload=False)).groups[0]
    assert g.outcome == "not-planned" and "GenericWorkload" in g.message


def test_topology_gate_off_drops_the_placement_plugins():
    """Without TopologyAwareWorkloadScheduling upstream runs the default algorithm on one
    implicit placement: the gang of 3 spreads over both racks."""
    group = make_group(min_count=3)
    snap = snapshot(rack_nodes(**{"r1": ["n1"], "r2": ["n2"]}), gang_pods(group, 3, cpu=1),
                    [group])
    on = plan(snap).groups[0]
    assert on.outcome == "unschedulable"
    off = plan(snap, target=release(snap, "1.37", TopologyAwareWorkloadScheduling=False),
               preempt=False).groups[0]
    assert off.outcome == "scheduled" and off.selected == "*"


def test_gated_pods_count_for_pre_enqueue_but_never_enter_the_cycle():
    """upstream SchedulingGates PreEnqueue + GangScheduling PreEnqueue: a gang of minCount 3
    with one gated pod exists (3 pods) but only 2 enter the cycle, which cannot reach 3."""
    group = make_group(min_count=3)
    pods = gang_pods(group, 3)
    pods[2] = replace(pods[2], scheduling_gates=("kueue.x-k8s.io/admission",))
    snap = snapshot(rack_nodes(**{"r1": ["n1", "n2", "n3"]}), pods, [group])
    g = plan(snap, preempt=False).groups[0]
    assert (g.outcome, g.pending, g.gated) == ("unschedulable", 2, 1)
    assert "minCount (3) cannot be satisfied: 0 scheduled, 2 remaining" in g.message
    all_gated = [replace(p, scheduling_gates=("g",)) for p in gang_pods(group, 3)]
    g = plan(snapshot(rack_nodes(**{"r1": ["n1"]}), all_gated, [group])).groups[0]
    assert (g.outcome, g.gated) == ("waiting", 3)


def test_without_gang_scheduling_in_the_profile_there_is_no_min_count_gate():
    """GangScheduling disabled: no PreEnqueue pod count and no PlacementFeasible, so a gang
    with fewer pods than minCount is planned, and what fits is placed."""
    group = make_group(min_count=3)
    snap = snapshot([make_node("n1", labels={"rack": "r1"})], gang_pods(group, 2), [group])
    assert plan(snap).groups[0].outcome == "waiting"
    profile = resolve_profile(plugins={"multiPoint": PluginSet(disabled=("GangScheduling",))})
    g = plan(snap, profile).groups[0]
    assert g.outcome == "scheduled" and g.selected_placement.placed == 2
