"""Topology spread inside topology-aware gang placement. Upstream restricts the candidate
nodes to the placement but PodTopologySpread's PreFilter counts pods on every node of the
snapshot (reference §4.3 note), and the group's pods assumed earlier in the placement count
too. Expectations were worked out by hand from those rules, not by running tasplan."""

from __future__ import annotations

from dataclasses import replace

from tasplan.model.pod_affinity import DO_NOT_SCHEDULE, LabelSelector, SpreadConstraint
from tasplan.model.selectors import Requirement
from tasplan.schedulers.planner import plan
from tests.builders import gang_pods, make_group, make_node, make_pod, snapshot

GI = 1024**3
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"


def app(name: str) -> LabelSelector:
    return LabelSelector((Requirement("app", "In", (name,)),))


def spread(pods, key: str, label: str, skew: int = 1):
    constraint = SpreadConstraint(skew, key, DO_NOT_SCHEDULE, app(label))
    return [replace(p, labels={"app": label}, spread_constraints=(constraint,)) for p in pods]


def gpu_node(name: str, rack: str, cpu: int = 16):
    return make_node(name, cpu, labels={"rack": rack}, memory=256 * GI,
                     **{"nvidia.com_gpu": 8})


def gpu_cluster():
    """rack-1: g1 (64 CPU) and g2-g4 (16 CPU); rack-2: h1-h3 (16 CPU); 8 GPUs each."""
    return [gpu_node("g1", "rack-1", 64), *(gpu_node(f"g{i}", "rack-1") for i in (2, 3, 4)),
            *(gpu_node(f"h{i}", "rack-2") for i in (1, 2, 3))]


def test_gpu_gang_with_hostname_spread_takes_one_node_each():
    """4 trainers (2 CPU, 1 GPU) with hostname maxSkew 1, gang minCount 4.

    rack-1: the first pod goes to g1 (LeastAllocated 96 vs 87 on the 16-CPU nodes); g1 then
    holds 1 while every other node in the cluster holds 0, so 1 + 1 - 0 > 1 rejects it and
    the next pods take g2, g3, g4 (equal scores, smallest name). rack-2: h1-h3 take one
    each; the fourth pod fails everywhere, because rack-1's empty nodes keep the global
    minimum at 0. So rack-1 is the only feasible placement."""
    group = make_group("train", min_count=4)
    pods = spread(gang_pods(group, 4, cpu=2, **{"nvidia.com_gpu": 1}), HOSTNAME, "train")
    g = plan(snapshot(gpu_cluster(), pods, [group])).groups[0]
    assert g.selected == "rack-1"
    assert dict(g.selected_placement.assignments) == {
        "default/train-0": "g1", "default/train-1": "g2", "default/train-2": "g3",
        "default/train-3": "g4"}
    rack2 = next(p for p in g.placements if p.name == "rack-2")
    assert (rack2.feasible, rack2.placed) == (False, 3)
    assert rack2.unplaced == {"default/train-3": "0/3 nodes are available: 3 node(s) didn't "
                                                 "match pod topology spread constraints."}


def test_gpu_gang_without_spread_piles_onto_the_big_node():
    """The contrast: without the constraint, in rack-1 the second pod also prefers g1
    (LeastAllocated (64 - 4) / 64 = 93 vs 87; BalancedAllocation 74 vs 71). (rack-2 is then
    feasible too and wins on domain bin-packing.)"""
    group = make_group("train", min_count=4)
    pods = gang_pods(group, 4, cpu=2, **{"nvidia.com_gpu": 1})
    g = plan(snapshot(gpu_cluster(), pods, [group]), all_assignments=True).groups[0]
    assert g.selected == "rack-2"
    assignments = dict(next(p for p in g.placements if p.name == "rack-1").assignments)
    assert assignments["default/train-0"] == assignments["default/train-1"] == "g1"


def test_zone_spread_with_pods_elsewhere_rejects_a_placement():
    """Two running app=web pods in zone-a (rack-1). A web gang of 2 with zone maxSkew 1:
    in rack-1 the first pod would make zone-a 3 against zone-b 0 (2 + 1 - 0 > 1), although
    rack-1 has room; in rack-2 the first pod gives zone-b 1, the second 1 + 1 - 1 = 1."""
    nodes = [make_node(n, labels={"rack": r, ZONE: z}) for n, r, z in
             (("n1", "rack-1", "zone-a"), ("n2", "rack-1", "zone-a"),
              ("n3", "rack-2", "zone-b"), ("n4", "rack-2", "zone-b"))]
    running = [replace(make_pod(f"web-old-{i}", 0.5, node="n1"), labels={"app": "web"})
               for i in range(2)]
    group = make_group("web", min_count=2)
    pods = spread(gang_pods(group, 2, cpu=0.5), ZONE, "web")
    g = plan(snapshot(nodes, [*running, *pods], [group])).groups[0]
    assert g.selected == "rack-2"
    rack1 = next(p for p in g.placements if p.name == "rack-1")
    assert (rack1.feasible, rack1.placed) == (False, 0)
    assert rack1.unplaced["default/web-0"] == ("0/2 nodes are available: 2 node(s) didn't "
                                               "match pod topology spread constraints.")
    assert sorted(dict(g.selected_placement.assignments).values()) == ["n3", "n4"]
