"""Plan every group of the input, one after another, each seeing the ones before it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from tasplan.composite.algorithm import TreeOutcome
from tasplan.composite.planning import TreeUnit, composite_gate_note, plan_unit, units_of
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.profile import Profile, SchedulerConfig
from tasplan.framework.registry import Registry
from tasplan.framework.runtime import Framework
from tasplan.framework.sampling import node_sampling
from tasplan.framework.statement import Statement
from tasplan.framework.types import GroupContext
from tasplan.model.group import PodGroup, Policy
from tasplan.model.pod import DEFAULT_SCHEDULER, Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.fidelity import ClusterFacts, group_notes
from tasplan.plan.group_cycle import schedule_group
from tasplan.plan.result import GroupResult, PlanResult
from tasplan.plugins.defaults import default_scheduler_config, gated_profile
from tasplan.plugins.names import DEFAULT_PREEMPTION
from tasplan.plugins.registry import in_tree_registry
from tasplan.preemption.budgets import STATUS, disruption_budgets
from tasplan.preemption.evaluator import preempt as preempt_group
from tasplan.preemption.result import PreemptionResult
from tasplan.preemption.tree import leaves_after, preempt_tree, tree_preemption_never
from tasplan.preemption.victims import Hierarchy
from tasplan.preemption.victims import units as victim_units
from tasplan.target import (
    COMPOSITE_POD_GROUP,
    GANG_SCHEDULING,
    GENERIC_WORKLOAD,
    POD_GROUP_PREEMPTION_POLICY,
    SCHEDULING,
    TOPOLOGY_AWARE,
    Target,
    check_api_versions,
    resolve,
)


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
    """A PodGroup object's priority; one without a priority counts as 0 (upstream
    ``PodGroupPriority``). Groups without a PodGroup object (v1alpha1 Workloads, Jobs
    tasplan groups itself) take their pods' highest priority."""
    if group.priority is not None:
        return group.priority
    if group.kind == "PodGroup":
        return 0
    return max((p.priority for p in pods), default=0)


def validate_group(group: PodGroup, pending: list[Pod], scheduled: Sequence[Pod] = (),
                   *, group_policy: bool = False) -> str | None:
    """Upstream ``validatePodGroup``: the pending pods share one schedulerName and
    preemption policy, and every pod, pending or already scheduled, has the group's
    priority (a PodGroup without a priority has priority 0). With PodGroupPreemptionPolicy
    (``group_policy``) the pods' preemption policy must be the PodGroup's."""
    for what, value in (("spec.schedulerName", lambda p: p.scheduler_name),
                        ("priority", lambda p: p.priority),
                        ("spec.preemptionPolicy", lambda p: p.preemption_policy)):
        seen = Counter(value(p) for p in pending)
        if len(seen) > 1:
            counts = ", ".join(f"{v} ({n} pod(s))" for v, n in sorted(seen.items(), key=str))
            return f"invalid pod group: its pods must share one {what}, found {counts}"
    if group.kind == "PodGroup" or group.priority is not None:
        priority = group.priority or 0
        for pod in [*pending, *scheduled]:
            if pod.priority != priority:
                state = "pending" if not pod.node_name else "scheduled"
                return (f"invalid pod group: {state} pod {pod.key} has priority "
                        f"{pod.priority}, the group has priority {priority}")
    if group_policy and pending:
        wanted = group.preemption_policy or "PreemptLowerPriority"
        if pending[0].preemption_policy != wanted:
            return (f"invalid pod group: its pods have spec.preemptionPolicy "
                    f"{pending[0].preemption_policy}, the group has {wanted}")
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


def target_for(snapshot: ClusterSnapshot, version: str | None = None,
               gates: Mapping[str, bool] | None = None) -> Target:
    """The release to plan for (``target.resolve``) with the gates the planned groups need:
    GenericWorkload (and GangScheduling where it is a gate of its own) for any group, the
    topology gate for a topology constraint, PodGroupPreemptionPolicy for a PodGroup or
    CompositePodGroup that sets its preemptionPolicy."""
    planned = [g for g in snapshot.groups if g.planned]
    needs = [GENERIC_WORKLOAD] if planned else []
    if any(g.policy == Policy.GANG for g in planned):
        needs.append(GANG_SCHEDULING)
    if any(g.topology_key for g in planned) or any(c.topology_key for c in snapshot.composites):
        needs.append(TOPOLOGY_AWARE)
    if any(g.preemption_policy for g in planned) or any(
            c.preemption_policy for c in snapshot.composites):
        needs.append(POD_GROUP_PREEMPTION_POLICY)
    if snapshot.composites or any(g.parent for g in planned):
        needs.append(COMPOSITE_POD_GROUP)
    return resolve(version, gates, server_version=snapshot.server_version, needs=needs,
                   api_versions=[g.api_version for g in snapshot.groups
                                 if g.api_version.startswith(SCHEDULING + "/")])


def plan(
    snapshot: ClusterSnapshot,
    profile: Profile | None = None,
    registry: Registry | None = None,
    *,
    all_assignments: bool = False,
    scheduler_config: SchedulerConfig | None = None,
    schedule: Callable[..., GroupResult] = schedule_group,
    composite_pod_groups: bool | None = None,
    target: Target | None = None,
    preempt: bool = True,
    pdb_allowance: str = STATUS,
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

    CompositePodGroup trees (``composite_pod_groups``, default: the target's
    CompositePodGroup gate) are planned as one unit each, at their root's priority
    (tasplan.composite); with the gate off their PodGroups are planned alone, with a note.

    ``target``: the release and gates (default: ``target_for(snapshot)``); gates switch
    plugins off in every profile. A standalone group that does not fit goes through
    workload-aware preemption where the release runs it (unless ``preempt`` is False): its
    victims are evicted and its pods assumed on their nominated nodes for the groups after
    it. ``pdb_allowance``: how PodDisruptionBudgets without a status count
    (``preemption.budgets``)."""
    registry = registry or in_tree_registry()
    if profile is not None and scheduler_config is not None:
        raise ValueError("give a profile or a scheduler_config, not both")
    target = target or target_for(snapshot)
    check_api_versions(target, {g.api_version: g.source for g in reversed(snapshot.groups)})
    if composite_pod_groups is None:
        composite_pod_groups = target.enabled(COMPOSITE_POD_GROUP)
    config = scheduler_config or default_scheduler_config(registry)
    frameworks: dict[str, Framework] = {}

    def framework(name: str) -> Framework | None:
        chosen = profile or config.profiles.get(name)
        if chosen is None:
            return None
        if chosen.scheduler_name not in frameworks:
            fw = frameworks[chosen.scheduler_name] = Framework(gated_profile(chosen, target),
                                                               registry, target)
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
    priorities = {g.key: group_priority(g, by_group.get(g.key, [])) for g in snapshot.groups}
    # Victims' groups as the scheduler sees them (composites only with their gate).
    hierarchy = Hierarchy(snapshot.group_index,
                          snapshot.composites if composite_pod_groups else ())
    units.sort(key=lambda u: (-u.priority, u.order) if not isinstance(u, PodGroup)
               else (-priorities[u.key], u.order))
    results: list[GroupResult] = []
    composites: list = []
    budgets: tuple | None = None
    evicted: set[int] = set()

    def prepare(group: PodGroup) -> tuple[Framework, GroupContext] | GroupResult:
        pods = [p for p in by_group.get(group.key, []) if not p.terminal
                and id(p) not in evicted]
        # The scheduler skips pending pods that are being deleted.
        waiting = sorted((p for p in pods if not p.node_name and not p.deleting),
                         key=lambda p: (-p.priority, p.order))
        # Pods held by scheduling gates never enter a cycle (SchedulingGates PreEnqueue).
        pending = [p for p in waiting if not p.scheduling_gates]
        gated = len(waiting) - len(pending)
        scheduled = tuple((p, p.node_name) for p in pods if p.node_name)
        name = scheduler_name(pods)
        counts = (group, len(pending), len(scheduled), False)
        same = {"scheduler_name": name, "gated": gated}
        if not target.enabled(GENERIC_WORKLOAD):
            return GroupResult(
                *counts, f"not planned: the {GENERIC_WORKLOAD} feature gate is off in "
                f"Kubernetes {target.version}, so kube-scheduler has no pod-group cycle and "
                "schedules these pods one by one; tasplan plans pod groups only",
                planned=False, **same)
        # Without pending pods there is nothing to schedule: any profile reports that.
        fw = framework(name if pending else next(iter(config.profiles), name))
        if fw is None:
            return GroupResult(*counts, not_handled(name), planned=False, **same)
        invalid = validate_group(group, pending, [p for p, _ in scheduled],
                                 group_policy=target.enabled(POD_GROUP_PREEMPTION_POLICY))
        if invalid:
            return GroupResult(*counts, invalid, error=True, **same)
        return fw, GroupContext(group, tuple(pending), scheduled, gated)

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
        if result.preemption_message:  # preemption was simulated: nothing left to note
            notes = tuple(n for n in notes if n.code != "preemption")
        return replace(result, scheduler_name=scheduler_name(
            [*ctx.pending, *(p for p, _ in ctx.scheduled)]), sampling=sampling, notes=notes,
            gated=ctx.gated)

    def preempt_for(fw: Framework, ctx: GroupContext, result: GroupResult) -> GroupResult:
        """Workload-aware preemption for a standalone group the cycle found unschedulable."""
        nonlocal budgets
        group, pending = ctx.group, ctx.pending
        if not (preempt and pending and result.outcome == "unschedulable"):
            return result
        if not preemption_enabled(fw, target, group):
            if (group.topology_key is not None and target.preemption_for(False)
                    and DEFAULT_PREEMPTION in fw.profile.unmodelled):
                # 1.36 refuses by name (upstream's status text).
                return replace(result, preemption_message=CONSTRAINED_NOT_SUPPORTED)
            return result
        if budgets is None:
            budgets = disruption_budgets(snapshot, pdb_allowance)
        attempt = preempt_group(
            fw, ctx, infos, victim_units(infos, hierarchy),
            priorities[group.key], budgets, never=preemption_never(group, pending, target),
            schedule=schedule_group)
        if attempt.result is not None:
            _apply(attempt.result, infos, pending, statement, evicted, snapshot)
            _drop_nominations(infos, list(pending))
        return replace(result, preemption=attempt.result, preemption_message=attempt.reason)

    def preempt_tree_for(unit: TreeUnit, outcome: TreeOutcome) -> TreeOutcome:
        """Workload-aware preemption for a tree whose root the algorithm found
        unschedulable (v1.37+: the whole tree is the preemptor)."""
        nonlocal budgets
        root = outcome.composites[0] if outcome.composites else None
        if not (preempt and root is not None and root.composite.parent is None
                and not root.schedulable and not root.error and root.placements):
            return outcome
        contexts = [p for g in unit.leaves if isinstance(p := prepare(g), tuple)]
        pending = {p.key: p for _, ctx in contexts for p in ctx.pending}
        if not pending:
            return outcome
        fw = contexts[0][0]
        if not preemption_enabled(fw, target, None):
            return outcome
        if budgets is None:
            budgets = disruption_budgets(snapshot, pdb_allowance)
        tried = preempt_tree(
            fw, infos, victim_units(infos, hierarchy), unit.priority,
            budgets, pending, never=tree_preemption_never(
                root.composite, pending.values(),
                group_policy=target.enabled(POD_GROUP_PREEMPTION_POLICY)),
            replan=lambda nodes, trial: plan_unit(unit, framework, nodes, trial, by_group,
                                                  prepare))
        found = tried.attempt.result
        root = replace(root, preemption=found, preemption_message=tried.attempt.reason)
        if found is None or tried.outcome is None:
            return TreeOutcome(outcome.leaves, (root, *outcome.composites[1:]))
        _apply(found, infos, list(pending.values()), statement, evicted, snapshot)
        _drop_nominations(infos, list(pending.values()))
        return TreeOutcome(leaves_after(outcome.leaves, tried.outcome.leaves, found),
                           (root, *outcome.composites[1:]))

    for unit in units:
        if not isinstance(unit, PodGroup):
            outcome = preempt_tree_for(unit, plan_unit(
                unit, framework, infos, statement, by_group, prepare,
                all_assignments=all_assignments))
            composites += [replace(c, position=len(results)) for c in outcome.composites]
            results += [finish(prepare(r.group), r) for r in outcome.leaves]
            continue
        prepared = prepare(unit)
        if isinstance(prepared, GroupResult):
            results.append(prepared)
            continue
        fw, ctx = prepared
        result = schedule(fw, ctx, infos, statement, all_assignments=all_assignments)
        results.append(finish(prepared, preempt_for(fw, ctx, result)))
    return PlanResult(tuple(results), len(snapshot.nodes), len(snapshot.pods),
                      tuple(snapshot.warnings) + tuple(warnings) + config.warnings,
                      composites=tuple(composites), target=target,
                      pdb_allowance=pdb_allowance)


CONSTRAINED_NOT_SUPPORTED = ("workload aware preemption is not supported for pod groups "
                             "with scheduling constraints")


def preemption_enabled(fw: Framework, target: Target, group: PodGroup | None) -> bool:
    """The release runs workload-aware preemption for this group (None: a group tree,
    which always has topology constraints to honour) and the profile has DefaultPreemption
    (the only PodGroupPostFilter plugin)."""
    constrained = group is None or group.topology_key is not None
    return target.preemption_for(constrained) and DEFAULT_PREEMPTION in fw.profile.unmodelled


def preemption_never(group: PodGroup, pending: Sequence[Pod], target: Target) -> bool:
    """Upstream ``getPreemptionPolicy``: the PodGroup's policy with PodGroupPreemptionPolicy,
    else Never as soon as one pending pod says Never."""
    if target.enabled(POD_GROUP_PREEMPTION_POLICY):
        return group.preemption_policy == "Never"
    return any(p.preemption_policy == "Never" for p in pending)


def _apply(result: PreemptionResult, infos: list[NodeInfo], pending: Sequence[Pod],
           statement: Statement, evicted: set[int], snapshot: ClusterSnapshot) -> None:
    """What the next groups see: the victims gone, the preemptor's pods on their nominated
    nodes (as the queue will bind them once the victims terminate)."""
    index = snapshot.node_index
    for v in result.victims:
        info = infos[index[v.node]]
        pod = next(p for p in info.pods if p.key == v.pod)
        info.remove_pod(pod)
        evicted.add(id(pod))
    by_key = {p.key: p for p in pending}
    for key, node in result.nominated.items():
        statement.assume(by_key[key], infos[index[node]])
    statement.commit()
