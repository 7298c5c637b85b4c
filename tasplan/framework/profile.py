"""Which plugins run at which extension point, with which weights and arguments."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class PluginRef:
    name: str
    weight: int = 1


@dataclass(frozen=True)
class Profile:
    """A resolved scheduler profile (KubeSchedulerConfiguration ``profiles[]`` entry after
    multiPoint expansion). Order matters for filters: the first failing one names the reason."""

    scheduler_name: str
    filter: tuple[str, ...]
    score: tuple[PluginRef, ...]
    placement_generate: tuple[str, ...]
    placement_feasible: tuple[str, ...]
    placement_score: tuple[PluginRef, ...]
    plugin_args: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
