"""NodeResourcesBalancedAllocation (the v1.36+ "delta" score of kubernetes#135573).

Vectors: kubernetes/kubernetes ``noderesources/balanced_allocation_test.go`` as changed by
PR #135573 (brejman), see /tmp/notes/upstream.md §1:
``score = 50 + (50 + S_with - S_without) / 2``, ``S = int((1 - std) * 100)``, raw requests.
"""

from __future__ import annotations

import pytest

from tasplan.framework.types import CycleState
from tasplan.plugins import balanced_allocation
from tasplan.plugins.balanced_allocation import BalancedAllocation, balanced_resource_score
from tasplan.plugins.resource_allocation import ResourceSpec
from tests.builders import make_node, node_infos, pod_with

GPU = "nvidia.com/gpu"


def _score(node_cpu, node_mem, existing, pod, *, plugin=None, **extra):
    node = make_node("node1", node_cpu / 1000, memory=node_mem, **extra)
    bound = [pod_with(existing, "existing", node="node1")] if existing else []
    info = node_infos([node], bound)[0]
    plugin = plugin or BalancedAllocation()
    assert plugin.pre_score(CycleState(), pod) is True
    return plugin.score(CycleState(), pod, info)


# upstream: balanced_allocation_test.go TestNodeResourcesBalancedAllocation (PR #135573)
@pytest.mark.parametrize(
    ("node", "existing", "pod", "want"),
    [
        pytest.param((4000, 10000), {}, {"cpu": 3000, "memory": 5000}, 68,
                     id="empty node, pod takes (75%, 50%): 100 -> 87 gives 68"),
        pytest.param((6000, 10000), {}, {"cpu": 3000, "memory": 5000}, 75,
                     id="no change in balance gives 75"),
        pytest.param((10000, 20000), {"cpu": 3000, "memory": 5000},
                     {"cpu": 3000, "memory": 5000}, 74,
                     id="(30%, 25%) -> (60%, 50%): 97 -> 95 gives 74 (integer steps)"),
        pytest.param((10000, 20000), {"cpu": 3000}, {"cpu": 3000, "memory": 5000}, 73,
                     id="(30%, 0%) -> (60%, 25%): 85 -> 82 gives 73"),
        pytest.param((10000, 20000), {"cpu": 3000, "memory": 2000},
                     {"cpu": 3000, "memory": 2000}, 70,
                     id="(30%, 10%) -> (60%, 20%): 90 -> 80 gives 70"),
        pytest.param((3000, 5000), {"cpu": 3000}, {"memory": 5000}, 100,
                     id="(100%, 0%) -> (100%, 100%): imbalanced to balanced gives 100"),
        pytest.param((3000, 5000), {}, {"memory": 5000}, 50,
                     id="(0%, 0%) -> (0%, 100%): balanced to imbalanced gives 50"),
        pytest.param((6000, 10000), {"cpu": 3000}, {"cpu": 3000}, 62,
                     id="cpu 50% -> 100%, memory 0%: 75 -> 50 gives 62"),
        pytest.param((4000, 10000), {}, {"cpu": 6000, "memory": 5000}, 62,
                     id="fractions are capped at 1: (100%, 50%) gives 62"),
    ],
)
def test_balanced_allocation_score(node, existing, pod, want):
    assert _score(node[0], node[1], existing, pod_with(pod)) == want


def test_raw_requests_no_non_zero_defaults():
    # a pod asking only for memory does not get the 100m cpu default (useRequested: true)
    pod = pod_with({"memory": 5000})
    assert pod.non_zero[0] == 100
    assert _score(3000, 5000, {}, pod) == 50


def test_extended_resource_not_requested_is_skipped():
    # with nvidia.com/gpu configured but not requested, the score equals the cpu+memory one
    plugin = BalancedAllocation((ResourceSpec("cpu"), ResourceSpec("memory"), ResourceSpec(GPU)))
    pod = pod_with({"cpu": 3000, "memory": 5000})
    assert _score(4000, 10000, {}, pod, plugin=plugin, **{GPU: 4}) == 68


def test_extended_resource_requested_counts():
    # (75%, 50%, 50%): std = sqrt(((1/6)^2 + 2*(1/12)^2)/3) = 0.1178 -> S_with 88,
    # S_without 100 -> 50 + (50 + 88 - 100) / 2 = 69
    plugin = BalancedAllocation((ResourceSpec("cpu"), ResourceSpec("memory"), ResourceSpec(GPU)))
    pod = pod_with({"cpu": 3000, "memory": 5000, GPU: 2})
    assert _score(4000, 10000, {}, pod, plugin=plugin, **{GPU: 4}) == 69


def test_resource_missing_on_node_is_skipped():
    # node without memory allocatable: only cpu counts, one fraction -> std 0 -> 75
    assert _score(4000, 0, {}, pod_with({"cpu": 3000, "memory": 5000})) == 75


# upstream: balanced_allocation.go PreScore returns Skip for a pod whose requests for all
# configured resources are zero (issue #129138)
@pytest.mark.parametrize(
    ("requests", "want"),
    [
        pytest.param({}, False, id="pod requesting nothing is skipped"),
        pytest.param({GPU: 1}, False,
                     id="pod requesting only an unconfigured extended resource is skipped"),
        pytest.param({"cpu": 0, "memory": 0}, False, id="explicit zero requests are skipped"),
        pytest.param({"cpu": 100}, True, id="pod requesting cpu is scored"),
        pytest.param({"memory": 1}, True, id="pod requesting memory is scored"),
    ],
)
def test_pre_score_skip(requests, want):
    assert BalancedAllocation().pre_score(CycleState(), pod_with(requests)) is want


@pytest.mark.parametrize(
    ("requested", "allocatable", "want"),
    [
        pytest.param([0, 0], [4000, 10000], 100, id="nothing used is perfectly balanced"),
        pytest.param([3000, 5000], [4000, 10000], 87, id="(75%, 50%) -> 87.5 truncated"),
        pytest.param([3000, 0], [3000, 5000], 50, id="(100%, 0%) -> 50"),
        pytest.param([3000, 5000], [0, 10000], 100, id="zero allocatable is left out"),
        pytest.param([9000, 5000], [3000, 5000], 100, id="fractions capped at 1"),
    ],
)
def test_balanced_resource_score(requested, allocatable, want):
    assert balanced_resource_score(requested, allocatable) == want


def test_factory_defaults_and_args():
    assert balanced_allocation.new({}).pre_score(CycleState(), pod_with({"cpu": 1}))
    plugin = balanced_allocation.new({"resources": [{"name": GPU, "weight": 0}]})
    # only gpu configured: a cpu-only pod is skipped
    assert plugin.pre_score(CycleState(), pod_with({"cpu": 1})) is False
    assert plugin.pre_score(CycleState(), pod_with({GPU: 1})) is True
