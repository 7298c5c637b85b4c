"""How many nodes kube-scheduler would look at for a pod (``percentageOfNodesToScore``).

Upstream ``schedule_one.go`` ``numFeasibleNodesToFind``: below 100 nodes every node; else the
configured percentage (profile over global; 0 = adaptive ``max(5, 50 - n/125)``) of the
nodes, at least 100. Filtering stops once that many feasible nodes are found (from a
rotating start index), and only those are scored. tasplan always filters and scores every
node; these values let a report say when upstream would not. In placement scheduling the
nodes are those of the placement being evaluated.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
ADAPTIVE_BASE_PERCENTAGE = 50
ADAPTIVE_NODES_PER_PERCENT = 125


@dataclass(frozen=True, slots=True)
class NodeSampling:
    """Upstream would stop filtering a pod's nodes in ``placement`` (of ``nodes`` nodes)
    after ``feasible_to_find`` feasible ones: ``percentage`` % (configured or adaptive)."""

    placement: str
    nodes: int
    percentage: int
    feasible_to_find: int


def adaptive_percentage(num_nodes: int) -> int:
    return max(MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND,
               ADAPTIVE_BASE_PERCENTAGE - num_nodes // ADAPTIVE_NODES_PER_PERCENT)


def num_feasible_nodes_to_find(percentage: int, num_nodes: int) -> int:
    """``percentage`` as configured (0 = adaptive)."""
    if num_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_nodes
    percentage = percentage or adaptive_percentage(num_nodes)
    return max(num_nodes * percentage // 100, MIN_FEASIBLE_NODES_TO_FIND)


def node_sampling(placement: str, num_nodes: int, percentage: int) -> NodeSampling | None:
    """None when upstream would evaluate every node of the placement too."""
    find = num_feasible_nodes_to_find(percentage, num_nodes)
    if find >= num_nodes:
        return None
    return NodeSampling(placement, num_nodes, percentage or adaptive_percentage(num_nodes),
                        find)
