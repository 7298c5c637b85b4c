"""Node replacement's helpers, mirroring Kueue's own tables: ``TestIsTopologyAssignmentStale``
and ``TestMergeTopologyAssignments`` (kubernetes-sigs/kueue
``pkg/cache/scheduler/tas_flavor_snapshot_test.go`` at
ff69552e79ad21652c36caa97038382e55625cf7). The replacement itself runs in the five node
replacement cases of ``TestFindTopologyAssignments`` (test_find_topology_assignments.py)."""

from __future__ import annotations

import pytest

from tasplan.schedulers.kueue.tas import Assignment, FlavorSnapshot
from tasplan.schedulers.kueue.tree import HOSTNAME, TopologyTree
from tests.builders import make_node

BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"


def snapshot(levels: list[str], nodes: list[tuple[str, dict[str, str]]]) -> FlavorSnapshot:
    return FlavorSnapshot("dummy", TopologyTree(levels, [
        make_node(name, labels=labels) for name, labels in nodes]))


HOSTNAME_LOWEST = ([BLOCK, HOSTNAME], [("n1", {BLOCK: "b1", HOSTNAME: "n1"})])
RACK_LOWEST = ([BLOCK, RACK], [("n1", {BLOCK: "b1", RACK: "r1"})])


@pytest.mark.parametrize(("tree", "values", "stale"), [
    pytest.param(HOSTNAME_LOWEST, ("n1",), None, id="existing hostname leaf is not stale"),
    pytest.param(HOSTNAME_LOWEST, ("n2",), "n2", id="missing hostname leaf is stale"),
    pytest.param(HOSTNAME_LOWEST, ("b1",), "b1", id="deleted node is stale even when its "
                 "hostname matches an existing root domain ID"),
    pytest.param(RACK_LOWEST, ("b1", "r1"), None, id="existing non-hostname leaf is not stale"),
    pytest.param(RACK_LOWEST, ("b1", "r2"), "b1", id="missing non-hostname leaf is stale"),
])
def test_is_topology_assignment_stale(tree, values, stale) -> None:
    assert snapshot(*tree).stale_domain(Assignment((), ((values, 1),))) == stale


L1, L2 = "level-1", "level-2"
MERGE_TREE = ([L1, L2], [("x", {L1: "a", L2: "b"}), ("y", {L1: "a", L2: "c"}),
                         ("z", {L1: "d", L2: "e"}), ("w", {L1: "d", L2: "f"})])
AB, AC, DE, DF = ("a", "b"), ("a", "c"), ("d", "e"), ("d", "f")


@pytest.mark.parametrize(("a", "b", "want"), [
    pytest.param([AB, AC], [DE, DF], [(AB, 1), (AC, 1), (DE, 1), (DF, 1)],
                 id="topologies with different domains, all a before b"),
    pytest.param([DE, DF], [AB, AC], [(AB, 1), (AC, 1), (DE, 1), (DF, 1)],
                 id="topologies with different domains, all b before a"),
    pytest.param([AC, DE], [AB, DF], [(AB, 1), (AC, 1), (DE, 1), (DF, 1)],
                 id="topologies with different domains, mixed order"),
    pytest.param([AC, DE], [AB, DE], [(AB, 1), (AC, 1), (DE, 2)],
                 id="topologies with different and the same domains, mixed order"),
    pytest.param([], [AB, DE], [(AB, 1), (DE, 1)], id="topology a with empty domains"),
    pytest.param([AC, DE], [], [(AC, 1), (DE, 1)], id="topology b with empty domain"),
])
def test_merge_topology_assignments(a, b, want) -> None:
    def assignment(domains):
        return Assignment((L1, L2), tuple((d, 1) for d in domains))

    merged = snapshot(*MERGE_TREE).merge(assignment(a), assignment(b))
    assert merged == Assignment((L1, L2), tuple(want))
