"""TaintToleration: NoSchedule/NoExecute taints must be tolerated; untolerated
PreferNoSchedule taints lower the score."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.status import Status, unschedulable
from tasplan.framework.types import CycleState, Scope
from tasplan.model.pod import Pod
from tasplan.model.taints import NO_EXECUTE, NO_SCHEDULE, PREFER_NO_SCHEDULE, tolerated
from tasplan.plugins import names
from tasplan.plugins.normalize import default_normalize

# Upstream dropped the taint's key and value from the reason (kubernetes#134740, v1.34+);
# the taint itself travels in the status details.
ERR_REASON_NOT_MATCH = "node(s) had untolerated taint(s)"


class TaintToleration:
    name = names.TAINT_TOLERATION
    scope = Scope.STATIC

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        tolerations = pod.tolerations
        for taint in node.node.taints:
            if taint.effect in (NO_SCHEDULE, NO_EXECUTE) and not tolerated(taint, tolerations):
                return unschedulable(ERR_REASON_NOT_MATCH,
                                     unresolvable=True, details=(taint,))
        return None

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        # Only tolerations that can apply to PreferNoSchedule taints count.
        tolerations = [t for t in pod.tolerations if t.effect in ("", PREFER_NO_SCHEDULE)]
        return sum(
            1 for taint in node.node.taints
            if taint.effect == PREFER_NO_SCHEDULE and not tolerated(taint, tolerations)
        )

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[int],
                        nodes: list[NodeInfo]) -> None:
        default_normalize(scores, reverse=True)


def new(args: Mapping[str, Any]) -> TaintToleration:
    return TaintToleration()
