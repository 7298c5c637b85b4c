"""One planning run: every planned group of the input goes to one scheduler, every
scheduler's units form one queue (priority, then input order), and each unit is scheduled
in the state the units before it left."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from tasplan.framework.profile import Profile, SchedulerConfig
from tasplan.framework.registry import Registry
from tasplan.gc_pause import gc_paused
from tasplan.model.group import PodGroup, Policy
from tasplan.model.pod import Pod
from tasplan.model.scheduling_keys import KUBE_SCHEDULER, intent_warnings
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.notes import Note, NoteCode
from tasplan.plan.result import GroupResult, PlanResult
from tasplan.plan.state import PlanState
from tasplan.plugins.registry import in_tree_registry
from tasplan.schedulers.interface import AUTO, Scheduler, SchedulerRun, Unit
from tasplan.schedulers.kube.scheduler import KubeScheduler
from tasplan.schedulers.registry import DEFAULT, check_choice, in_tree_schedulers
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
    composite_pod_groups: bool | None = None,
    target: Target | None = None,
    preempt: bool = True,
    scheduler: str = AUTO,
    schedulers: Mapping[str, Scheduler] | None = None,
    pdb_allowance: str = "status",
) -> PlanResult:
    """Units (groups, group trees, a peer's workloads) are planned by priority (highest
    first), then input order; each unit's outcome is committed before the next.

    ``scheduler``: the scheduler of every planned group, or ``auto``: the first of
    ``schedulers`` (default: the registry's) that claims a group, else kube-scheduler.

    kube-scheduler plans each group with the profile of its pods' schedulerName in
    ``scheduler_config`` (default: upstream's default profile only); groups whose scheduler
    has no profile are reported, not planned. A ``profile`` instead plans every group with
    that one profile, whatever its pods' schedulerName. ``registry``: the plugins.

    Pod -> node assignments are worked out for the selected placement of each group; with
    ``all_assignments`` for every feasible placement too (slower on large groups).

    CompositePodGroup trees (``composite_pod_groups``, default: the target's
    CompositePodGroup gate) are planned as one unit each, at their root's priority
    (tasplan.plan.tree_cycle); with the gate off their PodGroups are planned alone, with a note.

    ``target``: the release and gates (default: ``target_for(snapshot)``); gates switch
    plugins off in every profile. A unit that does not fit goes through preemption where
    its scheduler and release run it (unless ``preempt`` is False). ``pdb_allowance``: how
    PodDisruptionBudgets without a status count (``preemption.budgets``)."""
    if profile is not None and scheduler_config is not None:
        raise ValueError("give a profile or a scheduler_config, not both")
    if schedulers is None:
        schedulers = in_tree_schedulers(KubeScheduler(composite_pod_groups))
    check_choice(scheduler, schedulers)
    target = target or target_for(snapshot)
    check_api_versions(target, {g.api_version: g.source for g in reversed(snapshot.groups)})
    results: list[GroupResult] = []
    composites: list = []
    # Planning makes many short-lived objects and no cycles worth collecting (results,
    # proposals, log entries); scanning the loaded model for them cost 5-15 % of a plan.
    with gc_paused():
        state = PlanState.start(snapshot, target, registry or in_tree_registry(),
                                scheduler_config, profile, all_assignments=all_assignments,
                                preempt=preempt, pdb_allowance=pdb_allowance)
        given, reasons = assign(snapshot, scheduler, schedulers)
        runs = [(name, schedulers[name].start(state, groups))
                for name, groups in given.items()]
        pods = snapshot.pods_by_group
        for name, run, unit in queue(runs):
            outcome = run.schedule(unit)
            composites += [replace(c, position=len(results), scheduler=name)
                           for c in outcome.composites]
            results += [_chosen(r, name, reasons.get(r.group.key), pods.get(r.group.key, ()))
                        for r in outcome.groups]
    planned_by = {g.key: name for name, groups in given.items() for g in groups}
    keys = intent_warnings(snapshot.intents, lambda key: planned_by.get(key, KUBE_SCHEDULER))
    return PlanResult(tuple(results), len(snapshot.nodes), len(snapshot.pods),
                      tuple(snapshot.warnings) + tuple(state.warnings)
                      + state.config.warnings + tuple(keys), composites=tuple(composites),
                      target=target, scheduler=scheduler, pdb_allowance=pdb_allowance)


def assign(snapshot: ClusterSnapshot, choice: str, schedulers: Mapping[str, Scheduler]
           ) -> tuple[dict[str, list[PodGroup]], dict[str, str]]:
    """Scheduler name -> the planned groups it plans (input order), and group key -> why
    ``auto`` chose a scheduler other than the default for it. With ``auto`` every
    scheduler takes part (kube-scheduler also plans trees of groups only the cluster
    inputs hold), else only the chosen one."""
    planned = [g for g in snapshot.groups if g.planned]
    if choice != AUTO:
        return {choice: planned}, {}
    if DEFAULT not in schedulers:
        raise ValueError(f"auto needs the default scheduler {DEFAULT!r} to fall back on")
    given: dict[str, list[PodGroup]] = {name: [] for name in schedulers}
    reasons: dict[str, str] = {}
    pods = snapshot.pods_by_group
    for group in planned:
        name, reason = DEFAULT, None
        for key, s in schedulers.items():
            claimed = s.claim(group, pods.get(group.key, ()), snapshot)
            if claimed is not None:
                name, reason = key, claimed
                break
        given[name].append(group)
        if reason is not None and name != DEFAULT:
            reasons[group.key] = f"planned with {name}: {reason}"
    return given, reasons


def queue(runs: Sequence[tuple[str, SchedulerRun]]) -> list[tuple[str, SchedulerRun, Unit]]:
    """Every scheduler's units, highest priority first, then input order (stable: a
    scheduler's own order breaks what is left)."""
    entries = [(name, run, unit) for name, run in runs for unit in run.units()]
    entries.sort(key=lambda e: (-e[2].priority, e[2].order))
    return entries


def _chosen(result: GroupResult, name: str, reason: str | None,
            pods: Sequence[Pod]) -> GroupResult:
    notes = (*result.notes, Note(NoteCode.SCHEDULER_AUTO, reason)) if reason else result.notes
    requested = tuple(sorted({r for p in pods if not p.node_name and not p.terminal
                              for r, v in p.requests.items() if v}))
    return replace(result, scheduler=name, notes=notes, requested=requested)
