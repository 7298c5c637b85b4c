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

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import Protocol

from tasplan.model.quantity import format_quantity
from tasplan.model.volcano import HARD, SOFT, NetworkTopology
from tasplan.schedulers.volcano.hypernodes import ROOT, HyperNodeTree
from tasplan.schedulers.volcano.job import (
    ALLOCATED,
    ALLOCATED_STATUSES,
    PENDING,
    PIPELINED,
    Job,
    SubJob,
    Task,
    task_key,
)

MAX_NODE_SCORE = 100
INSUFFICIENT = "Insufficient "
BEST_EFFORT = ("its pending pods request no resources (BestEffort): Volcano's allocate "
               "action skips them and its backfill action, which tasplan does not model, "
               "places them")
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

    def assume(self, tasks: Sequence[Task], node: str) -> None:
        """``tasks`` (one class) onto ``node``, in order."""
        ...

    def forget(self, tasks: Sequence[Task], node: str) -> None:
        """Undo the latest assumptions: ``tasks`` on ``node``, assumed last, in order."""
        ...

    def scores(self, task: Task, nodes: Sequence[str]) -> Mapping[str, float]:
        """Node-order scores of the other enabled plugins (nodeorder, binpack, ...)."""
        ...

    def task_class(self, task: Task) -> object | None:
        """Tasks of one class have equal requests and get the same ``predicate`` answer on
        a node as long as only other nodes change (None: no such promise, e.g. pods with
        inter-pod rules); their ``scores`` of a node change only when that node does."""
        ...

    def room(self, task: Task, node: str) -> int:
        """How many tasks of ``task``'s class, this one included, ``predicate`` admits on
        ``node`` one after another, resources aside (0 or 1: don't count, ask per task)."""
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
    return [name for name, value in _ordered(request)
            if value > 0 and value > avail.get(name, 0)]


def _ordered(request: Mapping[str, int]) -> list[tuple[str, int]]:
    """cpu, memory, then the others by name (the order Volcano reports shortages in)."""
    return sorted(request.items(), key=lambda kv: (kv[0] not in ("cpu", "memory"),
                                                   kv[0] != "cpu", kv[0]))


def _sub(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) - v
    return out


Sums = tuple[dict[str, int], dict[str, int], dict[str, int]]


def _resource_sums(tree: HyperNodeTree, sim: Simulator) -> dict[str, Sums]:
    """Allocatable, used and releasing resources of every HyperNode's real nodes. A
    HyperNode whose children hold disjoint node sets adds up their sums (children first)
    and only its other nodes one by one."""
    order: list[str] = []
    seen = {ROOT}
    stack = [(ROOT, iter(tree.children.get(ROOT, ())))]
    while stack:  # children before parents
        name, kids = stack[-1]
        child = next(kids, None)
        if child is None:
            stack.pop()
            order.append(name)
        elif child not in seen and child in tree.real_nodes:
            seen.add(child)
            stack.append((child, iter(tree.children.get(child, ()))))
    order = [hn for hn in tree.real_nodes if hn not in seen] + order
    sums: dict[str, Sums] = {}
    for hn in order:
        members = tree.real_nodes.get(hn, frozenset())
        acc: Sums = ({}, {}, {})
        rest: frozenset[str] = members
        kids = [tree.real_nodes[c] for c in tree.children.get(hn, ()) if c in sums]
        if kids:
            union = frozenset().union(*kids)
            if sum(map(len, kids)) == len(union) and union <= members:
                for c in tree.children.get(hn, ()):
                    if c in sums:
                        for into, part in zip(acc, sums[c], strict=True):
                            for k, v in part.items():
                                into[k] = into.get(k, 0) + v
                rest = members - union
        alloc, used, rel = acc
        for n in rest:
            for k, v in sim.allocatable(n).items():
                alloc[k] = alloc.get(k, 0) + v
            for k, v in sim.used(n).items():
                used[k] = used.get(k, 0) + v
            for k, v in sim.releasing(n).items():
                rel[k] = rel.get(k, 0) + v
        sums[hn] = acc
    return sums


class Session:
    """One scheduling cycle over a fixed cluster: jobs are allocated in order, each job's
    committed (or pipelined) tasks stay assumed for the jobs after it."""

    def __init__(self, tree: HyperNodeTree, sim: Simulator, nodes: Sequence[str],
                 plugins: Plugins | None = None, *, batched: bool = True) -> None:
        self.tree = tree
        self.sim = sim
        self.plugins = plugins or Plugins()
        # Place runs of identical tasks on one node by count (``_batch``); False: task by
        # task, as Volcano does (the reference the batched path is tested against).
        self.batched = batched
        self.task_classes: dict[str, object | None] = {}  # task uid -> sim.task_class
        self.classes: dict[object, object] = {}
        self.sub_requests: dict[str, dict[str, int]] = {}  # sub-job uid -> weighted requests
        self.ordered: dict[str, list[tuple[str, int]]] = {}  # task uid -> _ordered(request)
        self.node_names = list(nodes)
        self.ties: list[str] = []
        # HyperNodes the last gradient left out for their idle resources, with the reason
        self.skipped: list[tuple[str, str]] = []
        # job uid -> pods whose node was chosen by name among nodes of equal score
        self.node_ties: dict[str, int] = {}
        # sub-job uid -> HyperNode -> tasks of the sub-job on its nodes (taskNum scores)
        self.hn_tasks: dict[str, dict[str, int]] = {}
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
        for hn, (alloc, used, rel) in _resource_sums(tree, sim).items():
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

    def _apply(self, tasks: Sequence[Task], node: str, pipelined: bool) -> None:
        """Tasks of one job, sub-job and request onto ``node``, in order."""
        tasks[0].owner.set_statuses(tasks, PIPELINED if pipelined else ALLOCATED, node)
        self.sim.assume(tasks, node)
        self._account(tasks[0], node, len(tasks))

    def _account(self, task: Task, node: str, n: int) -> None:
        """``n`` (negative: fewer) tasks like ``task`` on ``node``, in the HyperNode
        resource cache and task counts."""
        counts = self.hn_tasks.get(task.owner.task_sub_job[task.uid])
        request = task.request.items()
        for hn in self.node_hypernodes.get(node, ()):
            used = self.hn_used[hn]
            for k, v in request:
                used[k] = used.get(k, 0) + n * v
            if counts is not None:
                counts[hn] = counts.get(hn, 0) + n

    def _sub_counts(self, sub: SubJob) -> dict[str, int]:
        counts = self.hn_tasks.get(sub.uid)
        if counts is None:
            counts = self.hn_tasks[sub.uid] = {}
            for t in sub.tasks:
                for hn in self.node_hypernodes.get(t.node, ()) if t.node else ():
                    counts[hn] = counts.get(hn, 0) + 1
        return counts

    def discard(self, ops: Sequence[Op]) -> None:
        """Undo ``ops``, the latest operations, last first."""
        runs = list(self._runs(ops))
        for tasks, node, _ in reversed(runs):
            self.sim.forget(tasks, node)
        for tasks, node, _ in runs:
            tasks[0].owner.set_statuses(tasks, PENDING, "")
            self._account(tasks[0], node, -len(tasks))

    def recover(self, ops: Sequence[Op]) -> None:
        for tasks, node, pipelined in self._runs(ops):
            self._apply(tasks, node, pipelined)

    def _runs(self, ops: Sequence[Op]) -> Iterator[tuple[list[Task], str, bool]]:
        """``ops`` cut into the longest runs of one node, status, job, sub-job and task
        class (or, without one, request), in order: the statements change per run."""
        of, classes = self._class, self.task_classes
        i, end = 0, len(ops)
        while i < end:
            task, node, pipelined = ops[i]
            owner, cls = task.owner, of(task)
            subs = owner.task_sub_job
            sub = subs[task.uid]
            j = i + 1
            while j < end:
                other, other_node, other_pipelined = ops[j]
                if other_node != node or other_pipelined != pipelined \
                        or other.owner is not owner or subs[other.uid] != sub \
                        or classes.get(other.uid, of) is not cls \
                        or (cls is None and other.request != task.request):
                    break
                j += 1
            yield [op[0] for op in ops[i:j]], node, pipelined
            i = j

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
                if any(t.status == PENDING and t.best_effort for t in job.tasks):
                    outcomes[job.uid].skipped = BEST_EFFORT
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
        self.skipped = []
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
        """``isEligibleHyperNode``; HyperNodes left out for their idle resources are kept
        in ``skipped`` with tasplan's words for the shortfall."""
        if self.tree.tiers[hn] > highest:
            return False
        if allocated or hn not in self.hn_idle:
            return True
        short = _le(min_res, self.hn_future[hn])
        if not _le(min_res, self.hn_idle[hn]) or not short:
            return True
        r = short[0]
        idle = format_quantity(r, self.hn_future[hn].get(r, 0))
        self.skipped.append((hn, f"not tried: its idle {r} ({idle}) is below the "
                                 f"minResources {r} ({format_quantity(r, min_res[r])})"))
        return False

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
        out.attempts.extend(Attempt(hn, self.tree.tiers[hn], -1, 0, False, reason=reason)
                            for hn, reason in self.skipped)
        self.skipped = []
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
                                 f"score {top:.4g}")
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
            # One candidate: its dry run is kept rather than discarded and recovered (the
            # same state); its score, read from the state before, is taken first.
            single = self.hypernode_scores(sub, hypernodes) if len(hypernodes) == 1 \
                else None
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
                    if single is None:
                        self.discard(ops)
            if not backups:
                continue
            scores = single or self.hypernode_scores(sub, sorted(backups))
            top = max(scores.values())
            tied = sorted(hn for hn, s in scores.items() if s == top)
            if len(tied) > 1:
                self.ties.append(f"sub-job {sub.uid}: HyperNodes {', '.join(tied)} tie on "
                                 f"score {top:.4g}")
            best = tied[0]
            ops, copy = backups[best]
            if single is None:
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
        # Per task class, the nodes' answers so far: within one call nodes only fill, so
        # after a placement only that node is asked again.
        classes: dict[object, _ClassNodes] = {}
        # (node, class, role) of the task placed just before, if the one before it went
        # to the same node: the next ones of that class may be placed by count (_batch).
        last: tuple | None = None
        tasks.reverse()  # pop from the end: the queue's head is the list's tail
        while tasks:
            task = tasks.pop()
            if task.gated:
                last = None
                continue
            if task.role and job.fit_errors and task.role in job.failed_roles(sub.uid):
                fe = FitErrors(err=ROLE_FAILED.format(task.name, task.role))
                job.fit_errors[task.uid] = fe
                last = None
                continue
            cls = self._class(task)
            state = classes.get(cls) if cls is not None else None
            if state is None:
                state = _ClassNodes(task, {n: self._answer(task, n) for n in nodes})
                if cls is not None:
                    classes[cls] = state
            if not state.feasible:
                last = None
                fe = FitErrors(dict(state.failed()), hn if hn != ROOT else "")
                job.fit_errors[task.uid] = fe
                if job.need_continue_allocating(sub):
                    continue
                break
            best, pipelined, tied = self._prioritize(task, state.feasible, state.idle, sub,
                                                     allocated_hn if with_topology else "")
            if best is None:
                last = None
                continue
            placed = [task]
            key = (best, cls, task.role)
            if self.batched and key == last and cls is not None and not pipelined \
                    and not tied:
                placed += self._batch(job, sub, task, best, tasks)
            last = key
            self._apply(placed, best, pipelined)
            ops.extend(zip(placed, repeat(best), repeat(pipelined)))
            for other in classes.values():
                other.update(best, self._answer(other.task, best))
            if with_topology:
                leaf = self.tree.leaf_of.get(best, "")
                if leaf:
                    allocated_hn = self.tree.lca(leaf, allocated_hn)
            if self.sub_job_ready(job, sub):
                break
        tasks.reverse()
        if self.sub_job_ready(job, sub) or self.sub_job_pipelined(job, sub):
            return ops
        self.discard(ops)
        return None

    def _batch(self, job: Job, sub: SubJob, task: Task, node: str,
               tasks: list[Task]) -> list[Task]:
        """The tasks after ``task`` that the per-task loop would also place on ``node``,
        taken off the queue's head (``tasks``' tail).

        Called when the task before ``task`` went to ``node`` too and ``task`` chose it again
        with no other node of equal score (so the job's HyperNode no longer moves). Then the
        next tasks of the same class and role go to ``node`` as long as its idle resources
        and predicates hold them and the sub-job is not ready: each placement raises
        ``node``'s scores (binpack, HyperNode binpack, task share of its HyperNode) at least
        as much as any other node's, and changes no other node's answer. Where that
        argument needs more than the Simulator promises (node-local scores and answers per
        class), no task is taken and the loop goes on task by task."""
        # copies beside ``task`` that the node's idle resources and predicates take
        alloc, used = self.sim.allocatable(node), self.sim.used(node)
        room = min(self.sim.room(task, node) - 1, len(tasks))
        for r, v in task.request.items():
            if v > 0:
                room = min(room, (alloc.get(r, 0) - used.get(r, 0)) // v - 1)
        if sub.network_topology is None and self.plugins.nta_node_order \
                and self.plugins.normal_pod_binpack:
            room = min(room, self._hypernode_room(task, node))
        cls, role, of, classes = self._class(task), task.role, self._class, self.task_classes
        n = 0
        while n < room:
            other = tasks[-1 - n]
            # another role may be failed already (failed_roles): ask for it task by task
            if other.gated or other.role != role:
                break
            other_cls = classes.get(other.uid, of)
            if (other_cls if other_cls is not of else of(other)) is not cls:
                break
            n += 1
        if n <= 0:
            return []
        if self._ready_after(job, task, n + 1):
            low, high = 0, n  # the fewest after which the sub-job is ready
            while low < high:
                mid = (low + high) // 2
                if self._ready_after(job, task, mid + 1):
                    high = mid
                else:
                    low = mid + 1
            n = low
        taken = tasks[len(tasks) - n:]
        del tasks[len(tasks) - n:]
        taken.reverse()
        return taken

    def _class(self, task: Task) -> object | None:
        """``sim.task_class``, one object per class (compared by identity)."""
        cls = self.task_classes.get(task.uid, self)
        if cls is self:
            cls = self.sim.task_class(task)
            if cls is not None:
                cls = self.classes.setdefault(cls, cls)
            self.task_classes[task.uid] = cls
        return cls

    def _hypernode_room(self, task: Task, node: str) -> int:
        """Copies beside ``task`` that keep every HyperNode of ``node`` within its
        allocatable weighted resources (the normal-pod HyperNode binpack score drops to 0
        past it); 0 when ``node`` lies in two HyperNodes of one tier (their scores would
        not move together)."""
        hypernodes = self.node_hypernodes.get(node, ())
        if len({self.tree.tiers.get(hn) for hn in hypernodes}) != len(hypernodes):
            return 0
        room = len(task.owner.tasks)
        for hn in hypernodes:
            alloc, used = self.hn_alloc.get(hn, {}), self.hn_used.get(hn, {})
            for r, v in task.request.items():
                if v > 0 and r in self.plugins.binpack_weights:
                    room = min(room, (alloc.get(r, 0) - used.get(r, 0)) // v - 1)
        return room

    def _ready_after(self, job: Job, task: Task, n: int) -> bool:
        """Whether the sub-job of ``task`` would be ready with ``n`` more tasks like it
        allocated (readiness only grows with allocations)."""
        sub = job.sub_jobs[job.task_sub_job[task.uid]]
        job.shift(task, ALLOCATED, n)
        try:
            return self.sub_job_ready(job, sub)
        finally:
            job.shift(task, ALLOCATED, -n)

    def _answer(self, task: Task, node: str) -> tuple[list[str], bool]:
        """``alloc.predicate`` on one node: the reasons it fails (requests within its future
        idle resources, then the predicates plugin), and whether its idle resources alone
        hold the task."""
        sim = self.sim
        alloc, used, rel = sim.allocatable(node), sim.used(node), sim.releasing(node)
        fits_idle = True
        ordered = self.ordered.get(task.uid)
        if ordered is None:
            ordered = self.ordered[task.uid] = _ordered(task.request)
        for r, v in ordered:
            if v <= 0:
                continue
            free = alloc.get(r, 0) - used.get(r, 0)
            if v > free + rel.get(r, 0):
                return [INSUFFICIENT + r], False
            fits_idle = fits_idle and v <= free
        return sim.predicate(task, node), fits_idle

    def _prioritize(self, task: Task, feasible: Sequence[str], fits_idle: set[str],
                    sub: SubJob, allocated_hn: str) -> tuple[str | None, bool, bool]:
        """``prioritizeNodes``: nodes whose idle resources hold the task first, then those
        that need releasing resources; the best score wins, ties by name. Returns the
        node, whether it needs releasing resources (pipelined), and whether another node
        had its score."""
        if len(fits_idle) == len(feasible):
            idle, future = list(feasible), []
        else:
            idle = [n for n in feasible if n in fits_idle]
            future = [n for n in feasible if n not in fits_idle]
        for group, pipelined in ((idle, False), (future, True)):
            if not group:
                continue
            if len(group) == 1:
                return group[0], pipelined, False
            ext = self.sim.scores(task, group)
            per_node: Mapping[str, float] = {}
            per_leaf: Mapping[str, float] = {}
            if self.plugins.nta_node_order:
                if sub.network_topology is None:
                    per_node = self._normal_pod_scores(task, group)
                elif allocated_hn:
                    per_leaf = self._leaf_scores(group, sub, allocated_hn)
            scores = list(map(ext.get, group, repeat(0.0))) if ext else [0.0] * len(group)
            if per_node:
                scores = [s + per_node.get(n, 0.0) for s, n in zip(scores, group, strict=True)]
            elif per_leaf:
                leaves = map(self.tree.leaf_of.get, group, repeat(""))
                scores = [s + per_leaf.get(leaf, 0.0)
                          for s, leaf in zip(scores, leaves, strict=True)]
            top = max(scores)
            tied = scores.count(top) > 1
            if tied:
                uid = task.owner.uid if task.owner is not None else ""
                self.node_ties[uid] = self.node_ties.get(uid, 0) + 1
            return group[scores.index(top)], pipelined, tied  # sorted by name: the first
        return None, False, False

    # -- network-topology-aware scores --------------------------------------------------

    def _scale(self, score: float) -> float:
        return MAX_NODE_SCORE * self.plugins.nta_weight * score

    def _leaf_scores(self, nodes: Sequence[str], sub: SubJob,
                     allocated_hn: str) -> dict[str, float]:
        """``batchNodeOrderFnForNetworkAwarePods`` per lowest-tier HyperNode (every node of
        one has the same score): the tier of its common ancestor with the job's HyperNode;
        when several nodes share the best, plus the share of the sub-job's tasks there."""
        count = Counter(map(self.tree.leaf_of.get, nodes, repeat("")))
        scores = {leaf: self._closeness(leaf, allocated_hn) for leaf in count}
        top = max(scores.values())
        if sum(count[leaf] for leaf, s in scores.items() if s == top) > 1:
            for leaf, s in scores.items():
                if s == top:
                    scores[leaf] += self._task_num(leaf, sub)
        return {leaf: self._scale(s) for leaf, s in scores.items()}

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
        """``scoreWithTaskNum``: the share of the sub-job's tasks on ``hn``'s nodes."""
        if not sub.tasks or not hn:
            return 0.0
        return self._sub_counts(sub).get(hn, 0) / len(sub.tasks)

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
            if w is None or request <= 0:  # ResourceNames(): what the task requests
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
        requests = self.sub_requests.get(sub.uid)
        if requests is None:
            requests = self.sub_requests[sub.uid] = {}
            for task in sub.tasks:
                for name, value in task.request.items():
                    # ResourceNames(): only what the task requests (> 0)
                    if value > 0 and name in self.plugins.binpack_weights:
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


class _ClassNodes:
    """The predicate answers of one task class on the nodes of one dry run: the feasible
    nodes in name order and those whose idle resources hold the task."""

    def __init__(self, task: Task, answers: dict[str, tuple[list[str], bool]]) -> None:
        self.task = task
        self.answers = answers
        self.feasible = [n for n, (reasons, _) in answers.items() if not reasons]
        self.idle = {n for n in self.feasible if answers[n][1]}

    def failed(self) -> list[tuple[str, list[str]]]:
        return [(n, reasons) for n, (reasons, _) in self.answers.items() if reasons]

    def update(self, node: str, answer: tuple[list[str], bool]) -> None:
        """``node`` changed (a pod was placed there): it can only have become fuller."""
        was = self.answers[node]
        self.answers[node] = answer
        if answer[0] and not was[0]:
            self.feasible.remove(node)
        if not answer[1]:
            self.idle.discard(node)


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

