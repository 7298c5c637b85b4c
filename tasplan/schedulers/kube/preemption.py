"""kube-scheduler's PodGroupPostFilter: workload-aware preemption for a group or a group
tree the cycle found unschedulable, and what the units after it see when it succeeds."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.statement import Statement
from tasplan.gc_pause import gc_paused
from tasplan.model.group import PodGroup
from tasplan.model.pod import Pod
from tasplan.plan.admission import Admission, ScheduleGroup
from tasplan.plan.notes import Outcome
from tasplan.plan.preemption_result import PreemptionResult
from tasplan.plan.result import GroupResult
from tasplan.plan.state import PlanState
from tasplan.plan.tree_cycle import TreeOutcome
from tasplan.plugins.names import DEFAULT_PREEMPTION
from tasplan.preemption.budgets import DisruptionBudget, disruption_budgets
from tasplan.preemption.evaluator import preempt as preempt_group
from tasplan.preemption.tree import (
    composites_after,
    leaves_after,
    preempt_tree,
    tree_preemption_never,
)
from tasplan.preemption.victims import Hierarchy, Unit
from tasplan.preemption.victims import units as victim_units
from tasplan.target import POD_GROUP_PREEMPTION_POLICY, Target

CONSTRAINED_NOT_SUPPORTED = ("workload aware preemption is not supported for pod groups "
                             "with scheduling constraints")

# replan(nodes, statement) -> the tree planned there (its assumptions in ``statement``)
Replan = Callable[[Sequence[NodeInfo], Statement], TreeOutcome]


def preemption_enabled(fw: Framework, target: Target, group: PodGroup | None) -> bool:
    """The release runs workload-aware preemption for this group (None: a group tree,
    which always has topology constraints to honour) and the profile has DefaultPreemption
    (the only PodGroupPostFilter plugin)."""
    constrained = group is None or group.topology_key is not None
    return (target.preemption_for(constrained)
            and DEFAULT_PREEMPTION in fw.profile.pod_group_post_filter)


def preemption_never(group: PodGroup, pending: Sequence[Pod], target: Target) -> bool:
    """Upstream ``getPreemptionPolicy``: the PodGroup's policy with PodGroupPreemptionPolicy,
    else Never as soon as one pending pod says Never."""
    if target.enabled(POD_GROUP_PREEMPTION_POLICY):
        return group.preemption_policy == "Never"
    return any(p.preemption_policy == "Never" for p in pending)


class PostFilter:
    """Preemption within one planning run: the groups as victims see them (composites only
    with ``trees``: the CompositePodGroup gate is on) and the disruption budgets (read once,
    when first needed, as ``state.pdb_allowance`` says)."""

    def __init__(self, state: PlanState, priorities: Mapping[str, int], trees: bool) -> None:
        snapshot = state.snapshot
        self.state, self.priorities = state, priorities
        self.hierarchy = Hierarchy(snapshot.group_index, snapshot.composites if trees else ())
        self._budgets: tuple[DisruptionBudget, ...] | None = None

    def budgets(self) -> tuple[DisruptionBudget, ...]:
        if self._budgets is None:
            self._budgets = disruption_budgets(self.state.snapshot, self.state.pdb_allowance)
        return self._budgets

    def victims(self, below: int | None = None) -> list[Unit]:
        """The eviction units (of a priority lower than ``below``, when given)."""
        return victim_units(self.state.nodes, self.hierarchy, below)

    def group(self, a: Admission, result: GroupResult, schedule: ScheduleGroup
              ) -> GroupResult:
        """For a standalone group; ``schedule``: its cycle, re-run without the victims."""
        state, target = self.state, self.state.target
        fw, ctx = a.fw, a.ctx
        if not (state.preempt and a.pending and result.outcome == Outcome.UNSCHEDULABLE):
            return result
        assert fw is not None and ctx is not None
        if not preemption_enabled(fw, target, a.group):
            if (a.group.topology_key is not None and target.preemption_for(False)
                    and DEFAULT_PREEMPTION in fw.profile.pod_group_post_filter):
                # 1.36 refuses by name (upstream's status text).
                return replace(result, preemption_message=CONSTRAINED_NOT_SUPPORTED)
            return result
        priority = self.priorities[a.group.key]
        with gc_paused():  # a unit per candidate pod (130k at 5k nodes), no cycles
            attempt = preempt_group(
                fw, ctx, state.nodes, state.statement, self.victims(priority), priority,
                self.budgets(),
                never=preemption_never(a.group, ctx.pending, target), schedule=schedule)
        if attempt.result is not None:
            self.apply(attempt.result, ctx.pending)
        return replace(result, preemption=attempt.result, preemption_message=attempt.reason)

    def tree(self, admitted: Sequence[Admission], priority: int, outcome: TreeOutcome,
             replan: Replan) -> TreeOutcome:
        """For a tree whose root the algorithm found unschedulable (v1.37+: the whole
        tree is the preemptor); ``admitted``: its leaves', ``replan``: its cycle."""
        state = self.state
        root = outcome.composites[0] if outcome.composites else None
        if not (state.preempt and root is not None and root.composite.parent is None
                and not root.schedulable and not root.error and root.placements):
            return outcome
        leaves = [a for a in admitted if a.ok]
        pending = {p.key: p for a in leaves for p in a.pending}
        if not pending:
            return outcome
        fw = leaves[0].fw
        assert fw is not None
        if not preemption_enabled(fw, state.target, None):
            return outcome
        with gc_paused():
            tried = preempt_tree(
                fw, state.nodes, state.statement, self.victims(priority), priority,
                self.budgets(), pending,
                never=tree_preemption_never(
                    root.composite, pending.values(),
                    group_policy=state.target.enabled(POD_GROUP_PREEMPTION_POLICY)),
                replan=replan)
        found = tried.attempt.result
        root = replace(root, preemption=found, preemption_message=tried.attempt.reason)
        if found is None or tried.outcome is None:
            return TreeOutcome(outcome.leaves, (root, *outcome.composites[1:]))
        self.apply(found, list(pending.values()))
        return TreeOutcome(leaves_after(outcome.leaves, tried.outcome.leaves, found),
                           (root, *composites_after(outcome.composites[1:],
                                                    tried.outcome.composites[1:])))

    def apply(self, result: PreemptionResult, pending: Sequence[Pod]) -> None:
        """What the next units see: the victims gone, the preemptor's pods on their
        nominated nodes (as the queue will bind them once the victims terminate)."""
        state = self.state
        infos, statement, index = state.nodes, state.statement, state.snapshot.node_index
        for v in result.victims:
            info = infos[index[v.node]]
            pod = next(p for p in info.pods if p.key == v.pod)
            statement.evict(pod, info)
        by_key = {p.key: p for p in pending}
        for key, node in result.nominated.items():
            statement.assume(by_key[key], infos[index[node]])
        statement.commit()
        drop_nominations(infos, list(pending))


def drop_nominations(infos: list[NodeInfo], placed: list[Pod]) -> None:
    """Assumed pods leave the nominator (upstream ``assume``)."""
    gone = {id(p) for p in placed if p.nominated_node_name}
    if gone:
        for info in infos:
            if info.nominated:
                info.nominated = [p for p in info.nominated if id(p) not in gone]
