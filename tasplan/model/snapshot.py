"""The in-memory cluster every planner works on, and its indexes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from tasplan.model.group import PodGroup
from tasplan.model.node import Node
from tasplan.model.pod import Pod


@dataclass(frozen=True, slots=True)
class PriorityClass:
    name: str
    value: int
    global_default: bool = False
    preemption_policy: str = "PreemptLowerPriority"


@dataclass(frozen=True)
class ClusterSnapshot:
    """Nodes sorted by name, pods and groups in input order.

    ``ignored`` counts objects of kinds tasplan does not use (Services, Deployments, ...),
    so reports can say what was skipped instead of dropping it silently.
    """

    nodes: tuple[Node, ...]
    pods: tuple[Pod, ...]
    groups: tuple[PodGroup, ...]
    priority_classes: Mapping[str, PriorityClass] = field(default_factory=dict)
    ignored: Mapping[str, int] = field(default_factory=Counter)
    warnings: tuple[str, ...] = ()

    @cached_property
    def node_index(self) -> dict[str, int]:
        return {n.name: i for i, n in enumerate(self.nodes)}

    @cached_property
    def group_index(self) -> dict[str, PodGroup]:
        return {g.key: g for g in self.groups}

    @cached_property
    def pods_by_group(self) -> dict[str, list[Pod]]:
        out: dict[str, list[Pod]] = {}
        for pod in self.pods:
            if pod.group is not None:
                out.setdefault(pod.group, []).append(pod)
        return out
