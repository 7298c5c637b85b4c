"""Plan the selected groups as ``check`` does and explain each one that does not fit.

The planner runs once over all groups. Each group that fails (or fits only in part) is
explained in the exact state the planner gave it (earlier groups assumed), before the
planner moves on; every what-if re-plans that one group only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial

from tasplan.explain.case import Case, with_pods
from tasplan.explain.cause import Cause, cause_of, fixing_first, static_cause
from tasplan.explain.composite import explain_trees
from tasplan.explain.counterfactuals import (
    add_nodes,
    consolidation,
    eviction,
    min_count,
    toleration_selector,
    topology_key,
)
from tasplan.explain.domains import analyse_domains, first_diagnosis
from tasplan.explain.result import ExplainResult, Explanation, Suggestion
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.profile import Profile, SchedulerConfig
from tasplan.framework.registry import Registry
from tasplan.framework.runtime import Framework
from tasplan.framework.statement import Statement
from tasplan.framework.types import GroupContext
from tasplan.model.group import PodGroup
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.model.topology import domain_noun
from tasplan.plan.group_cycle import schedule_group
from tasplan.plan.placement_cycle import Count
from tasplan.plan.result import GroupResult
from tasplan.plan.state import PlanState
from tasplan.preemption.budgets import STATUS, disruption_budgets
from tasplan.preemption.victims import Hierarchy
from tasplan.schedulers.interface import AUTO
from tasplan.schedulers.kai.scheduler import KAI, KaiScheduler
from tasplan.schedulers.kube.admission import group_priority
from tasplan.schedulers.kube.scheduler import KubeRun, KubeScheduler, Stage
from tasplan.schedulers.kueue.scheduler import KueueScheduler
from tasplan.schedulers.planner import plan, target_for
from tasplan.schedulers.registry import in_tree_schedulers
from tasplan.schedulers.volcano import VOLCANO
from tasplan.target import COMPOSITE_POD_GROUP, Target

# The order suggestions are reported in.
SUGGESTERS = (min_count, eviction, add_nodes, toleration_selector, topology_key)


def explain(snapshot: ClusterSnapshot, profile: Profile | None = None,
            registry: Registry | None = None, *, all_assignments: bool = False,
            scheduler_config: SchedulerConfig | None = None, target: Target | None = None,
            preempt: bool = True, scheduler: str = AUTO,
            kueue: KueueScheduler | None = None,
            pdb_allowance: str = STATUS) -> ExplainResult:
    """``all_assignments`` as for ``plan``; it also gives each suggestion's result the pod ->
    node assignments of its placement (JSON output shows them). ``kueue``: the Kueue
    scheduler (release and gates) for the groups it plans."""
    pods_by_group = snapshot.pods_by_group
    explanations: dict[str, Explanation] = {}
    priorities = {g.key: group_priority(g, pods_by_group.get(g.key, []))
                  for g in snapshot.groups}
    trees_on = (target or target_for(snapshot)).enabled(COMPOSITE_POD_GROUP)
    shared = _Shared(explanations, disruption_budgets(snapshot, pdb_allowance), {},
                     priorities, Hierarchy(snapshot.group_index,
                                           snapshot.composites if trees_on else ()),
                     all_assignments)
    kube = KubeScheduler(run=partial(_ExplainingRun, shared=shared))
    kueue = kueue or KueueScheduler()
    schedulers = {**in_tree_schedulers(kube, kueue),
                  KAI: KaiScheduler(explain=partial(_explain_kai, explanations))}
    result = plan(snapshot, profile, registry, all_assignments=all_assignments,
                  scheduler_config=scheduler_config, target=target, preempt=preempt,
                  scheduler=scheduler, schedulers=schedulers, pdb_allowance=pdb_allowance)
    for group in result.groups:
        record = kueue.records.get(group.group.key)
        if group.scheduler == kueue.name and record is not None and not group.schedulable:
            from tasplan.explain.kueue import explain_workload  # Kueue's groups only

            found = explain_workload(group, record, snapshot)
            if found is not None:
                explanations[group.group.key] = with_cause(found)
        elif group.scheduler == KAI and group.group.key in explanations:
            explanations[group.group.key] = with_cause(explanations[group.group.key])
    for i, group in enumerate(result.groups):
        if group.scheduler == VOLCANO and group.planned and group.pending \
                and not group.schedulable and not group.error:
            from tasplan.explain.volcano import explain_job  # Volcano's groups only

            keep = frozenset(g.group.key for g in result.groups[:i + 1])

            def replan(changed: ClusterSnapshot, key: str = group.group.key,
                       keep: frozenset = keep) -> GroupResult:
                earlier = replace(changed, groups=tuple(
                    replace(g, planned=g.planned and g.key in keep) for g in changed.groups))
                again = plan(earlier, profile, registry, scheduler_config=scheduler_config,
                             target=target, preempt=preempt, scheduler=scheduler,
                             schedulers=in_tree_schedulers(None, kueue),
                             pdb_allowance=pdb_allowance)
                return next(g for g in again.groups if g.group.key == key)

            explanations[group.group.key] = with_cause(explain_job(
                group, snapshot, result.groups[:i], replan))
    trees = explain_trees(snapshot, result, lambda changed, preempt=preempt: plan(
        changed, profile, registry, scheduler_config=scheduler_config, target=target,
        preempt=preempt, scheduler=scheduler, pdb_allowance=pdb_allowance)
        ) if result.composites else {}
    return ExplainResult(result, explanations, trees)


def with_cause(e: Explanation) -> Explanation:
    """An explanation another scheduler's explainer made (Kueue, KAI, Volcano), given the
    cause its facts show when it names none. Its suggestions keep their explainer's order:
    each scheduler ranks its own changes (a Volcano tier, a KAI preferred level)."""
    if e.cause is not None:
        return e
    return replace(e, cause=cause_of(topology_key=None, placements=len(e.domains),
                                     fits_empty=e.fits_empty_cluster, static=None,
                                     suggestions=e.suggestions, noun="domain",
                                     needed=e.needed))


@dataclass(frozen=True)
class _Shared:
    """What the explanations of one run share: where they go, the disruption budgets, a
    memo of facts about the (unchanging) nodes, every group's priority, the groups as
    preemption sees them, and whether suggestions carry assignments."""

    explanations: dict[str, Explanation]
    budgets: tuple
    memo: dict
    priorities: dict[str, int]
    hierarchy: Hierarchy
    assignments: bool


class _ExplainingRun(KubeRun):
    """kube-scheduler's run, explaining each standalone group that does not fit (or fits
    only in part) in the exact state the planner gave it, before the planner moves on."""

    def __init__(self, state: PlanState, groups: Sequence[PodGroup], trees: bool, *,
                 shared: _Shared) -> None:
        super().__init__(state, groups, trees)
        self.shared = shared

    def schedule_group(self, fw: Framework, ctx: GroupContext, nodes: Sequence[NodeInfo],
                       statement: Statement, *, stage: Stage = Stage.ALONE,
                       **kw: object) -> GroupResult:
        if stage != Stage.ALONE:
            return super().schedule_group(fw, ctx, nodes, statement, stage=stage, **kw)
        checkpoint = statement.begin()
        result = schedule_group(fw, ctx, nodes, statement, **kw)
        if not needs_explanation(ctx, result):
            statement.end(checkpoint, keep=True)
            return result
        placed = statement.changes_since(checkpoint)
        statement.end(checkpoint, keep=False)  # explain in the state the group was planned in
        shared = self.shared
        case = Case(fw, ctx, nodes, result, needed(ctx, result),
                    shared.priorities[ctx.group.key], shared.budgets,
                    self.state.snapshot.node_index, assignments=shared.assignments,
                    memo=shared.memo, hierarchy=shared.hierarchy)
        shared.explanations[ctx.group.key] = explain_case(case)
        for pod, node in placed:
            statement.assume(pod, node)
        statement.commit()
        return result


def needs_explanation(ctx: GroupContext, result: GroupResult) -> bool:
    if result.error or not ctx.pending:
        return False
    if not result.schedulable:
        return True
    chosen = result.selected_placement
    return chosen is not None and chosen.placed < len(ctx.pending)


def needed(ctx: GroupContext, result: GroupResult) -> int:
    if result.schedulable:  # fit only in part: the goal is every pending pod
        return len(ctx.pending)
    return max(ctx.group.min_count - len(ctx.scheduled), 1)


def explain_case(case: Case) -> Explanation:
    suggestions: list[Suggestion] = []
    for suggester in SUGGESTERS:
        suggestions.extend(suggester.suggest(case))
        if suggester is eviction:  # moving is weighed against evicting, and shown after it
            suggestions.extend(consolidation.suggest(case, suggestions))
    key = case.group.topology_key
    fits_empty = fits_empty_cluster(case)
    cause = cause_of(topology_key=key, placements=len(case.domains), fits_empty=fits_empty,
                     static=_static_cause(case), suggestions=suggestions,
                     noun=domain_noun(key) if key else "cluster", needed=case.needed)
    return Explanation(
        result=case.result,
        needed=case.needed,
        domains=analyse_domains(case),
        failures=failures(case),
        fits_empty_cluster=fits_empty,
        suggestions=fixing_first(cause, suggestions),
        unlabelled=sum(1 for i in case.infos if key not in i.node.labels) if key else 0,
        cause=cause,
    )


def _static_cause(case: Case) -> Cause | None:
    """Whether constraints alone shut the group out of every node of its placements."""
    diagnosed: dict[str, str] = {}
    members: dict[str, None] = {}
    for domain in case.domains:
        members.update(dict.fromkeys(domain.nodes))
        diagnosis = first_diagnosis(domain)
        if diagnosis is not None:
            diagnosed.update((n, s.plugin) for n, s in diagnosis.statuses.items())
    nodes = [case.infos[case.node_index[n]].node for n in members]
    return static_cause(case.ctx.pending[0], nodes, diagnosed) if case.ctx.pending else None


def failures(case: Case) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The pods that failed in the closest domain, grouped by upstream's message."""
    if not case.domains:
        return ()
    closest = case.domains[0]
    grouped: dict[str, list[str]] = {}
    for pod, message in closest.unplaced.items():
        grouped.setdefault(message, []).append(pod)
    return tuple((message, tuple(pods)) for message, pods in grouped.items())


def fits_empty_cluster(case: Case) -> bool:
    """Whether one of the group's placements holds it when its nodes hold nothing but the
    group's own running pods. Identical pods are counted as the planner counts them (the
    sum of what each empty node takes); other groups are simulated per placement."""
    if not case.ctx.scheduled and case.count != Count.NEVER:
        fits = _fits_empty_counted(case)
        if fits is not None:
            return fits
    own = [pod for pod, _ in case.ctx.scheduled]
    empty = with_pods(case.infos, own)
    return any(case.fits(case.simulate(case.placement(d), empty))
               for d in sorted(case.domains, key=lambda d: (-len(d.nodes), d.name)))


def _fits_empty_counted(case: Case) -> bool | None:
    """None when a filter cannot state its capacity (then the caller simulates)."""
    pending = len(case.ctx.pending)
    for domain in case.domains:
        total = 0
        for name in domain.nodes:
            capacity = case.empty_capacity(case.infos[case.node_index[name]].node)
            if capacity is None:
                return None
            total += capacity
        if min(total, pending) >= case.needed:
            return True
    return False


def _explain_kai(explanations: dict[str, Explanation], run: object, group: PodGroup,
                 tried: object) -> None:
    """The hook ``KaiScheduler(explain=...)`` calls for a group that does not fit (KAI's
    explainer is imported with KAI's first such group)."""
    from tasplan.explain.kai import explain_group

    explanations[group.key] = explain_group(run, group, tried)
