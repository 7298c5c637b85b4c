"""Plan every group of the input, one after another, each seeing the ones before it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from tasplan.composite.planning import composite_gate_note, plan_unit, units_of
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.profile import Profile, SchedulerConfig
from tasplan.framework.registry import Registry
from tasplan.framework.runtime import Framework
from tasplan.framework.sampling import node_sampling
from tasplan.framework.statement import Statement
from tasplan.framework.types import GroupContext
from tasplan.model.group import PodGroup
from tasplan.model.pod import DEFAULT_SCHEDULER, Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.fidelity import ClusterFacts, group_notes
from tasplan.plan.group_cycle import schedule_group
from tasplan.plan.result import GroupResult, PlanResult
from tasplan.plugins.defaults import default_scheduler_config
from tasplan.plugins.registry import in_tree_registry


def build_node_infos(snapshot: ClusterSnapshot) -> tuple[list[NodeInfo], list[str]]:
    """Mutable node state starting from the snapshot's usage index. Pods on nodes missing
    from the snapshot are reported, not counted."""
    infos = [NodeInfo(node, i, snapshot.node_usage(node.name))
             for i, node in enumerate(snapshot.nodes)]
    index = snapshot.node_index
    for pod in snapshot.nominated:
        infos[index[pod.nominated_node_name]].nominated.append(pod)
    for info in infos:
        info.nominated.sort(key=lambda p: -p.priority)
    warnings = [f"{n} pod(s) are bound to node {name}, which is not in the snapshot; "
                "their requests are not counted"
                for name, n in sorted(snapshot.unknown_nodes.items())]
    return infos, warnings


def group_priority(group: PodGroup, pods: list[Pod]) -> int:
    if group.priority is not None:
        return group.priority
    return max((p.priority for p in pods), default=0)


def validate_group(group: PodGroup, pending: list[Pod]) -> str | None:
    """Upstream fails a pod group whose pending pods disagree on schedulerName, priority or
    preemption policy, or whose priority differs from the group's own."""
    for what, value in (("spec.schedulerName", lambda p: p.scheduler_name),
                        ("priority", lambda p: p.priority),
                        ("spec.preemptionPolicy", lambda p: p.preemption_policy)):
        seen = Counter(value(p) for p in pending)
        if len(seen) > 1:
            counts = ", ".join(f"{v} ({n} pod(s))" for v, n in sorted(seen.items(), key=str))
            return f"invalid pod group: its pods must share one {what}, found {counts}"
    if pending and group.priority is not None and pending[0].priority != group.priority:
        return (f"invalid pod group: its pods have priority {pending[0].priority}, the group "
                f"has priority {group.priority}")
    return None


def _drop_nominations(infos: list[NodeInfo], placed: list[Pod]) -> None:
    """Assumed pods leave the nominator (upstream ``assume``)."""
    gone = {id(p) for p in placed if p.nominated_node_name}
    if gone:
        for info in infos:
            if info.nominated:
                info.nominated = [p for p in info.nominated if id(p) not in gone]


def scheduler_name(pods: list[Pod]) -> str:
    """The scheduler a group's pods ask for (its first pending pod's)."""
    pod = next((p for p in pods if not p.node_name), pods[0] if pods else None)
    return pod.scheduler_name if pod is not None else DEFAULT_SCHEDULER


def not_handled(name: str) -> str:
    return (f'not planned: no scheduler profile "{name}" (the spec.schedulerName of its pods); '
            "kube-scheduler leaves such pods to another scheduler")


def plan(
    snapshot: ClusterSnapshot,
    profile: Profile | None = None,
    registry: Registry | None = None,
    *,
    all_assignments: bool = False,
    scheduler_config: SchedulerConfig | None = None,
    schedule: Callable[..., GroupResult] = schedule_group,
    composite_pod_groups: bool = True,
) -> PlanResult:
    """Groups from workload inputs are planned by priority (highest first), then input
    order; each group's selected assignments are assumed before the next group.

    Each group is planned with the profile of its pods' schedulerName in
    ``scheduler_config`` (default: upstream's default profile only); groups whose scheduler
    has no profile are reported, not planned. A ``profile`` instead plans every group with
    that one profile, whatever its pods' schedulerName.

    Pod -> node assignments are worked out for the selected placement of each group; with
    ``all_assignments`` for every feasible placement too (slower on large groups).
    ``schedule`` stands in for ``schedule_group`` (same signature): explain wraps it to look
    at each group in the state the planner gives it.

    CompositePodGroup trees (``composite_pod_groups``: the CompositePodGroup gate) are
    planned as one unit each, at their root's priority (tasplan.composite); with the gate
    off their PodGroups are planned alone, with a note."""
    registry = registry or in_tree_registry()
    if profile is not None and scheduler_config is not None:
        raise ValueError("give a profile or a scheduler_config, not both")
    config = scheduler_config or default_scheduler_config(registry)
    frameworks: dict[str, Framework] = {}

    def framework(name: str) -> Framework | None:
        chosen = profile or config.profiles.get(name)
        if chosen is None:
            return None
        if chosen.scheduler_name not in frameworks:
            fw = frameworks[chosen.scheduler_name] = Framework(chosen, registry)
            fw.bind_snapshot(snapshot)
            statement.add_reservers(fw.reservers)
        return frameworks[chosen.scheduler_name]

    infos, warnings = build_node_infos(snapshot)
    facts = ClusterFacts(snapshot)
    statement = Statement()
    by_group = snapshot.pods_by_group
    trees = units_of(snapshot, by_group, composite_pod_groups, warnings)
    in_trees = {g.key for t in trees for g in t.leaves}
    units: list = [g for g in snapshot.groups if g.planned and g.key not in in_trees]
    units += [t for t in trees if t.planned]
    units.sort(key=lambda u: (-u.priority, u.order) if not isinstance(u, PodGroup)
               else (-group_priority(u, by_group.get(u.key, [])), u.order))
    results: list[GroupResult] = []
    composites: list = []

    def prepare(group: PodGroup) -> tuple[Framework, GroupContext] | GroupResult:
        pods = [p for p in by_group.get(group.key, []) if not p.terminal]
        # The scheduler skips pending pods that are being deleted.
        pending = sorted((p for p in pods if not p.node_name and not p.deleting),
                         key=lambda p: (-p.priority, p.order))
        scheduled = tuple((p, p.node_name) for p in pods if p.node_name)
        name = scheduler_name(pods)
        # Without pending pods there is nothing to schedule: any profile reports that.
        fw = framework(name if pending else next(iter(config.profiles), name))
        if fw is None:
            return GroupResult(group, len(pending), len(scheduled), False, not_handled(name),
                               scheduler_name=name)
        invalid = validate_group(group, pending)
        if invalid:
            return GroupResult(group, len(pending), len(scheduled), False, invalid,
                               error=True, scheduler_name=name)
        return fw, GroupContext(group, tuple(pending), scheduled)

    def finish(prepared: tuple[Framework, GroupContext] | GroupResult,
               result: GroupResult) -> GroupResult:
        if isinstance(prepared, GroupResult):
            return replace(result, notes=result.notes + prepared.notes)
        fw, ctx = prepared
        if result.selected is not None and result.schedulable:
            _drop_nominations(infos, list(ctx.pending))
        pct = fw.profile.percentage_of_nodes_to_score
        sampling = tuple(s for p in result.placements
                         if (s := node_sampling(p.name, len(p.nodes), pct)) is not None)
        notes = group_notes(ctx, fw.profile, sampling, result, facts)
        if ctx.group.parent is not None and not composite_pod_groups:
            notes += (composite_gate_note(ctx.group),)
        return replace(result, scheduler_name=scheduler_name(
            [*ctx.pending, *(p for p, _ in ctx.scheduled)]), sampling=sampling, notes=notes)

    for unit in units:
        if not isinstance(unit, PodGroup):
            outcome = plan_unit(unit, framework, infos, statement, by_group, prepare,
                                all_assignments=all_assignments)
            composites += [replace(c, position=len(results)) for c in outcome.composites]
            results += [finish(prepare(r.group), r) for r in outcome.leaves]
            continue
        prepared = prepare(unit)
        if isinstance(prepared, GroupResult):
            results.append(prepared)
            continue
        fw, ctx = prepared
        result = schedule(fw, ctx, infos, statement, all_assignments=all_assignments)
        results.append(finish(prepared, result))
    return PlanResult(tuple(results), len(snapshot.nodes), len(snapshot.pods),
                      tuple(snapshot.warnings) + tuple(warnings) + config.warnings,
                      composites=tuple(composites))
