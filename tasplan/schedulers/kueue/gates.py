"""Kueue's feature gates that change a TAS placement, with their defaults per Kueue release.

Defaults read from ``pkg/features/kube_features.go`` at each release tag of
kubernetes-sigs/kueue (v0.17.0, v0.18.0, v0.19.0, v0.19.2, and main at ff69552e, which
is 0.20 in development). ``--peer-feature-gates Gate=bool`` overrides them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tasplan.errors import UsageError

TOPOLOGY_AWARE_SCHEDULING = "TopologyAwareScheduling"
PROFILE_MIXED = "TASProfileMixed"
BALANCED_PLACEMENT = "TASBalancedPlacement"
RESPECT_AFFINITY_PREFERRED = "TASRespectNodeAffinityPreferred"
MULTI_LAYER = "TASMultiLayerTopology"
OVERLAPPING_FLAVORS = "TASHandleOverlappingFlavors"
SCHEDULER_LIBRARY = "SchedulerLibraryIntegration"
# Node replacement of an admitted workload; a workload a single Pod owns keeps its
# assignment (0.19 on).
FAILED_NODE_REPLACEMENT = "TASFailedNodeReplacement"
SKIP_POD_OWNED = "SkipReassignmentForPodOwnedWorkloads"
# A workload slice that replaces an earlier one keeps its pods' domains (alpha, 0.17 on).
ELASTIC_TAS = "ElasticJobsViaWorkloadSlicesWithTAS"
# Caches only: they change how fast Kueue answers, never the answer.
CACHE_NODE_MATCH = "TASCacheNodeMatchResults"
CACHING_REMAINING = "TASCachingRemainingResources"
CACHE_TREE = "TASCacheTopologyTree"

# (release, {gate: default}); a gate missing from a release does not exist there.
_DEFAULTS: tuple[tuple[str, Mapping[str, bool]], ...] = (
    ("0.17", {TOPOLOGY_AWARE_SCHEDULING: True, ELASTIC_TAS: False, PROFILE_MIXED: True,
              BALANCED_PLACEMENT: False, MULTI_LAYER: False,
              FAILED_NODE_REPLACEMENT: True}),
    ("0.18", {TOPOLOGY_AWARE_SCHEDULING: True, ELASTIC_TAS: False, PROFILE_MIXED: True,
              BALANCED_PLACEMENT: False, RESPECT_AFFINITY_PREFERRED: False,
              MULTI_LAYER: False, OVERLAPPING_FLAVORS: True, FAILED_NODE_REPLACEMENT: True}),
    ("0.19", {TOPOLOGY_AWARE_SCHEDULING: True, ELASTIC_TAS: False, PROFILE_MIXED: True,
              BALANCED_PLACEMENT: False, RESPECT_AFFINITY_PREFERRED: False,
              MULTI_LAYER: True, OVERLAPPING_FLAVORS: True, SCHEDULER_LIBRARY: False,
              CACHE_NODE_MATCH: True, CACHING_REMAINING: True,
              FAILED_NODE_REPLACEMENT: True, SKIP_POD_OWNED: True}),
    ("0.20", {TOPOLOGY_AWARE_SCHEDULING: True, ELASTIC_TAS: False, PROFILE_MIXED: True,
              BALANCED_PLACEMENT: False, RESPECT_AFFINITY_PREFERRED: False,
              MULTI_LAYER: True, OVERLAPPING_FLAVORS: True, SCHEDULER_LIBRARY: False,
              CACHE_NODE_MATCH: True, CACHING_REMAINING: True, CACHE_TREE: True,
              FAILED_NODE_REPLACEMENT: True, SKIP_POD_OWNED: True}),
)
RELEASES = tuple(release for release, _ in _DEFAULTS)
NEWEST = RELEASES[-1]
# The release whose placement code tasplan mirrors line by line (v0.19.2 and main agree).
MODELLED_CODE = "0.19"


def release_of(version: str) -> str:
    """``0.19``, ``v0.19.2`` or ``0.20.0-devel`` -> the modelled release ``0.19``/``0.20``."""
    text = version.strip().removeprefix("v")
    parts = text.split(".")
    if len(parts) < 2 or not parts[0].isdigit() or not parts[1].split("-")[0].isdigit():
        raise UsageError(f"--kueue-version {version!r}: expected a Kueue release such as "
                         f"{NEWEST} or v0.19.2")
    release = f"{int(parts[0])}.{int(parts[1].split('-')[0])}"
    if release not in RELEASES:
        raise UsageError(f"--kueue-version {version!r}: tasplan models Kueue "
                         f"{', '.join(RELEASES)} (Topology-Aware Scheduling beta, on by default "
                         "since 0.14)")
    return release


@dataclass(frozen=True, slots=True)
class Gates:
    """The gates of one Kueue release after the user's overrides."""

    release: str
    enabled: frozenset[str]
    overridden: tuple[tuple[str, bool], ...] = ()

    def __contains__(self, gate: str) -> bool:
        return gate in self.enabled


def gates_for(release: str = NEWEST, overrides: Iterable[tuple[str, bool]] = ()) -> Gates:
    defaults = dict(_DEFAULTS[RELEASES.index(release)][1])
    done = []
    for name, value in overrides:
        if name not in defaults:
            known = ", ".join(sorted(defaults))
            raise UsageError(f"--peer-feature-gates: Kueue {release} has no TAS feature gate "
                             f"{name!r} (known: {known})")
        defaults[name] = value
        done.append((name, value))
    return Gates(release, frozenset(g for g, on in defaults.items() if on), tuple(done))


def parse_overrides(text: str) -> list[tuple[str, bool]]:
    """``A=true,B=false`` as Kueue's ``--feature-gates`` reads it."""
    out = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        name, eq, value = item.partition("=")
        lowered = value.strip().lower()
        if not eq or lowered not in ("true", "false"):
            raise UsageError(f"--peer-feature-gates {item!r}: expected Gate=true or Gate=false")
        out.append((name.strip(), lowered == "true"))
    return out
