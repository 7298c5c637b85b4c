"""Volcano HyperNodes (``topology.volcano.sh/v1alpha1``) and the tree the scheduler builds
from them.

Mirrors volcano ``pkg/scheduler/api/hyper_node_info.go`` (``BuildHyperNodeCache``:
members resolved against the node list, parent/child links, a HyperNode with two parents or
a cycle makes the whole view unready), ``pkg/util/hypernode/member_selector.go``
(``GetMembers``) and ``framework/session.go`` (``addClusterTopHyperNode``: a virtual root one
tier above the highest real tier holds every node), read at volcano commit
``ed72c7c815a9fd547a787134676f73d42e9d049c``.

Volcano iterates Go maps and sets here (children, tiers); tasplan orders children and
HyperNodes by name so that every walk over the tree is deterministic.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from tasplan.load.go_regex import RegexError, compile_go_regex
from tasplan.model.volcano import MEMBER_HYPERNODE, MEMBER_NODE, HyperNode, Member

ROOT = "<cluster-top-hypernode>"


def members_of(member: Member, nodes: Sequence[tuple[str, Mapping[str, str]]],
               by_label: dict[tuple[str, str], set[str]] | None = None) -> set[str]:
    """Node names one ``Node`` member selects (``GetMembers``): an exact name whether or not
    such a node exists, every node whose name the regex finds, every node the label
    selector matches (an empty selector selects nothing). ``by_label`` (label pair ->
    node names) answers plain ``matchLabels`` selectors without scanning every node."""
    if member.exact is not None:
        return {member.exact} if member.exact else set()
    if member.regex is not None:
        pattern = compile_go_regex(member.regex)  # RegexError: the caller reports it
        return {name for name, _ in nodes if pattern.search(name)}
    if member.labels is None or member.labels.empty:
        return set()
    reqs = member.labels.requirements
    if by_label is not None and all(r.operator == "In" and len(r.values) == 1 for r in reqs):
        found = [by_label.get((r.key, r.values[0]), set()) for r in reqs]
        return set.intersection(*found) if found else set()
    return {name for name, labels in nodes if member.labels.matches(labels)}


@dataclass
class HyperNodeTree:
    """The session's view: tiers, parent/children, the real nodes of every HyperNode
    (``RealNodesSet``), plus the virtual root. ``ready`` is False when building failed
    (``HyperNodesReadyToSchedule``); jobs with a network topology are then skipped."""

    tiers: dict[str, int]
    parent: dict[str, str]
    children: dict[str, tuple[str, ...]]
    real_nodes: dict[str, frozenset[str]]
    tier_names: dict[str, int] = field(default_factory=dict)
    ready: bool = True
    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    # node name -> the lowest-tier HyperNode holding it (FindHyperNodeForNode).
    leaf_of: dict[str, str] = field(default_factory=dict)

    @property
    def min_tier(self) -> int:
        return min(self.tiers.values())

    @property
    def max_tier(self) -> int:
        return max(self.tiers.values())

    def ancestors(self, name: str) -> list[str]:
        """``name`` and its ancestors, bottom up (``GetAncestors``)."""
        out = [name]
        current = name
        while (parent := self.parent.get(current)) and parent not in out:
            out.append(parent)
            current = parent
        return out

    def lca(self, a: str, b: str) -> str:
        """``GetLCAHyperNode``: "" when either is empty returns the other."""
        if not a:
            return b
        if not b:
            return a
        seen = set(self.ancestors(a))
        for ancestor in self.ancestors(b):
            if ancestor in seen:
                return ancestor
        return ""

    def tier(self, name: str) -> int:
        return self.tiers[name]


def build_tree(hypernodes: Iterable[HyperNode],
               nodes: Sequence[tuple[str, Mapping[str, str]]]) -> HyperNodeTree:
    """HyperNode specs resolved against ``(name, labels)`` of every node, with the virtual
    root over the HyperNodes without a parent (``BuildHyperNodeCache`` +
    ``addClusterTopHyperNode``)."""
    specs = {hn.name: hn for hn in hypernodes}
    node_names = {name for name, _ in nodes}
    tiers = {name: hn.tier for name, hn in specs.items()}
    parent: dict[str, str] = {}
    children: dict[str, set[str]] = {name: set() for name in specs}
    errors: list[str] = []
    warnings: list[str] = []
    for name in sorted(specs):
        for member in specs[name].members:
            if member.type != MEMBER_HYPERNODE or not member.exact:
                continue
            child = member.exact
            if child in parent and parent[child] != name:
                errors.append(f"HyperNode {child} already has a parent {parent[child]}, "
                              f"and cannot set another parent {name}")
                continue
            parent[child] = name
            children[name].add(child)
    real: dict[str, frozenset[str]] = {}
    in_progress: set[str] = set()
    by_label: dict[tuple[str, str], set[str]] = {}
    keys = {r.key for hn in specs.values() for m in hn.members if m.labels is not None
            for r in m.labels.requirements}
    if keys:
        for name, labels in nodes:
            for key in keys & labels.keys():
                by_label.setdefault((key, labels[key]), set()).add(name)

    def own(name: str) -> set[str]:
        out: set[str] = set()
        for member in specs[name].members:
            if member.type != MEMBER_NODE:
                continue
            try:
                out |= members_of(member, nodes, by_label)
            except RegexError as exc:
                warnings.append(f"HyperNode {name}: regexMatch pattern {member.regex!r} "
                                f"selects no node here: {exc}")
        return out

    def children_of(name: str) -> list[str]:
        return [m.exact for m in specs[name].members
                if m.type == MEMBER_HYPERNODE and m.exact and m.exact in specs]

    # Depth first without recursion (a chain of HyperNodes is as long as the input).
    for top in sorted(specs):
        if top in real:
            continue
        stack = [(top, iter(children_of(top)))]
        in_progress.add(top)
        while stack:
            name, kids = stack[-1]
            child = next(kids, None)
            if child is None:
                stack.pop()
                in_progress.discard(name)
                acc = own(name)
                for c in children_of(name):
                    acc |= real.get(c, frozenset())
                real[name] = frozenset(acc & node_names)
            elif child in in_progress:
                errors.append(f"cyclic dependency detected: HyperNode {child} is already in "
                              "the ancestor chain")
            elif child not in real:
                in_progress.add(child)
                stack.append((child, iter(children_of(child))))
    top = max(tiers.values(), default=0) + 1
    top = max(top, 1)
    roots = sorted(n for n in specs if n not in parent)
    for n in roots:
        parent[n] = ROOT
    tiers[ROOT] = top
    real[ROOT] = frozenset(node_names)
    kids = {name: tuple(sorted(c)) for name, c in children.items()}
    kids[ROOT] = tuple(roots)
    tier_names: dict[str, int] = {}
    for name in sorted(specs):
        if specs[name].tier_name:
            tier_names[specs[name].tier_name] = specs[name].tier
    tree = HyperNodeTree(tiers, parent, kids, real, tier_names, not errors, tuple(errors),
                         warnings=tuple(warnings))
    tree.leaf_of = leaf_index(tree)
    return tree


def leaf_index(tree: HyperNodeTree) -> dict[str, str]:
    """Node -> the HyperNode of the lowest tier that holds it (``FindHyperNodeForNode``
    searches only the lowest tier of all; a node outside it has none). Two HyperNodes of
    that tier holding one node: Go map order decides, tasplan takes the first by name."""
    lowest = min(tree.tiers.values())
    out: dict[str, str] = {}
    for name in sorted(n for n, t in tree.tiers.items() if t == lowest):
        for node in tree.real_nodes.get(name, ()):
            out.setdefault(node, name)
    return out
