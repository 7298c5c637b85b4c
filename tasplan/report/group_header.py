"""The line under a group's name: what its scheduler plans. kube-scheduler plans a PodGroup
(policy, minCount, topology key); Kueue plans a workload (its queue and PodSets, each with
its count and topology request). One text for the table, explain and the HTML report."""

from __future__ import annotations

from tasplan.plan.result import GroupResult, PlacementResult, PodSetView, WorkloadView


def group_header(g: GroupResult, *, wide: bool = False) -> str:
    counts = f"pending={g.pending} scheduled={g.scheduled}"
    if g.workload is not None:
        return (f"{g.group.kind} · {g.scheduler} {_workload(g.workload, wide)} · "
                f"{', '.join(pod_set_text(ps) for ps in g.workload.pod_sets) or 'no PodSets'}"
                f" · {counts}")
    group = g.group
    return (f"{group.kind} · {group.policy.value} minCount={group.min_count} · "
            f"topology={g.topology_request or group.topology_key or '(none)'} · {counts}")


def _workload(w: WorkloadView, wide: bool) -> str:
    parts = [f"queue={w.queue or '(none)'}"]
    if wide:
        parts += [f"clusterQueue={w.cluster_queue or '(none)'}",
                  f"flavor={w.flavor or '(none)'}"]
    if w.workload is not None and (wide or w.admitted):
        parts.append(f"workload={w.workload}" + (" (admitted)" if w.admitted else ""))
    return " ".join(parts)


def pod_set_text(ps: PodSetView) -> str:
    """``workers=6 required=<label> slice=3@<label>``; ``(2 pending)`` when some of its
    pods run already."""
    parts = [f"{ps.name}={ps.count}" + (f" ({ps.pending} pending)"
                                        if ps.pending != ps.count else "")]
    if ps.mode == "unconstrained":
        parts.append("unconstrained" + (" (TAS-only queue)" if ps.implied else ""))
    elif ps.mode is not None:
        parts.append(f"{ps.mode}={ps.level}")
    if ps.slices:
        parts.append("slice=" + ",".join(f"{size}@{level}" for level, size in ps.slices))
    if ps.group is not None:
        parts.append(f"group={ps.group}")
    return " ".join(parts)


def pods_cell(g: GroupResult, p: PlacementResult) -> str:
    """A placement's PODS cell: placed of pending, and the gang's minimum for a PodGroup
    (a Kueue workload is admitted whole: no minimum to show)."""
    if g.workload is not None:
        return f"{p.placed}/{g.pending}"
    return f"{p.placed}/{g.pending} (min {max(g.group.min_count - g.scheduled, 0)})"
