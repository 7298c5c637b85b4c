"""``--scheduler-config``: a ``kubescheduler.config.k8s.io/v1`` KubeSchedulerConfiguration
file -> a resolved SchedulerConfig (profiles by schedulerName).

Decoding is strict, as kube-scheduler's (unknown fields are errors), and checks what
upstream's defaulting and validation check for the parts that decide placements: profile
names (defaulted for a single profile, required and unique otherwise), plugin names per
extension point, weights, plugin args (validated by each plugin's factory),
``percentageOfNodesToScore``, one queueSort for all profiles. Every error names the file,
line and field path. Fields that only tune the running scheduler (leader election, client
connection, parallelism, backoff) are accepted; the ones upstream validates are checked.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tasplan.errors import InputError, ProfileError
from tasplan.framework.profile import PluginRef, PluginSet, Profile, SchedulerConfig
from tasplan.framework.registry import Registry
from tasplan.framework.runtime import MAX_TOTAL_WEIGHT
from tasplan.framework.types import MAX_NODE_SCORE
from tasplan.load.documents import read_documents
from tasplan.load.fields import ObjectFields
from tasplan.model.pod import DEFAULT_SCHEDULER
from tasplan.plugins import names
from tasplan.plugins.defaults import EXTENSION_POINTS, resolve_profile
from tasplan.plugins.registry import in_tree_registry

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"
TOP_LEVEL_FIELDS = ("apiVersion", "kind", "parallelism", "leaderElection", "clientConnection",
                    "enableProfiling", "enableContentionProfiling", "percentageOfNodesToScore",
                    "podInitialBackoffSeconds", "podMaxBackoffSeconds", "profiles", "extenders",
                    "delayCacheUntilActive")
PROFILE_FIELDS = ("schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig")
# Fields proposed upstream but in no release's configuration API (kube-scheduler's strict
# decoding refuses them as unknown): why, for the error.
UNRELEASED_FIELDS = {
    "percentageOfPlacementsToScore": "proposed for KEP-5732 beta (kubernetes#139859, not "
    "merged): no kube-scheduler release 1.35-1.38 has it, and kube-scheduler refuses a "
    "configuration that sets it",
}
MAX_INT32 = 2**31 - 1


def load_scheduler_config(path: str | os.PathLike,
                          registry: Registry | None = None) -> SchedulerConfig:
    label = str(path)
    documents = list(read_documents(Path(path), workload=False))
    if not documents:
        raise InputError(label, f"expected a {KIND} ({API_VERSION}), found no document")
    if len(documents) > 1:
        raise InputError(label, f"expected one {KIND}, found {len(documents)} objects")
    doc = documents[0]
    return _Decoder(ObjectFields(doc.source, doc.obj), registry or in_tree_registry()).decode()


class _Decoder:
    def __init__(self, fields: ObjectFields, registry: Registry) -> None:
        self.f = fields
        self.registry = registry
        self.warnings: list[str] = []

    def percentage(self, obj: Mapping[str, Any], key: str, prefix: str = "") -> int | None:
        if obj.get(key) is None:
            return None
        value = self.f.integer(obj[key], prefix + key)
        if not 0 <= value <= 100:
            raise self.f.error(prefix + key, f"{value} not in valid range [0-100]")
        return value

    def strict(self, value: object, at: str, known: tuple[str, ...]) -> Mapping[str, Any]:
        if isinstance(value, Mapping):
            for key, why in UNRELEASED_FIELDS.items():
                if key in value:
                    raise self.f.error(f"{at}.{key}" if at else key, f"unknown field ({why})")
        return self.f.strict(value, at, known)

    def decode(self) -> SchedulerConfig:
        f = self.f
        obj = self.strict(f.obj, "", TOP_LEVEL_FIELDS)
        if obj.get("apiVersion") != API_VERSION:
            raise f.expected("apiVersion", API_VERSION, obj.get("apiVersion"))
        if obj.get("kind") != KIND:
            raise f.expected("kind", KIND, obj.get("kind"))
        self._check_scheduler_tuning(obj)
        nodes_pct = self.percentage(obj, "percentageOfNodesToScore") or 0
        extenders = f.sequence(obj.get("extenders"), "extenders")
        if extenders:
            self.warnings.append(
                f"{f.source.path}: extenders: {len(extenders)} scheduler extender(s) "
                "configured; tasplan does not call extenders, so their filters, scores and "
                "preemption verdicts are not applied (placements may differ)")
        raw_profiles = f.sequence(obj.get("profiles"), "profiles") or [{}]
        profiles: dict[str, Profile] = {}
        first_at: dict[str, int] = {}
        queue_sort = None
        for i, raw in enumerate(raw_profiles):
            at = f"profiles[{i}]"
            prof = self.strict(raw, at, PROFILE_FIELDS)
            if prof.get("schedulerName") is None and len(raw_profiles) == 1:
                name = DEFAULT_SCHEDULER
            else:
                name = f.string(prof.get("schedulerName"), f"{at}.schedulerName", required=True)
            if name in first_at:
                raise f.error(f"{at}.schedulerName", f'duplicate schedulerName "{name}" '
                              f"(also profiles[{first_at[name]}].schedulerName)")
            first_at[name] = i
            plugins = self._plugins(prof.get("plugins"), f"{at}.plugins")
            sort = plugins.get("queueSort", PluginSet())
            if queue_sort is not None and sort != queue_sort:
                raise f.error(f"{at}.plugins.queueSort", "must be the same for all profiles")
            queue_sort = sort
            args = self._plugin_config(prof.get("pluginConfig"), f"{at}.pluginConfig")
            own_nodes_pct = self.percentage(prof, "percentageOfNodesToScore", f"{at}.")
            try:
                profiles[name] = resolve_profile(
                    name, plugins, args, self.registry,
                    percentage_of_nodes_to_score=_first(own_nodes_pct, nodes_pct))
            except ProfileError as exc:
                raise f.error(f"{at}.{exc.field}" if exc.field else at, exc.detail) from None
            total = sum(ref.weight or 1 for ref in profiles[name].score) * MAX_NODE_SCORE
            if total > MAX_TOTAL_WEIGHT:  # upstream NewFramework refuses it too
                raise f.error(f"{at}.plugins.score", f"total score weight {total} of the "
                              f"profile's score plugins would overflow ({MAX_TOTAL_WEIGHT} at "
                              "most)")
        return SchedulerConfig(profiles, len(extenders), tuple(self.warnings),
                               str(f.source.path))

    def _check_scheduler_tuning(self, obj: Mapping[str, Any]) -> None:
        """What upstream validates among the fields that do not affect placements."""
        f = self.f
        parallelism = obj.get("parallelism")
        if parallelism is not None and f.integer(parallelism, "parallelism") <= 0:
            raise f.error("parallelism", "should be an integer value greater than zero")
        initial = obj.get("podInitialBackoffSeconds")
        initial = 1 if initial is None else f.integer(initial, "podInitialBackoffSeconds")
        if initial <= 0:
            raise f.error("podInitialBackoffSeconds", "must be greater than 0")
        maximum = obj.get("podMaxBackoffSeconds")
        maximum = 10 if maximum is None else f.integer(maximum, "podMaxBackoffSeconds")
        if maximum < initial:
            raise f.error("podMaxBackoffSeconds",
                          "must be greater than or equal to podInitialBackoffSeconds")

    def _plugins(self, value: object, field: str) -> dict[str, PluginSet]:
        out = {}
        for key, raw in self.f.strict(value, field, EXTENSION_POINTS).items():
            at = f"{field}.{key}"
            plugin_set = self.f.strict(raw, at, ("enabled", "disabled"))
            enabled = tuple(self._plugin(p, f"{at}.enabled[{i}]") for i, p in
                            enumerate(self.f.sequence(plugin_set.get("enabled"), f"{at}.enabled")))
            disabled = tuple(self._plugin(p, f"{at}.disabled[{i}]").name for i, p in
                             enumerate(self.f.sequence(plugin_set.get("disabled"),
                                                       f"{at}.disabled")))
            out[key] = PluginSet(enabled, disabled)
        return out

    def _plugin(self, value: object, field: str) -> PluginRef:
        """``{name, weight}``; an unset weight is kept as 0 ("unset", counts as 1)."""
        plugin = self.f.strict(value, field, ("name", "weight"))
        name = self.f.string(plugin.get("name"), f"{field}.name", required=True)
        weight = plugin.get("weight")
        if weight is None:
            return PluginRef(name, 0)
        weight = self.f.integer(weight, f"{field}.weight")
        if weight < 0:  # upstream does not check; a negative weight would invert a score
            raise self.f.error(f"{field}.weight", f"expected a weight >= 0, got {weight}")
        if weight > MAX_INT32:
            raise self.f.error(f"{field}.weight", f"{weight} does not fit an int32")
        return PluginRef(name, weight)

    def _plugin_config(self, value: object, field: str) -> dict[str, Mapping[str, Any]]:
        """Args by plugin name. Args of plugins tasplan runs are validated by the plugin's
        factory now, so that errors point into this file."""
        out: dict[str, Mapping[str, Any]] = {}
        for j, raw in enumerate(self.f.sequence(value, field)):
            at = f"{field}[{j}]"
            entry = self.f.strict(raw, at, ("name", "args"))
            name = self.f.string(entry.get("name"), f"{at}.name", required=True)
            if name in out:
                raise self.f.error(f"{at}.name", f'duplicate pluginConfig for plugin "{name}"')
            if name in names.REMOVED:
                raise self.f.error(f"{at}.name", f'plugin "{name}" was removed; it is invalid '
                                   f"in {API_VERSION}")
            args = self.f.mapping(entry.get("args"), f"{at}.args")
            kind = args.get("kind")
            if kind is not None and kind != f"{name}Args":
                raise self.f.expected(f"{at}.args.kind", f"{name}Args", kind)
            if args.get("apiVersion") not in (None, API_VERSION):
                raise self.f.expected(f"{at}.args.apiVersion", API_VERSION,
                                      args.get("apiVersion"))
            if name in self.registry:
                try:
                    self.registry.create(name, args)
                except ProfileError as exc:
                    where = f"{at}.args" + (f".{exc.field}" if exc.field else "")
                    raise self.f.error(where, exc.detail) from None
            elif name not in names.UPSTREAM_IN_TREE:
                self.warnings.append(f"{self.f.source.path}: {at}: no plugin named {name!r}; "
                                     "its args have no effect")
            out[name] = args
        return out


def _first(own: int | None, inherited: int) -> int:
    """A profile's own percentage overrides the global one."""
    return inherited if own is None else own
