"""NodeName: a pod that names a node fits only there."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.status import Status, unschedulable
from tasplan.framework.types import CycleState, Scope
from tasplan.model.pod import Pod
from tasplan.plugins import names

ERR_REASON = "node(s) didn't match the requested node name"


class NodeName:
    name = names.NODE_NAME
    scope = Scope.STATIC

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        if not pod.node_name or pod.node_name == node.node.name:
            return None
        return unschedulable(ERR_REASON, unresolvable=True)


def new(args: Mapping[str, Any]) -> NodeName:
    return NodeName()
