"""kube-scheduler as a scheduler of the registry: standalone PodGroups and CompositePodGroup
trees, each admitted, through the pod-group cycle and, when it does not fit, workload-aware
preemption (upstream ``scheduleOnePodGroup``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from functools import partial

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.sampling import node_sampling
from tasplan.framework.statement import Statement
from tasplan.framework.types import GroupContext
from tasplan.model.group import PodGroup
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.admission import Admission
from tasplan.plan.fidelity import ClusterFacts, group_notes
from tasplan.plan.group_cycle import schedule_group
from tasplan.plan.intent import Intent
from tasplan.plan.notes import NoteCode
from tasplan.plan.result import GroupResult
from tasplan.plan.state import PlanState
from tasplan.plan.tree_cycle import TreeOutcome
from tasplan.schedulers.interface import UnitResult
from tasplan.schedulers.kube.admission import admit, group_priority, scheduler_name
from tasplan.schedulers.kube.intent import KUBE_SCHEDULER, read_intent, translate
from tasplan.schedulers.kube.preemption import PostFilter, drop_nominations
from tasplan.schedulers.kube.trees import TreeUnit, composite_gate_note, plan_unit, units_of
from tasplan.target import COMPOSITE_POD_GROUP


class Stage(Enum):
    """Where a group's cycle runs: standalone, as a leaf of a tree, or again without the
    preemption candidates."""

    ALONE = "alone"
    LEAF = "leaf"
    RERUN = "rerun"


@dataclass(frozen=True)
class GroupUnit:
    """A standalone PodGroup in the queue, at its priority (``group_priority``; 1.36: its
    highest pending pod's, ``queue_priority``)."""

    group: PodGroup
    priority: int

    @property
    def order(self) -> int:
        return self.group.order

    @property
    def leaves(self) -> tuple[PodGroup, ...]:
        return (self.group,)


class KubeRun:
    """kube-scheduler's part of one planning run: its queue, and one method per phase."""

    def __init__(self, state: PlanState, groups: Sequence[PodGroup],
                 composite_pod_groups: bool) -> None:
        snapshot = state.snapshot
        self.state, self.groups = state, groups
        self.composite_pod_groups = composite_pod_groups
        self.facts = ClusterFacts(snapshot)
        self.by_group = snapshot.pods_by_group
        self.priorities = {g.key: group_priority(g, self.by_group.get(g.key, []))
                           for g in snapshot.groups}
        self.post_filter = PostFilter(state, self.priorities, composite_pod_groups)

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
                yield GroupUnit(g, self.queue_priority(g))
        for t in trees:
            if t.planned and not any(g.key in others for g in t.leaves):
                yield t

    def queue_priority(self, group: PodGroup) -> int:
        """Where a group waits in the queue. 1.36 queues pods (``Release.pod_queue``): the
        group's cycle starts when its highest-priority pending pod is popped
        (``podGroupInfoForPod``); later releases queue the group at its own priority."""
        if self.state.target.release.pod_queue:
            queued = [p.priority for p in self.by_group.get(group.key, ())
                      if not (p.node_name or p.terminal or p.deleting or p.scheduling_gates)]
            if queued:
                return max(queued)
        return self.priorities[group.key]

    def schedule(self, unit: GroupUnit | TreeUnit) -> UnitResult:
        """Admission, the cycle, PostFilter when it did not fit, and what the report says
        of each group."""
        tree = isinstance(unit, TreeUnit)  # a tree's leaves are validated with the tree
        admitted = {g.key: self.admit(g, validate=not tree) for g in unit.leaves}
        if tree:
            outcome = self.post_filter.tree(
                list(admitted.values()), unit.priority, self.tree_cycle(unit, admitted),
                partial(self.tree_cycle, unit, admitted, rerun=True))
            leaves, composites = outcome.leaves, outcome.composites
        else:
            a = admitted[unit.group.key]
            leaves, composites = (self.post_filter.group(a, self.group_cycle(a), partial(
                self.schedule_group, stage=Stage.RERUN)),), ()
        results = tuple(self.finish(admitted[r.group.key], r) for r in leaves)
        if composites and (composites[0].schedulable or composites[0].preemption_message):
            # Upstream preempts for a tree only at its root, after the root failed: no leaf
            # of a tree that fit (or whose preemption was simulated) waits for it.
            results = tuple(replace(r, notes=tuple(n for n in r.notes
                                                    if n.code != NoteCode.PREEMPTION))
                            for r in results)
        return UnitResult(results, composites)

    def admit(self, group: PodGroup, *, validate: bool = True) -> Admission:
        evicted = self.state.statement.evicted
        return admit(self.state, group, [p for p in self.by_group.get(group.key, [])
                                         if not p.terminal and not evicted(p)],
                     validate=validate)

    def group_cycle(self, a: Admission) -> GroupResult:
        if a.verdict is not None:
            return a.verdict
        state = self.state
        return self.schedule_group(a.fw, a.ctx, state.nodes, state.statement,
                                   all_assignments=state.all_assignments)

    def tree_cycle(self, unit: TreeUnit, admitted: dict[str, Admission],
                   nodes: Sequence[NodeInfo] | None = None, statement: Statement | None = None,
                   *, rerun: bool = False) -> TreeOutcome:
        """The tree planned in the run's state, or (a preemption re-run) on ``nodes`` with
        its assumptions in ``statement``."""
        state = self.state
        return plan_unit(unit, state.framework, state.nodes if nodes is None else nodes,
                         state.statement if statement is None else statement, self.by_group,
                         admitted, partial(self.schedule_group,
                                           stage=Stage.RERUN if rerun else Stage.LEAF),
                         all_assignments=state.all_assignments and not rerun)

    def schedule_group(self, fw: Framework, ctx: GroupContext, nodes: Sequence[NodeInfo],
                       statement: Statement, *, stage: Stage = Stage.ALONE,
                       **kw: object) -> GroupResult:
        """The one place a group's cycle runs (``group_cycle.schedule_group``), alone, as
        a tree's leaf (``stage=LEAF``) or in a preemption re-run (``RERUN``): explain
        overrides it to look at each group in the state the planner gives it."""
        return schedule_group(fw, ctx, nodes, statement, **kw)

    def finish(self, a: Admission, result: GroupResult) -> GroupResult:
        """The notes of what the plan may get wrong; assumed pods leave the nominator."""
        if a.verdict is not None:
            return result
        fw, ctx = a.fw, a.ctx
        if result.selected is not None and result.schedulable:
            drop_nominations(self.state.nodes, list(ctx.pending))
        pct = fw.profile.percentage_of_nodes_to_score
        sampling = tuple(s for p in result.placements
                         if (s := node_sampling(p.name, len(p.nodes), pct)) is not None)
        notes = group_notes(ctx, fw.profile, sampling, result, self.facts)
        if ctx.group.parent is not None and not self.composite_pod_groups:
            notes += (composite_gate_note(ctx.group),)
        if result.preemption_message:  # preemption was simulated: nothing left to note
            notes = tuple(n for n in notes if n.code != NoteCode.PREEMPTION)
        return replace(result, scheduler_name=scheduler_name(
            [*ctx.pending, *(p for p, _ in ctx.scheduled)]), sampling=sampling, notes=notes,
            gated=ctx.gated)


class KubeScheduler:
    """``composite_pod_groups`` plans CompositePodGroup trees as units (default: the
    target's CompositePodGroup gate); ``run`` makes the run (``KubeRun`` or a subclass of
    it: explain's looks at each group as it is planned)."""

    name = KUBE_SCHEDULER
    summary = ("kube-scheduler's workload scheduling (KEP-5732): placements per topology "
               "domain, gangs, CompositePodGroup trees, workload-aware preemption")

    def __init__(self, composite_pod_groups: bool | None = None,
                 run: Callable[[PlanState, Sequence[PodGroup], bool], KubeRun] = KubeRun
                 ) -> None:
        self._composite_pod_groups = composite_pod_groups
        self._run = run

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
        return self._run(state, groups, trees)
