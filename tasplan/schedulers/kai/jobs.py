"""A KAI PodGroup as its scheduler holds it: a tree of subgroup sets with pod sets at the
leaves, the pods of each, and which of them to allocate next.

Mirrors ``pkg/scheduler/api/podgroup_info/subgroup_info/{factory,subgroupset,podset}.go``,
``podgroup_info/{job_info,allocation_info}.go`` and the ``subgrouporder`` / ``taskorder``
plugins at d5bc503a:

* no subgroups: one pod set ``default`` with minMember (1 when unset) holding every pod;
  with subgroups: leaves are pod sets (minMember, 0 when unset), inner ones subgroup sets
  (minSubGroup, all children when unset); pods join by the subgroup label, and a pod whose
  subgroup does not exist is never scheduled;
* a set is satisfied when enough members are (pods running or allocated); until the root
  is, the tasks to allocate are the missing ones of every unsatisfied member it needs
  (gang phase), then one pod at a time from the least-satisfied member (elastic phase);
* members in order: unsatisfied first, then required before optional, lower allocation
  ratio first, then by name; tasks by the ``kai.scheduler/task-priority`` label (higher
  first), then by creation (tasplan: input order).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from tasplan.limits import INT64_MAX, INT64_MIN
from tasplan.model.kai import (
    DEFAULT_SUBGROUP,
    SUBGROUP_LABEL,
    TASK_PRIORITY_LABEL,
    Constraint,
    KaiPodGroup,
    KaiTopology,
)
from tasplan.model.pod import Pod

_ATOI = re.compile(r"^[+-]?[0-9]+$")


@dataclass(eq=False)
class PodSet:
    name: str
    min_available: int
    constraint: Constraint | None
    parent: SubGroupSet | None = None
    pods: list[Pod] = field(default_factory=list)
    # Allocated in this plan or running before it: the set's active allocated pods.
    active: dict[int, str] = field(default_factory=dict)  # id(pod) -> node name

    @property
    def minimum(self) -> int:
        return self.min_available

    def satisfied_members(self) -> int:
        return len(self.active)

    def satisfied(self) -> bool:
        return len(self.active) >= self.min_available

    def pending(self) -> list[Pod]:
        """Pods to allocate, in task order."""
        return sorted((p for p in self.pods if schedulable(p) and id(p) not in self.active),
                      key=task_order)

    def ready(self) -> bool:
        """Upstream ``IsReadyForScheduling``: alive pods that are not gated reach minMember."""
        return sum(1 for p in self.pods if not p.terminal and not p.scheduling_gates) \
            >= self.min_available


@dataclass(eq=False)
class SubGroupSet:
    name: str
    min_subgroup: int | None
    constraint: Constraint | None
    parent: SubGroupSet | None = None
    groups: list[SubGroupSet] = field(default_factory=list)
    podsets: list[PodSet] = field(default_factory=list)

    @property
    def members(self) -> list[SubGroupSet | PodSet]:
        return [*self.groups, *self.podsets]

    @property
    def minimum(self) -> int:
        return len(self.members) if self.min_subgroup is None else self.min_subgroup

    def satisfied_members(self) -> int:
        return sum(1 for m in self.members if m.satisfied())

    def satisfied(self) -> bool:
        return self.satisfied_members() >= self.minimum

    def ready(self) -> bool:
        return sum(1 for m in self.members if m.ready()) >= self.minimum

    def descendant_podsets(self) -> Iterator[PodSet]:
        yield from self.podsets
        for group in self.groups:
            yield from group.descendant_podsets()


@dataclass(eq=False)
class Job:
    group: KaiPodGroup
    root: SubGroupSet
    podsets: dict[str, PodSet]
    # Pods whose subgroup the PodGroup does not define: KAI never schedules them.
    invalid: list[Pod] = field(default_factory=list)
    # id(pod) -> its pod set.
    owner: dict[int, PodSet] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return self.group.key


def fewest_pods(member: SubGroupSet | PodSet) -> int:
    """The fewest pods that satisfy a member: its minMember, or for a set of subgroups the
    cheapest ``minSubGroup`` of its members (all of them without one)."""
    if isinstance(member, PodSet):
        return member.min_available
    counts = sorted(fewest_pods(m) for m in member.members)
    return sum(counts[:member.minimum])


def schedulable(pod: Pod) -> bool:
    """KAI's ``Pending`` status: not bound, not finished, not gated, not being deleted."""
    return not pod.node_name and not pod.terminal and not pod.scheduling_gates \
        and not pod.deleting


def running(pod: Pod) -> bool:
    return bool(pod.node_name) and not pod.terminal


def task_order(pod: Pod) -> tuple:
    """Upstream ``TaskOrderFn``, then creation (tasplan: input order)."""
    value = pod.labels.get(TASK_PRIORITY_LABEL)
    if value is None:
        return (2, 0, pod.order)
    if not _ATOI.match(value) or not INT64_MIN <= int(value) <= INT64_MAX:
        return (1, 0, pod.order)  # Atoi fails: after the valid ones, before unlabelled
    return (0, -int(value), pod.order)


def resolved(constraint: Constraint | None, topologies: Mapping[str, KaiTopology]
             ) -> Constraint | None:
    """Levels written as aliases become node labels (upstream ``ResolveAliases``)."""
    if constraint is None:
        return None
    topology = topologies.get(constraint.topology)
    if topology is None:
        return constraint
    return Constraint(constraint.topology, topology.resolve(constraint.required),
                      topology.resolve(constraint.preferred))


def build_job(group: KaiPodGroup, pods: Iterable[Pod],
              topologies: Mapping[str, KaiTopology]) -> Job:
    """Upstream ``FromPodGroup`` plus ``AddTaskInfo`` for each pod."""
    root_constraint = group.constraint if group.constraint.active else None
    root = SubGroupSet("", group.min_subgroup, resolved(root_constraint, topologies))
    podsets: dict[str, PodSet] = {}
    if group.subgroups:
        parents = {sg.parent for sg in group.subgroups if sg.parent is not None}
        sets: dict[str, SubGroupSet] = {"": root}
        for sg in group.subgroups:
            constraint = resolved(sg.constraint, topologies)
            if sg.name in parents:
                sets[sg.name] = SubGroupSet(sg.name, sg.min_subgroup, constraint)
            else:
                podsets[sg.name] = PodSet(sg.name, max(sg.min_member or 0, 0), constraint)
        for sg in group.subgroups:  # decoded and validated: parents exist, no cycles
            parent = sets[(sg.parent or "").lower()]
            if sg.name in sets:
                child = sets[sg.name]
                child.parent = parent
                parent.groups.append(child)
            else:
                podset = podsets[sg.name]
                podset.parent = parent
                parent.podsets.append(podset)
    else:
        minimum = 1 if group.min_member is None else group.min_member
        podsets[DEFAULT_SUBGROUP] = PodSet(DEFAULT_SUBGROUP, minimum, None, root)
        root.podsets.append(podsets[DEFAULT_SUBGROUP])
    job = Job(group, root, podsets)
    routed = dict(group.pod_subgroups)
    for pod in pods:
        name = routed.get(pod.name) or pod.labels.get(SUBGROUP_LABEL) or DEFAULT_SUBGROUP
        podset = podsets.get(name)
        if podset is None:
            if not pod.terminal:
                job.invalid.append(pod)
            continue
        podset.pods.append(pod)
        job.owner[id(pod)] = podset
        if running(pod):
            podset.active[id(pod)] = pod.node_name
    return job


def member_order(member: SubGroupSet | PodSet) -> tuple:
    """Upstream ``SubGroupOrderFn`` as a sort key, the name last (the session's fallback)."""
    count, threshold = member.satisfied_members(), member.minimum
    if count < threshold:
        return (0, 0, 0.0, member.name)
    if threshold == 0:
        return (1, 1, float(count), member.name)
    return (1, 0, count / threshold, member.name)


def ordered(members: Sequence[SubGroupSet | PodSet]) -> list[SubGroupSet | PodSet]:
    return sorted(members, key=member_order)


def tasks_to_allocate(job: Job) -> list[Pod]:
    """Upstream ``GetTasksToAllocate`` for a real allocation."""
    return _from_set(job.root)


def _from_set(sgs: SubGroupSet) -> list[Pod]:
    children = ordered(sgs.members)
    if not sgs.satisfied():
        tasks: list[Pod] = []
        for child in children[:sgs.minimum]:
            if isinstance(child, SubGroupSet):
                if not child.satisfied():
                    tasks += _from_set(child)
            elif not child.satisfied():
                tasks += _from_podset(child)
        return tasks
    for child in children:
        tasks = _from_set(child) if isinstance(child, SubGroupSet) else _from_podset(child)
        if tasks:
            return tasks
    return []


def _from_podset(ps: PodSet) -> list[Pod]:
    pending = ps.pending()
    if not pending:
        return []
    if len(ps.active) >= ps.min_available:
        return pending[:1]
    return pending[:ps.min_available - len(ps.active)]
