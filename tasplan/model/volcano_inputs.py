"""Volcano's names (API versions, member kinds, annotations) and the snapshot's container of
its objects. The objects themselves (``model/volcano.py``) are imported only when an input
holds a Volcano kind: every run imports this module, few need those."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

HYPERNODE_VERSION = "topology.volcano.sh/v1alpha1"
PODGROUP_VERSION = "scheduling.volcano.sh/v1beta1"
VCJOB_VERSION = "batch.volcano.sh/v1alpha1"
MEMBER_NODE = "Node"
MEMBER_HYPERNODE = "HyperNode"
HARD = "hard"
SOFT = "soft"
# The annotations a pod names its Volcano PodGroup with (the first is what Volcano's
# controllers write), and the one Volcano once recorded the job's HyperNode in (written, no
# longer read, by the newest scheduler).
VOLCANO_GROUP_ANNOTATIONS = ("scheduling.k8s.io/group-name", "scheduling.volcano.sh/group-name")
ALLOCATED_HYPERNODE_ANNOTATION = "volcano.sh/job-allocated-hypernode"
TASK_SPEC_KEY = "volcano.sh/task-spec"
PARTITION_ID_KEY = "volcano.sh/partition-id"


@dataclass(frozen=True, slots=True)
class VolcanoInputs:
    """HyperNodes by name and Volcano PodGroups by group key."""

    # Values: model/volcano.py's HyperNode and VolcanoPodGroup (not imported here).
    hypernodes: Mapping[str, Any] = field(default_factory=dict)
    podgroups: Mapping[str, Any] = field(default_factory=dict)


NO_VOLCANO = VolcanoInputs()
