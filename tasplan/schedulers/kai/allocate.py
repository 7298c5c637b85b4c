"""KAI's Allocate action for one job: try each candidate node set in order and keep the
first where every task fits, subgroups recursively, pod by pod, on the Statement.

Mirrors ``pkg/scheduler/actions/common/allocate.go`` (``AllocateJob``,
``allocateSubGroupSet``, ``allocatePodSet``, ``allocateTasksOnNodeSet``,
``handleFailedTaskAllocation``), the action loop of ``actions/allocate/allocate.go`` (a job
with more tasks after a successful step is allocated again, one elastic task at a time) and
the session's node order (``framework/session.go`` ``OrderedNodesByTask``: plugin scores
summed, highest first, ties by node name) with the default plugins' node scores:
nominatednode 1e7, topology 1e5 steps, resourcetype 10 (CPU-only pod on a CPU-only node) and
nodeplacement binpack ``9 * (1 - (free - min) / (max - min))`` over the node set
(``plugins/nodeplacement/pack.go``; GPUs for GPU pods, cpu otherwise), at d5bc503a.
nodeavailability (1000 on every node the task fits) cannot change the order among fitting
nodes and is left out.

Because binpack is monotone in the node's free amount and smaller than every other score
step, the order is (other scores, free ascending, name) whenever every node of the set has
the resource: that order is kept sorted and updated only at the node that took a pod, and a
node that rejects a task whose rejections persist (``Fit.monotone``) is set aside instead of
being checked again. Sets with a node lacking the resource are ordered from the scores
themselves, task by task.
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.statement import Statement
from tasplan.model.kai import DEFAULT_SUBGROUP, GPU
from tasplan.model.pod import Pod
from tasplan.schedulers.kai.fit import Fit, cpu_only_node, gpu_task
from tasplan.schedulers.kai.jobs import (
    Job,
    PodSet,
    SubGroupSet,
    ordered,
    tasks_to_allocate,
)
from tasplan.schedulers.kai.tree import DomainError, Subset, TopologyTree, idle, subset_nodes

BINPACK_MAX = 9
RESOURCE_TYPE = 10
NOMINATED = 10_000_000
POD_SCHEDULING_ERRORS = "PodSchedulingErrors"
WORKLOAD_REASON = "Not enough resources for the workload"
DEFAULT_REASON = "Unable to schedule podgroup"
NO_NODES = "no nodes with enough resources were found"
DEFAULT_POD_ERROR = "Unable to schedule pod"


@dataclass(frozen=True, slots=True)
class FitError:
    """One of the job's fit errors (upstream ``JobFitError``): its reason, the detailed
    message the PodGroup condition shows, and the short messages of the summary."""

    reason: str
    detailed: str
    messages: tuple[str, ...]


def topology_error(error: DomainError) -> FitError:
    body = ", ".join(error.detailed)
    if error.subgroup and error.subgroup != DEFAULT_SUBGROUP:
        body = f"subgroup {error.subgroup}: {body}"
    return FitError(WORKLOAD_REASON, f"<{error.domain}>: {body}", error.short)


def simple_error(message: str) -> FitError:
    return FitError(POD_SCHEDULING_ERRORS, message, (message,))


def detailed_message(errors: Sequence[FitError]) -> str:
    """Upstream ``JobFitErrorsToDetailedMessage``: the PodGroup's unschedulable message."""
    reason = errors[0].reason if len(errors) == 1 else DEFAULT_REASON
    return "\n" + reason + "." + "".join(sorted(f"\n{e.detailed}." for e in errors))


def fit_errors_text(counts: Counter | None) -> str:
    """Upstream ``TasksFitErrors.Error``."""
    if counts is None:
        return DEFAULT_POD_ERROR
    reasons = sorted(f"{n} {reason}" for reason, n in counts.items())
    return NO_NODES + (": " + ". \n".join(reasons) + "." if reasons else "")


@dataclass
class Try:
    """One candidate node set of a (sub)group and what happened in it."""

    domain: str
    level: str
    nodes: int
    ok: bool | None = None  # None: never tried (an earlier set succeeded)
    placed: int = 0
    reason: str = ""


@dataclass
class Trace:
    """One ``SubsetNodes`` call and the node sets it produced, in try order."""

    subgroup: str
    subset: Subset
    tries: list[Try] = field(default_factory=list)


@dataclass
class Step:
    """One ``AllocateJob`` call: the gang (the first) or one elastic task."""

    tasks: list[Pod]
    ok: bool = False
    assigned: list[tuple[Pod, NodeInfo]] = field(default_factory=list)
    traces: list[Trace] = field(default_factory=list)


@dataclass
class Outcome:
    job: Job
    steps: list[Step] = field(default_factory=list)
    errors: list[FitError] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)  # errors upstream only logs
    ready: bool = True

    @property
    def assigned(self) -> list[tuple[Pod, NodeInfo]]:
        return [a for step in self.steps if step.ok for a in step.assigned]

    @property
    def allocated(self) -> bool:
        """The gang step succeeded (KAI binds the job)."""
        return bool(self.steps) and self.steps[0].ok

    def message(self) -> str:
        return detailed_message(self.errors) if self.errors else ""


class Allocator:
    """Allocates jobs one after another on ``infos`` through ``statement`` (assumptions of a
    failed job are rolled back; the caller commits)."""

    def __init__(self, infos: Sequence[NodeInfo], trees: Mapping[str, TopologyTree], fit: Fit,
                 statement: Statement) -> None:
        self.infos = infos
        self.trees = trees
        self.fit = fit
        self.statement = statement
        self.all_nodes = [info.index for info in infos]
        self._scores: dict[str, dict[int, float]] = {}
        self._log: list[tuple[PodSet, Pod, NodeInfo]] = []  # this job's assumptions
        self._counts: dict[int, Counter] = {}
        self._outcome: Outcome | None = None
        self._step: Step | None = None

    # -- the job ---------------------------------------------------------------------------

    def allocate(self, job: Job) -> Outcome:
        out = self._outcome = Outcome(job)
        self._counts = {}
        if not job.root.ready():
            out.ready = False
            return out
        limit = sum(len(ps.pods) for ps in job.podsets.values())
        while len(out.steps) <= limit:
            tasks = tasks_to_allocate(job)
            if not tasks:
                break
            self._scores = {}  # the topology plugin's PreJobAllocation
            step = self._step = Step(tasks)
            out.steps.append(step)
            checkpoint, mark = self.statement.checkpoint(), len(self._log)
            step.ok = self._subgroup_set(job, job.root, self.all_nodes, tasks)
            if not step.ok:
                self._rollback(checkpoint, mark)
                break
            step.assigned = [(pod, info) for _, pod, info in self._log[mark:]]
        return out

    def _rollback(self, checkpoint: int, mark: int) -> None:
        self.statement.rollback(checkpoint)
        self.fit.rolled_back()
        for podset, pod, _ in self._log[mark:]:
            del podset.active[id(pod)]
        del self._log[mark:]

    def _assume(self, podset: PodSet, pod: Pod, info: NodeInfo) -> None:
        self.statement.assume(pod, info)
        podset.active[id(pod)] = info.name
        self._log.append((podset, pod, info))

    # -- subgroups -------------------------------------------------------------------------

    def _subgroup_set(self, job: Job, sgs: SubGroupSet, nodes: Sequence[int],
                      tasks: list[Pod]) -> bool:
        """Upstream ``allocateSubGroupSet``."""
        owners = {id(job.owner[id(t)]) for t in tasks}
        podsets = [ps for ps in sgs.descendant_podsets() if id(ps) in owners]
        return self._first_set(job, sgs, podsets, tasks, nodes,
                               lambda node_set: self._members(job, sgs, node_set, tasks))

    def _members(self, job: Job, sgs: SubGroupSet, nodes: Sequence[int],
                 tasks: list[Pod]) -> bool:
        """Upstream ``allocateMembersOnNodes``."""
        for member in ordered(sgs.members):
            if isinstance(member, PodSet):
                ok = self._podset(job, member, nodes,
                                  [t for t in tasks if job.owner[id(t)] is member])
            else:
                inner = {id(ps) for ps in member.descendant_podsets()}
                ok = self._subgroup_set(job, member, nodes,
                                        [t for t in tasks if id(job.owner[id(t)]) in inner])
            if not ok:
                return False
        return True

    def _podset(self, job: Job, podset: PodSet, nodes: Sequence[int], tasks: list[Pod]) -> bool:
        """Upstream ``allocatePodSet``."""
        return self._first_set(job, podset, [podset], tasks, nodes,
                               lambda node_set: self._tasks_on(job, podset, node_set, tasks))

    def _first_set(self, job: Job, member: SubGroupSet | PodSet, podsets: list[PodSet],
                   tasks: list[Pod], nodes: Sequence[int],
                   place: Callable[[Sequence[int]], bool]) -> bool:
        """Try the member's node sets in order; keep the first where ``place`` succeeds,
        roll every other back."""
        if not tasks:
            return True
        for node_set, attempt in self._node_sets(job, member, podsets, tasks, nodes):
            checkpoint, mark = self.statement.checkpoint(), len(self._log)
            errors = len(self._outcome.errors)
            ok = place(node_set)
            self._done(attempt, ok, len(self._log) - mark, errors)
            if ok:
                return True
            self._rollback(checkpoint, mark)
        return False

    def _done(self, attempt: Try | None, ok: bool, placed: int, errors: int) -> None:
        """Record a node set's outcome: pods placed in it, and the last error it caused."""
        if attempt is None:
            return
        attempt.ok, attempt.placed = ok, placed
        new = self._outcome.errors[errors:]
        if not ok and new:
            attempt.reason = new[-1].detailed

    def _node_sets(self, job: Job, member: SubGroupSet | PodSet, podsets: list[PodSet],
                   tasks: list[Pod], nodes: Sequence[int]):
        """Upstream ``SubsetNodesFn`` for the member: its candidate node sets, in order, with
        the ``Try`` that records each (None where there is no constraint)."""
        constraint = member.constraint
        if constraint is None or not constraint.topology:
            yield nodes, None
            return
        out = self._outcome
        tree = self.trees.get(constraint.topology)
        if tree is None:
            out.errors.append(simple_error(f"Requested topology {constraint.topology} does "
                                           "not exist"))
            return
        active = [node for ps in podsets for node in ps.active.values()]
        shown = None if member.name in ("", DEFAULT_SUBGROUP) else member.name
        subset = subset_nodes(tree, self.infos, constraint, member.name, shown,
                              job.key, tasks, nodes, active or None,
                              workload=member.name == DEFAULT_SUBGROUP)
        trace = Trace(member.name, subset)
        self._step.traces.append(trace)
        out.errors.extend(topology_error(e) for e in subset.errors)
        out.errors.extend(simple_error(m) for m in subset.messages)
        if subset.log:
            out.logs.append(f"Failed to run SubsetNodes on job <{job.key}>: {subset.log}")
            return
        if subset.scores is not None:
            self._scores[member.name] = subset.scores
        trace.tries = [Try(d.id, d.level, len(n)) for d, n in subset.candidates]
        for (_, node_set), attempt in zip(subset.candidates, trace.tries, strict=True):
            yield node_set, attempt

    # -- tasks -----------------------------------------------------------------------------

    def _relevant_scores(self, podset: PodSet) -> dict[int, float] | None:
        """Upstream ``getRelevantNodeScores``: the nearest set, from the pod set up, whose
        preferred level scored nodes."""
        member: PodSet | SubGroupSet | None = podset
        while member is not None:
            scores = self._scores.get(member.name)
            if scores is not None:
                return scores
            member = member.parent
        return None

    def _tasks_on(self, job: Job, podset: PodSet, nodes: Sequence[int], tasks: list[Pod]
                  ) -> bool:
        scores = self._relevant_scores(podset)
        self.fit.focus(nodes)
        orders: dict[tuple, _Order] = {}
        exact = any(t.nominated_node_name for t in tasks)
        for index, task in enumerate(tasks):
            key = task.signature()
            order = orders.get(key)
            if order is None:
                order = orders[key] = _Order(self, nodes, task, scores, exact)
            counts = self._counts.setdefault(id(task), Counter())
            chosen = order.first_fit(task, counts)
            if chosen is None:
                self._task_failed(job, podset, task, index)
                return False
            self._assume(podset, task, self.infos[chosen])
            for other in orders.values():
                other.moved(chosen)
        return True

    def _task_failed(self, job: Job, podset: PodSet, task: Pod, placed: int) -> None:
        """Upstream ``handleFailedTaskAllocation``."""
        counts = self._counts.get(id(task))
        text = fit_errors_text(counts if counts else None)
        gang = any(ps.min_available > 1 for ps in job.podsets.values())
        if not gang or len(podset.active) >= podset.min_available:
            message = f"Resources were not found for pod {task.key} due to: {text}"
        elif len(job.podsets) == 1 and podset.name == DEFAULT_SUBGROUP:
            message = (f"Resources were found for {placed} pods while {podset.min_available} "
                       "are required for gang scheduling. Additional pods cannot be scheduled "
                       f"due to: {text}")
        else:
            message = (f"Resources were found for {placed} pods from all sub-groups while "
                       f"sub-group {podset.name} requires {podset.min_available} pods for "
                       "gang scheduling. Additional pods cannot be scheduled in this "
                       f"sub-group due to: {text}")
        self._outcome.errors.append(simple_error(message))


class _Order:
    """The session's node order for one kind of task on one node set (see the module)."""

    def __init__(self, allocator: Allocator, nodes: Sequence[int], pod: Pod,
                 scores: Mapping[int, float] | None, exact: bool) -> None:
        self.allocator = allocator
        infos = self.infos = allocator.infos
        self.fit = allocator.fit
        self.monotone = self.fit.monotone(pod)
        self.resource = GPU if gpu_task(pod) else "cpu"
        cpu_task = not gpu_task(pod)
        self.static: dict[int, float] = {}
        for i in nodes:
            # A node the topology plugin did not score makes the node order fail for it:
            # upstream leaves it out (``scoreNodes`` skips errors).
            score = 0.0 if scores is None else scores.get(i)
            if score is None:
                continue
            if cpu_task and cpu_only_node(infos[i]):
                score += RESOURCE_TYPE
            self.static[i] = score
        r = self.resource
        self.exact = exact or not all(infos[i].node.allocatable.get(r, 0) > 0
                                      for i in self.static)
        self.keys: dict[int, tuple] = {}
        self.live: list[tuple[tuple, int]] = []
        self.dead: dict[str, list[tuple]] = {}
        self.dead_key: dict[int, tuple[str, tuple]] = {}
        if not self.exact:
            for i in self.static:
                self.keys[i] = self._key(i)
            self.live = sorted((k, i) for i, k in self.keys.items())

    def _key(self, i: int) -> tuple:
        info = self.infos[i]
        return (-self.static[i], idle(info, self.resource), info.name)

    def moved(self, i: int) -> None:
        """Node ``i`` took a pod: its free amount, and so its place, changed."""
        if self.exact or i not in self.keys:
            return
        old, new = self.keys[i], self._key(i)
        self.keys[i] = new
        if i in self.dead_key:
            reason, key = self.dead_key[i]
            keys = self.dead[reason]
            del keys[bisect_left(keys, key)]
            insort(keys, new)
            self.dead_key[i] = (reason, new)
            return
        del self.live[bisect_left(self.live, (old, i))]
        insort(self.live, (new, i))

    def first_fit(self, pod: Pod, counts: Counter) -> int | None:
        """The first node in order that fits ``pod``; every node tried before it that did not
        is counted in ``counts`` by reason (upstream ``TasksFitErrors``)."""
        if self.exact:
            return self._first_fit_exact(pod, counts)
        check = self.fit.check
        chosen = None
        newly_dead: list[tuple[tuple, int]] = []
        for entry in self.live:
            key, i = entry
            reason = check(pod, self.infos[i])
            if reason is None:
                chosen = key
                break
            if self.monotone:
                newly_dead.append(entry)
                self.dead_key[i] = (reason, key)
                insort(self.dead.setdefault(reason, []), key)
            else:
                counts[reason] += 1
        for entry in newly_dead:
            del self.live[bisect_left(self.live, entry)]
        for reason, keys in self.dead.items():
            n = len(keys) if chosen is None else bisect_left(keys, chosen)
            if n:
                counts[reason] += n
        if chosen is None:
            return None
        return self.live[bisect_left(self.live, (chosen, -1))][1]

    def _first_fit_exact(self, pod: Pod, counts: Counter) -> int | None:
        infos, r = self.infos, self.resource
        frees = {i: idle(infos[i], r) for i in self.static
                 if infos[i].node.allocatable.get(r, 0) > 0}
        low = min(frees.values(), default=math.inf)
        high = max([0, *frees.values()])
        total: dict[int, float] = {}
        for i, static in self.static.items():
            score = static
            if i in frees and high != 0:
                score += BINPACK_MAX if low == high else \
                    BINPACK_MAX * (1 - (frees[i] - low) / (high - low))
            if pod.nominated_node_name and infos[i].name == pod.nominated_node_name:
                score += NOMINATED
            total[i] = score
        for i in sorted(total, key=lambda i: (-total[i], infos[i].name)):
            reason = self.fit.check(pod, infos[i])
            if reason is None:
                return i
            counts[reason] += 1
        return None
