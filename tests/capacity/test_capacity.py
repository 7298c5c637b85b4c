"""Capacity numbers on small clusters, each worked out by hand in the test: taints, pod slots,
cordons, selectors and running pods change the count; stranded capacity; the tree's parents
and the largest gang per level."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tasplan.capacity.shapes import Shape, parse_shape, parse_toleration
from tasplan.capacity.view import capacity
from tasplan.errors import UsageError
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.model.taints import Taint
from tests.builders import make_node, make_pod

RACK = "topology.example.com/rack"
BLOCK = "topology.example.com/block"
GI = 1024**3


def node(name: str, rack: str, block: str = "b1", cpu: int = 4, **kw):
    return make_node(name, cpu, labels={RACK: rack, BLOCK: block}, **kw)


def running(name: str, on: str, cpu: float, owner: str = "ReplicaSet"):
    return replace(make_pod(name, cpu, node=on), owner_kind=owner)


def fit(report, level: str, name: str, shape: str):
    if not level:
        return report.total.fit[shape]
    [d] = [d for d in report.domains if d.level == level and d.name == name]
    return d.fit[shape]


def test_running_pods_pod_slots_taints_and_cordons_change_the_count() -> None:
    """cpu=1 pods, 4-cpu nodes:
    n1: a 2-cpu ReplicaSet pod and a 0.5-cpu DaemonSet pod: 1.5 free -> 1 now; empty keeps
        the DaemonSet pod: 3.5 -> 3.
    n2: 2 pod slots, one taken by a 0-cpu pod: 1 now (slots), 2 empty.
    n3: tainted gpu=yes:NoSchedule: 0 unless tolerated, then 4.
    n4: cordoned: 0 now and 0 empty (cordons stay)."""
    nodes = [node("n1", "r1"), node("n2", "r1", pods=2),
             node("n3", "r2", taints=(Taint("gpu", "yes", "NoSchedule"),)),
             node("n4", "r2", unschedulable=True)]
    pods = [running("app", "n1", 2), running("ds", "n1", 0.5, "DaemonSet"),
            running("tiny", "n2", 0)]
    snap = ClusterSnapshot(tuple(nodes), tuple(pods), ())
    plain, tolerant = parse_shape("cpu=1"), parse_shape("cpu=1", (parse_toleration("gpu"),))
    tolerant = Shape("tolerant", tolerant.pod)
    report = capacity(snap, [plain, tolerant])
    assert (fit(report, RACK, "r1", "cpu=1").now, fit(report, RACK, "r1", "cpu=1").empty) == (2, 5)
    assert (fit(report, RACK, "r2", "cpu=1").now, fit(report, RACK, "r2", "cpu=1").empty) == (0, 0)
    assert (fit(report, RACK, "r2", "tolerant").now,
            fit(report, RACK, "r2", "tolerant").empty) == (4, 4)
    host = fit(report, "kubernetes.io/hostname", "n2", "cpu=1")
    assert (host.now, host.empty) == (1, 2)
    # Stranded: r1 has 1.5 + 4 cpu free and 2 pods fit: 3.5 cpu no whole pod can use
    # (n2's 4 cpu behind one pod slot).
    assert fit(report, RACK, "r1", "cpu=1").stranded == {"cpu": 3500}
    assert report.notes == ("shape cpu=1: node(s) ruled out whatever they hold: "
                            "1 by NodeUnschedulable, 1 by TaintToleration",
                            "shape tolerant: node(s) ruled out whatever they hold: "
                            "1 by NodeUnschedulable")


def test_fragmentation_free_capacity_no_whole_pod_uses() -> None:
    """cpu=3 pods on two 5-cpu nodes with 16Gi: the rack has 10 cpu free, which arithmetic
    on the sum would call 3 pods; per node it is 1 + 1, and 4 cpu are stranded."""
    nodes = (node("n1", "r1", cpu=5, memory=16 * GI), node("n2", "r1", cpu=5, memory=16 * GI))
    report = capacity(ClusterSnapshot(nodes, (), ()), [parse_shape("cpu=3,memory=1Gi")])
    got = fit(report, RACK, "r1", "cpu=3,memory=1Gi")
    assert (got.now, got.empty) == (2, 2)
    assert got.stranded == {"cpu": 4000, "memory": 30 * GI}


def test_selectors_of_a_workload_pod_change_the_count() -> None:
    """A --for pod with nodeSelector pool=x: only the labelled node counts."""
    nodes = [node("n1", "r1"), make_node("n2", 4, labels={RACK: "r1", BLOCK: "b1",
                                                           "pool": "x"})]
    pod = make_pod("p", 1, node_selector={"pool": "x"})
    report = capacity(ClusterSnapshot(tuple(nodes), (), ()), [Shape("ns/g", pod)])
    assert fit(report, RACK, "r1", "ns/g").now == 4
    assert report.notes == ("shape ns/g: node(s) ruled out whatever they hold: 1 by "
                            "NodeAffinity",)


def test_tree_parents_levels_and_largest_per_level() -> None:
    """Blocks b1 (racks r1, r2) and b2 (r3); r1 has two free nodes, r2 one, r3 two. The
    largest gang of cpu=4 per rack is 2 (r1 and r3), per block 3 (b1). A node without rack
    or block labels belongs to no domain of those levels."""
    nodes = [node("n1", "r1"), node("n2", "r1"), node("n3", "r2"), node("n4", "r3", "b2"),
             node("n5", "r3", "b2"), make_node("loose", 4)]
    report = capacity(ClusterSnapshot(tuple(nodes), (), ()), [parse_shape("cpu=4")])
    assert report.levels == (BLOCK, RACK, "kubernetes.io/hostname")
    parents = {d.key: d.parent for d in report.domains if d.level != "kubernetes.io/hostname"}
    assert parents == {f"{BLOCK}=b1": None, f"{BLOCK}=b2": None,
                       f"{RACK}=r1": f"{BLOCK}=b1", f"{RACK}=r2": f"{BLOCK}=b1",
                       f"{RACK}=r3": f"{BLOCK}=b2"}
    host = {d.name: d.parent for d in report.domains if d.level == "kubernetes.io/hostname"}
    assert host["n4"] == f"{RACK}=r3" and host["loose"] is None
    largest = {(x.level, x.now, x.domains) for x in report.largest}
    assert largest == {(BLOCK, 3, ("b1",)), (RACK, 2, ("r1", "r3")),
                       ("kubernetes.io/hostname", 1, ("loose", "n1", "n2", "n3", "n4", "n5"))}
    assert report.total.fit["cpu=4"].now == 6 and report.total.nodes == 6
    # --levels: only rack, nodes with the label only.
    report = capacity(ClusterSnapshot(tuple(nodes), (), ()), [parse_shape("cpu=4")], [RACK])
    assert [d.key for d in report.domains] == [f"{RACK}=r1", f"{RACK}=r2", f"{RACK}=r3"]


def test_nominated_pods_hold_their_room() -> None:
    """A pending pod nominated to n1 (priority 100 >= the shape's 0) holds 3 cpu there."""
    nominated = replace(make_pod("waiting", 3), nominated_node_name="n1")
    snap = ClusterSnapshot((node("n1", "r1"),), (nominated,), ())
    report = capacity(snap, [parse_shape("cpu=1")])
    assert fit(report, RACK, "r1", "cpu=1").now == 1
    assert fit(report, RACK, "r1", "cpu=1").empty == 4


def test_own_affinity_is_reported_not_counted() -> None:
    from tasplan.model.pod_affinity import SpreadConstraint

    pod = replace(make_pod("p", 1), spread_constraints=(
        SpreadConstraint(1, RACK, "DoNotSchedule", None),))
    report = capacity(ClusterSnapshot((node("n1", "r1"),), (), ()), [Shape("ns/g", pod)])
    assert any("PodTopologySpread constraints are not counted" in n for n in report.notes)


@pytest.mark.parametrize(("text", "message"), [
    ("cpu", "expected RESOURCE=QUANTITY"), ("cpu=lots", "cpu"), ("pods=3", "pods"),
    ("cpu=1,cpu=2", "given twice"), ("cpu=-1", "negative")])
def test_bad_shapes(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_shape(text)


def test_shape_requests_are_canonical() -> None:
    shape = parse_shape("cpu=500m,memory=2Gi,nvidia.com/gpu=8")
    assert shape.requests == {"cpu": 500, "memory": 2 * GI, "nvidia.com/gpu": 8}
    assert parse_toleration("gpu=yes:NoSchedule").operator == "Equal"
    with pytest.raises(UsageError):
        parse_toleration("gpu:Sometimes")


def test_resource_claims_of_a_shape_are_reported_not_counted() -> None:
    from tasplan.model.dra import PodClaim
    from tests.dra.builders import DRIVER_A, device, inputs, local_slice
    from tests.dra.test_plugin import CLASSES, ONE_GPU

    pod = replace(make_pod("p", 1), claims=(PodClaim("gpu", template_name="one-gpu"),))
    dra = inputs(CLASSES, [local_slice("s", "n1", "n1", DRIVER_A, device("gpu-0"))],
                 templates={("default", "one-gpu"): ONE_GPU})
    snap = ClusterSnapshot((node("n1", "r1"),), (), (), dra=dra)
    report = capacity(snap, [Shape("ns/g", pod)])
    assert fit(report, RACK, "r1", "ns/g").now == 4  # cpu only: the one device is not counted
    assert any("DynamicResources constraints are not counted" in n for n in report.notes)
