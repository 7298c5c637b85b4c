"""What a KAI plan cannot know or does differently from the cluster, said per group."""

from __future__ import annotations

from collections.abc import Sequence

from tasplan.model.kai import NODE_POOL_LABEL
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.fidelity import Note
from tasplan.schedulers.kai.allocate import Outcome
from tasplan.schedulers.kai.jobs import Job

OFFLINE = Note("kai-offline", (
    "planned as KAI's Allocate action places the PodGroup in a cycle of its own with the "
    "default scheduler configuration (binpack for GPUs and CPUs, all nodes in one node pool): "
    "queue quotas and fair-share order, the consolidation, reclaim and preempt actions and "
    "resources of pods being deleted (KAI pipelines onto them) are not known offline"))


def kai_notes(job: Job, outcome: Outcome, pending: Sequence[Pod], snapshot: ClusterSnapshot,
              extra: Sequence[Note] = (), releasing: int = 0) -> tuple[Note, ...]:
    """``releasing``: bound pods of the cluster being deleted."""
    notes = [*extra, OFFLINE]
    if releasing:
        notes.append(Note("kai-releasing", (
            f"{releasing} bound pod(s) are being deleted: KAI counts their resources as "
            "releasing and may place pods on them to start once they are gone (pipelining); "
            "tasplan counts them as used")))
    steps = outcome.steps
    if len(steps) > 1 or (outcome.allocated and len(outcome.assigned) < len(pending)):
        gang = len(steps[0].tasks)
        notes.append(Note("kai-elastic", (
            f"KAI allocates the gang ({gang} pod(s)) first, then the other pods one at a time, "
            "putting the PodGroup back in its queue after each: other jobs may be placed in "
            "between; tasplan places them right after the gang")))
    for step in steps:
        for trace in step.traces:
            subset = trace.subset
            if subset.lca_below_required and not subset.candidates and subset.lca is not None:
                what = f"subgroup {trace.subgroup}" if trace.subgroup else "the PodGroup"
                notes.append(Note("kai-free-capacity", (
                    f"KAI sums free capacity only below the lowest common domain of the nodes "
                    f"{what} may use ({subset.lca.level}={subset.lca.id}), which lies below "
                    "its required level: every domain of the required level counts as empty "
                    "(upstream behaviour, planned as is)")))
    if outcome.allocated:
        chosen: dict[str, str] = {}  # the last try of each subgroup is the one kept
        for trace in steps[0].traces:
            domain = next((x.domain for x in trace.tries if x.ok), None)
            if trace.subgroup and domain is not None:
                chosen[trace.subgroup] = domain
        if chosen:
            notes.append(Note("kai-subgroups", "subgroups placed by their own constraints: "
                              + ", ".join(f"{k} in {v!r}" for k, v in chosen.items())))
    if job.invalid:
        shown = ", ".join(p.key for p in job.invalid[:3]) + (
            f" and {len(job.invalid) - 3} more" if len(job.invalid) > 3 else "")
        notes.append(Note("kai-subgroup", (
            f"{len(job.invalid)} pod(s) name no subgroup of the PodGroup "
            f"(kai.scheduler/subgroup-name): KAI never schedules them: {shown}")))
    if any(p.pod_affinity is not None and (p.pod_affinity.preferred or
                                            p.pod_affinity.preferred_anti) for p in pending):
        notes.append(Note("kai-pod-affinity-score", (
            "the pods have preferred pod (anti-)affinity: KAI's podaffinity plugin scores it "
            "above every other node score; tasplan orders nodes without it")))
    if any(NODE_POOL_LABEL in n.labels for n in snapshot.nodes):
        notes.append(Note("kai-node-pool", (
            f"some nodes carry {NODE_POOL_LABEL}: a KAI shard schedules only its node pool's "
            "nodes; tasplan plans on every node")))
    return tuple(notes)
