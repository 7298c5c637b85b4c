"""Which groups enter a cycle, as kube-scheduler's queue decides: the pods it schedules
(not terminal, not being deleted, not held by scheduling gates), the profile of their
schedulerName, and upstream's ``validatePodGroup``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from tasplan.framework.types import GroupContext
from tasplan.model.group import PodGroup
from tasplan.model.pod import DEFAULT_SCHEDULER, Pod
from tasplan.plan.admission import Admission
from tasplan.plan.result import GroupResult
from tasplan.plan.state import PlanState
from tasplan.target import GENERIC_WORKLOAD, POD_GROUP_PREEMPTION_POLICY


def admit(state: PlanState, group: PodGroup, pods: Sequence[Pod]) -> Admission:
    """``pods``: the group's pods still in the cluster (not terminal, not evicted)."""
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
                             group_policy=target.enabled(POD_GROUP_PREEMPTION_POLICY))
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


def validate_group(group: PodGroup, pending: list[Pod], scheduled: Sequence[Pod] = (),
                   *, group_policy: bool = False) -> str | None:
    """Upstream ``validatePodGroup``: the pending pods share one schedulerName and
    preemption policy, and every pod, pending or already scheduled, has the group's
    priority (a PodGroup without a priority has priority 0). With PodGroupPreemptionPolicy
    (``group_policy``) the pods' preemption policy must be the PodGroup's."""
    for what, value in (("spec.schedulerName", lambda p: p.scheduler_name),
                        ("priority", lambda p: p.priority),
                        ("spec.preemptionPolicy", lambda p: p.preemption_policy)):
        seen = Counter(value(p) for p in pending)
        if len(seen) > 1:
            counts = ", ".join(f"{v} ({n} pod(s))" for v, n in sorted(seen.items(), key=str))
            return f"invalid pod group: its pods must share one {what}, found {counts}"
    if group.kind == "PodGroup" or group.priority is not None:
        priority = group.priority or 0
        for pod in [*pending, *scheduled]:
            if pod.priority != priority:
                state = "pending" if not pod.node_name else "scheduled"
                return (f"invalid pod group: {state} pod {pod.key} has priority "
                        f"{pod.priority}, the group has priority {priority}")
    if group_policy and pending:
        wanted = group.preemption_policy or "PreemptLowerPriority"
        if pending[0].preemption_policy != wanted:
            return (f"invalid pod group: its pods have spec.preemptionPolicy "
                    f"{pending[0].preemption_policy}, the group has {wanted}")
    return None


def scheduler_name(pods: list[Pod]) -> str:
    """The scheduler a group's pods ask for (its first pending pod's)."""
    pod = next((p for p in pods if not p.node_name), pods[0] if pods else None)
    return pod.scheduler_name if pod is not None else DEFAULT_SCHEDULER


def not_handled(name: str) -> str:
    return (f'not planned: no scheduler profile "{name}" (the spec.schedulerName of its pods); '
            "kube-scheduler leaves such pods to another scheduler")
