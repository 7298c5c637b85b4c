"""One placement: simulate the group's pending pods inside it under a checkpoint, with
PlacementFeasible after every pod, then roll back (upstream
``podGroupSchedulingDefaultAlgorithm``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tasplan.framework.diagnosis import Diagnosis
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.statement import Statement
from tasplan.framework.status import Code, Status
from tasplan.framework.types import GroupContext, Placement, ProposedAssignment
from tasplan.plan.pod_cycle import ClassCursor, StaticResult

# Resources shown as "free" for a domain, besides any extended resource its nodes offer.
SUMMARY_RESOURCES = ("cpu", "memory")


@dataclass(frozen=True)
class Simulation:
    placement: Placement
    status: Status
    proposed: tuple[ProposedAssignment, ...]
    unplaced: dict[str, str]
    diagnoses: dict[str, Diagnosis]
    free: dict[str, int]

    @property
    def feasible(self) -> bool:
        return self.status.success


def simulate_placement(
    fw: Framework,
    ctx: GroupContext,
    placement: Placement,
    nodes: Sequence[NodeInfo],
    statement: Statement,
    static_cache: dict[tuple, dict[int, StaticResult]],
    signatures: Sequence[tuple],
) -> Simulation:
    """``static_cache`` (class signature -> node index -> static filter result) is shared by
    all placements of the group: static results do not depend on what is assumed."""
    checkpoint = statement.checkpoint()
    members = [nodes[i] for i in placement.nodes]
    remaining, scheduled = len(ctx.pending), len(ctx.scheduled)
    status = fw.run_placement_feasible(ctx, remaining, scheduled)
    proposed: list[ProposedAssignment] = []
    unplaced: dict[str, str] = {}
    diagnoses: dict[str, Diagnosis] = {}
    cursors: dict[tuple, ClassCursor] = {}
    for k, pod in enumerate(ctx.pending):
        if status.code == Code.UNSCHEDULABLE:
            unplaced[pod.key] = f"not attempted: {status.message}"
            continue
        signature = signatures[k]
        cursor = cursors.get(signature)
        if cursor is None:
            cursor = cursors[signature] = ClassCursor(
                fw, pod, members, statement, static_cache.setdefault(signature, {}))
        node, diagnosis = cursor.next()
        remaining -= 1
        if node is not None:
            statement.assume(pod, node)
            proposed.append(ProposedAssignment(pod, node))
            scheduled += 1
        else:
            unplaced[pod.key] = diagnosis.message
            diagnoses[pod.key] = diagnosis
        status = fw.run_placement_feasible(ctx, remaining, scheduled)
    if status.code == Code.WAIT:  # a trailing Wait means minCount was never reached
        status = Status(Code.UNSCHEDULABLE, status.reasons, plugin=status.plugin)
    free = _free(members)
    statement.rollback(checkpoint)
    return Simulation(placement, status, tuple(proposed), unplaced, diagnoses, free)


def _free(members: Sequence[NodeInfo]) -> dict[str, int]:
    resources = list(SUMMARY_RESOURCES)
    extra = sorted({r for n in members for r in n.node.allocatable
                    if "/" in r and not r.startswith("hugepages")})
    free = {}
    for resource in resources + extra:
        free[resource] = sum(n.node.allocatable.get(resource, 0) - n.requested.get(resource, 0)
                             for n in members)
    return free
