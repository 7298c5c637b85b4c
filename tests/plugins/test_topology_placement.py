"""TopologyPlacementGenerator.generate_placements.

Mirrors kubernetes/kubernetes
``pkg/scheduler/framework/plugins/topologyaware/topology_placement_test.go``
``TestGeneratePlacements`` (@0c6b883a), the non-CompositePodGroup rows. Upstream builds a
snapshot of ``placementNodes + otherNodes``; the parent placement holds ``placementNodes``.
"""

from __future__ import annotations

import pytest

from tasplan.framework.status import Code
from tasplan.framework.types import GroupContext, Placement
from tasplan.plugins.topology_placement import TopologyPlacementGenerator, new
from tests.builders import make_group, make_node, make_pod, node_infos

PARENT = "test-placement"


def _node(name: str, **labels: str):
    return make_node(name, labels=labels)


def _run(key, placement_nodes, other_nodes=(), scheduled_on=()):
    nodes = node_infos([*placement_nodes, *other_nodes])
    parent = Placement(PARENT, tuple(range(len(placement_nodes))))
    group = make_group(key=key)
    scheduled = tuple((make_pod(f"pod{i}", node=n, group=group.key), n)
                      for i, n in enumerate(scheduled_on))
    ctx = GroupContext(group, (make_pod("pending", group=group.key),), scheduled)
    placements, status = TopologyPlacementGenerator().generate_placements(ctx, parent, nodes)
    return parent, nodes, placements, status


SIX_NODES = (
    _node("node0", topology2="d1"),
    _node("node1", topology2="d4"),
    _node("node2", topology1="d1"),
    _node("node3", topology1="d2"),
    _node("node4", topology1="d1"),
    _node("node5", topology1="d3"),
)


# upstream: topology_placement_test.go TestGeneratePlacements
@pytest.mark.parametrize(
    ("key", "placement_nodes", "other_nodes", "scheduled_on", "want", "want_code"),
    [
        pytest.param(
            "topology1", SIX_NODES, (), (),
            {"d1": ["node2", "node4"], "d2": ["node3"], "d3": ["node5"]}, None,
            id="with topology key constraint, returns placement for each topology domain",
        ),
        pytest.param(
            "topology3", SIX_NODES, (), (), {}, None,
            id="without matching topology label, returns empty",
        ),
        pytest.param(
            "topology",
            (_node("node0", topology="d2"), _node("node1", topology="d1")),
            (_node("node2", topology="d1"), _node("node3", topology="d1")),
            ("node2", "node3"),
            {"d1": ["node1"]}, None,
            id="with pods already scheduled in a single domain, returns that domain",
        ),
        pytest.param(
            "topology",
            (_node("node0", topology="d2"),),
            (_node("node2", topology="d1"), _node("node3", topology="d1")),
            ("node2", "node3"),
            {}, None,
            id="with pods already scheduled in a single domain not present in current "
               "placement, returns empty",
        ),
        pytest.param(
            "topology",
            (_node("node0", topology="d2"), _node("node1", topology="d1")),
            (_node("node2", topology="d0"), _node("node3", topology="d1")),
            ("node2", "node3"),
            {}, Code.ERROR,
            id="with pods already scheduled in conflicting domains, returns error",
        ),
        pytest.param(
            "topology",
            (_node("node0", topology="d1"), _node("node1", topology="")),
            (_node("node2", topology=""), _node("node3", topology="")),
            ("node2", "node3"),
            {"": ["node1"]}, None,
            id="with pods already scheduled in the empty string domain, returns that domain",
        ),
        pytest.param(
            "topology",
            (_node("node0", topology="d2"), _node("node1", topology="d1")),
            (_node("node2", topology="d1"), _node("node3", topology="d1")),
            ("node2", "node4"),
            {}, Code.ERROR,
            id="with already scheduled pod on node outside of snapshot, returns error",
        ),
        pytest.param(
            "topology",
            (_node("node1", topology="d2"),),
            (_node("node2", foo="bar"),),
            ("node2",),
            {}, Code.ERROR,
            id="with already scheduled pod on node without topology label, returns error",
        ),
    ],
)
def test_generate_placements(key, placement_nodes, other_nodes, scheduled_on, want, want_code):
    _, nodes, placements, status = _run(key, placement_nodes, other_nodes, scheduled_on)
    if want_code is None:
        assert status is None or status.success
    else:
        assert status is not None
        assert status.code == want_code
        assert placements == []
        return
    got = {p.name: [nodes[i].name for i in p.nodes] for p in placements}
    assert got == want
    # one placement per domain: names are unique
    assert len(placements) == len(got)


# upstream: TestGeneratePlacements "without constraint returns placement matching all nodes"
def test_without_constraint_returns_parent_placement_unchanged():
    parent, _, placements, status = _run(
        None,
        (_node("node1"), _node("node2", foo="bar")),
        (_node("node3"),),
    )
    assert status is None
    assert placements == [parent]
    assert placements[0] == Placement(PARENT, (0, 1))


def test_factory_builds_the_plugin():
    plugin = new({})
    assert isinstance(plugin, TopologyPlacementGenerator)
    assert plugin.name == "TopologyPlacementGenerator"
