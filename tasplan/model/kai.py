"""KAI-Scheduler's objects, reduced to what its Allocate action reads.

``Topology`` (``kai.scheduler/v1alpha1``, cluster-scoped): ``spec.levels[]`` top first, each a
node label with an optional alias. ``PodGroup`` (``scheduling.run.ai/v2alpha2``): minMember or
minSubGroup, a topology constraint, and a tree of subgroups that may carry their own. Pods join
a PodGroup through the ``pod-group-name`` annotation and a subgroup through the
``kai.scheduler/subgroup-name`` label (upstream ``pkg/common/constants/constants.go`` and
``pkg/apis/scheduling/v2alpha2/podgroup_types.go`` at d5bc503a). Its names and the snapshot's
container (``KaiInputs``) are in ``kai_inputs``, re-exported here: a run imports this module
only when an input holds a KAI kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tasplan.model.kai_inputs import (  # noqa: F401 (re-exported)
    DEFAULT_SUBGROUP,
    GPU,
    MIG_PREFIX,
    MIN_MEMBER_ANNOTATION,
    NO_KAI,
    NODE_POOL_LABEL,
    POD_GROUP_ANNOTATION,
    POD_GROUP_API,
    PREFERRED_ANNOTATION,
    QUEUE_LABEL,
    REQUIRED_ANNOTATION,
    ROOT,
    SCHEDULER_NAME,
    SEGMENT_ANNOTATIONS,
    SUBGROUP_LABEL,
    TASK_PRIORITY_LABEL,
    TOPOLOGY_ANNOTATION,
    TOPOLOGY_API,
    KaiInputs,
)
from tasplan.model.source import Source


@dataclass(frozen=True, slots=True)
class TopologyLevel:
    node_label: str
    alias: str = ""


@dataclass(frozen=True, slots=True)
class KaiTopology:
    name: str
    levels: tuple[TopologyLevel, ...]  # outermost first
    source: Source

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(level.node_label for level in self.levels)

    def aliases(self) -> Mapping[str, str]:
        return {level.alias: level.node_label for level in self.levels if level.alias}

    def resolve(self, level: str) -> str:
        """An alias names its node label; anything else passes through unchanged
        (upstream ``TopologyConstraintInfo.ResolveAliases``)."""
        return self.aliases().get(level, level)


@dataclass(frozen=True, slots=True)
class Constraint:
    """``topologyConstraint``: the Topology's name and the levels, as written (an alias or
    a node label). An empty ``topology`` means no constraint, whatever the levels say
    (upstream ``getJobTopology``)."""

    topology: str = ""
    required: str = ""
    preferred: str = ""

    @property
    def active(self) -> bool:
        return bool(self.topology)


@dataclass(frozen=True, slots=True)
class SubGroup:
    name: str
    min_member: int | None
    min_subgroup: int | None
    parent: str | None
    constraint: Constraint | None


@dataclass(frozen=True, slots=True)
class KaiPodGroup:
    """A ``scheduling.run.ai`` PodGroup, or the one KAI's pod grouper would create for a
    workload (``synthesised``; its minMember and constraint then come from the top owner's
    annotations)."""

    namespace: str
    name: str
    min_member: int | None
    min_subgroup: int | None
    queue: str
    priority_class_name: str
    constraint: Constraint
    subgroups: tuple[SubGroup, ...]
    source: Source
    api_version: str = POD_GROUP_API
    preemptibility: str = ""
    synthesised: bool = False
    # The pod grouper's subgroup of each pod (pod name, subgroup), which KAI's pod controller
    # writes into the pods' kai.scheduler/subgroup-name label.
    pod_subgroups: tuple[tuple[str, str], ...] = ()

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def constraints(self) -> list[tuple[str, Constraint]]:
        """Every constraint of the group, with the field path that holds it."""
        out = [("spec.topologyConstraint", self.constraint)] if self.constraint.active else []
        out += [(f"spec.subGroups[{i}].topologyConstraint", sg.constraint)
                for i, sg in enumerate(self.subgroups)
                if sg.constraint is not None and sg.constraint.active]
        return out


@dataclass(frozen=True, slots=True)
class Problem:
    """A rule KAI's admission webhook enforces, broken. ``hard``: the webhook rejects the
    object on create; else it admits it with a warning."""

    field: str
    message: str
    hard: bool = True


