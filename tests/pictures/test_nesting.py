"""What the map draws, in the capacity result: which levels nest, the boxes, the nodes
without a level's label, gang sizes, and the ★ only where one domain alone holds the most."""

from __future__ import annotations

from dataclasses import replace

from tasplan.capacity.report import Box
from tasplan.capacity.shapes import parse_shape
from tasplan.capacity.view import capacity, plan_capacity
from tasplan.model.snapshot import ClusterSnapshot
from tests.builders import make_node, make_pod

ZONE = "topology.kubernetes.io/zone"
BLOCK = "topology.example.com/block"
RACK = "topology.example.com/rack"
HOST = "kubernetes.io/hostname"


def node(name: str, cpu: int = 4, **labels: str):
    keys = {"zone": ZONE, "block": BLOCK, "rack": RACK}
    return make_node(name, cpu, labels={keys[k]: v for k, v in labels.items()})


def tree(box: Box, depth: int = 0) -> list[str]:
    """The boxes as indented lines: level segment, name ("" for a remainder), nodes."""
    d = box.domain
    lines = [f"{'  ' * depth}{d.level.rpartition('/')[2] or 'cluster'} {d.name!r} {d.nodes}"]
    for kid in box.children:
        if kid.domain.level != HOST:
            lines.extend(tree(kid, depth + 1))
    return lines


def test_a_level_that_cuts_across_the_others_is_left_out_of_the_nesting() -> None:
    """As in the benchmark cluster: zones alternate node by node, so each rack and block
    spans zones; block > rack > hostname nest, zone does not."""
    nodes = [node(f"n{i}", zone="abc"[i % 3], block=f"b{i // 4}", rack=f"r{i // 2}")
             for i in range(8)]
    report = capacity(ClusterSnapshot(tuple(nodes), (), ()), [parse_shape("cpu=1")])
    assert report.levels == (ZONE, BLOCK, RACK, HOST)
    assert report.nested == (BLOCK, RACK, HOST)
    assert tree(report.tree) == [
        "cluster 'cluster' 8",
        "  block 'b0' 4", "    rack 'r0' 2", "    rack 'r1' 2",
        "  block 'b1' 4", "    rack 'r2' 2", "    rack 'r3' 2"]


def test_zones_that_hold_whole_blocks_nest() -> None:
    nodes = [node(f"n{i}", zone="a" if i < 4 else "b", block=f"b{i // 4}", rack=f"r{i // 2}")
             for i in range(8)]
    report = capacity(ClusterSnapshot(tuple(nodes), (), ()), [parse_shape("cpu=1")])
    assert report.nested == (ZONE, BLOCK, RACK, HOST)
    assert tree(report.tree)[1:3] == ["  zone 'a' 4", "    block 'b0' 4"]


def test_nodes_without_a_label_sit_in_a_box_of_their_own() -> None:
    """Two system nodes without block or rack; one node of block b1 without a rack. Each
    group of unlabelled nodes is a domain named "" in ``outside`` and a box in the tree,
    after the named ones; hostname boxes go into the deepest box their node reached."""
    nodes = [node("g1", block="b1", rack="r1"), node("g2", block="b1", rack="r1"),
             node("g3", block="b1"), node("s1", cpu=8), node("s2", cpu=8)]
    report = capacity(ClusterSnapshot(tuple(nodes), (), ()), [parse_shape("cpu=1")])
    assert report.nested == (BLOCK, RACK, HOST)
    assert tree(report.tree) == [
        "cluster 'cluster' 5",
        "  block 'b1' 3", "    rack 'r1' 2", "    rack '' 1",
        "  block '' 2"]
    outside = {(d.level, d.parent): (d.nodes, d.fit["cpu=1"].now) for d in report.outside}
    assert outside == {(RACK, f"{BLOCK}=b1"): (1, 4), (BLOCK, None): (2, 16)}
    hosts = [k.domain.name for k in report.tree.children[1].children]
    assert hosts == ["s1", "s2"]


def test_a_gang_is_held_where_that_many_pods_fit_now() -> None:
    """cpu=2 pods, gang of 3: r1 (two 4-cpu nodes) holds 4 -> yes; r2 (one node) 2 -> no."""
    nodes = [node("a", rack="r1"), node("b", rack="r1"), node("c", rack="r2")]
    report = capacity(ClusterSnapshot(tuple(nodes), (), ()), [parse_shape("cpu=2", gang=3)])
    holds = {d.name: d.fit["cpu=2"].holds for d in report.domains if d.level == RACK}
    assert holds == {"r1": True, "r2": False}
    assert report.gangs == {"cpu=2": 3}
    plain = capacity(ClusterSnapshot(tuple(nodes), (), ()), [parse_shape("cpu=2")])
    assert plain.gangs == {} and plain.domains[0].fit["cpu=2"].holds is None


def test_the_star_needs_one_domain_alone_and_others_to_compare_with() -> None:
    """r1 and r2 tie (4 each): no star for racks; one block: nothing to compare with."""
    nodes = [node("a", block="b", rack="r1"), node("b", block="b", rack="r2")]
    report = capacity(ClusterSnapshot(tuple(nodes), (), ()), [parse_shape("cpu=1")])
    strict = {x.level: (x.domains, x.strict) for x in report.largest}
    assert strict[RACK] == (("r1", "r2"), False)
    assert strict[BLOCK] == (("b",), False)
    busy = replace(make_pod("busy", 1, node="b"), owner_kind="ReplicaSet")
    report = capacity(ClusterSnapshot(tuple(nodes), (busy,), ()), [parse_shape("cpu=1")])
    assert {x.level: (x.domains, x.strict) for x in report.largest}[RACK] == (("r1",), True)


POOL_GROUP = """
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: pooled, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 2}}
  schedulingConstraints: {topology: [{key: example.com/pool}]}
---
apiVersion: v1
kind: List
items:
""" + "".join(f"""- apiVersion: v1
  kind: Pod
  metadata: {{name: pooled-{i}, namespace: ml}}
  spec:
    schedulingGroup: {{podGroupName: pooled}}
    containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]
""" for i in range(2))

NODES = """
apiVersion: v1
kind: List
items:
""" + "".join(f"""- apiVersion: v1
  kind: Node
  metadata:
    name: n{i}
    labels: {{kubernetes.io/hostname: n{i}, example.com/pool: p{i % 2}}}
  status: {{allocatable: {{cpu: "4", pods: "110"}}}}
""" for i in range(4))


def test_plan_capacity_counts_each_group_with_its_min_count(tmp_path) -> None:
    """check/explain --html: one shape per planned group, its gang its minCount, and the
    group's topology key among the levels even when no well-known key names it."""
    from tasplan.load.loader import load_inputs
    from tests.capacity.test_cli import REPO

    snapshot = load_inputs([REPO / "samples" / "workloads" / "train-rack.yaml"],
                           [REPO / "samples" / "cluster"])
    report = plan_capacity(snapshot)
    assert report.gangs == {"ml/train-workers-0": 4}
    racks = {d.name: d.fit["ml/train-workers-0"].holds for d in report.domains
             if d.level == RACK}
    assert racks == {"rack-a1": False, "rack-a2": False, "rack-a3": False, "rack-b1": True,
                     "rack-b2": False, "rack-b3": True}
    (tmp_path / "group.yaml").write_text(POOL_GROUP)
    (tmp_path / "nodes.yaml").write_text(NODES)
    pooled = plan_capacity(load_inputs([tmp_path / "group.yaml"], [tmp_path / "nodes.yaml"]))
    assert pooled.levels == ("example.com/pool", HOST)  # no well-known key names it
    assert [(d.name, d.nodes, d.fit["ml/pooled"].holds) for d in pooled.domains[:2]] == [
        ("p0", 2, True), ("p1", 2, True)]
