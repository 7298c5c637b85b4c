"""NodeUnschedulable: cordoned nodes take only pods that tolerate the unschedulable taint."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.status import Status, unschedulable
from tasplan.framework.types import CycleState, Scope
from tasplan.model.pod import Pod
from tasplan.model.taints import NO_SCHEDULE, UNSCHEDULABLE_TAINT_KEY, Taint, tolerated
from tasplan.plugins import names

ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
_TAINT = Taint(UNSCHEDULABLE_TAINT_KEY, "", NO_SCHEDULE)


class NodeUnschedulable:
    name = names.NODE_UNSCHEDULABLE
    scope = Scope.STATIC

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        if not node.node.unschedulable or tolerated(_TAINT, pod.tolerations):
            return None
        return unschedulable(ERR_REASON_UNSCHEDULABLE, unresolvable=True)


def new(args: Mapping[str, Any]) -> NodeUnschedulable:
    return NodeUnschedulable()
