"""Volcano's view of a gang: a job (one ``scheduling.volcano.sh`` PodGroup), its tasks (pods)
and its sub-jobs, with the gang plugin's readiness rules.

Mirrors volcano ``pkg/scheduler/api/job_info.go`` and ``sub_job_info.go`` (``SetPodGroup``,
``getOrCreateSubJob``, ``ReadyTaskNum``, ``CheckTaskReady``, ``CheckSubJobReady``,
``NeedContinueAllocating``, ``GetMinResources``) and ``plugins/gang/gang.go`` at volcano
commit ``ed72c7c815a9fd547a787134676f73d42e9d049c``. These objects are mutable on purpose:
the allocate action changes task states while it dry-runs and rolls back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cmp_to_key
from typing import Any

from tasplan.model.volcano import HARD, NetworkTopology, SubGroupPolicy

PENDING = "Pending"
ALLOCATED = "Allocated"
PIPELINED = "Pipelined"
RUNNING = "Running"
RELEASING = "Releasing"
SUCCEEDED = "Succeeded"
FAILED = "Failed"
# AllocatedStatus: the statuses that hold resources on a node.
ALLOCATED_STATUSES = frozenset({ALLOCATED, RUNNING, "Bound", "Binding"})
# ReadyTaskNum counts these.
READY_STATUSES = ALLOCATED_STATUSES | {SUCCEEDED}


@dataclass(eq=False)
class Task:
    """One pod. ``request`` is Volcano's ``Resreq`` (= ``InitResreq``) in canonical integers;
    ``payload`` is whatever the caller needs back (tasplan's Pod)."""

    uid: str
    name: str
    request: Mapping[str, int]
    role: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    priority: int = 1
    order: int = 0
    status: str = PENDING
    node: str = ""
    gated: bool = False
    payload: Any = None
    owner: Any = None  # the Job, set when the job is built

    @property
    def best_effort(self) -> bool:
        return not any(self.request.values())

    @property
    def index(self) -> int | None:
        """The pod's index in its vcjob task: the last ``-`` part of a name of 3+ parts
        (``GetPodIndexUnderTask``)."""
        parts = self.name.split("-")
        if len(parts) < 3:
            return None
        try:
            return int(parts[-1])
        except ValueError:
            return None


def task_before(a: Task, b: Task, by_priority: bool = True) -> bool:
    """TaskOrderFn: the priority plugin (higher first) when enabled, then
    ``CompareTask`` (pod index, then creation order - tasplan's input order - then UID)."""
    if by_priority and a.priority != b.priority:
        return a.priority > b.priority
    ia, ib = a.index, b.index
    if ia is None or ib is None or ia == ib:
        if a.order != b.order:
            return a.order < b.order
        return a.uid < b.uid
    return ia < ib


def task_key(by_priority: bool = True):
    """A sort key for TaskOrderFn (``CompareTask`` mixes index and creation order, so it
    is a comparison, not a field order)."""
    def cmp(a: Task, b: Task) -> int:
        if task_before(a, b, by_priority):
            return -1
        return 1 if task_before(b, a, by_priority) else 0
    return cmp_to_key(cmp)


@dataclass(eq=False)
class SubJob:
    gid: str
    uid: str
    min_available: int
    match_index: int = 0
    network_topology: NetworkTopology | None = None
    tasks: list[Task] = field(default_factory=list)
    allocated_hypernode: str = ""

    by_status: dict[str, int] = field(default_factory=dict)
    best_effort_pending: int = 0
    total_request: dict[str, int] | None = None

    def count(self, statuses: frozenset[str]) -> int:
        get = self.by_status.get
        n = 0
        for s in statuses:
            n += get(s, 0)
        return n

    def ready_num(self) -> int:
        return self.count(READY_STATUSES)

    def pending_best_effort(self) -> int:
        return self.best_effort_pending

    def is_ready(self) -> bool:
        return self.ready_num() + self.pending_best_effort() >= self.min_available

    def is_pipelined(self) -> bool:
        return (self.count(frozenset({PIPELINED})) + self.ready_num()
                + self.pending_best_effort()) >= self.min_available

    def hard(self) -> tuple[bool, int]:
        nt = self.network_topology
        if nt is None or nt.highest_tier_allowed is None:
            return False, 0
        return nt.mode == HARD, nt.highest_tier_allowed

    def min_resources(self) -> dict[str, int]:
        """Σ requests of the pending tasks (``SubJobInfo.GetMinResources``); the sum over
        all tasks is kept for when all are pending."""
        every = self.by_status.get(PENDING, 0) == len(self.tasks)
        if every and self.total_request is not None:
            return dict(self.total_request)
        out: dict[str, int] = {}
        for t in self.tasks:
            if t.status == PENDING:
                for r, v in t.request.items():
                    out[r] = out.get(r, 0) + v
        if every:
            self.total_request = dict(out)
        return out



@dataclass(eq=False)
class Job:
    """One PodGroup and its tasks, as ``JobInfo`` after ``SetPodGroup``."""

    uid: str
    namespace: str
    name: str
    min_available: int
    tasks: list[Task]
    task_min_available: Mapping[str, int] = field(default_factory=dict)
    network_topology: NetworkTopology | None = None
    policies: tuple[SubGroupPolicy, ...] = ()
    min_resources: Mapping[str, int] | None = None
    priority: int = 0
    order: int = 0
    queue: str = "default"
    allocated_hypernode: str = ""
    payload: Any = None
    sub_jobs: dict[str, SubJob] = field(default_factory=dict)
    task_sub_job: dict[str, str] = field(default_factory=dict)
    min_sub_jobs: dict[str, int] = field(default_factory=dict)
    # NodesFitErrors: task uid -> fit errors of its last attempt.
    fit_errors: dict[str, Any] = field(default_factory=dict)
    # Task counts by status, and by (role, status): the gang checks read them per task.
    by_status: dict[str, int] = field(default_factory=dict)
    by_role: dict[tuple[str, str], int] = field(default_factory=dict)
    best_effort_roles: dict[str, int] = field(default_factory=dict)
    by_uid: dict[str, Task] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for policy in self.policies:
            self.min_sub_jobs[f"{self.uid}/{policy.name}"] = policy.min_sub_groups or 0
        self.by_uid = {t.uid: t for t in self.tasks}
        for task in self.tasks:
            sub = self._sub_job_for(task)
            sub.tasks.append(task)
            self.task_sub_job[task.uid] = sub.uid
            task.owner = self
            self._tally(task, sub, 1)
            if task.status == PENDING and task.best_effort:
                # allocate skips best-effort tasks: they stay pending
                sub.best_effort_pending += 1
                self.best_effort_roles[task.role] = self.best_effort_roles.get(task.role, 0) + 1

    def _tally(self, task: Task, sub: SubJob, n: int) -> None:
        self._count(task.role, sub, task.status, n)

    def _count(self, role: str, sub: SubJob, status: str, n: int) -> None:
        self.by_status[status] = self.by_status.get(status, 0) + n
        sub.by_status[status] = sub.by_status.get(status, 0) + n
        key = (role, status)
        self.by_role[key] = self.by_role.get(key, 0) + n

    def set_status(self, task: Task, status: str, node: str) -> None:
        """Change a task's status (and node), keeping the counts current."""
        sub = self.sub_jobs[self.task_sub_job[task.uid]]
        self._tally(task, sub, -1)
        task.status = status
        task.node = node
        self._tally(task, sub, 1)

    def set_statuses(self, tasks: Sequence[Task], status: str, node: str) -> None:
        """``set_status`` for many tasks, the counts changed once per (role, sub-job,
        former status)."""
        if not tasks:
            return
        task_sub = self.task_sub_job
        first = tasks[0]
        role, sub_uid, former = first.role, task_sub[first.uid], first.status
        done = 0
        for task in tasks:  # a run of one role, sub-job and status: counted at the end
            if task.status != former or task.role != role or task_sub[task.uid] != sub_uid:
                break
            task.status = status
            task.node = node
            done += 1
        moved: dict[tuple[str, str, str], int] = {(role, sub_uid, former): done}
        for task in tasks[done:]:
            key = (task.role, task_sub[task.uid], task.status)
            moved[key] = moved.get(key, 0) + 1
            task.status = status
            task.node = node
        for (role, sub_uid, former), n in moved.items():
            sub = self.sub_jobs[sub_uid]
            self._count(role, sub, former, -n)
            self._count(role, sub, status, n)

    def shift(self, task: Task, status: str, n: int) -> None:
        """Count ``n`` more tasks like ``task`` (its role and sub-job) as ``status`` and
        ``n`` fewer as its own status, without touching any task: readiness probes."""
        sub = self.sub_jobs[self.task_sub_job[task.uid]]
        self._count(task.role, sub, task.status, -n)
        self._count(task.role, sub, status, n)

    # -- sub-jobs (getOrCreateSubJob) --------------------------------------------------

    @property
    def default_sub_job(self) -> str:
        return self.uid

    def _sub_job_for(self, task: Task) -> SubJob:
        for policy in self.policies:
            values = _match_values(policy, task.labels)
            if values:
                uid = f"{self.uid}/{policy.name}-{'-'.join(values)}"
                if uid not in self.sub_jobs:
                    try:
                        index = int(values[0])
                    except ValueError:
                        index = 0
                    self.sub_jobs[uid] = SubJob(
                        f"{self.uid}/{policy.name}", uid,
                        policy.sub_group_size if policy.sub_group_size is not None else 1,
                        index, policy.network_topology)
                return self.sub_jobs[uid]
        uid = self.default_sub_job
        if uid not in self.sub_jobs:
            size = 1 if self.policies else self.min_available
            self.sub_jobs[uid] = SubJob(uid, uid, size, 0, self.network_topology)
        return self.sub_jobs[uid]

    @property
    def has_policy(self) -> bool:
        return bool(self.policies)

    def hard(self) -> tuple[bool, int]:
        nt = self.network_topology
        if nt is None or nt.highest_tier_allowed is None:
            return False, 0
        return nt.mode == HARD, nt.highest_tier_allowed

    def contains_hard_topology(self) -> bool:
        return self.hard()[0] or any(s.hard()[0] for s in self.sub_jobs.values())

    def contains_network_topology(self) -> bool:
        return self.network_topology is not None or any(
            s.network_topology is not None for s in self.sub_jobs.values())

    # -- counts ------------------------------------------------------------------------

    def count(self, statuses: frozenset[str]) -> int:
        get = self.by_status.get
        n = 0
        for s in statuses:
            n += get(s, 0)
        return n

    def ready_num(self) -> int:
        return self.count(READY_STATUSES)

    def pending_best_effort(self) -> int:
        return sum(self.best_effort_roles.values())

    def is_ready(self) -> bool:
        return self.ready_num() + self.pending_best_effort() >= self.min_available

    def is_pipelined(self) -> bool:
        return (self.count(frozenset({PIPELINED})) + self.ready_num()
                + self.pending_best_effort()) >= self.min_available

    def valid_num(self) -> int:
        return self.count(ALLOCATED_STATUSES | {SUCCEEDED, PIPELINED, PENDING})

    def _roles(self, statuses: frozenset[str], best_effort_pending: bool) -> dict[str, int]:
        out: dict[str, int] = dict(self.best_effort_roles) if best_effort_pending else {}
        for (role, status), n in self.by_role.items():
            if n and status in statuses:
                out[role] = out.get(role, 0) + n
        return out

    def _task_min_total(self) -> int:
        return sum(self.task_min_available.values())

    def check_task_valid(self) -> bool:
        if self.min_available < self._task_min_total():
            return True
        actual = self._roles(ALLOCATED_STATUSES | {SUCCEEDED, PIPELINED, PENDING}, False)
        return all(m == 0 or actual.get(role, 0) >= m
                   for role, m in self.task_min_available.items())

    def _check_task(self, statuses: frozenset[str]) -> bool:
        if not self.task_min_available or self.min_available < self._task_min_total():
            return True
        occupied = self._roles(statuses, True)
        return all(occupied.get(role, 0) >= m for role, m in self.task_min_available.items())

    def check_task_ready(self) -> bool:
        return self._check_task(READY_STATUSES)

    def check_task_pipelined(self) -> bool:
        return self._check_task(READY_STATUSES | {PIPELINED})

    def check_sub_job_valid(self) -> bool:
        present: dict[str, int] = {}
        for s in self.sub_jobs.values():
            present[s.gid] = present.get(s.gid, 0) + 1
        return all(present.get(g, 0) >= m for g, m in self.min_sub_jobs.items())

    def _check_sub_jobs(self, ready) -> bool:
        if not self.min_sub_jobs:
            return True
        done: dict[str, int] = {}
        for s in self.sub_jobs.values():
            done[s.gid] = done.get(s.gid, 0) + (1 if ready(s) else 0)
        return all(m == 0 or done.get(g, 0) >= m for g, m in self.min_sub_jobs.items())

    def check_sub_job_ready(self) -> bool:
        return self._check_sub_jobs(SubJob.is_ready)

    def check_sub_job_pipelined(self) -> bool:
        return self._check_sub_jobs(SubJob.is_pipelined)

    def gang_ready(self) -> bool:
        """The gang plugin's JobReady."""
        return self.check_task_ready() and self.check_sub_job_ready() and self.is_ready()

    def gang_pipelined(self) -> bool:
        return self.check_task_pipelined() and self.check_sub_job_pipelined() \
            and self.is_pipelined()

    def need_continue_allocating(self, sub: SubJob) -> bool:
        """Whether allocation goes on after a task of ``sub`` found no node."""
        if self.min_available == len(self.tasks):
            return False
        if sub.min_available >= len(sub.tasks):
            return False
        if self.has_policy:
            return True
        failed = self.failed_roles(sub.uid)
        if self.min_available < self._task_min_total():
            pending = {role: n for (role, status), n in self.by_role.items()
                       if status == PENDING}
            left = sum(c for role, c in pending.items() if role not in failed)
            return self.ready_num() + left >= self.min_available
        allocated = self._roles(ALLOCATED_STATUSES | {SUCCEEDED}, True)
        return all(allocated.get(role, 0) >= self.task_min_available.get(role, 0)
                   for role in failed if self.task_min_available.get(role, 0))

    def failed_roles(self, sub_uid: str) -> set[str]:
        return {self.by_uid[uid].role for uid in self.fit_errors
                if self.task_sub_job.get(uid) == sub_uid}

    def min_resources_or_empty(self) -> dict[str, int]:
        return dict(self.min_resources or {})



def _match_values(policy: SubGroupPolicy, labels: Mapping[str, str]) -> list[str]:
    """``getSubJobMatchValues``: nothing (the default sub-job) unless the selector matches;
    then the values of every matchLabelKey, all present and non-empty. A policy without
    matchLabelKeys yields no values, so its pods stay in the default sub-job."""
    if policy.label_selector is not None and not policy.label_selector.matches(labels):
        return []
    values = []
    for key in policy.match_label_keys:
        value = labels.get(key, "")
        if not value:
            return []
        values.append(value)
    return values
