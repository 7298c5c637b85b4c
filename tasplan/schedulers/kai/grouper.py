"""The PodGroup KAI plans a group as: the ``scheduling.run.ai`` PodGroup of the group's name
when the inputs hold one, else the one KAI's pod grouper would create for its pods' top
owner (``pkg/podgrouper/podgrouper/plugins``: the default grouper gives minMember 1, the
Job grouper ``kai.scheduler/batch-min-member`` or 1, and every grouper copies the owner's
``kai.scheduler/topology*`` annotations into the topology constraint)."""

from __future__ import annotations

from collections.abc import Sequence

from tasplan.model.group import PodGroup
from tasplan.model.kai import Constraint, KaiPodGroup
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.fidelity import Note


def pod_group_for(group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot
                  ) -> tuple[KaiPodGroup, tuple[Note, ...]]:
    spec = snapshot.kai.pod_groups.get(group.key)
    if spec is not None:
        return spec, ()
    synthesised = KaiPodGroup(group.namespace, group.key.rsplit("/", 1)[-1], 1, None, "", "",
                              Constraint(), (), group.source, synthesised=True)
    return synthesised, (Note("kai-podgrouper", (
        f"no scheduling.run.ai PodGroup {group.key} in the inputs: planned as the one KAI's "
        "pod grouper makes for a workload without annotations, minMember 1 and no topology "
        "constraint; the pods beyond the first are allocated one at a time")),)
