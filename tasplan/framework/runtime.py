"""The framework built from a registry and a profile: plugins per extension point and the
``run_*`` helpers that combine their answers (upstream ``runtime/framework.go``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import product

from tasplan.errors import ProfileError
from tasplan.framework.interfaces import (
    CapacityPlugin,
    ClusterStatePlugin,
    DeviceReportPlugin,
    FilterPlugin,
    NodeReadingDeclared,
    NormalizePlacementScorePlugin,
    NormalizeScorePlugin,
    PlacementFeasiblePlugin,
    PlacementGeneratePlugin,
    PlacementScorePlugin,
    Plugin,
    PodScopedPlugin,
    PreScorePlugin,
    ReservePlugin,
    ScorePlugin,
    SnapshotPlugin,
)
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.profile import PluginRef, Profile
from tasplan.framework.registry import Registry
from tasplan.framework.status import Code, PluginError, Status, error
from tasplan.framework.types import (
    MAX_NODE_SCORE,
    GroupContext,
    Placement,
    ProposedAssignment,
    Scope,
)
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.target import Target, resolve

MAX_TOTAL_WEIGHT = 2**31 - 1


@dataclass(frozen=True, slots=True)
class WeightedScore:
    plugin: ScorePlugin
    weight: int
    normalize: Callable | None
    pre_score: Callable | None


@dataclass(frozen=True, slots=True)
class WeightedPlacementScore:
    plugin: PlacementScorePlugin
    weight: int
    normalize: Callable | None


class Framework:
    """Plugins are created once per profile, even when one serves several points
    (NodeResourcesFit filters, scores nodes and scores placements)."""

    def __init__(self, profile: Profile, registry: Registry,
                 target: Target | None = None) -> None:
        self.profile = profile
        # The release planned for: decides release-specific paths (fast paths, preemption).
        self.target = target or resolve(None)
        self._registry = registry
        self._instances: dict[str, Plugin] = {}
        self.filters: list[FilterPlugin] = [
            self._plugin(n, FilterPlugin, "filter") for n in profile.filter
        ]
        self.scores: list[WeightedScore] = [
            WeightedScore(
                p := self._plugin(ref.name, ScorePlugin, "score"),
                _weight(ref),
                p.normalize_score if isinstance(p, NormalizeScorePlugin) else None,
                p.pre_score if isinstance(p, PreScorePlugin) else None,
            )
            for ref in profile.score
        ]
        # Filters and scores that summarise the whole cluster, each once.
        self.cluster_state: list[ClusterStatePlugin] = list({
            id(p): p for p in [*self.filters, *(s.plugin for s in self.scores)]
            if isinstance(p, ClusterStatePlugin)}.values())
        self.placement_generators: list[PlacementGeneratePlugin] = [
            self._plugin(n, PlacementGeneratePlugin, "placementGenerate")
            for n in profile.placement_generate
        ]
        self.placement_feasible: list[PlacementFeasiblePlugin] = [
            self._plugin(n, PlacementFeasiblePlugin, "placementFeasible")
            for n in profile.placement_feasible
        ]
        self.placement_scores: list[WeightedPlacementScore] = [
            WeightedPlacementScore(
                p := self._plugin(ref.name, PlacementScorePlugin, "placementScore"),
                _weight(ref),
                p.normalize_placement_scores
                if isinstance(p, NormalizePlacementScorePlugin) else None,
            )
            for ref in profile.placement_score
        ]
        self.placement_scores_read_nodes = any(
            not isinstance(e.plugin, NodeReadingDeclared) or e.plugin.reads_assigned_nodes
            for e in self.placement_scores)
        # Abilities looked up once: filters and scores whose scope depends on the pod, and
        # the filters that can count how many more pods fit on a node.
        self.pod_scoped: dict[int, Callable[[Pod], Scope]] = {
            id(p): p.scope_for for p in self._instances.values()
            if isinstance(p, PodScopedPlugin)}
        self.counting: frozenset[int] = frozenset(
            id(f) for f in self.filters if isinstance(f, CapacityPlugin))
        # ... of which those whose capacity is 0 exactly where their filter rejects
        # (``CapacityPlugin``): counting need not run their filter.
        self.capacity_exact: frozenset[int] = frozenset(
            id(f) for f in self.filters
            if id(f) in self.counting and getattr(f, "capacity_exact", False))
        # Plugins with state beyond the nodes, in profile order; the Statement calls them.
        self.reservers: list[ReservePlugin] = [p for p in self._instances.values()
                                               if isinstance(p, ReservePlugin)]
        self.device_reporters: list[DeviceReportPlugin] = [
            p for p in self.reservers if isinstance(p, DeviceReportPlugin)]
        total = sum(s.weight for s in self.scores) * MAX_NODE_SCORE
        if total > MAX_TOTAL_WEIGHT:
            raise ProfileError("<profile>", f"total score weight {total} would overflow")

    def _plugin(self, name: str, interface: type, point: str):
        if name not in self._registry:
            known = ", ".join(self._registry)
            raise ProfileError(
                "<profile>",
                f'unknown plugin "{name}" at extension point {point} (known: {known})',
                field=f"plugins.{point}",
            )
        plugin = self._instances.get(name)
        if plugin is None:
            args = self.profile.plugin_args.get(name, {})
            plugin = self._instances[name] = self._registry.build(name, args)
        if not isinstance(plugin, interface):
            raise ProfileError(
                "<profile>",
                f'plugin "{name}" does not extend {point}',
                field=f"plugins.{point}",
            )
        return plugin

    def plugin(self, name: str) -> Plugin | None:
        return self._instances.get(name)

    def bind_snapshot(self, snapshot: ClusterSnapshot) -> None:
        """Hand the input to the plugins that read more than node state."""
        for plugin in self._instances.values():
            if isinstance(plugin, SnapshotPlugin):
                plugin.bind_snapshot(snapshot)

    def allocation_mark(self) -> tuple[int, ...]:
        return tuple(p.allocation_mark() for p in self.reservers)

    def allocations_since(self, mark: tuple[int, ...]) -> dict[str, list[dict[str, str]]]:
        """What the reservers allocated since ``mark`` (DRA claims -> devices)."""
        out: dict[str, list[dict[str, str]]] = {}
        for plugin, m in zip(self.reservers, mark, strict=True):
            out.update(plugin.allocations_since(m))
        return out

    def device_report(self, pods, members, allocations, unassumed=None
                      ) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
        """For a placement's report: free devices per DeviceClass in the domain and the
        devices per pod, from the reservers that know devices (DRA)."""
        free: dict[str, int] = {}
        per_pod: dict[str, dict[str, int]] = {}
        for plugin in self.device_reporters:
            free.update(plugin.free_devices(pods, members, unassumed))
            per_pod.update(plugin.devices_by_pod(pods, allocations))
        return free, per_pod

    # -- placement extension points -------------------------------------------------------

    def run_placement_generate(
        self, ctx: GroupContext, parent: Placement, nodes: Sequence[NodeInfo]
    ) -> tuple[list[Placement], Status | None]:
        """Every generator sees the parent; generators returning it unchanged are ignored;
        two or more constraining ones are combined by node-set intersection, names joined
        with "/" (upstream ``RunPlacementGeneratePlugins``)."""
        constraining: list[tuple[PlacementGeneratePlugin, list[Placement]]] = []
        for plugin in self.placement_generators:
            placements, status = plugin.generate_placements(ctx, parent, nodes)
            if status is not None and not status.success:
                return [], status.with_plugin(plugin.name)
            if len(placements) == 1 and placements[0] is parent:  # "no constraint"
                continue
            constraining.append((plugin, placements))
        if not constraining:
            return [parent], None
        if len(constraining) == 1:  # one generator's placements are used verbatim
            return constraining[0][1], None
        # Names are joined with "/" when merging, so they must be non-empty, "/"-free, unique.
        seen: set[str] = set()
        for plugin, placements in constraining:
            names = {p.name for p in placements}
            if names & seen:
                return [], error(f"plugin {plugin.name} returned placement names another "
                                 f"generator uses: {sorted(names & seen)}"
                                 ).with_plugin(plugin.name)
            seen |= names
            for p in placements:
                if not p.name or "/" in p.name:
                    return [], error(f"plugin {plugin.name} returned invalid placement name "
                                     f"{p.name!r}").with_plugin(plugin.name)
            if len({p.name for p in placements}) != len(placements):
                return [], error(f"plugin {plugin.name} returned duplicate placement names"
                                 ).with_plugin(plugin.name)
        merged = []
        for combo in product(*(placements for _, placements in constraining)):
            common = set(combo[0].nodes).intersection(*(p.nodes for p in combo[1:]))
            if common:
                merged.append(Placement("/".join(p.name for p in combo), tuple(sorted(common))))
        return merged, None

    def run_placement_feasible(self, ctx: GroupContext, remaining: int, scheduled: int) -> Status:
        waiting = None
        for plugin in self.placement_feasible:
            status = plugin.placement_feasible(ctx, remaining, scheduled)
            if status.code == Code.UNSCHEDULABLE:
                return status.with_plugin(plugin.name)
            if status.code == Code.WAIT:
                waiting = status.with_plugin(plugin.name)
            elif not status.success:
                return error(f"unexpected status {status.code.name}").with_plugin(plugin.name)
        return waiting or Status(Code.SUCCESS)

    def run_placement_score(
        self,
        ctx: GroupContext,
        candidates: Sequence[tuple[Placement, Sequence[ProposedAssignment]]],
        nodes: Sequence[NodeInfo],
    ) -> list[dict[str, int]]:
        """Weighted, normalised score parts per candidate placement, keyed by plugin name.
        raw -> optional normalise -> range check [0, 100] -> x weight. A normaliser's
        error or a score out of range is the plugin's error (upstream
        ``RunPlacementScorePlugins`` returns an Error status): ``PluginError``."""
        parts: list[dict[str, int]] = [{} for _ in candidates]
        for entry in self.placement_scores:
            raw = [
                entry.plugin.score_placement(ctx, placement, [nodes[i] for i in placement.nodes],
                                             proposed)
                for placement, proposed in candidates
            ]
            scores = entry.normalize(raw) if entry.normalize else raw
            if isinstance(scores, Status):
                raise PluginError(scores.with_plugin(entry.plugin.name))
            for i, value in enumerate(scores):
                if not 0 <= value <= MAX_NODE_SCORE:
                    raise PluginError(error(
                        f"plugin {entry.plugin.name} scored placement "
                        f"{candidates[i][0].name} {value}, outside [0, {MAX_NODE_SCORE}]"
                    ).with_plugin(entry.plugin.name))
                parts[i][entry.plugin.name] = value * entry.weight
        return parts


def _weight(ref: PluginRef) -> int:
    """Upstream ``getValidScoreWeights``: an unset or zero weight counts as 1."""
    if ref.weight < 0:
        raise ProfileError("<profile>", f"plugin {ref.name} has negative weight {ref.weight}")
    return ref.weight or 1
