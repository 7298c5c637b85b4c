"""Nodes as the scheduler sees them: labels, taints, cordon state and allocatable capacity."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tasplan.model.source import Source
from tasplan.model.taints import Taint


@dataclass(frozen=True, slots=True)
class Node:
    """``allocatable`` holds canonical integers (cpu in millicores, bytes, counts),
    including the ``pods`` slot count."""

    name: str
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]
    unschedulable: bool
    allocatable: Mapping[str, int]
    source: Source
    # status.images is listed: upstream ImageLocality has data to score with.
    has_images: bool = False
    # status.conditions Ready: True/False, None when the node reports no Ready condition
    # (hand-written or pruned inputs). kube-scheduler reads taints instead; Kueue's TAS
    # counts only Ready nodes.
    ready: bool | None = None

    def __str__(self) -> str:
        return self.name
