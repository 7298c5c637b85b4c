"""Whole-planner scenarios for InterPodAffinity: gangs whose pods relate to each other and to
pods already running. Expected outcomes are worked out by hand from upstream semantics
(plugins/interpodaffinity: counts over every node of the cluster, pods of the group assumed
earlier in the placement included; LeastAllocated spreading; ties to the smallest node name),
not by running tasplan."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tasplan.load.loader import load_inputs
from tasplan.model.pod_affinity import LabelSelector, PodAffinity, PodAffinityTerm
from tasplan.model.selectors import Requirement
from tasplan.plugins import names
from tasplan.plugins.defaults import default_profile
from tasplan.schedulers.planner import plan
from tests.builders import gang_pods, make_group, make_node, make_pod, rack_nodes, snapshot
from tests.load.helpers import write

HOSTNAME = "kubernetes.io/hostname"


def select(key: str, **labels: str) -> PodAffinityTerm:
    reqs = tuple(Requirement(k, "In", (v,)) for k, v in sorted(labels.items()))
    return PodAffinityTerm(LabelSelector(reqs), key, frozenset({"default"}))


def labelled(pod, labels: dict, **affinity):
    return replace(pod, labels=labels, pod_affinity=PodAffinity(**affinity) if affinity else None)


def placement(group_result, name: str):
    return next(p for p in group_result.placements if p.name == name)


# -- leader / worker ------------------------------------------------------------------------


def _leader_worker(workers_first: bool = False):
    """Block b1 holds racks r1 and r2, block b2 only rack r3; two nodes per rack, 4 CPUs
    each. The gang (block constraint, minCount 6) has two leaders, each repelling the other
    leader from its rack, and two workers per leader that must share their leader's rack."""
    nodes = [make_node(f"n{i}", 4, labels={"block": block, "rack": rack})
             for i, (block, rack) in enumerate(
                 [("b1", "r1"), ("b1", "r1"), ("b1", "r2"), ("b1", "r2"), ("b2", "r3"),
                  ("b2", "r3")], 1)]
    group = make_group("lws", min_count=6, key="block")
    one_leader_per_rack = select("rack", role="leader")

    def leaders():
        return [labelled(make_pod(f"leader-{k}", group=group.key),
                         {"role": "leader", "replica": str(k)},
                         required_anti=(one_leader_per_rack,)) for k in range(2)]

    def workers():
        return [labelled(make_pod(f"worker-{k}-{i}", group=group.key),
                         {"role": "worker", "replica": str(k)},
                         required=(select("rack", role="leader", replica=str(k)),))
                for k in range(2) for i in range(2)]

    # Queue order is creation order (equal priorities).
    pods = [*workers(), *leaders()] if workers_first else [*leaders(), *workers()]
    return plan(snapshot(nodes, pods, [group]), all_assignments=True).groups[0]


def test_leader_worker_gang_one_leader_per_rack_workers_with_their_leader():
    """b1: leader-0 takes n1 (all empty, smallest name); leader-1 may not share rack r1 (its
    own anti-affinity, and leader-0's by symmetry), so r2 (n3). Each leader's workers then
    need the rack of the leader with their replica. b2 has one rack: the second leader has
    no node, and with 1 placed + 4 to go the gang can no longer reach 6."""
    g = _leader_worker()
    assert (g.schedulable, g.selected) == (True, "b1")
    rack = {f"n{i}": r for i, r in enumerate(["r1", "r1", "r2", "r2", "r3", "r3"], 1)}
    assigned = {pod.split("/")[1]: rack[n] for pod, n in placement(g, "b1").assignments.items()}
    assert assigned == {"leader-0": "r1", "leader-1": "r2",
                        "worker-0-0": "r1", "worker-0-1": "r1",
                        "worker-1-0": "r2", "worker-1-1": "r2"}
    assert placement(g, "b1").assignments["default/leader-0"] == "n1"
    assert placement(g, "b1").assignments["default/leader-1"] == "n3"
    b2 = placement(g, "b2")
    assert (b2.feasible, b2.placed) == (False, 1)
    assert b2.unplaced["default/leader-1"] == ("0/2 nodes are available: 2 node(s) didn't "
                                               "match pod anti-affinity rules.")


def test_workers_queued_before_their_leader_cannot_be_placed():
    """Pods are tried in queue order. worker-0-0 comes first: no pod matches its term
    anywhere and it does not match its own term (role=worker), so no node passes - and the
    reason is unresolvable by preemption. The gang then cannot reach 6 in any block."""
    g = _leader_worker(workers_first=True)
    assert not g.schedulable
    b1 = placement(g, "b1")
    assert (b1.feasible, b1.placed) == (False, 0)
    assert b1.unplaced["default/worker-0-0"] == ("0/4 nodes are available: 4 node(s) didn't "
                                                 "match pod affinity rules.")


@pytest.mark.parametrize("hard_weight", [1, 0])
def test_self_affine_gang_places_its_first_pod_anywhere_then_follows_it(hard_weight):
    """Every pod requires a pod with app=trainer in its hostname domain and carries that
    label itself: the first pod may go anywhere (no pod matches yet and it matches its own
    term): n1, by name. Every later one must join it: n2 now fails the filter. Nodes of 4
    CPUs, pods of 1: three fit on n1. With hardPodAffinityWeight 0 nothing in the score pulls
    them together (LeastAllocated would spread them): the filter alone decides."""
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"]})
    nodes = [replace(n, allocatable={**n.allocatable, "cpu": 4000}) for n in nodes]
    group = make_group(min_count=3)
    together = select(HOSTNAME, app="trainer")
    pods = [labelled(p, {"app": "trainer"}, required=(together,))
            for p in gang_pods(group, 3)]
    profile = replace(default_profile(), plugin_args={
        names.INTER_POD_AFFINITY: {"hardPodAffinityWeight": hard_weight}})
    g = plan(snapshot(nodes, pods, [group]), profile).groups[0]
    assert g.schedulable
    assert set(g.selected_placement.assignments.values()) == {"n1"}


def test_identical_pods_with_rack_anti_affinity_take_one_rack_each():
    """Block b1 has racks r1 (n1, n2) and r2 (n3, n4). Two identical pods repel each other
    per rack: pg-0 takes n1 (all empty, by name); the whole of r1 is then closed to pg-1,
    not only n1, so pg-1 takes n3 although n2 is as empty."""
    nodes = [make_node(n, labels={"block": "b1", "rack": r})
             for n, r in [("n1", "r1"), ("n2", "r1"), ("n3", "r2"), ("n4", "r2")]]
    group = make_group(min_count=2, key="block")
    apart = select("rack", app="shard")
    pods = [labelled(p, {"app": "shard"}, required_anti=(apart,)) for p in gang_pods(group, 2)]
    g = plan(snapshot(nodes, pods, [group])).groups[0]
    assert dict(g.selected_placement.assignments) == {"default/pg-0": "n1",
                                                      "default/pg-1": "n3"}


# -- symmetry with running pods -------------------------------------------------------------


def _guarded(key: str):
    """A running db pod (1 CPU) on n1 keeps app=batch pods out of its ``key`` domain."""
    nodes = rack_nodes(**{"rack-1": ["n1", "n2", "n3"], "rack-2": ["n4", "n5", "n6"]})
    db = labelled(make_pod("db", 1, node="n1"), {"app": "db"},
                  required_anti=(select(key, app="batch"),))
    group = make_group(min_count=3)
    pods = [labelled(p, {"app": "batch"}) for p in gang_pods(group, 3)]
    return plan(snapshot(nodes, [db, *pods], [group]), all_assignments=True).groups[0]


def test_running_pods_anti_affinity_keeps_the_gang_off_its_node():
    """rack-1: pg-0 -> n2, pg-1 -> n3 (empty nodes first); pg-2 would tie n1, n2, n3 at one
    CPU used each and take n1, but db's anti-affinity (hostname) refuses n1 -> n2."""
    g = _guarded(HOSTNAME)
    assert dict(placement(g, "rack-1").assignments) == {
        "default/pg-0": "n2", "default/pg-1": "n3", "default/pg-2": "n2"}


def test_running_pods_anti_affinity_on_the_rack_closes_the_rack():
    """With topologyKey rack every rack-1 node is refused (NodeResourcesFit passes: n1 has a
    CPU free), so the first pod fails there and the gang of 3 cannot be reached."""
    g = _guarded("rack")
    rack1 = placement(g, "rack-1")
    assert (rack1.feasible, rack1.placed) == (False, 0)
    assert rack1.unplaced["default/pg-0"] == ("0/3 nodes are available: 3 node(s) didn't "
                                              "satisfy existing pods anti-affinity rules.")
    assert (g.schedulable, g.selected) == (True, "rack-2")


def test_pods_selected_by_a_group_members_terms_are_classed_by_their_labels():
    """c (anti-affinity to app=a on the hostname) goes first and takes n1. a is then kept
    off n1 -> n2. b looks like a apart from its label and is not repelled: n1 and n2 tie at
    one CPU used, n1 by name. Were a and b one class, b would inherit a's verdict (n2)."""
    nodes = rack_nodes(**{"rack-1": ["n1", "n2"]})
    group = make_group(min_count=3)
    c, a, b = gang_pods(group, 3)
    pods = [labelled(c, {"app": "c"}, required_anti=(select(HOSTNAME, app="a"),)),
            labelled(a, {"app": "a"}), labelled(b, {"app": "b"})]
    g = plan(snapshot(nodes, pods, [group])).groups[0]
    assert dict(g.selected_placement.assignments) == {
        "default/pg-0": "n1", "default/pg-1": "n2", "default/pg-2": "n1"}


# -- from YAML: namespaceSelector against Namespace objects --------------------------------


def test_namespace_selector_reads_namespace_labels_from_the_input(tmp_path):
    """The parameter server runs in ml-a (Namespace label team=ml) on rack-2's m2. The gang
    in namespace train requires a pod with app=ps in a team=ml namespace in its rack: only
    rack-2 qualifies (a same-labelled pod in the unlabelled namespace web on rack-1 does
    not count)."""
    def node(name, rack):
        return f"""
            - apiVersion: v1
              kind: Node
              metadata: {{name: {name}, labels: {{rack: {rack}}}}}
              status: {{allocatable: {{cpu: "4", pods: "110"}}}}"""

    def running(name, ns, on):
        return f"""
            - apiVersion: v1
              kind: Pod
              metadata: {{name: {name}, namespace: {ns}, labels: {{app: ps}}}}
              spec: {{nodeName: {on}, containers: [{{name: c}}]}}
              status: {{phase: Running}}"""

    cluster = write(tmp_path, "cluster.yaml", "apiVersion: v1\nkind: List\nitems:"
                    + node("m1", "rack-1") + node("m2", "rack-2") + node("m3", "rack-1")
                    + running("ps", "ml-a", "m2") + running("decoy", "web", "m1") + """
            - apiVersion: v1
              kind: Namespace
              metadata: {name: ml-a, labels: {team: ml}}
            - apiVersion: v1
              kind: Namespace
              metadata: {name: web}
            """)
    pods = "".join(f"""
        ---
        apiVersion: v1
        kind: Pod
        metadata: {{name: w{i}, namespace: train}}
        spec:
          schedulingGroup: {{podGroupName: pg}}
          containers: [{{name: c, resources: {{requests: {{cpu: "1"}}}}}}]
          affinity:
            podAffinity:
              requiredDuringSchedulingIgnoredDuringExecution:
              - labelSelector: {{matchLabels: {{app: ps}}}}
                namespaceSelector: {{matchLabels: {{team: ml}}}}
                topologyKey: rack
        """ for i in range(2))
    workload = write(tmp_path, "workload.yaml", """
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: pg, namespace: train}
        spec:
          schedulingPolicy: {gang: {minCount: 2}}
          schedulingConstraints: {topology: [{key: rack}]}
        """ + pods)
    g = plan(load_inputs([workload], [cluster])).groups[0]
    assert (g.schedulable, g.selected) == (True, "rack-2")
    assert set(g.selected_placement.assignments.values()) == {"m2"}
    rack1 = placement(g, "rack-1")
    assert rack1.unplaced["train/w0"] == ("0/2 nodes are available: 2 node(s) didn't match "
                                          "pod affinity rules.")
