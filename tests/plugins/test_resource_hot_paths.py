"""The resource plugins' hot paths (NodeResourcesFit's node and placement scores and its
ignored-resource check, BalancedAllocation's score; issue 28) inline the shared helpers of
``resource_allocation``. They must give what the helpers give: each is compared on random
nodes, pods and plugin arguments with the plain composition of those helpers, which is how
these scores were computed before (extended resources requested or not, zero and missing
allocatable, ignored resources and groups, every scoring strategy)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tasplan.framework.types import CycleState, Placement, ProposedAssignment
from tasplan.model.node import Node
from tasplan.plugins.balanced_allocation import BalancedAllocation, balanced_resource_score
from tasplan.plugins.node_resources_fit import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    NodeResourcesFit,
)
from tasplan.plugins.resource_allocation import (
    ResourceSpec,
    ShapePoint,
    allocatable_and_requested,
    is_extended_resource_name,
    most_allocated,
    node_requested,
    pod_request,
)
from tests.builders import make_node, node_infos, pod_with

RESOURCES = ["cpu", "memory", "ephemeral-storage", "nvidia.com/gpu", "example.com/fpga",
             "hugepages-2Mi", "kubernetes.io/batteries"]
amounts = st.integers(0, 5) | st.integers(0, 64_000)
requests = st.dictionaries(st.sampled_from(RESOURCES), amounts, max_size=5)
allocatable = st.dictionaries(st.sampled_from(RESOURCES), amounts, max_size=6)
resource_specs = st.lists(st.tuples(st.sampled_from(RESOURCES), st.integers(1, 100)),
                          min_size=1, max_size=4, unique_by=lambda t: t[0])


def _node(alloc: dict, used: list[dict], index: int = 0):
    base = make_node(f"n{index}", 0, pods=alloc.get("pods", 110))
    node = Node(base.name, base.labels, base.taints, base.unschedulable,
                {**base.allocatable, **alloc}, base.source)
    bound = [pod_with(r, f"u{index}-{k}", node=node.name) for k, r in enumerate(used)]
    return node_infos([node], bound)[0]


def _balanced_plain(plugin: BalancedAllocation, pod, node) -> int:
    with_pod, without_pod, alloc_list = [], [], []
    for resource in plugin._names:
        request = pod_request(pod, resource, non_zero=False)
        alloc, req = allocatable_and_requested(node, resource, request, non_zero=False)
        alloc_list.append(alloc)
        with_pod.append(req)
        without_pod.append(req - request if alloc else 0)
    delta = 50 + balanced_resource_score(with_pod, alloc_list) - balanced_resource_score(
        without_pod, alloc_list)
    return 50 + (abs(delta) // 2 if delta >= 0 else -(abs(delta) // 2))


def _fit_plain(plugin: NodeResourcesFit, pod, node) -> int:
    requested, alloc_list = [], []
    for resource in plugin._names:
        alloc, req = allocatable_and_requested(
            node, resource, pod_request(pod, resource, non_zero=True), non_zero=True)
        alloc_list.append(alloc)
        requested.append(req)
    return plugin._scorer(requested, alloc_list, plugin._weights)


def _placement_plain(plugin: NodeResourcesFit, nodes, proposed) -> int:
    requested, alloc_list = [], []
    for resource in plugin._names:
        alloc = sum(n.node.allocatable.get(resource, 0) for n in nodes)
        req = sum(node_requested(n, resource, non_zero=True) for n in nodes)
        req += sum(pod_request(p.pod, resource, non_zero=True) * p.count for p in proposed)
        alloc_list.append(alloc)
        requested.append(req)
    return most_allocated(requested, alloc_list, plugin._weights)


def _ignored_plain(plugin: NodeResourcesFit, resource: str) -> bool:
    if not is_extended_resource_name(resource):
        return False
    return resource in plugin._ignored or (
        "/" in resource and resource.split("/", 1)[0] in plugin._ignored_groups)


@settings(max_examples=400, deadline=None)
@given(alloc=allocatable, used=st.lists(requests, max_size=3), pod=requests,
       specs=resource_specs)
def test_balanced_allocation_score_equals_the_helpers(alloc, used, pod, specs) -> None:
    node = _node(alloc, used)
    incoming = pod_with(pod, "incoming")
    for plugin in (BalancedAllocation(),
                   BalancedAllocation(tuple(ResourceSpec(r, 1) for r, _ in specs))):
        assert plugin.score(CycleState(), incoming, node) == _balanced_plain(
            plugin, incoming, node)


@settings(max_examples=400, deadline=None)
@given(alloc=allocatable, used=st.lists(requests, max_size=3), pod=requests,
       specs=resource_specs, strategy=st.sampled_from([LEAST_ALLOCATED, MOST_ALLOCATED,
                                                        REQUESTED_TO_CAPACITY_RATIO]),
       ignored=st.sets(st.sampled_from(RESOURCES)),
       groups=st.sets(st.sampled_from(["nvidia.com", "example.com", "kubernetes.io"])),
       others=st.lists(st.tuples(allocatable, st.lists(requests, max_size=2)), max_size=3),
       copies=st.integers(1, 5))
def test_node_resources_fit_equals_the_helpers(alloc, used, pod, specs, strategy, ignored,
                                               groups, others, copies) -> None:
    nodes = [_node(alloc, used)] + [_node(a, u, k + 1) for k, (a, u) in enumerate(others)]
    incoming = pod_with(pod, "incoming")
    shape = (ShapePoint(0, 0), ShapePoint(100, 10))
    plugin = NodeResourcesFit(strategy, tuple(ResourceSpec(r, w) for r, w in specs),
                              frozenset(ignored), frozenset(groups),
                              shape if strategy == REQUESTED_TO_CAPACITY_RATIO else ())
    for node in nodes:
        assert plugin.score(CycleState(), incoming, node) == _fit_plain(plugin, incoming, node)
    for resource in RESOURCES:  # twice: the answer is kept per name
        assert plugin._ignored_resource(resource) == _ignored_plain(plugin, resource)
        assert plugin._ignored_resource(resource) == _ignored_plain(plugin, resource)
    proposed = [ProposedAssignment(incoming, nodes[0], copies)]
    placement = Placement("p", tuple(range(len(nodes))))
    assert plugin.score_placement(None, placement, nodes, proposed) == _placement_plain(
        plugin, nodes, proposed)
