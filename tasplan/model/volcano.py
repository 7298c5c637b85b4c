"""Volcano objects as tasplan reads them: HyperNodes (``topology.volcano.sh/v1alpha1``),
``scheduling.volcano.sh/v1beta1`` PodGroups and what a vcjob (``batch.volcano.sh/v1alpha1``
Job) makes of its PodGroup (field meanings: volcano ``staging/src/volcano.sh/apis``, commit
ed72c7c815a9fd547a787134676f73d42e9d049c). Its names and the snapshot's container
(``VolcanoInputs``) are in ``volcano_inputs``, re-exported here: a run imports this module only
when an input holds a Volcano kind."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tasplan.model.pod_affinity import LabelSelector
from tasplan.model.source import Source
from tasplan.model.volcano_inputs import (  # noqa: F401 (re-exported)
    ALLOCATED_HYPERNODE_ANNOTATION,
    HARD,
    HYPERNODE_VERSION,
    MEMBER_HYPERNODE,
    MEMBER_NODE,
    NO_VOLCANO,
    PARTITION_ID_KEY,
    PODGROUP_VERSION,
    SOFT,
    TASK_SPEC_KEY,
    VCJOB_VERSION,
    VOLCANO_GROUP_ANNOTATIONS,
    VolcanoInputs,
)


@dataclass(frozen=True, slots=True)
class Member:
    """One ``spec.members[]`` entry: exactly one of ``exact``, ``regex`` or ``labels``."""

    type: str
    exact: str | None = None
    regex: str | None = None
    labels: LabelSelector | None = None


@dataclass(frozen=True, slots=True)
class HyperNode:
    name: str
    tier: int
    members: tuple[Member, ...]
    tier_name: str = ""
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class NetworkTopology:
    """``networkTopology`` of a PodGroup, vcjob or partition/sub-group policy."""

    mode: str
    highest_tier_allowed: int | None = None
    highest_tier_name: str = ""


@dataclass(frozen=True, slots=True)
class SubGroupPolicy:
    """``spec.subGroupPolicy[]`` of a PodGroup (a vcjob task's ``partitionPolicy`` becomes
    one, selecting the task's pods and keyed by their partition label)."""

    name: str
    sub_group_size: int | None = None
    min_sub_groups: int | None = None
    label_selector: LabelSelector | None = None
    match_label_keys: tuple[str, ...] = ()
    network_topology: NetworkTopology | None = None


@dataclass(frozen=True, slots=True)
class VolcanoPodGroup:
    """The scheduling fields of a Volcano PodGroup; ``key`` is the tasplan group key
    (``<namespace>/<name>``). ``allocated_hypernode`` is the annotation's value, if any."""

    key: str
    min_member: int
    min_task_member: Mapping[str, int] = field(default_factory=dict)
    queue: str = "default"
    min_resources: Mapping[str, int] | None = None
    network_topology: NetworkTopology | None = None
    sub_group_policies: tuple[SubGroupPolicy, ...] = ()
    phase: str = ""
    allocated_hypernode: str = ""
    from_vcjob: bool = False


