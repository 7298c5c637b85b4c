"""Values that flow between the framework and plugins."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from tasplan.framework.node_info import NodeInfo
from tasplan.model.group import PodGroup
from tasplan.model.pod import Pod

MAX_NODE_SCORE = 100
UNCONSTRAINED = "*"


class Scope(IntEnum):
    """What a per-pod filter or score reads besides the pod itself; decides how long a
    result may be reused.

    STATIC: the node object only (labels, taints, cordon) - computed once per pod class and node.
    NODE: the node's own usage - recomputed when that node changes.
    CLUSTER: pods on other nodes too - recomputed whenever anything changes.
    """

    STATIC = 0
    NODE = 1
    CLUSTER = 2


@dataclass(frozen=True, slots=True)
class Placement:
    """A candidate set of nodes (indexes into the cluster's name-sorted node list)."""

    name: str
    nodes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GroupContext:
    """What placement plugins need to know about the group being planned.

    ``scheduled`` are the group's pods that already hold a node (bound in the snapshot or
    assumed earlier), with that node's name; ``pending`` are the pods to place, in order.
    """

    group: PodGroup
    pending: tuple[Pod, ...]
    scheduled: tuple[tuple[Pod, str], ...]
    # Pods of the group held back by spec.schedulingGates: they never enter the cycle but
    # count for GangScheduling's PreEnqueue pod count.
    gated: int = 0


@dataclass(frozen=True, slots=True)
class ProposedAssignment:
    """A pod the simulation placed. ``node`` is None when the placement's outcome was
    counted rather than simulated node by node; that only happens when every placement
    scorer declares ``reads_assigned_nodes = False``. Then one proposal stands for ``count``
    identical pods (the group's first pending pod and ``count - 1`` more like it): placement
    scorers must weigh each proposal by its ``count``."""

    pod: Pod
    node: NodeInfo | None
    count: int = 1


class CycleState(dict):
    """Scratch data of one pod class in one placement, keyed per plugin (upstream CycleState)."""
