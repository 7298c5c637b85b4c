"""The topology tree of one TAS ResourceFlavor: domains per level, leaves with capacity.

Mirrors ``pkg/cache/scheduler/tas_topology_tree.go``, ``tas_flavor.go`` (``snapshot``),
``tas_nodes_cache.go`` and ``pkg/util/tas`` of kubernetes-sigs/kueue at ff69552e: a node
belongs to the flavor when it carries every flavor ``nodeLabel`` and every level label;
a leaf is a domain of the lowest level (the node itself when that level is
``kubernetes.io/hostname``) and its capacity is the sum of its nodes' allocatable.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from tasplan.model.node import Node

HOSTNAME = "kubernetes.io/hostname"
SEPARATOR = ","


def domain_id(values: Iterable[str]) -> str:
    """``utiltas.DomainID``."""
    return SEPARATOR.join(values)


@dataclass(slots=True, eq=False)
class Domain:
    """A topology domain and the per-run counts the algorithm writes on it (Kueue keeps
    those in ``domainState``; a run resets them, copies carry their own)."""

    id: str
    values: tuple[str, ...]
    level: int
    parent: Domain | None = None
    children: list[Domain] = field(default_factory=list)
    leaf: Leaf | None = None
    pod_count: int = 0
    slice_count: int = 0
    pod_count_wl: int = 0  # with a leader placed in the domain
    slice_count_wl: int = 0
    leader_count: int = 0
    affinity: int = 0

    def reset(self) -> None:
        self.pod_count = self.slice_count = self.pod_count_wl = self.slice_count_wl = 0
        self.leader_count = self.affinity = 0

    def copy(self) -> Domain:
        """A shallow copy with its own counts (``shallowCloneWithState``)."""
        return Domain(self.id, self.values, self.level, self.parent, self.children, self.leaf,
                      self.pod_count, self.slice_count, self.pod_count_wl,
                      self.slice_count_wl, self.leader_count, self.affinity)


@dataclass(slots=True, eq=False)
class Leaf:
    """A lowest-level domain's capacity: ``free`` is allocatable minus the non-TAS usage,
    ``tas_usage`` what admitted TAS workloads hold (Kueue's ``leafCapacity``)."""

    domain: Domain
    nodes: list[Node]
    capacity: dict[str, int]
    free: dict[str, int]
    tas_usage: dict[str, int] = field(default_factory=dict)
    # The node the filters check, when the lowest level is the hostname (Kueue keeps the
    # first node of the hostname; with another lowest level no filter runs).
    node: Node | None = None


def node_matches_flavor(labels: Mapping[str, str], node_labels: Mapping[str, str],
                        levels: Iterable[str]) -> bool:
    """``utiltas.NodeMatchesFlavor``."""
    return all(labels.get(k, "") == v for k, v in node_labels.items()) and \
        all(level in labels for level in levels)


def add(into: dict[str, int], other: Mapping[str, int], sign: int = 1) -> None:
    for resource, value in other.items():
        into[resource] = into.get(resource, 0) + sign * value


class TopologyTree:
    """Domains by level (``domainsPerLevel``), roots and leaves of one flavor's nodes."""

    def __init__(self, levels: Iterable[str], nodes: Iterable[Node],
                 used: Mapping[str, Mapping[str, int]] | None = None) -> None:
        """``used``: node name -> what is already used there (requests and ``pods``),
        subtracted from the node's free capacity."""
        self.levels: tuple[str, ...] = tuple(levels)
        self.hostname_leaves = bool(self.levels) and self.levels[-1] == HOSTNAME
        self.per_level: list[dict[str, Domain]] = [{} for _ in self.levels]
        self.leaves: dict[str, Leaf] = {}
        self.node_leaf: dict[str, str] = {}
        lowest = len(self.levels) - 1
        levels_ = self.levels
        for node in nodes:
            labels = node.labels
            values = tuple([labels[level] for level in levels_])
            leaf_id = values[-1] if self.hostname_leaves else domain_id(values)
            leaf = self.leaves.get(leaf_id)
            usage = used.get(node.name) if used is not None else None
            if leaf is None:
                dom = Domain(leaf_id, values, lowest)
                free = dict(node.allocatable)
                if usage:
                    for resource, value in usage.items():
                        free[resource] = free.get(resource, 0) - value
                leaf = Leaf(dom, [node], dict(node.allocatable), free,
                            node=node if self.hostname_leaves else None)
                dom.leaf = leaf
                self.leaves[leaf_id] = leaf
                self._attach(dom)
            else:
                leaf.nodes.append(node)
                add(leaf.capacity, node.allocatable)
                add(leaf.free, node.allocatable)
                if usage:
                    add(leaf.free, usage, -1)
            self.node_leaf[node.name] = leaf_id
        self._index()

    def _index(self) -> None:
        self.roots: list[Domain] = list(self.per_level[0].values()) if self.levels else []
        self.domains: list[Domain] = [d for level in self.per_level for d in level.values()]

    def with_copies(self, like: Node, copies: int) -> TopologyTree:
        """A copy of the tree with ``copies`` empty nodes shaped like ``like`` added next to
        it (same labels but the hostname): explain's "add nodes" what-if."""
        tree = copy.deepcopy(self)
        lowest = len(tree.levels) - 1
        for i in range(1, copies + 1):
            name = f"{like.name}-whatif-{i}"
            labels = {**like.labels, HOSTNAME: name} if tree.hostname_leaves else like.labels
            node = replace(like, name=name, labels=labels)
            values = tuple(labels[level] for level in tree.levels)
            leaf_id = values[-1] if tree.hostname_leaves else domain_id(values)
            leaf = tree.leaves.get(leaf_id)
            if leaf is None:
                dom = Domain(leaf_id, values, lowest)
                leaf = Leaf(dom, [], {}, {}, node=node if tree.hostname_leaves else None)
                dom.leaf = leaf
                tree.leaves[leaf_id] = leaf
                tree._attach(dom)
            leaf.nodes.append(node)
            add(leaf.capacity, node.allocatable)
            add(leaf.free, node.allocatable)
            tree.node_leaf[name] = leaf_id
        tree._index()
        return tree

    def _attach(self, dom: Domain) -> None:
        self.per_level[dom.level][dom.id] = dom
        while dom.level > 0:
            parent_values = dom.values[:-1]
            pid = domain_id(parent_values)
            parent = self.per_level[dom.level - 1].get(pid)
            created = parent is None
            if created:
                parent = Domain(pid, parent_values, dom.level - 1)
                self.per_level[dom.level - 1][pid] = parent
            dom.parent = parent
            parent.children.append(dom)
            if not created:
                return
            dom = parent

    def level_index(self, key: str) -> int | None:
        try:
            return self.levels.index(key)
        except ValueError:
            return None

    def add_non_tas_usage(self, node_name: str, usage: Mapping[str, int]) -> None:
        leaf_id = self.node_leaf.get(node_name)
        if leaf_id is not None:
            add(self.leaves[leaf_id].free, usage, -1)

    def add_tas_usage(self, leaf_id: str, usage: Mapping[str, int]) -> bool:
        """False when the domain is not a leaf of this flavor (Kueue skips it)."""
        leaf = self.leaves.get(leaf_id)
        if leaf is None:
            return False
        add(leaf.tas_usage, usage)
        return True
