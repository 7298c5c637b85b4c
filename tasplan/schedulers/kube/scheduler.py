"""kube-scheduler as a scheduler of the registry: standalone PodGroups and CompositePodGroup
trees, each through the pod-group cycle and, when it does not fit, workload-aware
preemption."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.sampling import node_sampling
from tasplan.framework.types import GroupContext
from tasplan.model.group import PodGroup
from tasplan.model.pod import DEFAULT_SCHEDULER, Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.fidelity import ClusterFacts, group_notes
from tasplan.plan.group_cycle import schedule_group
from tasplan.plan.preemption_result import PreemptionResult
from tasplan.plan.result import GroupResult
from tasplan.plan.state import PlanState
from tasplan.plan.tree_cycle import TreeOutcome
from tasplan.plugins.names import DEFAULT_PREEMPTION
from tasplan.preemption.budgets import disruption_budgets
from tasplan.preemption.evaluator import preempt as preempt_group
from tasplan.preemption.tree import leaves_after, preempt_tree, tree_preemption_never
from tasplan.preemption.victims import atomic_ancestors
from tasplan.preemption.victims import units as victim_units
from tasplan.schedulers.intent import Intent
from tasplan.schedulers.interface import UnitResult
from tasplan.schedulers.kube.intent import KUBE_SCHEDULER, read_intent, translate
from tasplan.schedulers.kube.trees import TreeUnit, composite_gate_note, plan_unit, units_of
from tasplan.target import (
    COMPOSITE_POD_GROUP,
    GENERIC_WORKLOAD,
    POD_GROUP_PREEMPTION_POLICY,
    Target,
)

# schedule_group's signature: explain wraps it to look at each group in the state the
# planner gives it.
Schedule = Callable[..., GroupResult]


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


@dataclass(frozen=True)
class GroupUnit:
    """A standalone PodGroup in the queue, at its priority (``group_priority``)."""

    group: PodGroup
    priority: int

    @property
    def order(self) -> int:
        return self.group.order


class KubeScheduler:
    """``schedule`` stands in for ``schedule_group`` (same signature) for standalone groups;
    ``composite_pod_groups`` plans CompositePodGroup trees as units (default: the target's
    CompositePodGroup gate)."""

    name = KUBE_SCHEDULER
    summary = ("kube-scheduler's workload scheduling (KEP-5732): placements per topology "
               "domain, gangs, CompositePodGroup trees, workload-aware preemption")

    def __init__(self, schedule: Schedule = schedule_group,
                 composite_pod_groups: bool | None = None) -> None:
        self._schedule = schedule
        self._composite_pod_groups = composite_pod_groups

    def claim(self, group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot
              ) -> str | None:
        """Never claims: it plans whatever no other scheduler claims."""
        return None

    def intent(self, group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot
               ) -> Intent:
        """``check --compare``: the group's intent in kube-scheduler's dialect."""
        return read_intent(group, pods, snapshot)

    def translate(self, snapshot: ClusterSnapshot, intents: Sequence[Intent]
                  ) -> tuple[ClusterSnapshot, dict[str, str]]:
        """``check --compare``: every group as a KEP-5732 PodGroup (or why not)."""
        return translate(snapshot, intents)

    def start(self, state: PlanState, groups: Sequence[PodGroup]) -> KubeRun:
        trees = self._composite_pod_groups
        if trees is None:
            trees = state.target.enabled(COMPOSITE_POD_GROUP)
        return KubeRun(state, groups, self._schedule, trees)


class KubeRun:
    """kube-scheduler's part of one planning run."""

    def __init__(self, state: PlanState, groups: Sequence[PodGroup], schedule: Schedule,
                 composite_pod_groups: bool) -> None:
        snapshot = state.snapshot
        self.state, self.groups, self.schedule_group = state, groups, schedule
        self.composite_pod_groups = composite_pod_groups
        self.facts = ClusterFacts(snapshot)
        self.by_group = snapshot.pods_by_group
        self.priorities = {g.key: group_priority(g, self.by_group.get(g.key, []))
                           for g in snapshot.groups}
        # Preemption units bounded by composites with disruptionMode all (trees only exist
        # with the CompositePodGroup gate).
        self.atomic = atomic_ancestors(snapshot.groups, snapshot.composites) \
            if composite_pod_groups else {}
        self.budgets: tuple | None = None
        self.evicted: set[int] = set()

    def units(self) -> Iterator[GroupUnit | TreeUnit]:
        """Standalone groups and the trees none of whose planned leaves another scheduler
        plans."""
        state = self.state
        trees = units_of(state.snapshot, self.by_group, self.composite_pod_groups,
                         state.warnings)
        mine = {g.key for g in self.groups}
        others = {g.key for g in state.snapshot.groups if g.planned} - mine
        in_trees = {g.key for t in trees for g in t.leaves}
        for g in self.groups:
            if g.key not in in_trees:
                yield GroupUnit(g, self.priorities[g.key])
        for t in trees:
            if t.planned and not any(g.key in others for g in t.leaves):
                yield t

    def schedule(self, unit: GroupUnit | TreeUnit) -> UnitResult:
        state = self.state
        if isinstance(unit, TreeUnit):
            outcome = self.preempt_tree_for(unit, plan_unit(
                unit, state.framework, state.nodes, state.statement, self.by_group,
                self.prepare, all_assignments=state.all_assignments))
            return UnitResult(tuple(self.finish(self.prepare(r.group), r)
                                    for r in outcome.leaves), outcome.composites)
        prepared = self.prepare(unit.group)
        if isinstance(prepared, GroupResult):
            return UnitResult((prepared,))
        fw, ctx = prepared
        result = self.schedule_group(fw, ctx, state.nodes, state.statement,
                                     all_assignments=state.all_assignments)
        return UnitResult((self.finish(prepared, self.preempt_for(fw, ctx, result)),))

    def prepare(self, group: PodGroup) -> tuple[Framework, GroupContext] | GroupResult:
        state, target = self.state, self.state.target
        pods = [p for p in self.by_group.get(group.key, []) if not p.terminal
                and id(p) not in self.evicted]
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
        fw = state.framework(name if pending else next(iter(state.config.profiles), name))
        if fw is None:
            return GroupResult(*counts, not_handled(name), planned=False, **same)
        invalid = validate_group(group, pending, [p for p, _ in scheduled],
                                 group_policy=target.enabled(POD_GROUP_PREEMPTION_POLICY))
        if invalid:
            return GroupResult(*counts, invalid, error=True, **same)
        return fw, GroupContext(group, tuple(pending), scheduled, gated)

    def finish(self, prepared: tuple[Framework, GroupContext] | GroupResult,
               result: GroupResult) -> GroupResult:
        if isinstance(prepared, GroupResult):
            return replace(result, notes=result.notes + prepared.notes)
        fw, ctx = prepared
        if result.selected is not None and result.schedulable:
            _drop_nominations(self.state.nodes, list(ctx.pending))
        pct = fw.profile.percentage_of_nodes_to_score
        sampling = tuple(s for p in result.placements
                         if (s := node_sampling(p.name, len(p.nodes), pct)) is not None)
        notes = group_notes(ctx, fw.profile, sampling, result, self.facts)
        if ctx.group.parent is not None and not self.composite_pod_groups:
            notes += (composite_gate_note(ctx.group),)
        if result.preemption_message:  # preemption was simulated: nothing left to note
            notes = tuple(n for n in notes if n.code != "preemption")
        return replace(result, scheduler_name=scheduler_name(
            [*ctx.pending, *(p for p, _ in ctx.scheduled)]), sampling=sampling, notes=notes,
            gated=ctx.gated)

    def _budgets(self) -> tuple:
        if self.budgets is None:
            self.budgets = disruption_budgets(self.state.snapshot)
        return self.budgets

    def preempt_for(self, fw: Framework, ctx: GroupContext, result: GroupResult) -> GroupResult:
        """Workload-aware preemption for a standalone group the cycle found unschedulable."""
        state, target = self.state, self.state.target
        group, pending = ctx.group, ctx.pending
        if not (state.preempt and pending and result.outcome == "unschedulable"):
            return result
        if not preemption_enabled(fw, target, group):
            if (group.topology_key is not None and target.preemption_for(False)
                    and DEFAULT_PREEMPTION in fw.profile.unmodelled):
                # 1.36 refuses by name (upstream's status text).
                return replace(result, preemption_message=CONSTRAINED_NOT_SUPPORTED)
            return result
        attempt = preempt_group(
            fw, ctx, state.nodes, self.victims(), self.priorities[group.key], self._budgets(),
            never=preemption_never(group, pending, target), schedule=schedule_group)
        if attempt.result is not None:
            self.apply(attempt.result, pending)
        return replace(result, preemption=attempt.result, preemption_message=attempt.reason)

    def victims(self) -> list:
        snapshot = self.state.snapshot
        return victim_units(self.state.nodes, snapshot.group_index, self.priorities,
                            self.atomic)

    def preempt_tree_for(self, unit: TreeUnit, outcome: TreeOutcome) -> TreeOutcome:
        """Workload-aware preemption for a tree whose root the algorithm found
        unschedulable (v1.37+: the whole tree is the preemptor)."""
        state = self.state
        root = outcome.composites[0] if outcome.composites else None
        if not (state.preempt and root is not None and root.composite.parent is None
                and not root.schedulable and not root.error and root.placements):
            return outcome
        contexts = [p for g in unit.leaves if isinstance(p := self.prepare(g), tuple)]
        pending = {p.key: p for _, ctx in contexts for p in ctx.pending}
        if not pending:
            return outcome
        fw = contexts[0][0]
        if not preemption_enabled(fw, state.target, None):
            return outcome
        tried = preempt_tree(
            fw, state.nodes, self.victims(), unit.priority, self._budgets(), pending,
            never=tree_preemption_never(
                root.composite, pending.values(),
                group_policy=state.target.enabled(POD_GROUP_PREEMPTION_POLICY)),
            replan=lambda nodes, trial: plan_unit(unit, state.framework, nodes, trial,
                                                  self.by_group, self.prepare))
        found = tried.attempt.result
        root = replace(root, preemption=found, preemption_message=tried.attempt.reason)
        if found is None or tried.outcome is None:
            return TreeOutcome(outcome.leaves, (root, *outcome.composites[1:]))
        self.apply(found, list(pending.values()))
        return TreeOutcome(leaves_after(outcome.leaves, tried.outcome.leaves, found),
                           (root, *outcome.composites[1:]))

    def apply(self, result: PreemptionResult, pending: Sequence[Pod]) -> None:
        """What the next units see: the victims gone, the preemptor's pods on their
        nominated nodes (as the queue will bind them once the victims terminate)."""
        state = self.state
        infos, statement, index = state.nodes, state.statement, state.snapshot.node_index
        for v in result.victims:
            info = infos[index[v.node]]
            pod = next(p for p in info.pods if p.key == v.pod)
            info.remove_pod(pod)
            self.evicted.add(id(pod))
        by_key = {p.key: p for p in pending}
        for key, node in result.nominated.items():
            statement.assume(by_key[key], infos[index[node]])
        statement.commit()
        _drop_nominations(infos, list(pending))


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
