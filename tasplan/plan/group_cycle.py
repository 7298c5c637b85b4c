"""One pod group: generate placements, simulate each, score the feasible ones, select
(upstream ``podGroupSchedulingPlacementAlgorithm``), then assume the winner."""

from __future__ import annotations

from collections.abc import Sequence

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.statement import Statement
from tasplan.framework.types import UNCONSTRAINED, GroupContext, Placement
from tasplan.model.group import Policy
from tasplan.plan.placement_cycle import Simulation, simulate_placement
from tasplan.plan.pod_cycle import PluginError
from tasplan.plan.result import GroupResult, PlacementResult

NO_PLACEMENTS = "no feasible placements found"
NO_POD_SCHEDULED = "no pods were schedulable"


def schedule_group(
    fw: Framework, ctx: GroupContext, nodes: Sequence[NodeInfo], statement: Statement
) -> GroupResult:
    group = ctx.group
    pending, scheduled = len(ctx.pending), len(ctx.scheduled)

    def result(schedulable: bool, message: str, **kw) -> GroupResult:
        return GroupResult(group, pending, scheduled, schedulable, message, **kw)

    if not pending:
        done = scheduled >= group.min_count
        return result(done, f"all {scheduled} pod(s) of the group are already scheduled"
                      if done else "the group has no pods")
    if group.policy == Policy.GANG and pending + scheduled < group.min_count:
        # GangScheduling PreEnqueue keeps a gang out of the queue until minCount pods exist.
        return result(False, f"waiting for pods: {pending + scheduled} of minCount "
                      f"{group.min_count} pods of the gang exist")

    parent = Placement(UNCONSTRAINED, tuple(range(len(nodes))))
    placements, status = fw.run_placement_generate(ctx, parent, nodes)
    if status is not None:
        return result(False, f"{status.plugin}: {status.message}", error=True)
    if not placements:
        return result(False, f"{NO_PLACEMENTS}: no node carries the label {group.topology_key}")

    signatures = [pod.signature() for pod in ctx.pending]
    static_cache: dict = {}
    try:
        sims = [simulate_placement(fw, ctx, p, nodes, statement, static_cache, signatures)
                for p in placements]
    except PluginError as exc:
        return result(False, f"{exc.status.plugin}: {exc.status.message}", error=True)

    feasible = [s for s in sims if s.feasible]
    if not feasible:
        ranked = tuple(_result(s, nodes) for s in sorted(sims, key=_infeasible_rank))
        first = sims[0].status.message
        return result(False, f"0/{len(sims)} placements are available, first placement "
                      f"status: {first}", placements=ranked)

    parts = fw.run_placement_score(ctx, [(s.placement, s.proposed) for s in feasible], nodes)
    totals = [sum(p.values()) for p in parts]
    order = sorted(range(len(feasible)),
                   key=lambda i: (-totals[i], feasible[i].placement.name))
    best = order[0]
    tied = tuple(feasible[i].placement.name for i in order[1:] if totals[i] == totals[best])
    winner = feasible[best]
    ranked = [
        _result(feasible[i], nodes, score=totals[i], scores=parts[i],
                tied=bool(tied) and totals[i] == totals[best])
        for i in order
    ]
    ranked += [_result(s, nodes) for s in sorted(sims, key=_infeasible_rank) if not s.feasible]
    name = winner.placement.name
    if not winner.proposed:  # success without a single new pod is not progress
        return result(False, NO_POD_SCHEDULED, placements=tuple(ranked))

    for assignment in winner.proposed:
        statement.assume(assignment.pod, assignment.node)
    statement.commit()
    message = (f"{len(winner.proposed)}/{pending} pending pod(s) scheduled in placement "
               f"{name!r} ({len(feasible)}/{len(sims)} placements feasible)")
    if tied:
        message += (f"; tied with {', '.join(map(repr, tied))} - upstream picks among tied "
                    "placements at random")
    return result(True, message, placements=tuple(ranked), selected=name, tied_with=tied)


def _infeasible_rank(sim: Simulation) -> tuple[int, str]:
    return -len(sim.proposed), sim.placement.name


def _result(sim: Simulation, nodes: Sequence[NodeInfo], *, score: int | None = None,
            scores: dict | None = None, tied: bool = False) -> PlacementResult:
    return PlacementResult(
        name=sim.placement.name,
        nodes=tuple(nodes[i].node.name for i in sim.placement.nodes),
        feasible=sim.feasible,
        status=sim.status.message,
        assignments={a.pod.key: a.node.node.name for a in sim.proposed},
        unplaced=sim.unplaced,
        diagnoses=sim.diagnoses,
        score=score,
        scores=scores or {},
        free=sim.free,
        tied=tied,
    )
