"""Topology levels: which node labels describe where a node sits, outermost first.

Well-known keys (Kubernetes' region and zone, cloud providers' block / sub-block / host and
network-layer labels) and any key whose last path segment names a level (``block``,
``rack``, ...: ``topology.example.com/rack``), ordered region > zone > block > sub-block and
rack > host. The what-if edits resolve bare keys and domains against these, and ``tasplan
capacity`` draws its tree with them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

HOSTNAME = "kubernetes.io/hostname"
_DEPRECATED_PREFIX = "failure-domain.beta.kubernetes.io/"
_STABLE_PREFIX = "topology.kubernetes.io/"

# Exact keys, with their rank (smaller is outer).
WELL_KNOWN: Mapping[str, int] = {
    "topology.kubernetes.io/region": 0,
    "failure-domain.beta.kubernetes.io/region": 0,
    "topology.kubernetes.io/zone": 10,
    "failure-domain.beta.kubernetes.io/zone": 10,
    "cloud.google.com/gce-topology-block": 20,
    "cloud.google.com/gce-topology-subblock": 30,
    "cloud.google.com/gce-topology-host": 40,
    "topology.k8s.aws/network-node-layer-1": 21,
    "topology.k8s.aws/network-node-layer-2": 22,
    "topology.k8s.aws/network-node-layer-3": 23,
    HOSTNAME: 100,
}
# A key's last path segment (after an optional ``topology-`` prefix) -> rank.
SEGMENTS: Mapping[str, int] = {"region": 0, "zone": 10, "superblock": 15, "block": 20,
                               "subblock": 30, "rack": 30, "host": 40}


def level_rank(key: str) -> int | None:
    """Where ``key`` sits among topology levels; None when it names no level."""
    if key in WELL_KNOWN:
        return WELL_KNOWN[key]
    if "/" not in key:
        return None
    segment = key.rpartition("/")[2]
    for prefix in ("gce-topology-", "topology-"):
        segment = segment.removeprefix(prefix)
    return SEGMENTS.get(segment)


def infer_levels(labels: Iterable[Mapping[str, str]]) -> tuple[str, ...]:
    """The topology keys present on the given nodes' labels, outermost first (ties by
    key); the deprecated ``failure-domain.beta`` keys only where the stable one is absent."""
    present: set[str] = set()
    for node_labels in labels:
        present.update(node_labels)
    ranked = []
    for key in present:
        rank = level_rank(key)
        if rank is None:
            continue
        if key.startswith(_DEPRECATED_PREFIX) and \
                _STABLE_PREFIX + key.removeprefix(_DEPRECATED_PREFIX) in present:
            continue
        ranked.append((rank, key))
    return tuple(key for _, key in sorted(ranked))


def last_segment(key: str) -> str:
    return key.rpartition("/")[2]


def domain_noun(topology_key: str | None) -> str:
    """What one domain of a level is called in a sentence: the key's last word (``rack``
    for topology.example.com/rack, ``node`` for the hostname), else ``domain``."""
    if not topology_key:
        return "domain"
    if topology_key == HOSTNAME:
        return "node"
    word = last_segment(topology_key)
    if len(word) <= 20 and word[:1].isalpha() and all(c.islower() or c == "-" for c in word):
        return word
    return "domain"


_DIGITS = re.compile(r"(\d+)")


@lru_cache(maxsize=8192)  # placements are sorted by name in every cycle
def natural_key(name: str) -> tuple:
    """Names in natural order, as people count: node-2 before node-10 (the text itself
    breaks what numbers leave tied, node-02 and node-2)."""
    parts = _DIGITS.split(name)  # text, digits, text, ...: the kinds alternate by position
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts)), name
