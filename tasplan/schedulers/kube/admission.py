"""Which groups enter a cycle, as kube-scheduler's queue decides: the pods it schedules
(not terminal, not being deleted, not held by scheduling gates), the profile of their
schedulerName, and upstream's ``validatePodGroup``."""

from __future__ import annotations

import json
from collections.abc import Sequence

from tasplan.framework.types import GroupContext
from tasplan.model.composite import CompositePodGroup
from tasplan.model.group import PodGroup
from tasplan.model.pod import DEFAULT_SCHEDULER, Pod
from tasplan.plan.admission import Admission
from tasplan.plan.result import GroupResult
from tasplan.plan.state import PlanState
from tasplan.target import (
    GENERIC_WORKLOAD,
    HIERARCHY,
    POD_GROUP_PREEMPTION_POLICY,
    SCHEDULER_NAME,
    Target,
)

PREEMPT_LOWER = "PreemptLowerPriority"


def admit(state: PlanState, group: PodGroup, pods: Sequence[Pod], *,
          validate: bool = True) -> Admission:
    """``pods``: the group's pods still in the cluster (not terminal, not evicted).
    ``validate``: check the group alone (a tree's leaves are checked with their tree)."""
    target = state.target
    # The scheduler skips pending pods that are being deleted.
    waiting = sorted((p for p in pods if not p.node_name and not p.deleting),
                     key=lambda p: (-p.priority, p.order))
    # Pods held by scheduling gates never enter a cycle (SchedulingGates PreEnqueue).
    pending = [p for p in waiting if not p.scheduling_gates]
    gated = len(waiting) - len(pending)
    scheduled = tuple((p, p.node_name) for p in pods if p.node_name)
    name = scheduler_name(list(pods))
    counts = (group, len(pending), len(scheduled), False)
    same = {"scheduler_name": name, "gated": gated}
    if not target.enabled(GENERIC_WORKLOAD):
        return Admission.held(GroupResult(
            *counts, f"not planned: the {GENERIC_WORKLOAD} feature gate is off in "
            f"Kubernetes {target.version}, so kube-scheduler has no pod-group cycle and "
            "schedules these pods one by one; tasplan plans pod groups only",
            planned=False, **same))
    # Without pending pods there is nothing to schedule: any profile reports that.
    fw = state.framework(name if pending else next(iter(state.config.profiles), name))
    if fw is None:
        return Admission.held(GroupResult(*counts, not_handled(name), planned=False, **same))
    invalid = validate_group(group, pending, [p for p, _ in scheduled],
                             target=target) if validate else None
    if invalid:
        return Admission.held(GroupResult(*counts, invalid, error=True, **same))
    return Admission.admitted(fw, GroupContext(group, tuple(pending), scheduled, gated))


def group_priority(group: PodGroup, pods: list[Pod]) -> int:
    """A PodGroup object's priority; one without a priority counts as 0 (upstream
    ``PodGroupPriority``). Groups without a PodGroup object (v1alpha1 Workloads, Jobs
    tasplan groups itself) take their pods' highest priority."""
    if group.priority is not None:
        return group.priority
    if group.kind == "PodGroup":
        return 0
    return max((p.priority for p in pods), default=0)


def validate_group(group: PodGroup, pending: Sequence[Pod], scheduled: Sequence[Pod] = (),
                   *, target: Target) -> str | None:
    """A standalone group, as the release's cycle checks it before scheduling (the group is
    its own root): ``validate_hierarchy`` with no composite."""
    return validate_hierarchy([(group, pending, scheduled)], target=target)


Entry = tuple[PodGroup | CompositePodGroup, Sequence[Pod], Sequence[Pod]]


def validate_hierarchy(entries: Sequence[Entry], *, target: Target) -> str | None:
    """Upstream's checks of a group or a tree before its cycle, with upstream's words; None
    when it may be scheduled. ``entries``: (group, pending pods, scheduled pods), the root
    first, depth first (a composite has no pods).

    - 1.36 (``frameworkForPodGroup`` @008b3652): the pending pods share one schedulerName;
      nothing else (pods of several priorities are scheduled highest first).
    - 1.37 (``validatePodGroup``): every pod, pending or scheduled, has the root's
      priority (a PodGroup or composite without one: 0); the pending pods share one
      schedulerName; the preemption policy is the root's with PodGroupPreemptionPolicy,
      else every pod's is the first pod's.
    - 1.38 (main, PR kubernetes#141930): also every group of the tree has the root's
      priority (and, with the gate, its preemption policy); messages name the pods.

    Of scheduled pods only the priority is checked: tasplan does not read their
    schedulerName and preemptionPolicy (upstream checks them too)."""
    release = target.release.group_validation
    pending = [p for _, ps, _ in entries for p in ps]
    if release == SCHEDULER_NAME:
        odd = next((p for p in pending if p.scheduler_name != pending[0].scheduler_name),
                   None)
        return None if odd is None else (
            "all pods in a single pod group should have the same .spec.schedulerName set, "
            f"got: {_q(odd.scheduler_name)} and {_q(pending[0].scheduler_name)}")
    check = _Checks(entries[0][0], pending[0] if pending else None, release == HIERARCHY,
                    target.enabled(POD_GROUP_PREEMPTION_POLICY))
    if check.tree:  # depth first: each group, then its pods
        order = [(g, [(p, True) for p in ps] + [(p, False) for p in done])
                 for g, ps, done in entries]
    else:  # the queued pods, then every leaf's scheduled pods
        order = [(None, [(p, True) for p in pending])]
        order += [(None, [(p, False) for p in done]) for _, _, done in entries]
    for g, pods in order:
        if g is not None and (problem := check.group(g)) is not None:
            return problem
        for pod, is_pending in pods:
            if (problem := check.pod(pod, is_pending)) is not None:
                return problem
    return None


class _Checks:
    """1.37's (``tree`` False) and 1.38's (True) checks against a root and the first
    pending pod; ``group_policy``: PodGroupPreemptionPolicy is on."""

    def __init__(self, root: PodGroup | CompositePodGroup, first: Pod | None, tree: bool,
                 group_policy: bool) -> None:
        self.root, self.first, self.tree, self.group_policy = root, first, tree, group_policy
        self.priority = _priority(root)
        self.policy = (root.preemption_policy or PREEMPT_LOWER) if group_policy else (
            first.preemption_policy if first is not None else PREEMPT_LOWER)
        self.by = "pod group hierarchy" if tree else "single pod group"
        self.whose = "the root pod group's" if tree else "the pod group's"
        self.root_name = f" ({_q(root.key)})" if tree else ""

    def named(self, pod: Pod) -> str:
        return f" ({_q(pod.name)})" if self.tree else ""

    def group(self, g: PodGroup | CompositePodGroup) -> str | None:
        if not self.tree:
            return None
        if self.priority is not None and _priority(g) != self.priority:
            return ("all pod groups in a hierarchy should have the same priority as the root "
                    f"pod group's priority, got {_priority(g)} ({_q(g.key)}) and "
                    f"{self.priority}{self.root_name}")
        policy = g.preemption_policy or PREEMPT_LOWER
        if self.group_policy and policy != self.policy:
            return ("all pod groups in a hierarchy should have the same preemption policy as "
                    f"the root pod group's preemption policy, got {policy} ({_q(g.key)}) and "
                    f"{self.policy}{self.root_name}")
        return None

    def pod(self, pod: Pod, pending: bool) -> str | None:
        first, by = self.first, self.by
        if pending and pod.scheduler_name != first.scheduler_name:
            return (f"all pods in a {by} should have the same .spec.schedulerName set, got: "
                    f"{_q(pod.scheduler_name)}{self.named(pod)} and "
                    f"{_q(first.scheduler_name)}{self.named(first)}")
        if self.priority is not None and pod.priority != self.priority:
            return (f"all pods in a {by} should have the same priority as {self.whose} "
                    f"priority, got {pod.priority}{self.named(pod)} and {self.priority}"
                    f"{self.root_name}")
        if pending and pod.preemption_policy != self.policy:
            if self.group_policy:
                return (f"all pods in a {by} should have the same preemption policy as "
                        f"{self.whose} preemption policy, got {pod.preemption_policy}"
                        f"{self.named(pod)} and {self.policy}{self.root_name}")
            return (f"all pods in a {by} should have the same preemption policy, got "
                    f"{pod.preemption_policy}{self.named(pod)} and {self.policy}"
                    f"{self.named(first)}")
        return None


def _priority(group: PodGroup | CompositePodGroup) -> int | None:
    """Upstream ``PodGroupPriority``: unset counts as 0. None for a group tasplan made up
    (a Job's, a v1alpha1 Workload's) without a priority: nothing to check against."""
    if group.priority is None and group.kind not in ("PodGroup", "CompositePodGroup"):
        return None
    return group.priority or 0


def _q(text: str) -> str:
    """Go's %q for the texts these messages quote."""
    return json.dumps(text, ensure_ascii=False)


def scheduler_name(pods: list[Pod]) -> str:
    """The scheduler a group's pods ask for (its first pending pod's)."""
    pod = next((p for p in pods if not p.node_name), pods[0] if pods else None)
    return pod.scheduler_name if pod is not None else DEFAULT_SCHEDULER


def not_handled(name: str) -> str:
    return (f'not planned: no scheduler profile "{name}" (the spec.schedulerName of its pods); '
            "kube-scheduler leaves such pods to another scheduler")
