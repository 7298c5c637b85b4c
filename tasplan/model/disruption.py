"""PodDisruptionBudgets, carried through for features that weigh evictions (preemption,
explain). Nothing in the planner reads them yet."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tasplan.model.source import Source


@dataclass(frozen=True, slots=True)
class PodDisruptionBudget:
    """policy/v1. ``selector`` is the raw LabelSelector (None selects no pods, ``{}`` every
    pod of the namespace, as upstream); ``min_available`` / ``max_unavailable`` are an
    integer or a percentage string; ``disruptions_allowed`` is the controller's status."""

    namespace: str
    name: str
    selector: Mapping[str, Any] | None
    min_available: int | str | None
    max_unavailable: int | str | None
    disruptions_allowed: int
    source: Source

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"
