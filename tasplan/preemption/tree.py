"""Workload-aware preemption for a CompositePodGroup tree (KEP-6012 with KEP-5710, v1.37+).

When a tree's root does not fit, kube-scheduler runs the same PodGroupPostFilter as for a
single PodGroup, with the whole tree as the preemptor (upstream PR kubernetes#140634,
exercised by ``TestCPGTopologyAwareSchedulingWorkloadAwarePreemption`` in
test/integration/scheduler/podgroup/topology_aware_scheduling/cpg_tas_test.go):

1. A tree whose preemption policy is Never may not preempt.
2. Every eviction unit of strictly lower priority than the root's is a candidate.
3. All candidates are removed and the whole tree is re-planned (every level's placements,
   minGroupCount, the children's own constraints). If the root still fails, preemption
   cannot help.
4. The pods the re-plan placed, across all leaves in planning order, keep their nodes; the
   candidates are put back one at a time exactly as for a single group (``evaluator``).
5. The rest are the victims; every placed pod is nominated to its node.

The re-plan itself is the caller's (``replan``): this module knows nothing of trees beyond
the root's verdict and the leaves' placements.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.statement import Statement
from tasplan.model.pod import Pod
from tasplan.plan.preemption_result import PreemptionResult
from tasplan.plan.result import GroupResult
from tasplan.plan.tree_result import CompositeResult
from tasplan.preemption.budgets import DisruptionBudget
from tasplan.preemption.evaluator import Attempt, Placed, Rules, select_victims
from tasplan.preemption.victims import Unit

if TYPE_CHECKING:
    from tasplan.model.composite import CompositePodGroup
    from tasplan.plan.tree_cycle import TreeOutcome

# replan(nodes, statement) -> the tree planned on ``nodes``, its assumptions in ``statement``
Replan = Callable[[Sequence[NodeInfo], Statement], "TreeOutcome"]


@dataclass(frozen=True)
class TreeAttempt:
    """``attempt`` as for one group (its placement is the root's domain); ``outcome``: the
    tree re-planned without the victims' candidates (None when preemption cannot help)."""

    attempt: Attempt
    outcome: TreeOutcome | None = None


def preempt_tree(fw: Framework, nodes: Sequence[NodeInfo], statement: Statement,
                 candidates: Sequence[Unit], priority: int,
                 budgets: Sequence[DisruptionBudget], pending: Mapping[str, Pod], *,
                 never: bool, replan: Replan) -> TreeAttempt:
    """``priority``: the tree's (its root's); ``pending``: the tree's pending pods by key."""
    replanned: list[TreeOutcome] = []

    def rerun(work: Sequence[NodeInfo], trial: Statement) -> Placed | None:
        outcome = replan(work, trial)
        root = outcome.composites[0] if outcome.composites else None
        if root is None or not root.schedulable or root.selected is None:
            return None
        replanned.append(outcome)
        index = {info.node.name: i for i, info in enumerate(work)}
        return root.selected, [(pending[k], index[name]) for leaf in outcome.leaves
                               if leaf.schedulable and (chosen := leaf.selected_placement)
                               is not None for k, name in chosen.assignments.items()]

    attempt = select_victims(fw, nodes, statement, candidates, priority, budgets,
                             never=never, rerun=rerun, rules=Rules.of(fw.target))
    return TreeAttempt(attempt, replanned[0] if replanned and attempt.result else None)


def tree_preemption_never(root: CompositePodGroup, pending: Iterable[Pod], *,
                          group_policy: bool) -> bool:
    """Upstream ``newPodGroupPreemptor`` for a tree: with PodGroupPreemptionPolicy
    (``group_policy``) the root CompositePodGroup's preemptionPolicy (unset:
    PreemptLowerPriority, whatever the pods say); without it Never as soon as one pending
    pod says Never."""
    if group_policy:
        return root.preemption_policy == "Never"
    return any(p.preemption_policy == "Never" for p in pending)


def composites_after(composites: Sequence[CompositeResult],
                     replanned: Sequence[CompositeResult]) -> tuple[CompositeResult, ...]:
    """The inner composites the re-plan placed bind with their root once the victims are
    gone (``after_preemption``; the root carries the tree's preemption)."""
    placed = {c.composite.key for c in replanned if c.schedulable}
    return tuple(replace(c, after_preemption=True) if c.composite.key in placed else c
                 for c in composites)


def leaves_after(leaves: Sequence[GroupResult], replanned: Sequence[GroupResult],
                 found: PreemptionResult) -> tuple[GroupResult, ...]:
    """A leaf the re-plan placed gets its share of the tree's preemption: its pods'
    nominations, the victims on those nodes, its placement (the tree's whole answer is on
    the root). The message stays the cycle's (why it did not fit as the cluster is)."""
    again = {r.group.key: r for r in replanned}
    out = []
    for r in leaves:
        after = again.get(r.group.key)
        chosen = after.selected_placement if after is not None and after.schedulable else None
        if chosen is not None:
            mine = {k: n for k, n in found.nominated.items() if k in chosen.assignments}
            nodes = set(mine.values())
            share = PreemptionResult(chosen.name, tuple(v for v in found.victims
                                                        if v.node in nodes),
                                     mine, found.message)
            r = replace(r, preemption=share, preemption_message=found.message)
        out.append(r)
    return tuple(out)
