"""One placement: simulate the group's pending pods inside it under a checkpoint, with
PlacementFeasible after every pod, then roll back (upstream
``podGroupSchedulingDefaultAlgorithm``)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from enum import Enum

from tasplan.framework.diagnosis import Diagnosis
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.statement import Statement
from tasplan.framework.status import Code, Status
from tasplan.framework.types import GroupContext, Placement, ProposedAssignment
from tasplan.plan.pod_cycle import ClassCursor, GroupCache


class Count(Enum):
    """When a placement may be decided from capacity counts (groups of identical pods)."""

    NEVER = 0  # always choose nodes pod by pod
    INFEASIBLE = 1  # counts may reject a placement; feasible ones are simulated
    ALWAYS = 2  # counts decide and score; the caller simulates the placements it shows


# 1.36's status of a placement where no pod got through Permit (errPodGroupUnschedulable).
POD_GROUP_UNSCHEDULABLE = "pod group is unschedulable"
# Counted placements fill the failed pods' outcomes from per-cycle answers (False: one
# PlacementFeasible call per failed pod, as the pod-by-pod loop does; tests compare both).
BULK_COUNT = True
# Resources shown as "free" for a domain, besides any extended resource its nodes offer.
SUMMARY_RESOURCES = ("cpu", "memory")


@dataclass(frozen=True)
class Simulation:
    """``placed`` counts the pods that got a node. ``simulated`` is False when the outcome
    was counted from exact capacities without choosing nodes pod by pod: then the proposals
    carry no node."""

    placement: Placement
    status: Status
    proposed: tuple[ProposedAssignment, ...]
    placed: int
    unplaced: dict[str, str]
    diagnoses: dict[str, Diagnosis]
    free: dict[str, int]
    simulated: bool = True
    # DRA claims the simulation allocated: key -> devices (see ReservePlugin).
    allocations: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    # Pod key -> DeviceClass -> devices allocated to it in this simulation.
    devices: dict[str, dict[str, int]] = field(default_factory=dict)
    # Counted: how many more pods of the class each of the placement's nodes took.
    capacity: tuple[int, ...] | None = None

    @property
    def feasible(self) -> bool:
        return self.status.success


def simulate_placement(
    fw: Framework,
    ctx: GroupContext,
    placement: Placement,
    nodes: Sequence[NodeInfo],
    statement: Statement,
    cache: GroupCache,
    signatures: Sequence[Hashable],
    *,
    count: Count = Count.NEVER,
    keep: bool = False,
) -> Simulation:
    """Evaluate one placement from the current state and leave that state unchanged.

    ``cache`` is shared by all placements of the group (static filter results and cluster
    summaries per pod class).
    ``count`` says when a group of identical pods may be decided from exact capacity counts
    instead of pod-by-pod node choice (see ``_count``). ``keep``: leave the pods placed
    pod by pod assumed (the caller takes this placement: assuming them again would give the
    same state).
    """
    members = [nodes[i] for i in placement.nodes]
    cursors: dict[Hashable, ClassCursor] = {}
    if count != Count.NEVER:
        counted = _count(fw, ctx, placement, members, statement, cache, signatures[0])
        if counted is not None and (count == Count.ALWAYS or not counted.feasible):
            return counted

    checkpoint = statement.checkpoint()
    mark = fw.allocation_mark()
    remaining, scheduled = len(ctx.pending), len(ctx.scheduled)
    # 1.36 has no PlacementFeasible to stop early: every pending pod is attempted.
    early = not fw.target.release.permit_feasibility
    status = fw.run_placement_feasible(ctx, remaining, scheduled)
    proposed: list[ProposedAssignment] = []
    unplaced: dict[str, str] = {}
    diagnoses: dict[str, Diagnosis] = {}
    for k, pod in enumerate(ctx.pending):
        if early and status.code == Code.UNSCHEDULABLE:
            unplaced[pod.key] = f"not attempted: {status.message}"
            continue
        signature = signatures[k]
        cursor = cursors.get(signature)
        if cursor is None:
            cursor = cursors[signature] = ClassCursor(fw, pod, members, statement, cache,
                                                      cache.of(signature))
        node = diagnosis = None
        if pod.nominated_node_name:
            node = cursor.nominated(pod.nominated_node_name)
        if node is None:
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
    if not early or status.code != Code.UNSCHEDULABLE:
        status = fw.run_placement_feasible(ctx, remaining, scheduled)
    status = _final(fw, status, len(proposed))
    free = _free(members, cache)
    allocations = fw.allocations_since(mark)
    devices, per_pod = fw.device_report(ctx.pending, members, allocations)
    if not keep:
        statement.rollback(checkpoint)
    return Simulation(placement, status, tuple(proposed), len(proposed), unplaced, diagnoses,
                      {**free, **devices}, allocations=allocations, devices=per_pod)


def _final(fw: Framework, status: Status, placed: int) -> Status:
    """A trailing Wait means minCount was never reached. In 1.36 a placement is feasible
    only when some pod of the cycle got through Permit (``Release.permit_feasibility``):
    a placement where no pending pod fits is never feasible, with or without
    GangScheduling (1.37+'s PlacementFeasible lets it through without the plugin)."""
    if fw.target.release.permit_feasibility:
        if status.code in (Code.WAIT, Code.UNSCHEDULABLE) or (status.success and not placed):
            return Status(Code.UNSCHEDULABLE, (POD_GROUP_UNSCHEDULABLE,))
        return status
    if status.code == Code.WAIT:
        return Status(Code.UNSCHEDULABLE, status.reasons, plugin=status.plugin)
    return status


def _count(
    fw: Framework,
    ctx: GroupContext,
    placement: Placement,
    members: list[NodeInfo],
    statement: Statement,
    cache: GroupCache,
    signature: Hashable,
) -> Simulation | None:
    """For a group of identical pods the outcome sequence is known without choosing nodes:
    the greedy loop fills nodes until none can take another pod, so the first
    ``min(sum(capacity), pods)`` pods fit and every later one fails with the same diagnosis.
    Replaying PlacementFeasible over that sequence gives upstream's exact verdict; the
    proposals carry no node. None when a dynamic filter cannot state its capacity."""
    first = ctx.pending[0]
    # Counting needs the nodes' filter results only; a pod-by-pod run makes its own cursor.
    cursor = ClassCursor(fw, first, members, statement, cache, cache.of(signature),
                         scoring=False)
    capacity = cursor.capacity()
    if capacity is None:
        return None
    fit = min(sum(capacity), len(ctx.pending))
    remaining, scheduled = len(ctx.pending), len(ctx.scheduled)
    early = not fw.target.release.permit_feasibility  # as in simulate_placement
    status = fw.run_placement_feasible(ctx, remaining, scheduled)
    unplaced: dict[str, str] = {}
    diagnoses: dict[str, Diagnosis] = {}
    failure: Diagnosis | None = None
    if early and status.code == Code.UNSCHEDULABLE:
        fit = 0
    else:
        remaining, scheduled = remaining - fit, scheduled + fit
    if not BULK_COUNT:
        for pod in ctx.pending[fit:]:
            if early and status.code == Code.UNSCHEDULABLE:
                unplaced[pod.key] = f"not attempted: {status.message}"
                continue
            if failure is None:
                failure = cursor.saturated_diagnosis(capacity)
            unplaced[pod.key] = failure.message
            diagnoses[pod.key] = failure
            remaining -= 1
            status = fw.run_placement_feasible(ctx, remaining, scheduled)
    else:
        # The same outcomes without a call per pod: PlacementFeasible's answer depends on
        # (remaining, scheduled) only (its contract), so it is asked once per pair for the
        # group's whole cycle; once it stops the placement every later pod reads the same.
        keys = cache.keys(ctx.pending)
        feasible = cache.placement_feasible(fw, ctx)
        for k in range(fit, len(keys)):
            if early and status.code == Code.UNSCHEDULABLE:
                unplaced.update(dict.fromkeys(keys[k:], f"not attempted: {status.message}"))
                break
            if failure is None:
                failure = cursor.saturated_diagnosis(capacity)
            key = keys[k]
            unplaced[key] = failure.message
            diagnoses[key] = failure
            remaining -= 1
            status = feasible(remaining, scheduled)
    if not early or status.code != Code.UNSCHEDULABLE:
        status = fw.run_placement_feasible(ctx, remaining, scheduled)
    status = _final(fw, status, fit)
    # Scorers only see feasible placements: skip building proposals for the others. The
    # pods are one class, so one proposal counts them all.
    proposed = (ProposedAssignment(first, None, fit),) if status.success and fit else ()
    devices, _ = fw.device_report(ctx.pending, members, {}, (first, fit))
    return Simulation(placement, status, proposed, fit, unplaced, diagnoses,
                      {**_free(members, cache, (first, fit)), **devices}, simulated=False,
                      capacity=tuple(capacity))


def _free(members: Sequence[NodeInfo], cache: GroupCache,
          unassumed: tuple | None = None) -> dict[str, int]:
    """Allocatable minus requested over the domain's schedulable (not cordoned) nodes;
    ``unassumed`` = (pod, copies) placed but not assumed on any node."""
    schedulable, allocatable = cache.domain(members, _allocatable)
    free = {}
    for resource, total in allocatable.items():
        free[resource] = total - sum([n.requested.get(resource, 0) for n in schedulable])
        if unassumed is not None:
            pod, copies = unassumed
            free[resource] -= pod.requests.get(resource, 0) * copies
    return free


def _allocatable(members: Sequence[NodeInfo]) -> tuple[list[NodeInfo], dict[str, int]]:
    """The domain's schedulable nodes and their allocatable of ``SUMMARY_RESOURCES`` and of
    every extended resource one of them offers (sorted), summed: what a Node fixes."""
    schedulable = [n for n in members if not n.node.unschedulable]
    extra = sorted({r for n in schedulable for r in n.node.allocatable
                    if "/" in r and not r.startswith("hugepages")})
    return schedulable, {r: sum([n.node.allocatable.get(r, 0) for n in schedulable])
                         for r in (*SUMMARY_RESOURCES, *extra)}
