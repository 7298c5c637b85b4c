"""PodGroupPodsCount: prefer the placement that schedules the most pods of the group."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.status import Status, error
from tasplan.framework.types import MAX_NODE_SCORE, GroupContext, Placement, ProposedAssignment
from tasplan.plugins import names


class PodGroupPodsCount:
    name = names.POD_GROUP_PODS_COUNT
    reads_assigned_nodes = False

    def score_placement(
        self,
        ctx: GroupContext,
        placement: Placement,
        nodes: Sequence[NodeInfo],
        proposed: Sequence[ProposedAssignment],
    ) -> int:
        return len(ctx.scheduled) + sum(p.count for p in proposed)

    def normalize_placement_scores(self, scores: list[int]) -> list[int] | Status:
        """An error when no placement holds a pod of the group (upstream
        ``NormalizePlacementScore``): feasible placements that place nothing, which a
        profile without GangScheduling's PlacementFeasible lets through."""
        top = max(scores, default=0)
        if top == 0:
            return error("no pods from pod group are assigned to any of the candidate "
                         "placements")
        return [s * MAX_NODE_SCORE // top for s in scores]


def new(args: Mapping[str, Any]) -> PodGroupPodsCount:
    return PodGroupPodsCount()
