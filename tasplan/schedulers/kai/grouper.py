"""The PodGroup KAI plans a group as: the ``scheduling.run.ai`` PodGroup of the group's name
when the inputs hold one, else the one KAI's pod grouper would create for its pods' top
owner (``pkg/podgrouper/podgrouper/plugins``, KAI d5bc503a: the default grouper gives
minMember 1 and copies the owner's ``kai.scheduler/topology*`` annotations into the topology
constraint; the Job grouper takes minMember from ``kai.scheduler/batch-min-member``). The
groupers of other kinds (JobSet, the Kubeflow jobs, LeaderWorkerSet, Ray, Grove, ...) add
minimums and subgroups of their own: not modelled, said in note kai-podgrouper."""

from __future__ import annotations

from collections.abc import Sequence

from tasplan.model.group import Expansion, PodGroup
from tasplan.model.kai import Constraint, KaiPodGroup
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.fidelity import Note

TOPOLOGY = "kai.scheduler/topology"
REQUIRED = "kai.scheduler/topology-required-placement"
PREFERRED = "kai.scheduler/topology-preferred-placement"
MIN_MEMBER = "kai.scheduler/batch-min-member"
_MODELLED = ("Job",)


def pod_group_for(group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot
                  ) -> tuple[KaiPodGroup, tuple[Note, ...]]:
    spec = snapshot.kai.pod_groups.get(group.key)
    if spec is not None:
        return spec, ()
    owner = _top_owner(group)
    name = group.key.rsplit("/", 1)[-1]
    if owner is None:
        return KaiPodGroup(group.namespace, name, 1, None, "", "", Constraint(), (),
                           group.source, synthesised=True), (Note("kai-podgrouper", (
            f"no scheduling.run.ai PodGroup {group.key} in the inputs: planned as the one "
            "KAI's pod grouper makes for a workload without annotations, minMember 1 and no "
            "topology constraint; the pods beyond the first are allocated one at a time")),)
    constraint = Constraint(owner.annotation(TOPOLOGY) or "", owner.annotation(REQUIRED) or "",
                            owner.annotation(PREFERRED) or "")
    minimum, said = 1, "minMember 1"
    override = owner.annotation(MIN_MEMBER)
    if owner.kind == "Job" and override is not None:
        try:
            minimum, said = int(override), f"minMember {override} ({MIN_MEMBER})"
        except ValueError:
            said = (f"minMember 1 (KAI's pod grouper fails on {MIN_MEMBER}={override!r} "
                    "and makes no PodGroup: the pods would stay pending)")
    kind_note = "" if owner.kind in _MODELLED else (
        f"; KAI's grouper for a {owner.kind} may set a larger minMember and subgroups, "
        "not modelled: write a scheduling.run.ai PodGroup to plan them")
    has_topology = constraint.required or constraint.preferred
    return KaiPodGroup(group.namespace, name, minimum, None, "", "", constraint, (),
                       group.source, synthesised=True), (Note("kai-podgrouper", (
        f"no scheduling.run.ai PodGroup {group.key} in the inputs: planned as the one KAI's "
        f"pod grouper makes from {owner.kind} {owner.name}: {said}, "
        + (f"topology {constraint.topology or '(none)'} required "
           f"{constraint.required or '-'} preferred {constraint.preferred or '-'} "
           "(its kai.scheduler/topology* annotations)" if has_topology
           else "no topology constraint") + kind_note)),)


def _top_owner(group: PodGroup) -> Expansion | None:
    """The object KAI's pod grouper reads: the one the group's pods were expanded from,
    when it is their top owner (nothing it was expanded through)."""
    if len(group.expansions) != 1 or group.expansions[0].via:
        return None
    return group.expansions[0]
