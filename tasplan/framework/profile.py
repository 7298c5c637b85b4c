"""Which plugins run at which extension point, with which weights and arguments."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class PluginRef:
    """A plugin at an extension point. A weight of 0 means "unset" and counts as 1."""

    name: str
    weight: int = 1


@dataclass(frozen=True, slots=True)
class PluginSet:
    """One extension point of a KubeSchedulerConfiguration profile as written: ``enabled`` in
    order, ``disabled`` by name (``"*"`` disables every default)."""

    enabled: tuple[PluginRef, ...] = ()
    disabled: tuple[str, ...] = ()


@dataclass(frozen=True)
class Profile:
    """A resolved scheduler profile (KubeSchedulerConfiguration ``profiles[]`` entry after
    multiPoint expansion). Order matters for filters: the first failing one names the reason.

    ``unmodelled`` lists enabled upstream plugins that tasplan does not run (volumes, DRA,
    ImageLocality, ...), in configuration order, so reports can say what was left out.
    ``percentage_of_nodes_to_score`` is the profile's value, else the global one; 0 means
    upstream's adaptive default. tasplan always evaluates every node."""

    scheduler_name: str
    filter: tuple[str, ...]
    score: tuple[PluginRef, ...]
    placement_generate: tuple[str, ...]
    placement_feasible: tuple[str, ...]
    placement_score: tuple[PluginRef, ...]
    plugin_args: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    unmodelled: tuple[str, ...] = ()
    percentage_of_nodes_to_score: int = 0
    # The PodGroupPostFilter plugins (upstream: DefaultPreemption, workload-aware
    # preemption), which the planner's preemption stands for.
    pod_group_post_filter: tuple[str, ...] = ()


@dataclass(frozen=True)
class SchedulerConfig:
    """A resolved KubeSchedulerConfiguration: the profiles by ``schedulerName`` (in file
    order). Pods naming a scheduler without a profile are not kube-scheduler's to schedule.
    ``extenders`` counts configured scheduler extenders (not modelled); ``warnings`` are
    things the configuration does that have no effect (e.g. args for a plugin that does not
    exist); ``source`` is the file it came from, "" for the built-in default."""

    profiles: Mapping[str, Profile]
    extenders: int = 0
    warnings: tuple[str, ...] = ()
    source: str = ""
