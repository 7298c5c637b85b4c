"""NodePorts: a requested host port must be free on the node."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.status import Status, unschedulable
from tasplan.framework.types import CycleState, Scope
from tasplan.model.pod import Pod
from tasplan.plugins import names

UNBOUNDED = 2**62
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


class NodePorts:
    name = names.NODE_PORTS
    scope = Scope.NODE
    capacity_exact = True  # capacity() is 0 exactly where filter() rejects

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        if not pod.host_ports or not node.ports:
            return None
        for wanted in pod.host_ports:
            if any(wanted.conflicts(used) for used in node.ports):
                return unschedulable(ERR_REASON)
        return None


    def capacity(self, pod: Pod, node: NodeInfo) -> int:
        """Copies of ``pod`` that still fit: a host port can be taken once."""
        if not pod.host_ports:
            return UNBOUNDED
        return 0 if self.filter(CycleState(), pod, node) is not None else 1


def new(args: Mapping[str, Any]) -> NodePorts:
    return NodePorts()
