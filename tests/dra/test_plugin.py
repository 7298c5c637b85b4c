"""DynamicResources inside the planner: PreFilter/Filter/Reserve statuses and messages as
upstream's ``pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go``
(TestPlugin) has them, and the gang behaviour of ``test/integration/dra/pod_group.go`` and
``workload_resource_claims.go`` (a claim shared by the group confines every pod)."""

from __future__ import annotations

from dataclasses import replace

from tasplan.model.dra import (
    AllocatedDevice,
    Allocation,
    ClaimSpec,
    DeviceRequest,
    NodeReach,
    PodClaim,
    ResourceClaim,
    ResourceClaimTemplate,
)
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.report.document import plan_document
from tasplan.schedulers.planner import plan
from tests.builders import gang_pods, make_group, make_node, make_pod
from tests.dra.builders import (
    CLASS_A,
    CLASS_B,
    DRIVER_A,
    DRIVER_B,
    SRC,
    claim,
    device,
    device_class,
    inputs,
    label_term,
    local_slice,
    request,
    selector_slice,
)

CLASSES = (device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B))


def gpus(node: str, n: int = 2):
    return local_slice(f"{node}-gpus", node, node, DRIVER_A,
                       *(device(f"gpu-{i}") for i in range(n)))


def template(name: str, spec: ClaimSpec, ns: str = "default") -> ResourceClaimTemplate:
    return ResourceClaimTemplate(ns, name, spec, SRC)


ONE_GPU = template("one-gpu", claim(request("gpu")))


def with_claims(pods, *refs: PodClaim):
    return [replace(p, claims=refs) for p in pods]


def snap(nodes, pods, groups, dra) -> ClusterSnapshot:
    return ClusterSnapshot(tuple(sorted(nodes, key=lambda n: n.name)), tuple(pods),
                           tuple(groups), dra=dra)


def rack(name: str, *nodes: str):
    return [make_node(n, 8, labels={"rack": name}) for n in nodes]


def test_claim_template_per_pod_devices_run_out():
    """claim-template: each pod gets its own claim from the template; a node with two
    devices takes two pods, the third gets upstream's message."""
    group = make_group(min_count=3, key=None)
    pods = with_claims(gang_pods(group, 3), PodClaim("gpu", template_name="one-gpu"))
    dra = inputs(CLASSES, [gpus("n1")], templates={("default", "one-gpu"): ONE_GPU})
    result = plan(snap([make_node("n1", 8)], pods, [group], dra)).groups[0]
    assert not result.schedulable
    placement = result.placements[0]
    assert placement.unplaced["default/pg-2"] == "0/1 nodes are available: 1 cannot " \
        "allocate all claims."
    # Node-local devices and claims of their own: the outcome is counted from per-node
    # device capacity (as for cpu), so the infeasible placement lists no devices.
    assert not placement.simulated and placement.allocations == {}
    assert "dra-template-synthesized" in [n.code for n in result.notes]


def test_devices_follow_the_pods_across_nodes():
    """Pods spread over nodes as devices run out: per-node device counts decide."""
    group = make_group(min_count=4, key=None)
    pods = with_claims(gang_pods(group, 4), PodClaim("gpu", template_name="one-gpu"))
    dra = inputs(CLASSES, [gpus("n1"), gpus("n2")], templates={("default", "one-gpu"): ONE_GPU})
    result = plan(snap([make_node("n1", 8), make_node("n2", 8)], pods, [group], dra)).groups[0]
    assert result.schedulable
    placed = result.selected_placement.assignments
    assert sorted(placed.values()) == ["n1", "n1", "n2", "n2"]


def test_missing_class():
    """missing-class: PreFilter fails on every node with upstream's message."""
    spec = claim(request("gpu", "no-such-class"))
    group = make_group(min_count=1, key=None)
    pods = with_claims(gang_pods(group, 1), PodClaim("gpu", template_name="t"))
    dra = inputs(CLASSES, [gpus("n1")], templates={("default", "t"): template("t", spec)})
    result = plan(snap([make_node("n1", 8)], pods, [group], dra)).groups[0]
    assert result.placements[0].unplaced["default/pg-0"] == "0/1 nodes are available: 1 " \
        "request gpu: device class no-such-class does not exist."


def test_missing_claim_and_missing_template():
    """claim-reference missing / template missing: the pod cannot be scheduled anywhere."""
    group = make_group(min_count=1, key=None)
    by_name = with_claims(gang_pods(group, 1), PodClaim("c", claim_name="nope"))
    result = plan(snap([make_node("n1", 8)], by_name, [group], inputs(CLASSES))).groups[0]
    assert 'resourceclaim "nope" not found' in result.placements[0].unplaced["default/pg-0"]
    by_template = with_claims(gang_pods(group, 1), PodClaim("c", template_name="nope"))
    result = plan(snap([make_node("n1", 8)], by_template, [group], inputs(CLASSES))).groups[0]
    assert "ResourceClaim not created yet" in result.placements[0].unplaced["default/pg-0"]


def _allocated(name: str, device_: str, node: str, ns: str = "default") -> ResourceClaim:
    return ResourceClaim(ns, name, claim(request("gpu")), SRC,
                         Allocation((AllocatedDevice("gpu", DRIVER_A, node, device_),),
                                    NodeReach(any_of=(label_term("kubernetes.io/hostname",
                                                                 node),))))


def test_allocated_claim_confines_the_pod():
    """wrong-topology: a claim allocated for another node -> "resourceclaim not available on
    the node"; its own node is fine."""
    group = make_group(min_count=1, key=None)
    pods = with_claims(gang_pods(group, 1), PodClaim("gpu", claim_name="held"))
    dra = inputs(CLASSES, [gpus("n1"), gpus("n2")],
                 claims={("default", "held"): _allocated("held", "gpu-0", "n2")})
    result = plan(snap([make_node("n1", 8), make_node("n2", 8)], pods, [group], dra)).groups[0]
    assert result.selected_placement.assignments == {"default/pg-0": "n2"}
    assert result.selected_placement.allocations == {}  # already allocated in the input
    diag = result.selected_placement
    assert diag.placed == 1


def test_deleted_claim():
    """deleted-claim: a claim being deleted makes the pod unschedulable."""
    group = make_group(min_count=1, key=None)
    pods = with_claims(gang_pods(group, 1), PodClaim("gpu", claim_name="c"))
    c = replace(ResourceClaim("default", "c", claim(request("gpu")), SRC), deleting=True)
    dra = inputs(CLASSES, [gpus("n1")], claims={("default", "c"): c})
    result = plan(snap([make_node("n1", 8)], pods, [group], dra)).groups[0]
    assert 'resourceclaim "c" is being deleted' in result.placements[0].unplaced["default/pg-0"]


def test_devices_in_use_by_other_claims():
    """in-use-by-other: devices allocated by existing claims are not free."""
    group = make_group(min_count=1, key=None)
    pods = with_claims(gang_pods(group, 1), PodClaim("gpu", template_name="one-gpu"))
    held = {("default", f"h{i}"): _allocated(f"h{i}", f"gpu-{i}", "n1") for i in range(2)}
    dra = inputs(CLASSES, [gpus("n1")], claims=held,
                 templates={("default", "one-gpu"): ONE_GPU})
    result = plan(snap([make_node("n1", 8)], pods, [group], dra)).groups[0]
    assert "cannot allocate all claims" in result.placements[0].unplaced["default/pg-0"]


FABRIC = template("fabric", claim(request("fabric", CLASS_B)))


def _fabric_cluster():
    """Two racks of two nodes; each node has 2 GPUs, each rack one network-attached fabric
    device reachable from its nodes only."""
    nodes = rack("r1", "a1", "a2") + rack("r2", "b1", "b2")
    slices = [gpus(n.name) for n in nodes] + [
        selector_slice(f"{r}-fabric", label_term("rack", r), r, DRIVER_B, device("fabric"))
        for r in ("r1", "r2")]
    return nodes, slices


def test_group_claim_confines_the_gang_without_topology_key():
    """workload_resource_claims.go / pod_group.go: the PodGroup's claim is allocated by
    the first pod placed and confines every other pod to the device's rack."""
    nodes, slices = _fabric_cluster()
    group = replace(make_group(min_count=4, key=None),
                    claims=(PodClaim("fabric", template_name="fabric"),))
    pods = with_claims(gang_pods(group, 4), PodClaim("gpu", template_name="one-gpu"),
                       PodClaim("fabric", template_name="fabric"))
    dra = inputs(CLASSES, slices, templates={("default", "one-gpu"): ONE_GPU,
                                             ("default", "fabric"): FABRIC})
    result = plan(snap(nodes, pods, [group], dra)).groups[0]
    assert result.schedulable
    chosen = result.selected_placement
    racks = {chosen.assignments[p.key][0] for p in pods}
    assert len(racks) == 1  # all in one rack
    assert list(chosen.allocations)[:2] == ["default/pg-0/gpu", "default/pg/fabric"]
    assert chosen.allocations["default/pg/fabric"] == [
        {"request": "fabric", "driver": DRIVER_B, "pool": "r1", "device": "fabric"}]


def test_greedy_group_claim_can_strand_the_gang():
    """pod_group_dra_allocation.go: allocation is greedy per pod. The first pod takes the
    rack-1 fabric; rack-1 then holds 3 of the 5 pods and the gang fails although rack-2
    alone could not hold it either; the dra-greedy note is added."""
    nodes = rack("r1", "a1", "a2") + rack("r2", "b1", "b2", "b3")
    slices = [gpus(n.name) for n in nodes[:1]] + [local_slice("a2-gpus", "a2", "a2", DRIVER_A,
                                                               device("gpu-0"))]
    slices += [gpus(n.name) for n in nodes[2:]] + [
        selector_slice(f"{r}-fabric", label_term("rack", r), r, DRIVER_B, device("fabric"))
        for r in ("r1", "r2")]
    group = replace(make_group(min_count=5, key=None),
                    claims=(PodClaim("fabric", template_name="fabric"),))
    pods = with_claims(gang_pods(group, 5), PodClaim("gpu", template_name="one-gpu"),
                       PodClaim("fabric", template_name="fabric"))
    dra = inputs(CLASSES, slices, templates={("default", "one-gpu"): ONE_GPU,
                                             ("default", "fabric"): FABRIC})
    result = plan(snap(nodes, pods, [group], dra)).groups[0]
    assert not result.schedulable
    assert result.placements[0].placed == 3  # a1: 2 GPUs, a2: 1 GPU
    assert "dra-greedy" in [n.code for n in result.notes]


def test_each_placement_starts_from_the_same_devices():
    """With a topology key each placement is simulated from the same device state: both
    racks report the same device choice for their first pod."""
    nodes, slices = _fabric_cluster()
    group = replace(make_group(min_count=4, key="rack"),
                    claims=(PodClaim("fabric", template_name="fabric"),))
    pods = with_claims(gang_pods(group, 4), PodClaim("gpu", template_name="one-gpu"),
                       PodClaim("fabric", template_name="fabric"))
    dra = inputs(CLASSES, slices, templates={("default", "one-gpu"): ONE_GPU,
                                             ("default", "fabric"): FABRIC})
    result = plan(snap(nodes, pods, [group], dra), all_assignments=True).groups[0]
    by_name = {p.name: p for p in result.placements}
    assert by_name["r1"].allocations["default/pg/fabric"][0]["pool"] == "r1"
    assert by_name["r2"].allocations["default/pg/fabric"][0]["pool"] == "r2"
    assert by_name["r1"].feasible and by_name["r2"].feasible


def test_later_groups_see_earlier_allocations():
    """Groups planned in sequence: the chosen placement's devices stay allocated."""
    group_a = make_group("a", min_count=2, key=None)
    group_b = make_group("b", min_count=1, key=None)
    ref = PodClaim("gpu", template_name="one-gpu")
    pods = with_claims(gang_pods(group_a, 2) + gang_pods(group_b, 1), ref)
    dra = inputs(CLASSES, [gpus("n1")], templates={("default", "one-gpu"): ONE_GPU})
    result = plan(snap([make_node("n1", 8)], pods, [group_a, group_b], dra))
    assert result.groups[0].schedulable
    assert not result.groups[1].schedulable
    assert "cannot allocate all claims" in result.groups[1].placements[0].unplaced["default/b-0"]


def test_cel_runtime_error_is_a_group_error():
    """An allocator error (CEL runtime error) aborts the pod's attempt: a group error."""
    spec = claim(request("gpu", CLASS_A, 1, 'device.attributes["driver-a"].missing == 1'))
    group = make_group(min_count=1, key=None)
    pods = with_claims(gang_pods(group, 1), PodClaim("gpu", template_name="t"))
    dra = inputs(CLASSES, [gpus("n1")], templates={("default", "t"): template("t", spec)})
    result = plan(snap([make_node("n1", 8)], pods, [group], dra)).groups[0]
    assert result.error
    assert "CEL runtime error: no such key: missing" in result.message


def test_first_available_scores_earlier_subrequests_higher():
    """Score: a node that can use the first alternative beats one that needs the second
    (dynamicresources Score for prioritized lists)."""
    req = DeviceRequest("gpu", subrequests=(request("gpu/big", CLASS_A, 2),
                                            request("gpu/small", CLASS_A, 1)))
    spec = claim(req)
    group = make_group(min_count=1, key=None)
    pods = with_claims(gang_pods(group, 1), PodClaim("gpu", template_name="t"))
    slices = [gpus("n1", 1), gpus("n2", 2)]
    dra = inputs(CLASSES, slices, templates={("default", "t"): template("t", spec)})
    result = plan(snap([make_node("n1", 8), make_node("n2", 8)], pods, [group], dra)).groups[0]
    chosen = result.selected_placement
    assert chosen.assignments == {"default/pg-0": "n2"}
    assert [d["request"] for d in chosen.allocations["default/pg-0/gpu"]] == ["gpu/big"] * 2


def test_pods_without_claims_are_untouched():
    """No claims: the plugin is skipped and the report has no allocations key."""
    group = make_group(min_count=1, key=None)
    result = plan(snap([make_node("n1", 8)], gang_pods(group, 1), [group], inputs(CLASSES)))
    assert result.groups[0].selected_placement.allocations is None
    doc = plan_document(result)
    assert "allocations" not in doc["groups"][0]["placements"][0]


def test_report_lists_allocations():
    group = make_group(min_count=1, key=None)
    pods = with_claims(gang_pods(group, 1), PodClaim("gpu", template_name="one-gpu"))
    dra = inputs(CLASSES, [gpus("n1")], templates={("default", "one-gpu"): ONE_GPU})
    doc = plan_document(plan(snap([make_node("n1", 8)], pods, [group], dra)))
    assert doc["groups"][0]["placements"][0]["allocations"] == {
        "default/pg-0/gpu": [{"request": "gpu", "driver": DRIVER_A, "pool": "n1",
                              "device": "gpu-0"}]}


def test_bound_pods_hold_devices_only_through_claims():
    """A running pod's claims count through their allocation only (never resolved)."""
    group = make_group(min_count=1, key=None)
    running = replace(make_pod("old", node="n1"), claims=(PodClaim("x", template_name="gone"),))
    pods = [running, *with_claims(gang_pods(group, 1), PodClaim("gpu", template_name="one-gpu"))]
    dra = inputs(CLASSES, [gpus("n1")], templates={("default", "one-gpu"): ONE_GPU})
    assert plan(snap([make_node("n1", 8)], pods, [group], dra)).groups[0].schedulable


def test_counted_capacity_agrees_with_pod_by_pod_devices():
    """Node-local devices and per-pod claims: the plugin is node-scoped and states its
    capacity (3-GPU pods on 8-GPU nodes: 2 per node); the counted verdict must equal the
    pod-by-pod simulation of the winner (the planner checks that and raises otherwise)."""
    three = template("three", claim(request("gpu", CLASS_A, 3)))
    group = make_group(min_count=5, key="rack")
    pods = with_claims(gang_pods(group, 5), PodClaim("gpu", template_name="three"))
    nodes = rack("r1", "a1", "a2") + rack("r2", "b1", "b2", "b3")
    dra = inputs(CLASSES, [gpus(n.name, 8) for n in nodes],
                 templates={("default", "three"): three})
    result = plan(snap(nodes, pods, [group], dra)).groups[0]
    assert result.schedulable and result.selected == "r2"
    by_name = {p.name: p for p in result.placements}
    assert by_name["r1"].placed == 4 and not by_name["r1"].simulated
    assert sorted(result.selected_placement.assignments.values()) == \
        ["b1", "b1", "b2", "b2", "b3"]


def test_scope_narrows_only_for_own_node_local_claims():
    from tasplan.framework.types import Scope
    from tasplan.plugins.dynamic_resources import DynamicResources
    nodes, slices = _fabric_cluster()
    group = replace(make_group(min_count=1, key=None),
                    claims=(PodClaim("fabric", template_name="fabric"),))
    own = with_claims(gang_pods(group, 1), PodClaim("gpu", template_name="one-gpu"))[0]
    shared = with_claims(gang_pods(group, 1), PodClaim("fabric", template_name="fabric"))[0]
    templates = {("default", "one-gpu"): ONE_GPU, ("default", "fabric"): FABRIC}
    plugin = DynamicResources()
    plugin.bind_snapshot(snap(nodes, [], [group],
                              inputs(CLASSES, [gpus(n.name) for n in nodes],
                                     templates=templates)))
    assert plugin.scope_for(own) == Scope.NODE
    assert plugin.scope_for(shared) == Scope.CLUSTER  # the group's claim
    plugin.bind_snapshot(snap(nodes, [], [group], inputs(CLASSES, slices, templates=templates)))
    assert plugin.scope_for(own) == Scope.CLUSTER  # network-attached devices exist
