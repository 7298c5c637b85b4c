"""TopologyPlacementGenerator: one candidate placement per value of the group's topology key.

Nodes without the label are left out; a label with an empty value is a domain named "".
Pods of the group that already hold a node pin the group to their domain. Upstream emits
domains in map order (random); we emit them sorted by name, in natural order (rack-2
before rack-10).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.status import Status, error
from tasplan.framework.types import GroupContext, Placement
from tasplan.model.topology import natural_key
from tasplan.plugins import names


class TopologyPlacementGenerator:
    name = names.TOPOLOGY_PLACEMENT_GENERATOR

    def generate_placements(
        self, ctx: GroupContext, parent: Placement, nodes: Sequence[NodeInfo]
    ) -> tuple[list[Placement], Status | None]:
        key = ctx.group.topology_key
        if not key:
            return [parent], None
        required, status = self._required_domain(ctx, key, nodes)
        if status is not None:
            return [], status
        domains: dict[str, list[int]] = {}
        for index in parent.nodes:
            value = nodes[index].node.labels.get(key)
            if value is not None and (required is None or value == required):
                domains.setdefault(value, []).append(index)
        return [Placement(name, tuple(idx)) for name, idx in
                sorted(domains.items(), key=lambda kv: natural_key(kv[0]))], None

    @staticmethod
    def _required_domain(
        ctx: GroupContext, key: str, nodes: Sequence[NodeInfo]
    ) -> tuple[str | None, Status | None]:
        if not ctx.scheduled:
            return None, None
        by_name = {n.node.name: n for n in nodes}
        seen: dict[str, str] = {}
        for pod, node_name in ctx.scheduled:
            info = by_name.get(node_name)
            if info is None:
                return None, error(f"pod {pod.key} of the group is on node {node_name}, "
                                   "which is not in the cluster snapshot")
            value = info.node.labels.get(key)
            if value is None:
                return None, error(f"pod {pod.key} of the group is on node {node_name}, "
                                   f"which has no {key} label")
            seen.setdefault(value, pod.key)
        if len(seen) > 1:
            spread = ", ".join(f"{d!r} ({p})" for d, p in sorted(seen.items()))
            return None, error(f"scheduled pods of the group span more than one {key} "
                               f"domain: {spread}")
        return next(iter(seen)), None


def new(args: Mapping[str, Any]) -> TopologyPlacementGenerator:
    return TopologyPlacementGenerator()
