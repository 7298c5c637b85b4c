"""Volcano's run: one allocate session across the jobs of a plan (``VolcanoScheduler.start``
imports this module when Volcano is given jobs)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tasplan.framework.node_info import NodeInfo
from tasplan.gc_pause import gc_paused
from tasplan.model.group import PodGroup
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.model.volcano import ALLOCATED_HYPERNODE_ANNOTATION, VolcanoPodGroup
from tasplan.plan.fidelity import Note
from tasplan.plan.result import GroupResult, PlacementResult
from tasplan.plan.state import PlanState
from tasplan.schedulers.interface import UnitResult
from tasplan.schedulers.volcano import VOLCANO
from tasplan.schedulers.volcano.allocate import BEST_EFFORT, Outcome, Session
from tasplan.schedulers.volcano.cluster import NOT_MODELLED, ClusterSim, job_of
from tasplan.schedulers.volcano.hypernodes import ROOT, build_tree
from tasplan.schedulers.volcano.job import Task

OFFLINE = (
    "Volcano's scheduler ConfigMap is not known: planned with gang, priority, predicates, "
    "binpack and network-topology-aware enabled at default weights; queue state and the "
    "order of jobs across queues are not known (each job is planned as if its queue had "
    "room, in priority then input order)"
)


def _spec(group: PodGroup, snapshot: ClusterSnapshot) -> VolcanoPodGroup:
    """The group's Volcano PodGroup; a group of pods that only ask for schedulerName
    ``volcano`` is a job of its own minCount (the PodGroup controller makes one per pod)."""
    spec = snapshot.volcano.podgroups.get(group.key)
    return spec if spec is not None else VolcanoPodGroup(group.key, group.min_count)


@dataclass(frozen=True)
class JobUnit:
    group: PodGroup

    @property
    def priority(self) -> int:
        return self.group.priority or 0

    @property
    def order(self) -> int:
        return self.group.order


class StatementSim(ClusterSim):
    """ClusterSim whose assumptions go through the run's Statement (LIFO, as the allocate
    core undoes them)."""

    def __init__(self, state: PlanState) -> None:
        super().__init__(state.snapshot, {n.name: n for n in state.nodes})
        self.statement = state.statement
        self.marks: list[int] = []

    def assume(self, tasks: Sequence[Task], node: str) -> None:
        statement = self.statement
        start = statement.checkpoint()  # one log entry per assumption
        self.marks.extend(range(start, start + len(tasks)))
        statement.assume_many([task.payload for task in tasks], self.infos[node])

    def forget(self, tasks: Sequence[Task], node: str) -> None:
        n = len(tasks)
        self.statement.rollback(self.marks[-n])
        del self.marks[-n:]


class VolcanoRun:
    def __init__(self, state: PlanState, groups: Sequence[PodGroup]) -> None:
        self.state = state
        self.groups = groups
        snapshot = state.snapshot
        with gc_paused():
            self.tree = build_tree(snapshot.volcano.hypernodes.values(),
                                   [(n.name, n.labels) for n in snapshot.nodes])
            self.sim = StatementSim(state)
            self.session = Session(self.tree, self.sim, [n.name for n in snapshot.nodes])
        self.infos: Mapping[str, NodeInfo] = self.sim.infos

    def units(self) -> list[JobUnit]:
        return [JobUnit(g) for g in self.groups]

    def schedule(self, unit: JobUnit) -> UnitResult:
        group, state = unit.group, self.state
        spec = _spec(group, state.snapshot)
        pods = state.snapshot.pods_by_group.get(group.key, [])
        job = job_of(group, spec, pods)
        ties_before = len(self.session.ties)
        with gc_paused():
            (out,) = self.session.allocate([job])
        self.sim.marks.clear()
        if out.committed:
            state.statement.commit()
        else:
            state.statement.rollback(0)  # a pipelined job binds nothing this cycle
        notes = self._notes(job.uid, spec, out, self.session.ties[ties_before:])
        return UnitResult((self._result(group, job, out, notes),))

    def _notes(self, uid: str, spec: VolcanoPodGroup, out: Outcome,
               ties: list[str]) -> tuple[Note, ...]:
        notes = [Note("volcano-offline", OFFLINE), Note("volcano-not-modelled", NOT_MODELLED)]
        tied_nodes = self.session.node_ties.pop(uid, 0)
        if ties or tied_nodes:
            words = list(ties)
            if tied_nodes:
                words.append(f"{tied_nodes} node choice(s) (dry runs included) had several "
                             "nodes of equal score")
            notes.append(Note("random-ties", "; ".join(words) + ": Volcano picks by Go map "
                              "order or at random, tasplan the first by name"))
        if spec.phase == "Pending":
            notes.append(Note("volcano-pending", "the PodGroup is Pending: Volcano's allocate "
                              "action skips it until the enqueue action admits it (queue "
                              "capacity and overcommit, not known offline); planned as if "
                              "admitted"))
        if spec.allocated_hypernode:
            notes.append(Note("volcano-allocated-hypernode",
                              f"{ALLOCATED_HYPERNODE_ANNOTATION}={spec.allocated_hypernode} is "
                              "not read by the newest Volcano scheduler: the job's HyperNode is "
                              "recovered from its running pods "
                              f"({out.job.allocated_hypernode or 'none'})"))
        unknown = sorted({nt.highest_tier_name for nt in (
            spec.network_topology, *(p.network_topology for p in spec.sub_group_policies))
            if nt is not None and nt.highest_tier_allowed is None and nt.highest_tier_name
            and nt.highest_tier_name not in self.tree.tier_names})
        if unknown:  # session.go translateHighestTierNameToAllowed: a warning in its log
            notes.append(Note("volcano-tier-name", f"highestTierName {', '.join(unknown)} "
                              "names no HyperNode's tierName: Volcano logs a warning and "
                              "schedules the job as if it named no tier"))
        if self.tree.warnings:
            notes.append(Note("volcano-hypernodes", "; ".join(self.tree.warnings)))
        if not self.tree.ready:
            notes.append(Note("volcano-hypernodes", "the HyperNodes do not form a tree: "
                              + "; ".join(self.tree.errors)))
        return tuple(notes)

    def _result(self, group: PodGroup, job, out: Outcome,
                notes: tuple[Note, ...]) -> GroupResult:
        pending = sum(1 for t in job.tasks if not t.node and t.status == "Pending") \
            + sum(1 for t, _ in out.assignments)
        scheduled = sum(1 for t in job.tasks if t.status == "Running")
        selected = out.hypernode if out.committed else None
        assigned = {t.payload.key: n for t, n in out.assignments} if out.committed else {}
        best = next((a for a in out.attempts if a.hypernode == selected and a.fits), None)
        tied = tuple(_name(a.hypernode) for a in out.attempts
                     if best is not None and a.fits and a is not best and not a.sub_job
                     and a.gradient == best.gradient and a.score == best.score)
        placements = []
        seen = set()
        # the HyperNodes dry-run, in walk order, then those minResources left out
        for a in sorted(out.attempts, key=lambda a: a.gradient < 0):
            if a.sub_job or a.hypernode in seen:
                continue
            seen.add(a.hypernode)
            nodes = tuple(sorted(self.tree.real_nodes.get(a.hypernode, ())))
            chosen = a.hypernode == selected
            placements.append(PlacementResult(
                _name(a.hypernode), nodes, a.fits, a.reason, a.placed,
                assigned if chosen else {}, {},
                score=None if a.score is None else round(a.score),
                tied=chosen or _name(a.hypernode) in tied))
        if selected and all(p.name != _name(selected) for p in placements):
            nodes = tuple(sorted({n for n in assigned.values()}))
            placements.append(PlacementResult(_name(selected), nodes, True, "",
                                              len(assigned), assigned, {}))
        if out.committed:
            message = (f"{len(assigned)}/{pending} pending pod(s) allocated in hyperNode "
                       f"{_name(selected)}")
        elif out.skipped:
            message = out.skipped
        elif out.error:
            message = out.error
        else:
            message = gang_message(job)
            closest = _closest(out)
            if closest:
                notes = (*notes, Note("volcano-closest", closest))
        return GroupResult(group, pending, scheduled, out.committed, message,
                           tied_with=tied,
                           planned=out.skipped != BEST_EFFORT,
                           placements=tuple(placements),
                           selected=_name(selected) if selected else None,
                           notes=notes, waiting=out.pipelined,
                           scheduler_name=VOLCANO,
                           topology_request=topology_request(job))


def topology_request(job) -> str:
    """The job's networkTopology as its manifest says it, then its sub-groups' own (the
    group line's ``topology=``: Volcano names HyperNode tiers, not a node label key)."""
    own = job.network_topology
    subs = sorted({_topology_text(p.network_topology) for p in job.policies
                   if p.network_topology is not None})
    parts = [] if own is None else [_topology_text(own)]
    if subs:
        parts.append("sub-groups " + ", ".join(subs))
    return "; ".join(parts)


def _topology_text(nt) -> str:
    text = f"networkTopology {nt.mode}"
    if nt.highest_tier_allowed is not None:
        text += f" highestTierAllowed={nt.highest_tier_allowed}"
    if nt.highest_tier_name:
        text += f" highestTierName={nt.highest_tier_name}"
    return text


def _name(hypernode: str | None) -> str:
    return "cluster" if hypernode == ROOT else (hypernode or "")


def gang_message(job) -> str:
    """The PodGroup condition Volcano's gang plugin writes for a job that is not ready
    (``OnSessionClose`` with ``JobInfo.FitError``): the task histogram, the pending tasks'
    reasons and the first fit error (its ``In hyperNode ...`` prefix included)."""
    counts: dict[str, int] = {}
    for t in job.tasks:
        counts[t.status] = counts.get(t.status, 0) + 1
    counts["minAvailable"] = job.min_available
    histogram = ", ".join(sorted(f"{n} {s}" for s, n in counts.items()))
    ready = "pod group is ready" if job.is_ready() else "pod group is not ready"
    text = f"{ready}, {histogram}"
    pending = [t for t in job.tasks if t.status == "Pending"]
    if pending:
        text += f"; Pending: {len(pending)} Unschedulable"
    origin = next((t for t in job.tasks if t.uid in job.fit_errors), None)
    if origin is not None:
        text += f". Origin reason is {origin.name}: {job.fit_errors[origin.uid].message()}"
    unready = job.min_available - job.ready_num()
    return f"{unready}/{len(job.tasks)} tasks in gang unschedulable: {text}"


def _closest(out: Outcome) -> str:
    """tasplan's words: the HyperNode that came closest, and why the others were not tried."""
    tried = [a for a in out.attempts if a.gradient >= 0 and not a.sub_job]
    skipped = [a for a in out.attempts if a.gradient < 0]
    parts = []
    if tried:
        best = max(tried, key=lambda a: a.placed)
        parts.append(f"closest: hyperNode {_name(best.hypernode)} held {best.placed} pod(s)")
    if skipped:
        names = ", ".join(_name(a.hypernode) for a in skipped[:5])
        more = f" and {len(skipped) - 5} more" if len(skipped) > 5 else ""
        parts.append(f"never tried for their idle resources: {names}{more} "
                     f"({skipped[0].reason.removeprefix('not tried: ')})")
    if not tried and not skipped:
        parts.append("no HyperNode within highestTierAllowed holds the job")
    return "; ".join(parts)
