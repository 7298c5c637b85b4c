"""scheduler_perf's CompositePodGroup workloads at their integration-test size
(kubernetes/kubernetes test/integration/scheduler_perf/cpg/performance-config.yaml at commit
7495ca010bb4e88d53e9cb675c6455982002ab30 and its templates/): the ``short`` workload of
CPGBasicScheduling, CPGGangScheduling, CPGTopologyAwareScheduling, CPGPreemptionBasic and
CPGPreemptionCPG, built as the templates build them (nodes of 4 CPU / 32Gi; pods of 100Mi and
the CPU the workload gives; group i's parent is cpg-(i / groupsPerCPG)). Upstream creates
the low-priority pods and lets the scheduler bind them; here they are bound round-robin, as
their host ports force. Not mirrored: CPGPreemptionAffinity (pod affinity to anchor pods).
The 5,000-node sizes are performance runs; tasplan's own is ``benchmarks/composite.py``.
"""

from __future__ import annotations

from dataclasses import replace

from tasplan.model.composite import CompositePodGroup
from tasplan.model.group import Policy
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.schedulers.planner import plan
from tests.builders import WORKLOAD, make_group, make_node, make_pod

MI = 1024 * 1024


def nodes(n: int, *, tas: bool = False) -> list:
    labels = (lambda i: {"topology.kubernetes.io/zone": f"zone-{i // 1000}",
                         "topology.kubernetes.io/rack": f"rack-{i // 100}"}) if tas \
        else (lambda i: {})
    return [make_node(f"node-{i}", 4, labels=labels(i), memory=32 * 1024 * MI)
            for i in range(n)]


def tree(cpgs: int, groups: int, per_cpg: int, pods_per_group: int, cpu: float, *,
         min_groups: int | None, min_count: int | None, priority: int | None = None,
         cpg_key: str | None = None, group_key: str | None = None, prefix: str = ""):
    """``cpg-<i>`` and ``gang-group-<i>`` (parent cpg-(i / per_cpg)), their pods."""
    composites = [CompositePodGroup(
        f"default/{prefix}cpg-{i}", "default", f"{prefix}cpg-{i}",
        Policy.GANG if min_groups else Policy.BASIC, min_groups or 1, cpg_key, None,
        f"test-wl-{i}", "cpg-template", "scheduling.k8s.io/v1alpha3", WORKLOAD, i, priority)
        for i in range(cpgs)]
    leaves, pods = [], []
    for i in range(groups):
        group = replace(make_group(f"{prefix}gang-group-{i}", min_count=min_count,
                                   key=group_key, priority=priority or 0),
                        parent=f"default/{prefix}cpg-{i // per_cpg}")
        leaves.append(group)
        pods += [make_pod(f"{prefix}pod-{i * pods_per_group + k}", cpu, memory=100 * MI,
                          priority=priority or 0, group=group.key)
                 for k in range(pods_per_group)]
    return composites, leaves, pods


def snapshot(node_list, composites, leaves, pods) -> ClusterSnapshot:
    return ClusterSnapshot(tuple(node_list), tuple(pods), tuple(leaves),
                           composites=tuple(composites))


def placed(result) -> int:
    n = sum(len(g.selected_placement.assignments) for g in result.groups
            if g.outcome == "scheduled" and g.selected_placement is not None)
    return n + sum(len(g.preemption.nominated) for g in result.groups if g.preemption)


def test_basic_scheduling_short() -> None:
    """CPGBasicScheduling ``10Nodes_3CPGs_6Groups_18Pods``: basic composites and groups."""
    c, g, p = tree(3, 6, 2, 3, 0.1, min_groups=None, min_count=None)
    result = plan(snapshot(nodes(10), c, g, p))
    assert placed(result) == 18 and all(x.schedulable for x in result.composites)


def test_gang_scheduling_short() -> None:
    """CPGGangScheduling ``10Nodes_3CPGs_6Groups_18Pods``: minGroupCount 2, minCount 3,
    priority 1000."""
    c, g, p = tree(3, 6, 2, 3, 0.1, min_groups=2, min_count=3, priority=1000)
    result = plan(snapshot(nodes(10), c, g, p))
    assert placed(result) == 18 and all(x.schedulable for x in result.composites)


def test_topology_aware_scheduling_short() -> None:
    """CPGTopologyAwareScheduling ``10Nodes_3CPGs_6Groups_18Pods``: zone-constrained
    composites, rack-constrained groups (tas-node: zone-(i/1000), rack-(i/100))."""
    c, g, p = tree(3, 6, 2, 3, 0.1, min_groups=2, min_count=3,
                   cpg_key="topology.kubernetes.io/zone", group_key="topology.kubernetes.io/rack")
    result = plan(snapshot(nodes(10, tas=True), c, g, p))
    assert placed(result) == 18
    assert {x.selected for x in result.composites} == {"zone-0"}


def test_preemption_basic_short() -> None:
    """CPGPreemptionBasic ``2Nodes_1PreemptorCPG_2Groups_2Pods_Evicting_10InitPods``: ten
    40m low-priority pods (5 per node), a gang composite of two 3970m pods at priority
    1000: every low pod goes."""
    lows = [make_pod(f"pod-low-priority-{i}", 0.04, memory=100 * MI, priority=0,
                     node=f"node-{i % 2}") for i in range(10)]
    c, g, p = tree(1, 2, 2, 1, 3.97, min_groups=2, min_count=1, priority=1000)
    result = plan(snapshot(nodes(2), c, g, [*lows, *p]))
    root = result.composites[0]
    assert root.preemption is not None and len(root.preemption.victims) == 10
    assert placed(result) == 2 and result.schedulable


def test_preemption_cpg_short() -> None:
    """CPGPreemptionCPG ``2Nodes_1PreemptorCPG_2Groups_2Pods_Evicting_2LowPriorityCPGs``: two
    composites of priority 1000 (four 600m pods, two per node) give way to one of priority
    9999999 whose two 3500m pods need a whole node each."""
    lc, lg, lp = tree(2, 4, 2, 1, 0.6, min_groups=2, min_count=1, priority=1000,
                      prefix="low-")
    lp = [replace(pod, node_name=f"node-{i % 2}", phase="Running")
          for i, pod in enumerate(lp)]
    hc, hg, hp = tree(1, 2, 2, 1, 3.5, min_groups=2, min_count=1, priority=9999999)
    result = plan(snapshot(nodes(2), [*lc, *hc], [*lg, *hg], [*lp, *hp]))
    root = next(x for x in result.composites if x.composite.name == "cpg-0")
    assert root.preemption is not None
    assert {v.pod for v in root.preemption.victims} == {f"default/low-pod-{i}"
                                                         for i in range(4)}
    assert {v.group for v in root.preemption.victims} == {f"default/low-gang-group-{i}"
                                                           for i in range(4)}
    assert placed(result) == 2
