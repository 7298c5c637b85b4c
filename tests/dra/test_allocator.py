"""The structured allocator, case by case from upstream's shared allocator test table
(``k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting/
allocator_testing.go``, TestAllocator): each test names the upstream case it mirrors.
Results are (request, driver, pool, device) per claim; None = no solution."""

from __future__ import annotations

import pytest

from tasplan.dra.allocator import INVALID_POOLS, AllocationError, World, allocate
from tasplan.model.dra import ALL, Constraint, DeviceRequest
from tasplan.model.taints import Taint, Toleration
from tests.builders import make_node
from tests.dra.builders import (
    CLASS_A,
    CLASS_B,
    DRIVER_A,
    DRIVER_B,
    all_nodes_slice,
    claim,
    device,
    device_class,
    inputs,
    label_term,
    local_slice,
    request,
    selector_slice,
)

NODE1 = make_node("node-1", labels={"region": "region-1"})
NODE2 = make_node("node-2", labels={"region": "region-2"})
CLASSES = (device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B))


def run(slices, claims, node=NODE1, *, allocated=(), classes=CLASSES, rules=()):
    world = World(inputs(classes, slices, rules=rules))
    outcome = allocate(world, node, claims, set(allocated))
    if outcome.results is None:
        return None
    return [[(d.request, d.driver, d.pool, d.device) for d in r.results]
            for r in outcome.results]


def one(name="slice-1", node="node-1", pool="pool-1", driver=DRIVER_A):
    """upstream sliceWithOneDevice: one device named device-1."""
    return local_slice(name, node, pool, driver, device("device-1"))


def test_simple():
    """simple"""
    assert run([one()], [claim()]) == [[("req-0", DRIVER_A, "pool-1", "device-1")]]


def test_other_node():
    """other-node"""
    slices = [one(driver=DRIVER_B), one("slice-2", "node-2", "pool-2")]
    assert run(slices, [claim()], NODE2) == [[("req-0", DRIVER_A, "pool-2", "device-1")]]


MEM1 = 'device.capacity["driver-a"].memory.compareTo(quantity("1Gi")) >= 0'
MEM2 = 'device.capacity["driver-a"].memory.compareTo(quantity("2Gi")) >= 0'


def test_small_and_large():
    """small-and-large"""
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A,
                    device("device-1", memory=("cap", "1Gi")),
                    device("device-2", memory=("cap", "2Gi")))
    got = run([s], [claim(request("req-0", CLASS_A, 1, MEM1), request("req-1", CLASS_A, 1, MEM2))])
    assert got == [[("req-0", DRIVER_A, "pool-1", "device-1"),
                    ("req-1", DRIVER_A, "pool-1", "device-2")]]


def test_small_and_large_backtrack_requests():
    """small-and-large-backtrack-requests: the large device first in the list is taken for
    the small request, then given back."""
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A,
                    device("device-2", memory=("cap", "2Gi")),
                    device("device-1", memory=("cap", "1Gi")))
    got = run([s], [claim(request("req-0", CLASS_A, 1, MEM1), request("req-1", CLASS_A, 1, MEM2))])
    assert got == [[("req-0", DRIVER_A, "pool-1", "device-1"),
                    ("req-1", DRIVER_A, "pool-1", "device-2")]]


def test_small_and_large_backtrack_claims():
    """small-and-large-backtrack-claims"""
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A,
                    device("device-2", memory=("cap", "2Gi")),
                    device("device-1", memory=("cap", "1Gi")))
    got = run([s], [claim(request("req-0", CLASS_A, 1, MEM1)),
                    claim(request("req-1", CLASS_A, 1, MEM2))])
    assert got == [[("req-0", DRIVER_A, "pool-1", "device-1")],
                   [("req-1", DRIVER_A, "pool-1", "device-2")]]


def test_devices_split_across_different_slices():
    """devices-split-across-different-slices"""
    slices = [one(), one("slice-2", pool="pool-2")]
    assert run(slices, [claim(request(count=2))]) == [[
        ("req-0", DRIVER_A, "pool-1", "device-1"), ("req-0", DRIVER_A, "pool-2", "device-1")]]


def test_obsolete_slice():
    """obsolete-slice: the newer generation of the pool is incomplete, the older ignored."""
    old = local_slice("slice-1-obsolete", "node-1", "pool-1", DRIVER_A, device("device-1"),
                      generation=2, count=2)
    new = local_slice("slice-1-new", "node-1", "pool-1", DRIVER_A, device("device-2"),
                      generation=3, count=2)
    assert run([old, new], [claim()]) is None


def test_duplicate_slice():
    """duplicate-slice: two slices of one pool list the same device."""
    a = local_slice("slice-1", "node-1", "pool-1", DRIVER_A, device("device-1"), count=2)
    b = local_slice("slice-1-2", "node-1", "pool-1", DRIVER_A, device("device-1"), count=2)
    with pytest.raises(AllocationError, match=INVALID_POOLS):
        run([a, b], [claim()])


def test_not_enough_suitable_devices():
    """not-enough-suitable-devices"""
    assert run([one()], [claim(request("req-0"), request("req-1"))]) is None


def test_no_slices():
    """no-slices"""
    assert run([], [claim()]) is None


@pytest.mark.parametrize("classes", [(), (device_class(CLASS_A),)], ids=["no-classes",
                                                                          "unknown-class"])
def test_missing_class(classes):
    """no-classes, unknown-class"""
    with pytest.raises(AllocationError, match="could not retrieve device class"):
        run([one()], [claim(request(class_name="unknown-class" if classes else CLASS_A))],
            classes=classes)


def test_no_claims_to_allocate():
    """no-claims-to-allocate"""
    assert run([one()], []) == []


def all_request(name="req-0", class_name=CLASS_A, **kw):
    return DeviceRequest(name, class_name, mode=ALL, count=0, **kw)


def test_all_devices_single():
    """all-devices-single"""
    assert run([one()], [claim(all_request())]) == [[("req-0", DRIVER_A, "pool-1", "device-1")]]


def test_all_devices_many():
    """all-devices-many"""
    got = run([one(), one(pool="pool-2")], [claim(all_request())])
    assert got == [[("req-0", DRIVER_A, "pool-1", "device-1"),
                    ("req-0", DRIVER_A, "pool-2", "device-1")]]


def test_all_devices_of_the_incomplete_pool():
    """all-devices-of-the-incomplete-pool"""
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A, device("device-1"), count=2)
    with pytest.raises(AllocationError, match="asks for all devices, but resource pool "
                       "driver-a/pool-1 is currently being updated"):
        run([s], [claim(all_request())])


@pytest.mark.parametrize("reverse", [False, True])
def test_all_devices_plus_another(reverse):
    """all-devices-plus-another(-reversed)"""
    claims = [claim(all_request()), claim(request("req-0", CLASS_B))]
    want = [[("req-0", DRIVER_A, "pool-1", "device-1")],
            [("req-0", DRIVER_B, "pool-1", "device-1")]]
    if reverse:
        claims.reverse()
        want.reverse()
    assert run([one(), one(driver=DRIVER_B)], claims) == want


@pytest.mark.parametrize("reverse", [False, True])
def test_all_devices_no_solution(reverse):
    """all-devices-no-solution(-reversed): one device, two claims both want it."""
    claims = [claim(request()), claim(all_request())]
    if reverse:
        claims.reverse()
    assert run([one()], claims) is None


def test_all_devices_slice_without_devices():
    """all-devices-slice-without-devices"""
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A)
    assert run([s], [claim(all_request())]) is None


def test_all_devices_some_allocated():
    """all-devices-some-allocated: All needs every matching device free."""
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A, device("device-1"), device("device-2"))
    assert run([s], [claim(all_request())], allocated=[(DRIVER_A, "pool-1", "device-1")]) is None


def test_all_devices_some_allocated_admin_access():
    """all-devices-some-allocated-admin-access"""
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A, device("device-1"), device("device-2"))
    got = run([s], [claim(all_request(admin_access=True))],
              allocated=[(DRIVER_A, "pool-1", "device-1")])
    assert got == [[("req-0", DRIVER_A, "pool-1", "device-1"),
                    ("req-0", DRIVER_A, "pool-1", "device-2")]]


def test_all_devices_some_allocating_admin_access():
    """all-devices-some-allocating-admin-access: the first request of the claim takes a
    device, so the second (All) cannot have every device."""
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A, device("device-1"), device("device-2"))
    c = claim(request("req-0", admin_access=True), all_request("req-1", admin_access=True))
    assert run([s], [c]) is None


def test_count_devices_some_allocated_admin_access():
    """count-devices-some-allocated-admin-access"""
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A, device("device-1"), device("device-2"))
    got = run([s], [claim(request(count=2, admin_access=True))],
              allocated=[(DRIVER_A, "pool-1", "device-1")])
    assert got == [[("req-0", DRIVER_A, "pool-1", "device-1"),
                    ("req-0", DRIVER_A, "pool-1", "device-2")]]


def test_separate_claims_share_device_admin_access():
    """separate-claims-share-device-admin-access"""
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A, device("device-1"), device("device-2"))
    got = run([s], [claim(request(admin_access=True)), claim(request(admin_access=True))])
    assert got == [[("req-0", DRIVER_A, "pool-1", "device-1")],
                   [("req-0", DRIVER_A, "pool-1", "device-1")]]


def test_already_allocated_devices_are_skipped():
    """already-allocated-devices: the first device is in use, the second is taken."""
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A, device("device-1"), device("device-2"))
    assert run([s], [claim()], allocated=[(DRIVER_A, "pool-1", "device-1")]) == [
        [("req-0", DRIVER_A, "pool-1", "device-2")]]


def test_network_attached_device_and_node_selector():
    """network-attached-device: a slice with a node selector serves the nodes it selects,
    and the allocation carries that selector."""
    s = selector_slice("slice-1", label_term("region", "region-1"), "pool-1", DRIVER_A,
                       device("device-1"))
    world = World(inputs(CLASSES, [s]))
    out = allocate(world, NODE1, [claim()])
    assert out.results[0].reach.all_of == (label_term("region", "region-1"),)
    assert not out.results[0].reach.node_name
    assert allocate(world, NODE2, [claim()]).results is None


def test_all_nodes_device_reaches_everywhere():
    """all-nodes: no node restriction on the result."""
    world = World(inputs(CLASSES, [all_nodes_slice("slice-1", "pool-1", DRIVER_A,
                                                   device("device-1"))]))
    out = allocate(world, NODE2, [claim()])
    assert out.results[0].reach.everywhere


def test_pools_sorted_by_driver_and_name():
    """lexicographical_testing.go: pools are tried in (driver, pool) order, slices by name,
    whatever order the inputs list them in."""
    slices = [one("slice-z", pool="pool-b"), one("slice-a", pool="pool-a")]
    assert run(slices, [claim()]) == [[("req-0", DRIVER_A, "pool-a", "device-1")]]


MATCH = Constraint(("req-0", "req-1"), match_attribute="driver-a/numa")


def test_with_constraint():
    """with-constraint: two devices with the same numa attribute."""
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A, device("device-1", numa=("int", 1)),
                    device("device-2", numa=("int", 2)), device("device-3", numa=("int", 1)))
    got = run([s], [claim(request("req-0"), request("req-1"), constraints=(MATCH,))])
    assert got == [[("req-0", DRIVER_A, "pool-1", "device-1"),
                    ("req-1", DRIVER_A, "pool-1", "device-3")]]


def test_with_constraint_non_existent_attribute():
    """with-constraint-non-existent-attribute"""
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A, device("device-1"), device("device-2"))
    c = Constraint((), match_attribute="driver-a/NonExistentAttribute")
    assert run([s], [claim(request("req-0"), request("req-1"), constraints=(c,))]) is None


def test_with_constraint_not_matching_type():
    """with-constraint-not-matching-int-attribute / bool: equal values of different types
    do not match."""
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A, device("device-1", numa=("int", 1)),
                    device("device-2", numa=("string", "1")))
    assert run([s], [claim(request("req-0"), request("req-1"), constraints=(MATCH,))]) is None


def test_distinct_attribute():
    """distinct-attribute: pairwise different values."""
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A, device("device-1", numa=("int", 1)),
                    device("device-2", numa=("int", 1)), device("device-3", numa=("int", 2)))
    c = Constraint((), distinct_attribute="driver-a/numa")
    got = run([s], [claim(request(count=2), constraints=(c,))])
    assert got == [[("req-0", DRIVER_A, "pool-1", "device-1"),
                    ("req-0", DRIVER_A, "pool-1", "device-3")]]


def test_prioritized_list_first_subrequest_wins():
    """prioritized-list: the first subrequest that can be satisfied is used."""
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A, device("device-1"))
    req = DeviceRequest("req-0", subrequests=(request("req-0/sub-0", CLASS_A, 2),
                                              request("req-0/sub-1", CLASS_A, 1)))
    assert run([s], [claim(req)]) == [[("req-0/sub-1", DRIVER_A, "pool-1", "device-1")]]


def test_prioritized_list_backtracks_across_requests():
    """prioritized-list-multi-request: a later request forces the earlier one onto its
    second subrequest."""
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A, device("device-1"), device("device-2"))
    first = DeviceRequest("req-0", subrequests=(request("req-0/sub-0", CLASS_A, 2),
                                                request("req-0/sub-1", CLASS_A, 1)))
    got = run([s], [claim(first, request("req-1"))])
    assert got == [[("req-0/sub-1", DRIVER_A, "pool-1", "device-1"),
                    ("req-1", DRIVER_A, "pool-1", "device-2")]]


TAINT = Taint("taint-key", "taint-value", "NoSchedule")


@pytest.mark.parametrize(("effect", "tolerations", "fits"), [
    ("None", (), True),
    ("NoSchedule", (), False),
    ("NoExecute", (), False),
    ("NoSchedule", (Toleration("taint-key", "Exists", "", "NoSchedule"),), True),
    ("NoExecute", (Toleration("taint-key", "Equal", "taint-value", "NoExecute"),), True),
    ("NoSchedule", (Toleration("key1", "Exists", "", "NoSchedule"),), False),
], ids=["tainted-none", "tainted-noschedule", "tainted-noexecute", "tolerated-noschedule",
        "tolerated-noexecute", "other-toleration"])
def test_device_taints(effect, tolerations, fits):
    """tainted-device / tolerated-device cases: NoSchedule and NoExecute block unless
    tolerated; None never blocks."""
    from dataclasses import replace
    d = replace(device("device-1"), taints=(Taint("taint-key", "taint-value", effect),))
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A, d)
    got = run([s], [claim(request(tolerations=tolerations))])
    assert (got is not None) == fits


def test_device_taint_rule():
    """DeviceTaintRule: a rule selecting a device taints it like its own taint."""
    from tasplan.model.dra import DeviceTaintRule
    rule = DeviceTaintRule("r", TAINT, DRIVER_A, "pool-1", "device-1")
    s = local_slice("slice-1", "node-1", "pool-1", DRIVER_A, device("device-1"), device("device-2"))
    assert run([s], [claim()], rules=[rule]) == [[("req-0", DRIVER_A, "pool-1", "device-2")]]


def test_too_many_devices():
    """too-many-devices-single-request: more than 32 devices for a claim is an error."""
    with pytest.raises(AllocationError, match="exceeds the claim limit"):
        run([one()], [claim(request(count=33))])


def test_partitionable_devices_shared_counters():
    """partitionable-devices: devices consuming a pool's shared counters fit while the
    counters last."""
    from dataclasses import replace

    from tasplan.model.dra import ResourceSlice
    from tests.dra.builders import SRC
    counters = ResourceSlice("slice-c", DRIVER_A, "pool-1", 1, 2, SRC, node_name="node-1",
                             shared_counters={"gpu-0": {"memory": 8}})
    parts = [replace(device(f"device-{i}"), consumes=(("gpu-0", {"memory": 4}),))
             for i in range(3)]
    s = local_slice("slice-d", "node-1", "pool-1", DRIVER_A, *parts, count=2)
    assert run([counters, s], [claim(request(count=2))]) == [[
        ("req-0", DRIVER_A, "pool-1", "device-0"), ("req-0", DRIVER_A, "pool-1", "device-1")]]
    assert run([counters, s], [claim(request(count=3))]) is None
