"""Volcano's allocate action for gangs with a network topology, as a self-contained core.

Mirrors volcano ``pkg/scheduler/actions/allocate/allocate.go`` (``allocateResources``,
``allocateForJob``, ``allocateForSubJob``, ``allocateResourcesForTasks``,
``prioritizeNodes``), ``plugins/network-topology-aware/network_topology_aware.go``
(``hyperNodeGradientFn``, ``HyperNodeOrderFn``, ``batchNodeOrderFn``) and
``framework/session.go`` (``adjustNetworkTopologySpec``: ``highestTierName`` resolved, soft
mode turned into hard mode bounded by the virtual root; ``recoverAllocatedHyperNode``) at
volcano commit ``ed72c7c815a9fd547a787134676f73d42e9d049c``.

What a pod needs from a node beyond CPU, memory and extended resources (selectors, taints,
ports, other scorers) comes from a ``Simulator``, so the same core runs against the mirrored
upstream test tables and against tasplan's cluster model.

Where Volcano picks among equals by Go map order or ``rand`` (HyperNodes of equal score, nodes
of equal score, the first task whose fit error is reported), tasplan takes the first by name
and records the tie in ``Session.ties``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from tasplan.schedulers.volcano.hypernodes import ROOT, HyperNodeTree
from tasplan.schedulers.volcano.job import (
    ALLOCATED,
    ALLOCATED_STATUSES,
    HARD,
    PENDING,
    PIPELINED,
    SOFT,
    Job,
    NetworkTopology,
    SubJob,
    Task,
    task_key,
)

MAX_NODE_SCORE = 100
INSUFFICIENT = "Insufficient "
ROLE_FAILED = "Task {} with role spec {} has already predicated failed, skip"


class Simulator(Protocol):
    """A node's state as the session sees it, and what the core cannot know itself."""

    def allocatable(self, node: str) -> Mapping[str, int]: ...

    def used(self, node: str) -> Mapping[str, int]: ...

    def releasing(self, node: str) -> Mapping[str, int]: ...

    def predicate(self, task: Task, node: str) -> list[str]:
        """Reasons ``node`` does not fit ``task`` besides CPU, memory and extended
        resources (empty: it fits): the predicates plugin's filters."""
        ...

    def assume(self, task: Task, node: str) -> None: ...

    def forget(self, task: Task, node: str) -> None: ...

    def scores(self, task: Task, nodes: Sequence[str]) -> Mapping[str, float]:
        """Node-order scores of the other enabled plugins (nodeorder, binpack, ...)."""
        ...


@dataclass(frozen=True, slots=True)
class Plugins:
    """What the scheduler configuration enables, as Volcano's tiers do. The defaults are a
    configuration with ``gang``, ``priority`` and ``network-topology-aware`` fully enabled
    (Volcano applies every plugin flag's default ``true`` when it reads its ConfigMap)."""

    job_ready: bool = True
    job_pipelined: bool = True
    job_order: bool = True
    sub_job_ready: bool = True
    sub_job_pipelined: bool = True
    sub_job_order: bool = True
    task_priority_order: bool = True
    job_priority_order: bool = True
    nta_node_order: bool = True
    nta_hypernode_order: bool = True
    nta_gradient: bool = True
    nta_weight: int = 1
    # hypernode.binpack.cpu / .memory / .resources.<name>
    binpack_weights: Mapping[str, int] = field(
        default_factory=lambda: {"cpu": 1, "memory": 1})
    normal_pod_binpack: bool = True
    normal_pod_fading: float = 0.8


@dataclass
class FitErrors:
    """``api.FitErrors``: per-node reasons of one task, with the HyperNode it was tried in."""

    nodes: dict[str, list[str]] = field(default_factory=dict)
    hypernode: str = ""
    err: str = ""

    def message(self) -> str:
        err = self.err or f"0/{len(self.nodes)} nodes are unavailable"
        if not self.nodes:
            return err
        counts: dict[str, int] = {}
        for reasons in self.nodes.values():
            for reason in reasons:
                counts[reason] = counts.get(reason, 0) + 1
        text = f"{err}: {', '.join(sorted(f'{n} {r}' for r, n in counts.items()))}."
        return f"In hyperNode {self.hypernode}: {text}" if self.hypernode else text


@dataclass
class Attempt:
    """One HyperNode the job (or a sub-job) was dry-run in."""

    hypernode: str
    tier: int
    gradient: int
    placed: int
    fits: bool
    score: float | None = None
    sub_job: str = ""
    reason: str = ""


@dataclass
class Outcome:
    """What the allocate action did with one job."""

    job: Job
    committed: bool = False
    pipelined: bool = False
    hypernode: str = ""
    assignments: list[tuple[Task, str]] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    skipped: str = ""  # why the job never entered allocation (JobValid, ...)
    error: str = ""  # gradient errors (no HyperNode can hold a running job's rest)


Op = tuple[Task, str, bool]  # task, node, pipelined


def _le(request: Mapping[str, int], avail: Mapping[str, int]) -> list[str]:
    """Resources of ``request`` that ``avail`` lacks, cpu and memory first
    (``LessEqualWithResourcesName``)."""
    short = []
    for name in sorted(request, key=lambda r: (r not in ("cpu", "memory"), r != "cpu", r)):
        value = request[name]
        if value > 0 and value > avail.get(name, 0):
            short.append(name)
    return short


def _sub(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) - v
    return out


class Session:
    """One scheduling cycle over a fixed cluster: jobs are allocated in order, each job's
    committed (or pipelined) tasks stay assumed for the jobs after it."""

    def __init__(self, tree: HyperNodeTree, sim: Simulator, nodes: Sequence[str],
                 plugins: Plugins | None = None) -> None:
        self.tree = tree
        self.sim = sim
        self.plugins = plugins or Plugins()
        self.node_names = list(nodes)
        self.ties: list[str] = []
        self.sorted_nodes = {hn: sorted(members) for hn, members in tree.real_nodes.items()}
        self.node_hypernodes: dict[str, list[str]] = {}
        for hn, members in tree.real_nodes.items():
            for n in members:
                self.node_hypernodes.setdefault(n, []).append(hn)
        # hyperNodeResourceCache: allocatable / idle / future idle fixed at session open,
        # used updated on every allocate and deallocate event.
        self.hn_alloc: dict[str, dict[str, int]] = {}
        self.hn_used: dict[str, dict[str, int]] = {}
        self.hn_idle: dict[str, dict[str, int]] = {}
        self.hn_future: dict[str, dict[str, int]] = {}
        for hn, members in tree.real_nodes.items():
            alloc: dict[str, int] = {}
            used: dict[str, int] = {}
            rel: dict[str, int] = {}
            for n in members:
                for k, v in sim.allocatable(n).items():
                    alloc[k] = alloc.get(k, 0) + v
                for k, v in sim.used(n).items():
                    used[k] = used.get(k, 0) + v
                for k, v in sim.releasing(n).items():
                    rel[k] = rel.get(k, 0) + v
            self.hn_alloc[hn] = alloc
            self.hn_used[hn] = used
            self.hn_idle[hn] = _sub(alloc, used)
            self.hn_future[hn] = {k: v + rel.get(k, 0) for k, v in self.hn_idle[hn].items()}

    # -- session open -------------------------------------------------------------------

    def open_job(self, job: Job) -> None:
        """``adjustNetworkTopologySpec`` and ``recoverAllocatedHyperNode`` for one job."""
        if not job.contains_network_topology():
            return
        names = self.tree.tier_names
        job.network_topology = _translate(job.network_topology, names)
        for sub in job.sub_jobs.values():
            sub.network_topology = _translate(sub.network_topology, names)
        top = self.tree.tiers[ROOT]
        nt = job.network_topology
        if nt is not None and nt.mode == SOFT:
            job.network_topology = NetworkTopology(HARD, top)
        sub_top = top
        if job.network_topology is not None and \
                job.network_topology.highest_tier_allowed is not None:
            sub_top = job.network_topology.highest_tier_allowed
        for sub in job.sub_jobs.values():
            if sub.network_topology is not None and sub.network_topology.mode == SOFT:
                sub.network_topology = NetworkTopology(HARD, sub_top)
        if self.tree.ready:
            self._recover(job)

    def _recover(self, job: Job) -> None:
        for sub in sorted(job.sub_jobs.values(), key=lambda s: s.uid):
            if sub.network_topology is None or sub.allocated_hypernode:
                continue
            candidates: set[str] | None = None
            for task in sub.tasks:
                if task.status not in ALLOCATED_STATUSES or not task.node:
                    continue
                pool = candidates if candidates is not None else set(self.tree.real_nodes)
                candidates = {hn for hn in pool if task.node in self.tree.real_nodes[hn]}
                if not candidates:
                    break
            if candidates:
                low = min(self.tree.tiers[hn] for hn in candidates)
                best = sorted(hn for hn in candidates if self.tree.tiers[hn] == low)
                if len(best) > 1:
                    self.ties.append(f"sub-job {sub.uid}: running pods lie in HyperNodes "
                                     f"{', '.join(best)} of tier {low}")
                sub.allocated_hypernode = best[0]
        lca = ""
        for sub in sorted(job.sub_jobs.values(), key=lambda s: s.uid):
            if sub.allocated_hypernode:
                lca = self.tree.lca(lca, sub.allocated_hypernode)
        job.allocated_hypernode = lca

    # -- statements ---------------------------------------------------------------------

    def _apply(self, task: Task, node: str, pipelined: bool) -> None:
        task.status = PIPELINED if pipelined else ALLOCATED
        task.node = node
        self.sim.assume(task, node)
        for hn in self.node_hypernodes.get(node, ()):
            used = self.hn_used[hn]
            for k, v in task.request.items():
                used[k] = used.get(k, 0) + v

    def _undo(self, task: Task, node: str) -> None:
        self.sim.forget(task, node)
        task.status = PENDING
        task.node = ""
        for hn in self.node_hypernodes.get(node, ()):
            used = self.hn_used[hn]
            for k, v in task.request.items():
                used[k] = used.get(k, 0) - v

    def discard(self, ops: Sequence[Op]) -> None:
        for task, node, _ in reversed(ops):
            self._undo(task, node)

    def recover(self, ops: Sequence[Op]) -> None:
        for task, node, pipelined in ops:
            self._apply(task, node, pipelined)

    # -- readiness (session_plugins.go with the enabled plugins) ------------------------

    def job_ready(self, job: Job) -> bool:
        return job.gang_ready() if self.plugins.job_ready else True

    def job_pipelined(self, job: Job) -> bool:
        return job.gang_pipelined() if self.plugins.job_pipelined else True

    def sub_job_ready(self, job: Job, sub: SubJob) -> bool:
        if not job.has_policy:
            return self.job_ready(job)
        return sub.is_ready() if self.plugins.sub_job_ready else True

    def sub_job_pipelined(self, job: Job, sub: SubJob) -> bool:
        if not job.has_policy:
            return self.job_pipelined(job)
        return sub.is_pipelined() if self.plugins.sub_job_pipelined else True

    # -- the action ---------------------------------------------------------------------

    def allocate(self, jobs: Sequence[Job]) -> list[Outcome]:
        """``Execute`` for one queue: jobs in JobOrderFn order, a job with tasks left after
        it became ready is put back for another round."""
        outcomes = {job.uid: Outcome(job) for job in jobs}
        sheets: dict[str, Worksheet] = {}
        queue: list[Job] = []
        for job in jobs:
            self.open_job(job)
        for job in jobs:
            reason = self._valid(job)
            if reason:
                outcomes[job.uid].skipped = reason
                continue
            sheet = self._worksheet(job)
            if sheet.empty():
                continue
            sheets[job.uid] = sheet
            queue.append(job)
        guard = sum(len(j.tasks) for j in jobs) + len(jobs) + 1
        while queue and guard > 0:
            guard -= 1
            job = self._pop_job(queue)
            out = outcomes[job.uid]
            sheet = sheets[job.uid]
            if job.contains_hard_topology() or job.has_policy:
                ops, best = self._allocate_for_job(job, sheet, out)
                if ops is None:
                    continue
                if self.job_ready(job):
                    self._commit(out, ops, best)
                    if not sheet.empty():
                        queue.append(job)
                else:
                    out.pipelined = True
                    out.assignments.extend((t, n) for t, n, _ in ops)
            else:
                sub = job.sub_jobs[job.default_sub_job]
                tasks = sheet.tasks.get(sub.uid, [])
                ops = self._allocate_tasks(job, sub, tasks, ROOT)
                if ops is None:
                    continue
                if self.job_ready(job):
                    self._commit(out, ops, "")
                    if tasks:
                        queue.append(job)
                else:
                    out.pipelined = True
                    out.assignments.extend((t, n) for t, n, _ in ops)
        return [outcomes[job.uid] for job in jobs]

    def _commit(self, out: Outcome, ops: Sequence[Op], best: str) -> None:
        out.committed = True
        out.pipelined = False
        out.assignments.extend((t, n) for t, n, _ in ops)
        job = out.job
        if best:
            job.allocated_hypernode = self.tree.lca(job.allocated_hypernode, best)
            out.hypernode = job.allocated_hypernode
        elif not out.hypernode:
            out.hypernode = ROOT

    def _valid(self, job: Job) -> str:
        """The gang plugin's JobValid, and a HyperNode view that could not be built."""
        if not job.check_task_valid():
            return "Not enough valid pods of each task for gang-scheduling"
        if not job.check_sub_job_valid():
            return "Not enough valid subGroups of each task for gang-scheduling"
        valid = job.valid_num()
        if valid < job.min_available:
            return (f"Not enough valid tasks for gang-scheduling, valid: {valid}, "
                    f"min: {job.min_available}")
        if not self.tree.ready and job.contains_network_topology():
            return "hyperNodes are not ready for scheduling: " + "; ".join(self.tree.errors)
        return ""

    def _pop_job(self, queue: list[Job]) -> Job:
        best = 0
        for i in range(1, len(queue)):
            if self._job_before(queue[i], queue[best]):
                best = i
        return queue.pop(best)

    def _job_before(self, a: Job, b: Job) -> bool:
        if self.plugins.job_priority_order and a.priority != b.priority:
            return a.priority > b.priority
        if self.plugins.job_order:
            ra, rb = a.is_ready(), b.is_ready()
            if ra != rb:
                return rb  # not-ready jobs first
        if a.order != b.order:
            return a.order < b.order
        return a.uid < b.uid

    # -- worksheets (organizeJobWorksheet) ---------------------------------------------

    def _worksheet(self, job: Job) -> Worksheet:
        key = task_key(self.plugins.task_priority_order)
        counts: dict[str, int] = {}
        waiting = []
        for sub in job.sub_jobs.values():
            if self.sub_job_ready(job, sub):
                counts[sub.gid] = counts.get(sub.gid, 0) + 1
            else:
                waiting.append(sub)
        waiting.sort(key=self._sub_job_key)
        required = set()
        for sub in waiting:
            if counts.get(sub.gid, 0) < job.min_sub_jobs.get(sub.gid, 0):
                required.add(sub.uid)
                counts[sub.gid] = counts.get(sub.gid, 0) + 1
        sheet = Worksheet(required)
        for sub in sorted(job.sub_jobs.values(), key=lambda s: s.uid):
            tasks = [t for t in sub.tasks if t.status == PENDING and not t.gated
                     and not t.best_effort]
            if tasks:
                tasks.sort(key=key)
                sheet.sub_jobs.append(sub)
                sheet.tasks[sub.uid] = tasks
        return sheet

    def _sub_job_key(self, sub: SubJob) -> tuple:
        ready = sub.is_ready() if self.plugins.sub_job_order else False
        return (ready, sub.match_index, sub.uid)

    def _pop_sub_job(self, sheet: Worksheet) -> SubJob:
        best = min(range(len(sheet.sub_jobs)), key=lambda i: (
            sheet.sub_jobs[i].uid not in sheet.required, self._sub_job_key(sheet.sub_jobs[i])))
        return sheet.sub_jobs.pop(best)

    # -- gradients (hyperNodeGradientFn) ------------------------------------------------

    def gradient(self, start: str, highest: int, allocated: str,
                 min_res: Mapping[str, int]) -> list[list[str]]:
        """Eligible HyperNodes under ``start`` grouped by tier, lowest first; raises
        ValueError when a running job's HyperNode leaves no room under ``start``."""
        root = self._search_root(start, highest, allocated)
        by_tier: dict[int, list[str]] = {}
        queue = [root]
        seen = {root}
        i = 0
        while i < len(queue):
            current = queue[i]
            i += 1
            if self._eligible(current, highest, allocated, min_res):
                by_tier.setdefault(self.tree.tiers[current], []).append(current)
            for child in self.tree.children.get(current, ()):
                if child not in seen and child in self.tree.tiers:
                    seen.add(child)
                    queue.append(child)
        return [by_tier[t] for t in sorted(by_tier)]

    def _search_root(self, start: str, highest: int, allocated: str) -> str:
        if not allocated:
            return start
        highest_hn = ""
        for ancestor in self.tree.ancestors(allocated):
            if self.tree.tiers.get(ancestor, highest + 1) > highest:
                break
            highest_hn = ancestor
        if not highest_hn:
            raise ValueError(f"allocated hyperNode {allocated} tier is greater than highest "
                             f"allowed tier {highest}")
        lca = self.tree.lca(start, highest_hn)
        if lca == highest_hn:
            return start
        if lca == start:
            return highest_hn
        raise ValueError(f"there is no intersection between hyperNodeAvailable {start} and "
                         f"hyperNodeHighestAllowed {highest_hn}")

    def _eligible(self, hn: str, highest: int, allocated: str,
                  min_res: Mapping[str, int]) -> bool:
        if self.tree.tiers[hn] > highest:
            return False
        if allocated or hn not in self.hn_idle:
            return True
        return not _le(min_res, self.hn_idle[hn]) or not _le(min_res, self.hn_future[hn])

    def _job_gradient(self, job: Job, start: str) -> list[list[str]]:
        hard, tier = job.hard()
        if hard and self.plugins.nta_gradient:
            return self.gradient(start, tier, job.allocated_hypernode,
                                 job.min_resources_or_empty())
        return [[start]]

    def _sub_gradient(self, sub: SubJob, start: str) -> list[list[str]]:
        hard, tier = sub.hard()
        if hard and self.plugins.nta_gradient:
            return self.gradient(start, tier, sub.allocated_hypernode, sub.min_resources())
        return [[start]]

    # -- allocateForJob / allocateForSubJob ----------------------------------------------

    def _allocate_for_job(self, job: Job, sheet: Worksheet,
                          out: Outcome) -> tuple[list[Op] | None, str]:
        if sheet.empty():
            return None, ""
        try:
            gradients = self._job_gradient(job, ROOT)
        except ValueError as exc:
            out.error = str(exc)
            return None, ""
        snapshot = {s.uid: s.allocated_hypernode for s in job.sub_jobs.values()}
        for level, hypernodes in enumerate(gradients):
            solutions: dict[str, tuple[list[Op], Worksheet, float]] = {}
            for hn in hypernodes:
                job.fit_errors.clear()
                copy = sheet.clone()
                ops: list[Op] = []
                score = 0.0
                while copy.sub_jobs:
                    sub = self._pop_sub_job(copy)
                    sub_ops, sub_score = self._allocate_for_sub_job(
                        job, sub, copy.tasks[sub.uid], hn, out)
                    if sub_ops:
                        ops.extend(sub_ops)
                        score += sub_score
                        if copy.tasks[sub.uid]:
                            copy.sub_jobs.append(sub)
                        if self.job_ready(job):
                            break
                for s in job.sub_jobs.values():
                    s.allocated_hypernode = snapshot[s.uid]
                fits = bool(ops) and (self.job_ready(job) or self.job_pipelined(job))
                out.attempts.append(Attempt(hn, self.tree.tiers[hn], level, len(ops), fits,
                                            score if fits else None,
                                            reason="" if fits else self._reason(job)))
                if fits:
                    solutions[hn] = (ops, copy, score)
                self.discard(ops)
            if not solutions:
                continue
            top = max(s for _, _, s in solutions.values())
            tied = sorted(hn for hn, (_, _, s) in solutions.items() if s == top)
            if len(tied) > 1:
                self.ties.append(f"job {job.uid}: HyperNodes {', '.join(tied)} tie on "
                                 f"score {top:g}")
            best = tied[0]
            ops, copy, _ = solutions[best]
            self.recover(ops)
            sheet.replace(copy)
            return ops, best
        return None, ""

    def _allocate_for_sub_job(self, job: Job, sub: SubJob, tasks: list[Task], start: str,
                              out: Outcome) -> tuple[list[Op] | None, float]:
        if not tasks:
            return None, 0.0
        try:
            gradients = self._sub_gradient(sub, start)
        except ValueError as exc:
            out.error = str(exc)
            return None, 0.0
        for level, hypernodes in enumerate(gradients):
            backups: dict[str, tuple[list[Op], list[Task]]] = {}
            for hn in hypernodes:
                for uid in [u for u in job.fit_errors if job.task_sub_job.get(u) == sub.uid]:
                    del job.fit_errors[uid]
                copy = list(tasks)
                ops = self._allocate_tasks(job, sub, copy, hn)
                if sub.uid != job.default_sub_job or len(gradients) > 1 or \
                        hypernodes != [start]:
                    out.attempts.append(Attempt(hn, self.tree.tiers[hn], level,
                                                len(ops or ()), bool(ops), sub_job=sub.uid,
                                                reason="" if ops else self._reason(job)))
                if ops:
                    backups[hn] = (ops, copy)
                    self.discard(ops)
            if not backups:
                continue
            scores = self.hypernode_scores(sub, sorted(backups))
            top = max(scores.values())
            tied = sorted(hn for hn, s in scores.items() if s == top)
            if len(tied) > 1:
                self.ties.append(f"sub-job {sub.uid}: HyperNodes {', '.join(tied)} tie on "
                                 f"score {top:g}")
            best = tied[0]
            ops, copy = backups[best]
            self.recover(ops)
            sub.allocated_hypernode = self.tree.lca(sub.allocated_hypernode, best)
            tasks[:] = copy
            return ops, top
        return None, 0.0

    def _reason(self, job: Job) -> str:
        for task in job.tasks:
            fe = job.fit_errors.get(task.uid)
            if fe is not None:
                return f"{task.name}: {fe.message()}"
        return ""

    # -- allocateResourcesForTasks ------------------------------------------------------

    def _allocate_tasks(self, job: Job, sub: SubJob, tasks: list[Task],
                        hn: str) -> list[Op] | None:
        nodes = self.sorted_nodes.get(hn, [])
        if not nodes:
            return None
        ops: list[Op] = []
        allocated_hn = sub.allocated_hypernode
        with_topology = sub.network_topology is not None
        while tasks:
            task = tasks.pop(0)
            if task.gated:
                continue
            if task.role and task.role in job.failed_roles(sub.uid):
                fe = FitErrors(err=ROLE_FAILED.format(task.name, task.role))
                job.fit_errors[task.uid] = fe
                continue
            feasible, fe = self._predicate_nodes(task, nodes)
            if not feasible:
                if hn != ROOT:
                    fe.hypernode = hn
                job.fit_errors[task.uid] = fe
                if job.need_continue_allocating(sub):
                    continue
                break
            best, pipelined = self._prioritize(task, feasible, sub,
                                               allocated_hn if with_topology else "")
            if best is None:
                continue
            self._apply(task, best, pipelined)
            ops.append((task, best, pipelined))
            if with_topology:
                leaf = self.tree.leaf_of.get(best, "")
                if leaf:
                    allocated_hn = self.tree.lca(leaf, allocated_hn)
            if self.sub_job_ready(job, sub):
                break
        if self.sub_job_ready(job, sub) or self.sub_job_pipelined(job, sub):
            return ops
        self.discard(ops)
        return None

    def _predicate_nodes(self, task: Task, nodes: Sequence[str]
                         ) -> tuple[list[str], FitErrors]:
        fe = FitErrors()
        feasible = []
        for node in nodes:
            future = self._future_idle(node)
            short = _le(task.request, future)
            if short:
                fe.nodes[node] = [INSUFFICIENT + short[0]]
                continue
            reasons = self.sim.predicate(task, node)
            if reasons:
                fe.nodes[node] = reasons
                continue
            feasible.append(node)
        return feasible, fe

    def _idle(self, node: str) -> dict[str, int]:
        return _sub(self.sim.allocatable(node), self.sim.used(node))

    def _future_idle(self, node: str) -> dict[str, int]:
        idle = self._idle(node)
        for k, v in self.sim.releasing(node).items():
            idle[k] = idle.get(k, 0) + v
        return idle

    def _prioritize(self, task: Task, feasible: Sequence[str], sub: SubJob,
                    allocated_hn: str) -> tuple[str | None, bool]:
        idle = [n for n in feasible if not _le(task.request, self._idle(n))]
        future = [n for n in feasible if n not in set(idle)] if len(idle) < len(feasible) \
            else []
        for group, pipelined in ((idle, False), (future, True)):
            if not group:
                continue
            if len(group) == 1:
                return group[0], pipelined
            scores = dict.fromkeys(group, 0.0)
            for node, s in self.sim.scores(task, group).items():
                scores[node] += s
            if self.plugins.nta_node_order:
                for node, s in self.node_scores(task, group, sub, allocated_hn).items():
                    scores[node] += s
            top = max(scores.values())
            tied = sorted(n for n in group if scores[n] == top)
            if len(tied) > 1:
                self.ties.append(f"task {task.uid}: nodes {', '.join(tied[:5])}"
                                 f"{' ...' if len(tied) > 5 else ''} tie on score {top:g}")
            return tied[0], pipelined
        return None, False

    # -- network-topology-aware scores --------------------------------------------------

    def _scale(self, score: float) -> float:
        return MAX_NODE_SCORE * self.plugins.nta_weight * score

    def node_scores(self, task: Task, nodes: Sequence[str], sub: SubJob,
                    allocated_hn: str) -> dict[str, float]:
        """``batchNodeOrderFn``: closeness to the job's HyperNode for network-aware pods,
        the HyperNode bin-packing of every tier for the others."""
        if sub.network_topology is None:
            return self._normal_pod_scores(task, nodes)
        if not allocated_hn:
            return {}
        scores = {n: self._closeness(self.tree.leaf_of.get(n, ""), allocated_hn)
                  for n in nodes}
        top = max(scores.values())
        best = [n for n in nodes if scores[n] == top]
        if len(best) > 1:
            for n in best:
                scores[n] += self._task_num(self.tree.leaf_of.get(n, ""), sub)
        return {n: self._scale(s) for n, s in scores.items()}

    def _closeness(self, hn: str, allocated: str) -> float:
        if not hn or not allocated:
            return 0.0
        if hn == allocated:
            return 1.0
        lca = self.tree.lca(hn, allocated)
        if lca not in self.tree.tiers:
            return 0.0
        return self._tier_score(self.tree.tiers[lca])

    def _tier_score(self, tier: int) -> float:
        low, high = self.tree.min_tier, self.tree.max_tier
        if low == high:
            return 1.0
        if low <= tier <= high:
            return (high - tier) / (high - low)
        return 0.0

    def _task_num(self, hn: str, sub: SubJob) -> float:
        if not sub.tasks:
            return 0.0
        members = self.tree.real_nodes.get(hn, frozenset())
        return sum(1 for t in sub.tasks if t.node and t.node in members) / len(sub.tasks)

    def _normal_pod_scores(self, task: Task, nodes: Sequence[str]) -> dict[str, float]:
        if not self.plugins.normal_pod_binpack:
            return {}
        low, high = self.tree.min_tier, self.tree.max_tier
        weights = {t: self.plugins.normal_pod_fading ** (t - 1) for t in range(low, high + 1)}
        total = sum(weights.values())
        if total <= 0:
            return {}
        by_tier: dict[int, list[str]] = {}
        for hn in sorted(self.tree.tiers):
            by_tier.setdefault(self.tree.tiers[hn], []).append(hn)
        out = {}
        for node in nodes:
            acc = 0.0
            for tier in range(low, high + 1):
                tier_score = 1.0
                for hn in by_tier.get(tier, ()):
                    if node in self.tree.real_nodes.get(hn, ()):
                        tier_score = self._pod_binpack(task, hn)
                        break
                acc += weights[tier] * tier_score
            out[node] = self._scale(acc / total)
        return out

    def _pod_binpack(self, task: Task, hn: str) -> float:
        total = 0.0
        weight = 0
        for name, request in task.request.items():
            w = self.plugins.binpack_weights.get(name)
            if w is None:
                continue
            alloc = self.hn_alloc.get(hn, {}).get(name, 0)
            used = self.hn_used.get(hn, {}).get(name, 0)
            if used + request > alloc:
                return 0.0
            total += w * (used + request) / alloc
            weight += w
        return total / weight if weight > 0 else 0.0

    def binpack_score(self, sub: SubJob, hn: str) -> float:
        """The HyperNode bin-packing score of a sub-job: Σ_r w_r (used_r + request_r) /
        allocatable_r / Σ w_r over the weighted resources the sub-job requests; 0 when
        one does not fit."""
        requests: dict[str, int] = {}
        for task in sub.tasks:
            for name, value in task.request.items():
                if name in self.plugins.binpack_weights:
                    requests[name] = requests.get(name, 0) + value
        total = 0.0
        weight = 0
        for name, request in requests.items():
            w = self.plugins.binpack_weights[name]
            alloc = self.hn_alloc.get(hn, {}).get(name, 0)
            used = self.hn_used.get(hn, {}).get(name, 0)
            if used + request > alloc:
                return 0.0
            total += w * (used + request) / alloc
            weight += w
        return total / weight if weight > 0 else 0.0

    def hypernode_scores(self, sub: SubJob, hypernodes: Sequence[str]) -> dict[str, float]:
        """``HyperNodeOrderFn`` scaled as the session sums it (0 when disabled)."""
        if not self.plugins.nta_hypernode_order:
            return dict.fromkeys(hypernodes, 0.0)
        scores = {hn: self.binpack_score(sub, hn) for hn in hypernodes}
        top = max(scores.values())
        best = [hn for hn in hypernodes if scores[hn] == top]
        if len(best) > 1:
            for hn in best:
                scores[hn] += self._task_num(hn, sub)
        return {hn: self._scale(s) for hn, s in scores.items()}


def _translate(nt: NetworkTopology | None, names: Mapping[str, int]) -> NetworkTopology | None:
    """``translateHighestTierNameToAllowed``: an unknown tier name leaves the constraint
    without a tier, which Volcano then treats as no hard constraint."""
    if nt is None or nt.highest_tier_allowed is not None or not nt.highest_tier_name:
        return nt
    tier = names.get(nt.highest_tier_name)
    if tier is None:
        return nt
    return NetworkTopology(nt.mode, tier)


@dataclass
class Worksheet:
    """``JobWorksheet``: the sub-jobs still to allocate and each one's pending tasks."""

    required: set[str]
    sub_jobs: list[SubJob] = field(default_factory=list)
    tasks: dict[str, list[Task]] = field(default_factory=dict)

    def empty(self) -> bool:
        return not self.sub_jobs

    def clone(self) -> Worksheet:
        return Worksheet(self.required, list(self.sub_jobs),
                         {k: list(v) for k, v in self.tasks.items()})

    def replace(self, other: Worksheet) -> None:
        self.sub_jobs = other.sub_jobs
        self.tasks = other.tasks

