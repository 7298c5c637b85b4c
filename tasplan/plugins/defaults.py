"""Upstream's default profile and the rules that merge a configured profile into it.

Defaults: v1 ``getDefaultPlugins`` with DynamicResourceAllocation, GenericWorkload and
TopologyAwareWorkloadScheduling on. Merging: v1 ``mergePluginSet`` (a configured plugin
replaces the default entry of the same name in place, weight included; ``disabled: "*"``
drops every default), then the framework's multiPoint expansion (``expandMultiPointPlugins``:
plugins enabled at a specific point first where they override multiPoint, then multiPoint
ones, then the rest of that point; a point's ``disabled`` removes multiPoint plugins from it)
and score weights (``getScoreWeights``: the point's own entry first, else the multiPoint one;
unset or 0 counts as 1).

Only the extension points tasplan runs are resolved into the Profile (filter, score and the
placement points); the others are checked for plugin names and otherwise left alone.
Known upstream plugins that tasplan does not run are accepted and listed in
``Profile.unmodelled``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from tasplan.errors import ProfileError
from tasplan.framework.interfaces import (
    FilterPlugin,
    PlacementFeasiblePlugin,
    PlacementGeneratePlugin,
    PlacementScorePlugin,
    Plugin,
    ScorePlugin,
)
from tasplan.framework.profile import PluginRef, PluginSet, Profile, SchedulerConfig
from tasplan.framework.registry import Registry
from tasplan.model.pod import DEFAULT_SCHEDULER
from tasplan.plugins import names as n
from tasplan.plugins.registry import in_tree_registry
from tasplan.target import Target

MULTI_POINT = "multiPoint"
# Config key -> the interface a plugin needs there; tasplan runs these points.
MODELLED_POINTS: Mapping[str, type] = {
    "filter": FilterPlugin,
    "score": ScorePlugin,
    "placementGenerate": PlacementGeneratePlugin,
    "placementFeasible": PlacementFeasiblePlugin,
    "placementScore": PlacementScorePlugin,
}
WEIGHTED_POINTS = frozenset({"score", "placementScore"})
# Checked like upstream's framework does: exactly one queueSort plugin, at least one binder.
QUEUE_SORT, BIND = "queueSort", "bind"
POD_GROUP_POST_FILTER = "podGroupPostFilter"
OTHER_POINTS = ("preEnqueue", QUEUE_SORT, "preFilter", "postFilter", "preScore", "reserve",
                "permit", "preBind", BIND, "postBind", POD_GROUP_POST_FILTER)
EXTENSION_POINTS = (MULTI_POINT, *MODELLED_POINTS, *OTHER_POINTS)

# v1 getDefaultPlugins().MultiPoint with the feature gates above; weight 0 = unset.
DEFAULT_MULTI_POINT: tuple[PluginRef, ...] = (
    PluginRef(n.SCHEDULING_GATES, 0),
    PluginRef(n.PRIORITY_SORT, 0),
    PluginRef(n.NODE_UNSCHEDULABLE, 0),
    PluginRef(n.NODE_NAME, 0),
    PluginRef(n.TAINT_TOLERATION, 3),
    PluginRef(n.NODE_AFFINITY, 2),
    PluginRef(n.NODE_PORTS, 0),
    PluginRef(n.NODE_RESOURCES_FIT, 1),
    PluginRef(n.VOLUME_RESTRICTIONS, 0),
    PluginRef(n.NODE_VOLUME_LIMITS, 0),
    PluginRef(n.VOLUME_BINDING, 0),
    PluginRef(n.VOLUME_ZONE, 0),
    PluginRef(n.POD_TOPOLOGY_SPREAD, 2),
    PluginRef(n.INTER_POD_AFFINITY, 2),
    PluginRef(n.DYNAMIC_RESOURCES, 0),
    PluginRef(n.DEFAULT_PREEMPTION, 0),
    PluginRef(n.NODE_RESOURCES_BALANCED_ALLOCATION, 1),
    PluginRef(n.IMAGE_LOCALITY, 1),
    PluginRef(n.DEFAULT_BINDER, 0),
    PluginRef(n.NODE_DECLARED_FEATURES, 0),
    PluginRef(n.GANG_SCHEDULING, 0),
    PluginRef(n.TOPOLOGY_PLACEMENT_GENERATOR, 0),
    PluginRef(n.POD_GROUP_PODS_COUNT, 1),
)

# For upstream plugins tasplan does not run: which of the modelled points, queueSort, bind
# and podGroupPostFilter they implement (the others implement none of them), so a misplaced
# entry fails as upstream's would. PrioritySort, DefaultBinder and DefaultPreemption are
# the only in-tree plugins at those three.
_UNMODELLED_POINTS: Mapping[str, frozenset[str]] = {
    n.PRIORITY_SORT: frozenset({QUEUE_SORT}),
    n.DEFAULT_BINDER: frozenset({BIND}),
    n.DEFAULT_PREEMPTION: frozenset({"postFilter", POD_GROUP_POST_FILTER}),
    n.VOLUME_RESTRICTIONS: frozenset({"filter"}),
    n.NODE_VOLUME_LIMITS: frozenset({"filter"}),
    n.VOLUME_BINDING: frozenset({"filter", "score"}),
    n.VOLUME_ZONE: frozenset({"filter"}),
    n.POD_TOPOLOGY_SPREAD: frozenset({"filter", "score"}),
    n.INTER_POD_AFFINITY: frozenset({"filter", "score"}),
    n.IMAGE_LOCALITY: frozenset({"score"}),
    n.NODE_DECLARED_FEATURES: frozenset({"filter"}),
}


@dataclass(frozen=True, slots=True)
class _Entry:
    """An enabled plugin and where it was configured (None for a default entry)."""

    ref: PluginRef
    field: str | None


def default_profile(scheduler_name: str = DEFAULT_SCHEDULER,
                    registry: Registry | None = None) -> Profile:
    """Upstream's default profile, restricted to the plugins ``registry`` provides."""
    return resolve_profile(scheduler_name, registry=registry)


def default_scheduler_config(registry: Registry | None = None) -> SchedulerConfig:
    """What kube-scheduler runs without a configuration file: the default profile only."""
    return SchedulerConfig({DEFAULT_SCHEDULER: default_profile(registry=registry)})


def resolve_profile(
    scheduler_name: str = DEFAULT_SCHEDULER,
    plugins: Mapping[str, PluginSet] | None = None,
    plugin_args: Mapping[str, Mapping[str, Any]] | None = None,
    registry: Registry | None = None,
    *,
    percentage_of_nodes_to_score: int = 0,
) -> Profile:
    """A configured profile's ``plugins`` (config key -> PluginSet) merged into the defaults.
    Errors are ProfileErrors whose field is relative to the profile
    (``plugins.score.enabled[2].name``)."""
    resolver = _Resolver(registry or in_tree_registry(), plugin_args or {})
    plugins = plugins or {}
    for key in plugins:
        if key not in EXTENSION_POINTS:
            raise ProfileError("<profile>", f"unknown extension point (known: "
                               f"{', '.join(EXTENSION_POINTS)})", field=f"plugins.{key}")
    multi = _merge(DEFAULT_MULTI_POINT, plugins.get(MULTI_POINT, PluginSet()), MULTI_POINT)
    for entry in multi:
        resolver.check_known(entry)
        resolver.note_unmodelled(entry.ref.name)
    points = {key: resolver.expand(key, plugins.get(key, PluginSet()), multi)
              for key in (*MODELLED_POINTS, QUEUE_SORT, BIND, POD_GROUP_POST_FILTER)}
    for key in OTHER_POINTS:  # names must exist; nothing else is modelled there
        for entry in _custom(plugins.get(key, PluginSet()), key):
            resolver.check_known(entry)
            resolver.note_unmodelled(entry.ref.name)
    if len(points[QUEUE_SORT]) != 1:
        raise ProfileError("<profile>", "only one queue sort plugin required for profile "
                           f'"{scheduler_name}", but got {len(points[QUEUE_SORT])}',
                           field=f"plugins.{QUEUE_SORT}")
    if not points[BIND]:
        raise ProfileError("<profile>", "at least one bind plugin is needed for profile "
                           f'"{scheduler_name}"', field=f"plugins.{BIND}")

    def modelled(key: str) -> tuple[PluginRef, ...]:
        return tuple(PluginRef(name, weight if key in WEIGHTED_POINTS else 1)
                     for name, weight in points[key] if resolver.modelled(name))

    return Profile(
        scheduler_name=scheduler_name,
        filter=tuple(r.name for r in modelled("filter")),
        score=modelled("score"),
        placement_generate=tuple(r.name for r in modelled("placementGenerate")),
        placement_feasible=tuple(r.name for r in modelled("placementFeasible")),
        placement_score=modelled("placementScore"),
        plugin_args=dict(plugin_args or {}),
        unmodelled=tuple(resolver.unmodelled),
        pod_group_post_filter=tuple(name for name, _ in points[POD_GROUP_POST_FILTER]),
        percentage_of_nodes_to_score=percentage_of_nodes_to_score,
    )


# Plugins upstream registers only while a feature gate is on (``applyFeatureGates`` and the
# in-tree registry): gate -> plugin names.
_GATED_PLUGINS: Mapping[str, tuple[str, ...]] = {
    "TopologyAwareWorkloadScheduling": (n.TOPOLOGY_PLACEMENT_GENERATOR, n.POD_GROUP_PODS_COUNT),
}


def gated_profile(profile: Profile, target: Target) -> Profile:
    """``profile`` without the plugins the target's gates switch off: the placement plugins
    without TopologyAwareWorkloadScheduling, GangScheduling without its gate (GenericWorkload,
    or GangScheduling itself before 1.37)."""
    off = {name for gate, names in _GATED_PLUGINS.items() if not target.enabled(gate)
           for name in names}
    if not target.gang_scheduling:
        off.add(n.GANG_SCHEDULING)
    if not off:
        return profile
    return replace(
        profile,
        placement_generate=tuple(x for x in profile.placement_generate if x not in off),
        placement_feasible=tuple(x for x in profile.placement_feasible if x not in off),
        placement_score=tuple(r for r in profile.placement_score if r.name not in off),
    )


def _custom(plugin_set: PluginSet, key: str) -> list[_Entry]:
    return [_Entry(ref, f"plugins.{key}.enabled[{i}]")
            for i, ref in enumerate(plugin_set.enabled)]


def _merge(defaults: tuple[PluginRef, ...], custom: PluginSet, key: str) -> list[_Entry]:
    """v1 ``mergePluginSet``: defaults minus disabled ones (all for ``*``), a configured
    entry replacing the default of the same name in place, then the other configured ones."""
    disabled = set(custom.disabled)
    configured = {ref.name: i for i, ref in enumerate(custom.enabled)}
    merged: list[_Entry] = []
    replaced: set[int] = set()
    if "*" not in disabled:
        for ref in defaults:
            if ref.name in disabled:
                continue
            i = configured.get(ref.name)
            if i is None:
                merged.append(_Entry(ref, None))
            else:
                replaced.add(i)
                merged.append(_Entry(custom.enabled[i], f"plugins.{key}.enabled[{i}]"))
    merged += [e for i, e in enumerate(_custom(custom, key)) if i not in replaced]
    return merged


_IMPLEMENTS: dict[tuple[type, str], bool] = {}


class _Resolver:
    def __init__(self, registry: Registry, plugin_args: Mapping[str, Mapping[str, Any]]):
        self.registry = registry
        self.plugin_args = plugin_args
        self.instances: dict[str, Plugin] = {}
        self.unmodelled: list[str] = []

    def modelled(self, name: str) -> bool:
        return name in self.registry

    def check_known(self, entry: _Entry) -> None:
        name = entry.ref.name
        if self.modelled(name) or name in n.UPSTREAM_IN_TREE:
            return
        where = f"{entry.field}.name" if entry.field else "plugins"
        if name in n.REMOVED:
            raise ProfileError("<profile>", f'plugin "{name}" was removed; it is invalid in '
                               "kubescheduler.config.k8s.io/v1", field=where)
        raise ProfileError("<profile>", f'unknown plugin "{name}" (neither an upstream in-tree '
                           "plugin nor one tasplan models)", field=where)

    def note_unmodelled(self, name: str) -> None:
        if not self.modelled(name) and name not in self.unmodelled:
            self.unmodelled.append(name)

    def implements(self, name: str, key: str) -> bool:
        if not self.modelled(name):
            return key in _UNMODELLED_POINTS.get(name, ())
        if key not in MODELLED_POINTS:  # tasplan models no queueSort or bind plugin
            return False
        plugin = self.instances.get(name)
        if plugin is None:
            plugin = self.instances[name] = self.registry.build(
                name, self.plugin_args.get(name, {}))
        found = _IMPLEMENTS.get((type(plugin), key))
        if found is None:  # isinstance of a Protocol costs ~70 µs: once per class and point
            found = _IMPLEMENTS[(type(plugin), key)] = isinstance(plugin, MODELLED_POINTS[key])
        return found

    def expand(self, key: str, plugin_set: PluginSet, multi: list[_Entry]
               ) -> list[tuple[str, int]]:
        """The plugins enabled at ``key``, in order, with their weights (used at weighted
        points only). Unmodelled ones are noted."""
        own: list[str] = []
        for entry in _custom(plugin_set, key):
            name = entry.ref.name
            self.check_known(entry)
            if not self.implements(name, key):
                raise ProfileError("<profile>", f'plugin "{name}" does not extend {key}',
                                   field=f"{entry.field}.name")
            if name in own:
                raise ProfileError("<profile>", f'plugin "{name}" is enabled twice at {key}',
                                   field=f"{entry.field}.name")
            own.append(name)
        order = own
        if "*" not in plugin_set.disabled:
            overrides: set[str] = set()
            from_multi: list[str] = []
            for entry in multi:
                name = entry.ref.name
                if not self.implements(name, key) or name in plugin_set.disabled:
                    continue
                if name in own:
                    overrides.add(name)
                elif name in from_multi:
                    raise ProfileError("<profile>", f'plugin "{name}" is enabled twice in '
                                       "multiPoint", field=f"{entry.field}.name")
                else:
                    from_multi.append(name)
            order = ([x for x in own if x in overrides] + from_multi
                     + [x for x in own if x not in overrides])
        weights: dict[str, int] = {}
        for entry in [*_custom(plugin_set, key), *multi]:
            weights.setdefault(entry.ref.name, entry.ref.weight or 1)
        for name in order:
            self.note_unmodelled(name)
        return [(name, weights[name]) for name in order]
