"""One KAI planning run (``KaiScheduler.start``): each PodGroup is one unit; its
``scheduling.run.ai`` PodGroup from the inputs (or the one KAI's pod grouper would make,
``grouper``) becomes KAI's job tree (``jobs``), the Allocate action places it
(``allocate``) on the run's shared nodes and Statement, and the report gets the root's
candidate domains in KAI's try order, the first where every pod fits selected. Imported
when a run gives KAI a group."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from tasplan.framework.node_info import NodeInfo
from tasplan.model.group import PodGroup, Policy
from tasplan.model.kai import POD_GROUP_API, SCHEDULER_NAME, KaiPodGroup
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.result import GroupResult, PlacementResult
from tasplan.plan.state import PlanState
from tasplan.schedulers.interface import UnitResult
from tasplan.schedulers.kai.allocate import Allocator, Outcome, Step, Trace
from tasplan.schedulers.kai.grouper import GrouperError, pod_group_for
from tasplan.schedulers.kai.jobs import Job, build_job, tasks_to_allocate
from tasplan.schedulers.kai.notes import kai_notes
from tasplan.schedulers.kai.predicates import KaiFit, kai_framework
from tasplan.schedulers.kai.tree import TopologyTree

CLUSTER = "cluster"
SUMMARY_RESOURCES = ("cpu", "memory")


@dataclass(frozen=True)
class KaiUnit:
    group: PodGroup
    priority: int

    @property
    def order(self) -> int:
        return self.group.order


@dataclass(frozen=True)
class Planned:
    """A group planned (or tried) once: the report's result, KAI's outcome, the PodGroup
    it was planned as and its pending pods."""

    result: GroupResult
    outcome: Outcome | None = None
    spec: KaiPodGroup | None = None
    pending: tuple[Pod, ...] = ()


class KaiRun:
    """KAI's part of one planning run: topology trees built once, one unit per group."""

    def __init__(self, state: PlanState, groups: Sequence[PodGroup],
                 explain: Callable[..., None] | None = None) -> None:
        self.state, self.groups = state, groups
        snapshot = state.snapshot
        self.by_group = snapshot.pods_by_group
        self._trees: dict[str, TopologyTree] | None = None
        self._fw = None
        self._explain = explain
        self._releasing: int | None = None

    @property
    def releasing(self) -> int:
        """Bound pods being deleted (KAI's releasing resources), counted once per run."""
        if self._releasing is None:
            self._releasing = sum(1 for p in self.state.snapshot.pods
                                  if p.deleting and p.node_name and not p.terminal)
        return self._releasing

    def units(self) -> Iterator[KaiUnit]:
        snapshot = self.state.snapshot
        for group in self.groups:
            pods = self.by_group.get(group.key, [])
            yield KaiUnit(group, _priority(group, pods, snapshot))

    def trees(self, nodes: Sequence[NodeInfo] | None = None) -> dict[str, TopologyTree]:
        """The Topologies' trees over the run's nodes (built once) or over ``nodes``."""
        topologies = self.state.snapshot.kai.topologies
        if nodes is not None:
            return {name: TopologyTree(t, nodes) for name, t in topologies.items()}
        if self._trees is None:
            self._trees = {name: TopologyTree(t, self.state.nodes)
                           for name, t in topologies.items()}
        return self._trees

    def fit(self, nodes: Sequence[NodeInfo]) -> KaiFit:
        if self._fw is None:
            devices = bool(self.state.snapshot.dra) and any(
                p.claims for g in self.groups for p in self.by_group.get(g.key, []))
            self._fw = kai_framework(self.state, devices)
        return KaiFit(self.state, self._fw, nodes)

    def schedule(self, unit: KaiUnit) -> UnitResult:
        group = unit.group
        if self._explain is not None:
            tried = self.plan(group, commit=False)
            if tried.outcome is not None and _short(tried):
                self._explain(self, group, tried)
        return UnitResult((self.plan(group).result,))

    def plan(self, group: PodGroup, spec: KaiPodGroup | None = None, *, commit: bool = True,
             nodes: Sequence[NodeInfo] | None = None) -> Planned:
        """Plan one group in the run's state and commit what it gets (``commit=False``: a
        trial, rolled back). ``spec``: the KAI PodGroup to plan it as instead of its own
        (``--compare`` and explain's changes); ``nodes``: other nodes (explain's)."""
        state, snapshot = self.state, self.state.snapshot
        pods = [p for p in self.by_group.get(group.key, []) if not p.terminal]
        waiting = [p for p in pods if not p.node_name and not p.deleting]
        pending = [p for p in waiting if not p.scheduling_gates]
        scheduled = [p for p in pods if p.node_name]
        base = dict(group=group, pending=len(pending), scheduled=len(scheduled),
                    scheduler_name=SCHEDULER_NAME, gated=len(waiting) - len(pending))
        others = sorted({p.scheduler_name for p in pending} - {SCHEDULER_NAME})
        if spec is None and others:
            return Planned(GroupResult(**base, schedulable=False, planned=False, message=(
                f"not planned: its pods ask for schedulerName {', '.join(others)}; KAI "
                f'schedules pods of "{SCHEDULER_NAME}" only')))
        try:
            kai_spec, grouper_notes = (spec, ()) if spec is not None else \
                pod_group_for(group, pods, snapshot)
        except GrouperError as err:
            return Planned(GroupResult(**base, schedulable=False, error=True, message=(
                f"KAI's pod grouper makes no PodGroup for {group.key}: {err} (its pods stay "
                "pending)")))
        rejected = [p for p in snapshot.kai.problems.get(("PodGroup", kai_spec.key), ())
                    if p.hard]
        if rejected and not kai_spec.synthesised and spec is None:
            text = "; ".join(f"{p.field}: {p.message}" for p in rejected)
            return Planned(GroupResult(**base, schedulable=False, error=True, message=(
                f"KAI's admission webhook rejects PodGroup {kai_spec.key}: {text}")))
        job = build_job(kai_spec, pods, snapshot.kai.topologies)
        # The gang: the pods already running plus those KAI allocates first.
        minimum = len(scheduled) + (0 if job.root.satisfied() else len(tasks_to_allocate(job)))
        infos = state.nodes if nodes is None else nodes
        checkpoint = state.statement.checkpoint()
        outcome = Allocator(infos, self.trees(nodes), self.fit(infos),
                            state.statement).allocate(job)
        result = _result(group, minimum, job, outcome, pending, infos, kai_spec)
        if commit and outcome.assigned:
            state.statement.commit()
        else:
            state.statement.rollback(checkpoint)
        result = replace(result, scheduled=len(scheduled), scheduler_name=SCHEDULER_NAME,
                         gated=len(waiting) - len(pending),
                         notes=kai_notes(job, outcome, pending, snapshot, grouper_notes,
                                         self.releasing))
        return Planned(result, outcome, kai_spec, tuple(pending))


def _short(planned: Planned) -> bool:
    """Explain wants it: the group does not fit, or fits with pods left over."""
    result = planned.result
    if result.error or not result.planned or not planned.pending:
        return False
    return not result.schedulable or len(planned.outcome.assigned) < len(planned.pending)


def _priority(group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot) -> int:
    """The PodGroup's priority class, else the group's, else its pods' highest."""
    spec = snapshot.kai.pod_groups.get(group.key)
    if spec is not None and spec.priority_class_name in snapshot.priority_classes:
        return snapshot.priority_classes[spec.priority_class_name].value
    if group.priority is not None:
        return group.priority
    return max((p.priority for p in pods), default=0)


def _root_trace(step: Step | None) -> Trace | None:
    if step is None:
        return None
    return next((t for t in step.traces if t.subgroup == ""), None)


def _result(group: PodGroup, minimum: int, job: Job, outcome: Outcome,
            pending: Sequence[Pod], nodes: Sequence[NodeInfo], spec: KaiPodGroup
            ) -> GroupResult:
    gang = outcome.steps[0] if outcome.steps else None
    assigned = {pod.key: info.name for pod, info in outcome.assigned}
    unplaced = _unplaced(outcome, pending, assigned)
    trace = _root_trace(gang)
    placements: list[PlacementResult] = []
    selected = None
    if trace is None:
        placements.append(PlacementResult(
            CLUSTER, tuple(n.name for n in nodes), outcome.allocated, _status(outcome),
            len(assigned), assigned, unplaced, free=_free(nodes)))
        selected = CLUSTER if outcome.allocated else None
    else:
        domains = {d.id: idx for d, idx in trace.subset.candidates}
        for attempt in trace.tries:
            members = [nodes[i] for i in domains[attempt.domain]]
            chosen = attempt.ok is True
            if chosen:
                selected = attempt.domain
                status = "every pod fits"
            elif attempt.ok is None:
                status = "not tried: KAI takes the first candidate where every pod fits"
            else:
                status = attempt.reason or "a subgroup fits in none of its candidates"
            placements.append(PlacementResult(
                attempt.domain, tuple(n.name for n in members), chosen, status,
                len(assigned) if chosen else attempt.placed,
                assigned if chosen else {}, unplaced if chosen else {},
                free=_free(members), simulated=attempt.ok is not None))
        for domain, error in trace.subset.rejected:
            members = [nodes[i] for i in domain.nodes]
            placements.append(PlacementResult(
                domain.id, tuple(n.name for n in members), False, "; ".join(error.detailed),
                error.allocatable or 0, {}, {}, free=_free(members), simulated=False))
    return GroupResult(_shown(group, minimum, job, spec), len(pending), 0, outcome.allocated,
                       _message(outcome, selected, trace, assigned),
                       placements=tuple(placements), selected=selected,
                       waiting=not outcome.ready)


def _shown(group: PodGroup, minimum: int, job: Job, spec: KaiPodGroup) -> PodGroup:
    """The group as KAI sees it: its gang and the level it must, else should, stay in."""
    constraint = job.root.constraint
    level = (constraint.required or constraint.preferred) if constraint else ""
    kind, api = ("PodGroup", POD_GROUP_API) if not spec.synthesised else \
        (group.kind, group.api_version)
    return replace(group, policy=Policy.GANG if minimum > 1 else Policy.BASIC,
                   min_count=max(minimum, 1), topology_key=level or None, kind=kind,
                   api_version=api)


def _unplaced(outcome: Outcome, pending: Sequence[Pod], assigned: Mapping[str, str]
              ) -> dict[str, str]:
    failed = next((s for s in outcome.steps if not s.ok), None)
    tried = {id(t) for t in failed.tasks} if failed is not None else set()
    reason = outcome.errors[-1].detailed if outcome.errors else "not allocated"
    out = {}
    for pod in pending:
        if pod.key in assigned:
            continue
        if id(pod) in tried:
            out[pod.key] = reason
        else:
            out[pod.key] = "not allocated: the job's allocation stopped before this pod"
    return out


def _status(outcome: Outcome) -> str:
    if outcome.allocated:
        return "every pod fits"
    return outcome.errors[-1].detailed if outcome.errors else "no node set was tried"


def _message(outcome: Outcome, selected: str | None, trace: Trace | None,
             assigned: Mapping[str, str]) -> str:
    if not outcome.ready:
        return ("KAI does not schedule the PodGroup yet: fewer pods than minMember are "
                "ready (created and not gated)")
    if outcome.allocated:
        where = f"in {selected!r}" if selected and selected != CLUSTER else "in the cluster"
        tried = ""
        if trace is not None:
            k = next(i for i, t in enumerate(trace.tries, 1) if t.ok)
            tried = f" (candidate {k} of {len(trace.tries)} in KAI's order)"
        return f"KAI allocates {len(assigned)} pod(s) {where}{tried}"
    if outcome.logs:
        return outcome.logs[0]
    return " ".join(line for line in outcome.message().splitlines() if line)


def _free(members: Sequence[NodeInfo]) -> dict[str, int]:
    """Allocatable minus requested over the domain's nodes that are not cordoned."""
    members = [n for n in members if not n.node.unschedulable]
    extra = sorted({r for n in members for r in n.node.allocatable
                    if "/" in r and not r.startswith("hugepages")})
    return {r: sum(n.node.allocatable.get(r, 0) - n.requested.get(r, 0) for n in members)
            for r in (*SUMMARY_RESOURCES, *extra)}
