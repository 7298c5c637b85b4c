"""NodeResourcesFit: filter, LeastAllocated / MostAllocated node scores, placement score.

Upstream sources (kubernetes/kubernetes ``pkg/scheduler/framework/plugins/noderesources``):
``fit_test.go`` TestEnoughRequests / TestNotEnoughRequests / TestStorageRequests,
``least_allocated_test.go`` TestLeastAllocatedScoringStrategy,
``most_allocated_test.go`` TestMostAllocatedScoringStrategy; placement scoring from the
reference (§3.5) and the TAS integration-test arithmetic.

Upstream's resource quantities ("cpu": "4000" = 4000 cores) are kept as numbers of
millicores here: every score is a ratio, so the results are the same. Pods built by
``st.MakePod().Obj()`` have no containers, hence no non-zero defaults: ``non_zero=(0, 0)``.
Init containers and overhead are folded into the pod's requests by the request model
(tested in tests/model), so those upstream rows appear here with the aggregated request.
"""

from __future__ import annotations

import pytest

from tasplan.errors import ProfileError
from tasplan.framework.profile import PluginRef, Profile
from tasplan.framework.runtime import Framework
from tasplan.framework.status import Code, InsufficientResource, Status
from tasplan.framework.types import CycleState, GroupContext, Placement, ProposedAssignment
from tasplan.plugins import node_resources_fit
from tasplan.plugins.defaults import default_profile
from tasplan.plugins.node_resources_fit import NodeResourcesFit
from tasplan.plugins.registry import in_tree_registry
from tests.builders import make_group, make_node, make_pod, node_infos, pod_with

U, UU = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_IO_A = "kubernetes.io/something"
HUGE_A = "hugepages-2Mi"
MI = 1024 * 1024


def _fit_node(pods: int = 32):
    # upstream makeAllocatableResources(10, 20, 32, 5, 20, 5): milliCPU 10, memory 20,
    # pods 32, example.com/aaa 5, ephemeral-storage 20, hugepages-2Mi 5
    return make_node("node", 0.01, pods=pods, memory=20,
                     **{EXT_A: 5, "ephemeral-storage": 20, HUGE_A: 5})


def _filter(pod, existing: dict, *, args=None, pods: int = 32):
    node = _fit_node(pods)
    existing_pod = pod_with(existing, "existing", node=node.name)
    info = node_infos([node], [existing_pod])[0]
    plugin = node_resources_fit.new(args or {})
    return plugin.filter(CycleState(), pod, info)


def _ins(resource, requested, used, capacity):
    return InsufficientResource(resource, requested, used, capacity)


# upstream: fit_test.go TestEnoughRequests / TestStorageRequests (+ tasplan-only rows marked)
@pytest.mark.parametrize(
    ("pod_requests", "existing", "args", "want"),
    [
        pytest.param({}, {"cpu": 10, "memory": 20}, None, None,
                     id="no resources requested always fits"),
        pytest.param(
            {"cpu": 1, "memory": 1}, {"cpu": 10, "memory": 20}, None,
            Status(U, ("Insufficient cpu", "Insufficient memory"),
                   (_ins("cpu", 1, 10, 10), _ins("memory", 1, 20, 20))),
            id="too many resources fails"),
        pytest.param({"cpu": 1, "memory": 1}, {"cpu": 5, "memory": 5}, None, None,
                     id="both resources fit"),
        pytest.param(
            {"cpu": 2, "memory": 1}, {"cpu": 9, "memory": 5}, None,
            Status(U, ("Insufficient cpu",), (_ins("cpu", 2, 9, 10),)),
            id="one resource memory fits"),
        pytest.param(
            {"cpu": 1, "memory": 2}, {"cpu": 5, "memory": 19}, None,
            Status(U, ("Insufficient memory",), (_ins("memory", 2, 19, 20),)),
            id="one resource cpu fits"),
        pytest.param({"cpu": 5, "memory": 1}, {"cpu": 5, "memory": 19}, None, None,
                     id="equal edge case"),
        pytest.param({EXT_A: 1}, {}, None, None, id="extended resource fits"),
        pytest.param(
            {"cpu": 1, "memory": 1, EXT_A: 10}, {EXT_A: 0}, None,
            Status(UU, (f"Insufficient {EXT_A}",), (_ins(EXT_A, 10, 0, 5),)),
            id="extended resource capacity enforced"),
        pytest.param(
            {"cpu": 1, "memory": 1, EXT_A: 1}, {EXT_A: 5}, None,
            Status(U, (f"Insufficient {EXT_A}",), (_ins(EXT_A, 1, 5, 5),)),
            id="extended resource allocatable enforced"),
        pytest.param(
            {"cpu": 2, "memory": 2, EXT_A: 6}, {EXT_A: 2}, None,
            Status(UU, (f"Insufficient {EXT_A}",), (_ins(EXT_A, 6, 2, 5),)),
            id="extended resource allocatable enforced for multiple containers"),
        pytest.param(
            {"cpu": 1, "memory": 1, EXT_B: 1}, {}, None,
            Status(UU, (f"Insufficient {EXT_B}",), (_ins(EXT_B, 1, 0, 0),)),
            id="extended resource allocatable enforced for unknown resource"),
        pytest.param(
            {"cpu": 1, "memory": 1, K8S_IO_A: 10}, {}, None,
            Status(UU, (f"Insufficient {K8S_IO_A}",), (_ins(K8S_IO_A, 10, 0, 0),)),
            id="kubernetes.io resource capacity enforced"),
        pytest.param(
            {"cpu": 1, "memory": 1, HUGE_A: 10}, {HUGE_A: 0}, None,
            Status(UU, (f"Insufficient {HUGE_A}",), (_ins(HUGE_A, 10, 0, 5),)),
            id="hugepages resource capacity enforced"),
        pytest.param(
            {"cpu": 2, "memory": 2, HUGE_A: 6}, {HUGE_A: 2}, None,
            Status(UU, (f"Insufficient {HUGE_A}",), (_ins(HUGE_A, 6, 2, 5),)),
            id="hugepages resource allocatable enforced for multiple containers"),
        pytest.param({"cpu": 1, "memory": 1, EXT_B: 1}, {},
                     {"ignoredResources": [EXT_B]}, None,
                     id="skip checking ignored extended resource"),
        pytest.param(
            {"cpu": 1, "memory": 1, EXT_B: 1, K8S_IO_A: 1}, {},
            {"ignoredResourceGroups": ["example.com"]},
            Status(UU, (f"Insufficient {K8S_IO_A}",), (_ins(K8S_IO_A, 1, 0, 0),)),
            id="skip checking ignored extended resource via resource groups"),
        pytest.param({"cpu": 1, "memory": 1, EXT_A: 0}, {EXT_A: 6}, None, None,
                     id="skip checking extended resource request with quantity zero "
                        "via resource groups"),
        # overhead (cpu 1m, memory 15) folded into the request by the request model
        pytest.param(
            {"cpu": 2, "memory": 16}, {"cpu": 5, "memory": 5}, None,
            Status(U, ("Insufficient memory",), (_ins("memory", 16, 5, 20),)),
            id="requests + overhead does not fit for memory"),
        pytest.param({"cpu": 4, "memory": 14}, {"cpu": 5, "memory": 5}, None, None,
                     id="resources + pod overhead fits"),
        # TestStorageRequests
        pytest.param({"cpu": 1, "memory": 1}, {"cpu": 2, "memory": 10}, None, None,
                     id="empty storage requested, and pod fits"),
        pytest.param(
            {"ephemeral-storage": 25}, {"cpu": 2, "memory": 2}, None,
            Status(UU, ("Insufficient ephemeral-storage",),
                   (_ins("ephemeral-storage", 25, 0, 20),)),
            id="storage ephemeral local storage request exceeds allocatable"),
        pytest.param({"ephemeral-storage": 5}, {"cpu": 2, "memory": 2, "ephemeral-storage": 10},
                     None, None, id="ephemeral local storage is sufficient"),
        pytest.param({"ephemeral-storage": 10}, {"cpu": 2, "memory": 2}, None, None,
                     id="pod fits"),
        # upstream fit.go fitsRequest: ignoredResources / ignoredResourceGroups only apply to
        # names for which v1helper.IsExtendedResourceName is true; hugepages-* and
        # *kubernetes.io/* names are native and always checked.
        pytest.param(
            {"cpu": 1, "memory": 1, HUGE_A: 10}, {}, {"ignoredResources": [HUGE_A]},
            Status(UU, (f"Insufficient {HUGE_A}",), (_ins(HUGE_A, 10, 0, 5),)),
            id="ignoredResources does not skip a hugepages resource"),
        pytest.param(
            {"cpu": 1, "memory": 1, K8S_IO_A: 1}, {},
            {"ignoredResourceGroups": ["kubernetes.io"]},
            Status(UU, (f"Insufficient {K8S_IO_A}",), (_ins(K8S_IO_A, 1, 0, 0),)),
            id="ignoredResourceGroups does not skip a kubernetes.io resource"),
    ],
)
def test_filter(pod_requests, existing, args, want):
    assert _filter(pod_with(pod_requests), existing, args=args) == want


# upstream: fit_test.go TestNotEnoughRequests (node allocatable pods = 1, one pod bound)
@pytest.mark.parametrize(
    ("pod_requests", "existing", "want"),
    [
        pytest.param({}, {"cpu": 10, "memory": 20},
                     Status(U, ("Too many pods",), (_ins("pods", 1, 1, 1),)),
                     id="even without specified resources, predicate fails when there's no "
                        "space for additional pod"),
        pytest.param({"cpu": 1, "memory": 1}, {"cpu": 5, "memory": 5},
                     Status(U, ("Too many pods",), (_ins("pods", 1, 1, 1),)),
                     id="even if both resources fit, predicate fails when there's no space "
                        "for additional pod"),
        pytest.param({"cpu": 5, "memory": 1}, {"cpu": 5, "memory": 19},
                     Status(U, ("Too many pods",), (_ins("pods", 1, 1, 1),)),
                     id="even for equal edge case, predicate fails when there's no space for "
                        "additional pod"),
        # fitsRequest keeps collecting after the pod count: every reason is reported
        pytest.param({"cpu": 2, "memory": 1}, {"cpu": 9, "memory": 5},
                     Status(U, ("Too many pods", "Insufficient cpu"),
                            (_ins("pods", 1, 1, 1), _ins("cpu", 2, 9, 10))),
                     id="too many pods and insufficient cpu are both reported"),
        pytest.param({"cpu": 20, "memory": 1}, {"cpu": 0, "memory": 0},
                     Status(UU, ("Too many pods", "Insufficient cpu"),
                            (_ins("pods", 1, 1, 1), _ins("cpu", 20, 0, 10))),
                     id="a request above allocatable makes the whole status unresolvable"),
    ],
)
def test_filter_not_enough_pods(pod_requests, existing, want):
    assert _filter(pod_with(pod_requests), existing, pods=1) == want


def test_filter_pod_requesting_nothing_only_checks_pod_count():
    node = make_node("n", 0, pods=2)  # no cpu, no memory at all
    info = node_infos([node])[0]
    plugin = NodeResourcesFit()
    empty = pod_with({}, non_zero=(100, 200 * MI))
    assert plugin.filter(CycleState(), empty, info) is None
    info.add_pod(pod_with({}, "a", node="n"))
    info.add_pod(pod_with({}, "b", node="n"))
    assert plugin.filter(CycleState(), empty, info) == Status(
        U, ("Too many pods",), (_ins("pods", 1, 2, 2),))


# -- node scoring ----------------------------------------------------------------------------

EXT = "abc.com/xyz"
DEFAULT = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
EXT_SET = [*DEFAULT, {"name": EXT, "weight": 1}]
MEM2_CPU1 = [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}]
EXT2_CPU_MEM = [{"name": EXT, "weight": 2}, {"name": "cpu", "weight": 1},
                {"name": "memory", "weight": 1}]
NO_CONTAINERS = (0, 0)


def _n(name, cpu_milli, memory=0, **extra):
    return make_node(name, cpu_milli / 1000, memory=memory, **extra)


def _p(cpu, memory, *, node="", **extra):
    """A pod whose containers set both cpu and memory (explicit zeros stay zero)."""
    return pod_with({"cpu": cpu, "memory": memory, **extra}, node=node,
                    non_zero=(cpu, memory))


EMPTY_POD = pod_with({}, non_zero=NO_CONTAINERS)


def _scores(strategy, resources, pod, nodes, existing=()):
    plugin = node_resources_fit.new({"scoringStrategy": {"type": strategy,
                                                         "resources": resources}})
    return [plugin.score(CycleState(), pod, info) for info in node_infos(nodes, existing)]


N4 = [_n("node1", 4000, 10000), _n("node2", 4000, 10000)]
N4_6 = [_n("node1", 4000, 10000), _n("node2", 6000, 10000)]
N10 = [_n("node1", 10000, 20000), _n("node2", 10000, 20000)]
N10_50 = [_n("node1", 10000, 20000), _n("node2", 10000, 50000)]
N6_EXT = [_n("node1", 6000, 10000), _n("node2", 6000, 10000, **{EXT: 4})]
N6_EXT_4_10 = [_n("node1", 6000, 10000, **{EXT: 4}), _n("node2", 6000, 10000, **{EXT: 10})]
POD_3_5 = _p(3000, 5000)
SCHED_1 = [_p(3000, 0, node="node1"), _p(3000, 0, node="node1"),
           _p(3000, 0, node="node2"), _p(3000, 5000, node="node2")]
SCHED_2 = [_p(3000, 0, node="node1"), _p(3000, 5000, node="node2")]
EMPTY_BOUND = [pod_with({}, f"e{i}", node=n, non_zero=NO_CONTAINERS)
               for i, n in enumerate(["node1", "node1", "node2", "node2"])]


# upstream: least_allocated_test.go TestLeastAllocatedScoringStrategy
@pytest.mark.parametrize(
    ("resources", "pod", "nodes", "existing", "want"),
    [
        pytest.param(DEFAULT, EMPTY_POD, N4, (), [100, 100],
                     id="nothing scheduled, nothing requested"),
        pytest.param(DEFAULT, POD_3_5, N4_6, (), [37, 50],
                     id="nothing scheduled, resources requested, differently sized nodes"),
        pytest.param(DEFAULT, EMPTY_POD, N4, EMPTY_BOUND, [100, 100],
                     id="no resources requested, pods scheduled"),
        pytest.param(DEFAULT, EMPTY_POD, N10, SCHED_1, [70, 57],
                     id="no resources requested, pods scheduled with resources"),
        pytest.param(DEFAULT, POD_3_5, N10, SCHED_2, [57, 45],
                     id="resources requested, pods scheduled with resources"),
        pytest.param(DEFAULT, POD_3_5, N10_50, SCHED_2, [57, 60],
                     id="resources requested, pods scheduled with resources, differently "
                        "sized nodes"),
        pytest.param(DEFAULT, _p(3000, 0), N4, SCHED_2, [50, 25],
                     id="requested resources exceed node capacity"),
        pytest.param(DEFAULT, EMPTY_POD, [_n("node1", 0), _n("node2", 0)], SCHED_2, [0, 0],
                     id="zero node resources, pods scheduled with resources"),
        pytest.param(MEM2_CPU1, POD_3_5, N4_6, (), [41, 50],
                     id="nothing scheduled, resources requested with different weight on CPU "
                        "and memory, differently sized nodes"),
        pytest.param(EXT_SET, POD_3_5, N6_EXT, (), [50, 50],
                     id="bypass extended resource if the pod does not request"),
        pytest.param(EXT_SET, _p(3000, 5000, **{EXT: 2}), N6_EXT_4_10, (), [50, 60],
                     id="honor extended resource if the pod requests"),
        pytest.param(EXT2_CPU_MEM, _p(3000, 4000), N6_EXT, (), [55, 55],
                     id="if the node doesn't have a resource"),
        # non-zero defaults (100m / 200Mi) for a container without requests
        pytest.param(DEFAULT, pod_with({}), [_n("node1", 1000, 1000 * MI)], (), [85],
                     id="no resources requested, nonzero request for resource"),
    ],
)
def test_least_allocated_score(resources, pod, nodes, existing, want):
    assert _scores("LeastAllocated", resources, pod, nodes, existing) == want


NONZERO_BOUND = [pod_with({}, f"c{i}", node="node1") for i in range(2)]


# upstream: most_allocated_test.go TestMostAllocatedScoringStrategy
@pytest.mark.parametrize(
    ("resources", "pod", "nodes", "existing", "want"),
    [
        pytest.param(DEFAULT, EMPTY_POD, N4, (), [0, 0],
                     id="nothing scheduled, nothing requested"),
        pytest.param(DEFAULT, POD_3_5, N4_6, (), [62, 50],
                     id="nothing scheduled, resources requested, differently sized nodes"),
        pytest.param(DEFAULT, EMPTY_POD, N10, SCHED_1, [30, 42],
                     id="no resources requested, pods scheduled with resources"),
        pytest.param(DEFAULT, POD_3_5, N10, SCHED_2, [42, 55],
                     id="resources requested, pods scheduled with resources"),
        pytest.param(DEFAULT, _p(5000, 9000),
                     [_n("node1", 5000, 10000), _n("node2", 10000, 9000)], (), [95, 75],
                     id="resources requested equal node capacity"),
        pytest.param(MEM2_CPU1, POD_3_5, N4_6, (), [58, 50],
                     id="nothing scheduled, resources requested, differently sized nodes "
                        "(memory weight 2)"),
        pytest.param(DEFAULT, pod_with({}),
                     [_n("node1", 250, 1000 * MI), _n("node2", 250, 1000 * MI)],
                     NONZERO_BOUND, [80, 30],
                     id="no resources requested, pods scheduled, nonzero request for resource"),
        pytest.param(EXT_SET, POD_3_5, N6_EXT, (), [50, 50],
                     id="bypass extended resource if the pod does not request"),
        pytest.param(EXT_SET, _p(3000, 5000, **{EXT: 2}), N6_EXT_4_10, (), [50, 40],
                     id="honor extended resource if the pod request"),
        pytest.param(EXT2_CPU_MEM, _p(3000, 4000), N6_EXT, (), [45, 45],
                     id="if the node doesn't have a resource"),
    ],
)
def test_most_allocated_score(resources, pod, nodes, existing, want):
    assert _scores("MostAllocated", resources, pod, nodes, existing) == want


# upstream: least_allocated_test.go / most_allocated_test.go rows "resource with negative
# weight" and "resource weight larger than MaxNodeScore": ValidateNodeResourcesFitArgs
# rejects weights outside (0, 100]. (A zero weight is defaulted to 1 by the v1 defaults,
# SetDefaults_NodeResourcesFitArgs.)
@pytest.mark.parametrize(
    "resources",
    [
        pytest.param([{"name": "memory", "weight": -1}, {"name": "cpu", "weight": 1}],
                     id="resource with negative weight"),
        pytest.param([{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 101}],
                     id="resource weight larger than MaxNodeScore"),
    ],
)
@pytest.mark.parametrize("strategy", ["LeastAllocated", "MostAllocated"])
def test_invalid_resource_weight_is_rejected(strategy, resources):
    with pytest.raises(ProfileError):
        node_resources_fit.new({"scoringStrategy": {"type": strategy, "resources": resources}})


def test_zero_resource_weight_defaults_to_one():
    plugin = node_resources_fit.new({"scoringStrategy": {
        "type": "LeastAllocated", "resources": [{"name": "memory", "weight": 0},
                                                {"name": "cpu", "weight": 1}]}})
    assert [(r.name, r.weight) for r in plugin.resources] == [("memory", 1), ("cpu", 1)]


def test_unknown_scoring_strategy_is_a_profile_error():
    with pytest.raises(ProfileError):
        node_resources_fit.new({"scoringStrategy": {"type": "RequestedToCapacityRatio"}})


# -- placement scoring -----------------------------------------------------------------------


def _placement_score(plugin, racks: dict[str, list[int]], gang: int, cpu: float = 1):
    """racks: rack -> CPU millicores already used on each of its 2-CPU nodes."""
    nodes, bound = [], []
    for rack, used in racks.items():
        for k, milli in enumerate(used):
            name = f"{rack}-n{k}"
            nodes.append(make_node(name, labels={"rack": rack}))
            if milli:
                bound.append(pod_with({"cpu": milli}, f"u-{name}", node=name))
    infos = node_infos(nodes, bound)
    group = make_group(min_count=gang)
    ctx = GroupContext(group, tuple(make_pod(f"g{i}", cpu, group=group.key)
                                    for i in range(gang)), ())
    out = {}
    for rack in racks:
        members = [i for i in infos if i.node.labels["rack"] == rack]
        placement = Placement(rack, tuple(i.index for i in members))
        proposed = [ProposedAssignment(p, members[0]) for p in ctx.pending]
        out[rack] = plugin.score_placement(ctx, placement, members, proposed)
    return out, ctx, infos


# reference §3.5 worked check (tas_test.go G5 arithmetic, e.g. "rack2: (2 + 3)/6 = 0.83"):
# racks of 2-CPU nodes, gang of 3 x 1-CPU pods, memory not allocatable -> skipped.
def test_placement_score_worked_check():
    racks = {"rack1": [0, 0], "rack2": [2000, 0, 0], "rack3": [1000, 0, 0]}
    scores, _, _ = _placement_score(NodeResourcesFit(), racks, 3)
    assert scores == {"rack1": 75, "rack2": 83, "rack3": 66}


def test_placement_score_is_most_allocated_whatever_the_node_strategy():
    racks = {"rack1": [0, 0], "rack2": [2000, 0, 0], "rack3": [1000, 0, 0]}
    for strategy in ("LeastAllocated", "MostAllocated"):
        plugin = node_resources_fit.new({"scoringStrategy": {"type": strategy}})
        assert _placement_score(plugin, racks, 3)[0] == {"rack1": 75, "rack2": 83,
                                                         "rack3": 66}


# website TAS page: "resource weights are shared with node scoring"; MostAllocated formula
# sum(w_r * s_r) / sum(w_r), integer division.
@pytest.mark.parametrize(
    ("resources", "want"),
    [
        pytest.param(None, 37, id="default weights cpu 1, memory 1: (50 + 25) / 2"),
        pytest.param([{"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}], 41,
                     id="cpu weight 2: (2*50 + 25) / 3"),
        pytest.param([{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 3}], 31,
                     id="memory weight 3: (50 + 3*25) / 4"),
        pytest.param([{"name": "memory", "weight": 1}], 25, id="memory only"),
    ],
)
def test_placement_score_resource_weights(resources, want):
    args = {"scoringStrategy": {"type": "LeastAllocated", "resources": resources}} \
        if resources else {}
    plugin = node_resources_fit.new(args)
    nodes = node_infos([make_node(f"n{i}", 2, memory=4096 * MI) for i in range(2)])
    group = make_group(min_count=2)
    pods = [pod_with({"cpu": 1000, "memory": 1024 * MI}, f"g{i}", group=group.key)
            for i in range(2)]
    ctx = GroupContext(group, tuple(pods), ())
    proposed = [ProposedAssignment(p, nodes[i]) for i, p in enumerate(pods)]
    assert plugin.score_placement(ctx, Placement("r", (0, 1)), nodes, proposed) == want


def test_placement_score_uses_non_zero_defaults():
    # a proposed pod without requests counts 100m cpu and 200Mi memory:
    # cpu 100/1000 -> 10, memory 200Mi/1000Mi -> 20 => 15
    plugin = NodeResourcesFit()
    nodes = node_infos([make_node("n", 1, memory=1000 * MI)])
    group = make_group(min_count=1)
    pod = pod_with({}, "g", group=group.key)
    ctx = GroupContext(group, (pod,), ())
    assert plugin.score_placement(ctx, Placement("r", (0,)), nodes,
                                  [ProposedAssignment(pod, nodes[0])]) == 15


# reference §3.5 worked check, totals with the default placement-score plugins and weights
@pytest.mark.parametrize(
    ("fit_weight", "want"),
    [
        pytest.param(1, [{"NodeResourcesFit": 75, "PodGroupPodsCount": 100},
                         {"NodeResourcesFit": 83, "PodGroupPodsCount": 100},
                         {"NodeResourcesFit": 66, "PodGroupPodsCount": 100}],
                     id="default weights 1 and 1: totals 175, 183, 166"),
        pytest.param(2, [{"NodeResourcesFit": 150, "PodGroupPodsCount": 100},
                         {"NodeResourcesFit": 166, "PodGroupPodsCount": 100},
                         {"NodeResourcesFit": 132, "PodGroupPodsCount": 100}],
                     id="NodeResourcesFit placement weight 2"),
    ],
)
def test_placement_score_combined_with_pods_count(fit_weight, want):
    base = default_profile()
    profile = Profile(base.scheduler_name, base.filter, base.score, base.placement_generate,
                      base.placement_feasible,
                      (PluginRef("NodeResourcesFit", fit_weight), PluginRef("PodGroupPodsCount")))
    fw = Framework(profile, in_tree_registry())
    racks = {"rack1": [0, 0], "rack2": [2000, 0, 0], "rack3": [1000, 0, 0]}
    _, ctx, infos = _placement_score(NodeResourcesFit(), racks, 3)
    candidates = []
    for rack in racks:
        members = [i for i in infos if i.node.labels["rack"] == rack]
        candidates.append((Placement(rack, tuple(i.index for i in members)),
                           [ProposedAssignment(p, members[0]) for p in ctx.pending]))
    assert fw.run_placement_score(ctx, candidates, infos) == want
