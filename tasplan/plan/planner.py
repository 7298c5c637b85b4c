"""Plan every group of the input, one after another, each seeing the ones before it."""

from __future__ import annotations

from collections.abc import Callable

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.profile import Profile
from tasplan.framework.registry import Registry
from tasplan.framework.runtime import Framework
from tasplan.framework.statement import Statement
from tasplan.framework.types import GroupContext
from tasplan.model.group import PodGroup
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.group_cycle import schedule_group
from tasplan.plan.result import GroupResult, PlanResult
from tasplan.plugins.defaults import default_profile
from tasplan.plugins.registry import in_tree_registry


def build_node_infos(snapshot: ClusterSnapshot) -> tuple[list[NodeInfo], list[str]]:
    """Mutable node state starting from the snapshot's usage index. Pods on nodes missing
    from the snapshot are reported, not counted."""
    infos = [NodeInfo(node, i, snapshot.node_usage(node.name))
             for i, node in enumerate(snapshot.nodes)]
    warnings = [f"{n} pod(s) are bound to node {name}, which is not in the snapshot; "
                "their requests are not counted"
                for name, n in sorted(snapshot.unknown_nodes.items())]
    return infos, warnings


def group_priority(group: PodGroup, pods: list[Pod]) -> int:
    if group.priority is not None:
        return group.priority
    return max((p.priority for p in pods), default=0)


def plan(
    snapshot: ClusterSnapshot,
    profile: Profile | None = None,
    registry: Registry | None = None,
    *,
    all_assignments: bool = False,
    schedule: Callable[..., GroupResult] = schedule_group,
) -> PlanResult:
    """Groups from workload inputs are planned by priority (highest first), then input
    order; each group's selected assignments are assumed before the next group.

    Pod -> node assignments are worked out for the selected placement of each group; with
    ``all_assignments`` for every feasible placement too (slower on large groups).
    ``schedule`` stands in for ``schedule_group`` (same signature): explain wraps it to look
    at each group in the state the planner gives it."""
    fw = Framework(profile or default_profile(), registry or in_tree_registry())
    infos, warnings = build_node_infos(snapshot)
    statement = Statement()
    by_group = snapshot.pods_by_group
    groups = [g for g in snapshot.groups if g.planned]
    groups.sort(key=lambda g: (-group_priority(g, by_group.get(g.key, [])), g.order))
    results: list[GroupResult] = []
    for group in groups:
        pods = [p for p in by_group.get(group.key, []) if not p.terminal]
        pending = sorted((p for p in pods if not p.node_name), key=lambda p: (-p.priority, p.order))
        scheduled = tuple((p, p.node_name) for p in pods if p.node_name)
        ctx = GroupContext(group, tuple(pending), scheduled)
        results.append(schedule(fw, ctx, infos, statement, all_assignments=all_assignments))
    return PlanResult(tuple(results), len(snapshot.nodes), len(snapshot.pods),
                      tuple(snapshot.warnings) + tuple(warnings))
