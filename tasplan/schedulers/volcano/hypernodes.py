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

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from tasplan.model.pod_affinity import LabelSelector

ROOT = "<cluster-top-hypernode>"
MEMBER_NODE = "Node"
MEMBER_HYPERNODE = "HyperNode"


@dataclass(frozen=True, slots=True)
class Member:
    """One ``spec.members[]`` entry: exactly one of ``exact``, ``regex`` or ``labels``."""

    type: str
    exact: str | None = None
    regex: str | None = None
    labels: LabelSelector | None = None


@dataclass(frozen=True, slots=True)
class HyperNode:
    name: str
    tier: int
    members: tuple[Member, ...]
    tier_name: str = ""


class RegexError(ValueError):
    """A pattern Go's ``regexp.Compile`` would reject, or one tasplan cannot translate."""


# Constructs Python's ``re`` accepts and RE2 (Go regexp) rejects.
_PYTHON_ONLY = (
    (re.compile(r"\(\?[=!]"), "lookahead"),
    (re.compile(r"\(\?<[=!]"), "lookbehind"),
    (re.compile(r"\(\?>"), "atomic group"),
    (re.compile(r"\(\?\("), "conditional"),
    (re.compile(r"\\[1-9]"), "backreference"),
    (re.compile(r"[*+?}]\+"), "possessive quantifier"),
)
_POSIX = {
    "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7F", "blank": "\\t ",
    "cntrl": "\\x00-\\x1F\\x7F", "digit": "0-9", "graph": "!-~", "lower": "a-z",
    "print": " -~", "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ",
    "upper": "A-Z", "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f",
}
_POSIX_CLASS = re.compile(r"\[:(\^?)([a-z]+):\]")


def compile_go_regex(pattern: str) -> re.Pattern[str]:
    """A Python pattern that matches what Go's ``regexp.MatchString`` matches (unanchored
    search, RE2 syntax), or RegexError with the reason."""
    stripped = re.sub(r"\\\\", "", pattern)
    for probe, what in _PYTHON_ONLY:
        if probe.search(stripped):
            raise RegexError(f"RE2 does not support {what}")
    if re.search(r"\\[pP]", stripped):
        raise RegexError("Unicode classes (\\p) are not supported by tasplan")

    def posix(m: re.Match[str]) -> str:
        if m.group(2) not in _POSIX:
            raise RegexError(f"invalid character class range: [:{m.group(2)}:]")
        if m.group(1):
            raise RegexError("negated POSIX classes are not supported by tasplan")
        return _POSIX[m.group(2)]

    translated = _POSIX_CLASS.sub(posix, pattern).replace("\\z", "\\Z")
    translated = re.sub(r"\(\?<([A-Za-z_][A-Za-z0-9_]*)>", r"(?P<\1>", translated)
    try:
        return re.compile(translated)
    except (re.error, RecursionError, OverflowError) as exc:
        raise RegexError(str(exc)) from None


def members_of(member: Member, nodes: Sequence[tuple[str, Mapping[str, str]]]) -> set[str]:
    """Node names one ``Node`` member selects (``GetMembers``): an exact name whether or not
    such a node exists, every node whose name the regex finds, every node the label
    selector matches (an empty selector selects nothing)."""
    if member.exact is not None:
        return {member.exact} if member.exact else set()
    if member.regex is not None:
        try:
            pattern = compile_go_regex(member.regex)
        except RegexError:
            return set()
        return {name for name, _ in nodes if pattern.search(name)}
    if member.labels is not None and not member.labels.empty:
        return {name for name, labels in nodes if member.labels.matches(labels)}
    return set()


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

    def resolve(name: str) -> frozenset[str]:
        if name in real:
            return real[name]
        if name in in_progress:
            errors.append(f"cyclic dependency detected: HyperNode {name} is already in the "
                          "ancestor chain")
            return frozenset()
        in_progress.add(name)
        acc: set[str] = set()
        spec = specs.get(name)
        for member in spec.members if spec else ():
            if member.type == MEMBER_NODE:
                acc |= members_of(member, nodes)
            elif member.exact and member.exact in specs:
                acc |= resolve(member.exact)
        in_progress.discard(name)
        real[name] = frozenset(acc & node_names)
        return real[name]

    for name in sorted(specs):
        resolve(name)
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
    tree = HyperNodeTree(tiers, parent, kids, real, tier_names, not errors, tuple(errors))
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
