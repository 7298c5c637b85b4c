"""KAI-Scheduler's names (its scheduler name, API versions, labels and annotations) and the
snapshot's container of its objects. The objects themselves (``model/kai.py``) are imported
only when an input holds a KAI kind: every run imports this module, few need those."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SCHEDULER_NAME = "kai-scheduler"
TOPOLOGY_API = "kai.scheduler/v1alpha1"
POD_GROUP_API = "scheduling.run.ai/v2alpha2"
POD_GROUP_ANNOTATION = "pod-group-name"
SUBGROUP_LABEL = "kai.scheduler/subgroup-name"
QUEUE_LABEL = "kai.scheduler/queue"
TASK_PRIORITY_LABEL = "kai.scheduler/task-priority"
NODE_POOL_LABEL = "kai.scheduler/node-pool"
# Annotations of the workload's top owner, copied onto the PodGroup by the pod grouper.
TOPOLOGY_ANNOTATION = "kai.scheduler/topology"
REQUIRED_ANNOTATION = "kai.scheduler/topology-required-placement"
PREFERRED_ANNOTATION = "kai.scheduler/topology-preferred-placement"
MIN_MEMBER_ANNOTATION = "kai.scheduler/batch-min-member"
SEGMENT_ANNOTATIONS = ("kai.scheduler/segment-size",
                       "kai.scheduler/segment-topology-required-placement",
                       "kai.scheduler/segment-topology-preferred-placement")
GPU = "nvidia.com/gpu"
MIG_PREFIX = "nvidia.com/mig-"
# The subgroup pods without a subgroup label belong to when a PodGroup has no subgroups.
DEFAULT_SUBGROUP = "default"
ROOT = "root"


@dataclass(frozen=True)
class KaiInputs:
    """KAI's objects in the input: Topologies by name, PodGroups by ``<ns>/<name>``, and the
    webhook rules each PodGroup or Topology breaks (by kind and key)."""

    # Values: model/kai.py's KaiTopology, KaiPodGroup and Problem (not imported here).
    topologies: Mapping[str, Any] = field(default_factory=dict)
    pod_groups: Mapping[str, Any] = field(default_factory=dict)
    problems: Mapping[tuple[str, str], tuple[Any, ...]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.topologies or self.pod_groups)


NO_KAI = KaiInputs()
