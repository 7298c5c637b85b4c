"""A CompositePodGroup, whatever version it came from."""

from __future__ import annotations

from dataclasses import dataclass

from tasplan.model.group import Policy
from tasplan.model.source import Source

# scheduling.k8s.io versions that serve CompositePodGroup (v1.37+, gate CompositePodGroup).
API_VERSIONS = ("scheduling.k8s.io/v1alpha3", "scheduling.k8s.io/v1beta1")
KIND = "CompositePodGroup"
# WorkloadMaxTreeDepth upstream: levels of a template tree (and of a group tree), leaves
# included.
MAX_TREE_DEPTH = 4


@dataclass(frozen=True, slots=True)
class CompositePodGroup:
    """One inner node of a group tree. ``min_group_count`` is 1 for a basic composite, as
    upstream's GangScheduling treats it. ``parent`` is the key (``<ns>/<name>``) of the
    parent composite, None for a root."""

    key: str
    namespace: str
    name: str
    policy: Policy
    min_group_count: int
    topology_key: str | None
    parent: str | None
    workload: str
    template: str
    api_version: str
    source: Source
    order: int
    priority: int | None = None
    priority_class_name: str = ""
    # spec.disruptionMode all: as a preemption victim the whole subtree goes at once (the
    # highest such ancestor of a PodGroup bounds its unit).
    disrupt_all: bool = False
    # spec.preemptionPolicy (None: not set); a root's decides for its tree with the
    # PodGroupPreemptionPolicy gate (unset: PreemptLowerPriority)
    preemption_policy: str | None = None

    kind = KIND

    def __str__(self) -> str:
        return self.key
