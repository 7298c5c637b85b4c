"""DRA objects for a node that joins as a copy of another (what-ifs that add nodes)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from tasplan.model.dra import ResourceSlice


def copied_slices(slices: Iterable[ResourceSlice], like: str, node: str) -> list[ResourceSlice]:
    """The node-local ResourceSlices of node ``like``, published again for node ``node``:
    its devices in a pool named after the new node (device identity is driver/pool/device).
    Devices that name their node one by one (perDeviceNodeSelection) are not copied; slices
    that select nodes by label or reach all nodes reach a copy through its labels already."""
    return [replace(s, name=f"{s.name}-{node}", node_name=node,
                    pool=node if s.pool == like else f"{s.pool}-{node}")
            for s in slices if s.node_name == like]
