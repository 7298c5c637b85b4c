"""The group trees of an input, checked as kube-scheduler's queue checks a hierarchy before
it schedules one (upstream ``workloadForest.validateHierarchy``): every ancestor must exist
(otherwise the whole hierarchy waits for it), no cycle, no branch deeper than 4 levels
(otherwise every group of it is invalid)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tasplan.model.composite import MAX_TREE_DEPTH, CompositePodGroup
from tasplan.model.group import PodGroup

Member = CompositePodGroup | PodGroup


@dataclass(frozen=True)
class Tree:
    """One hierarchy. ``root`` is None when it has none (a missing ancestor or a cycle);
    then ``problem`` says why. ``invalid``: the scheduler marks such a hierarchy Invalid and
    never schedules it (cycle, too deep); otherwise a problem means its pods wait (missing
    ancestor). ``children``: composite key -> its children in scheduling order."""

    root: CompositePodGroup | None
    members: tuple[Member, ...]
    children: Mapping[str, tuple[Member, ...]]
    problem: str | None = None
    invalid: bool = False

    @property
    def leaves(self) -> tuple[PodGroup, ...]:
        return tuple(m for m in self.members if isinstance(m, PodGroup))

    @property
    def composites(self) -> tuple[CompositePodGroup, ...]:
        return tuple(m for m in self.members if isinstance(m, CompositePodGroup))

    @property
    def order(self) -> int:
        return min(m.order for m in self.members)


def build_trees(composites: Sequence[CompositePodGroup], groups: Iterable[PodGroup]
                ) -> list[Tree]:
    """Every hierarchy with at least one composite or one PodGroup naming a parent, in input
    order of their first member. Children are ordered by input position (upstream keeps them
    in a set; see the ``composite-child-order`` note)."""
    by_key = {c.key: c for c in composites}
    members: list[Member] = [*composites, *(g for g in groups if g.parent is not None)]
    children: dict[str, list[Member]] = {}
    for m in sorted(members, key=lambda m: m.order):
        if m.parent is not None:
            children.setdefault(m.parent, []).append(m)

    # Every composite's hierarchy is named by the root it reaches, by the first missing
    # ancestor, or by the smallest key of the cycle it runs into; found once per composite
    # (walking up from every member was quadratic in a chain's depth).
    named: dict[str, tuple[str, str]] = {}
    problems: dict[tuple[str, str], str] = {}

    def walk(key: str, below: str) -> tuple[str, str]:
        path: list[str] = []
        index: dict[str, int] = {}
        at = key
        while True:
            if at in named:
                name = named[at]
                break
            node = by_key.get(at)
            if node is None:
                name = ("missing", at)
                problems[name] = (f"waiting for CompositePodGroup {at}: the parent of "
                                  f"{f'CompositePodGroup {path[-1]}' if path else below} is not "
                                  "in the inputs (upstream: not found in workload forest); the "
                                  "whole hierarchy stays pending")
                break
            if at in index:
                name = ("cycle", min(path[index[at]:]))
                problems[name] = ("invalid hierarchy: cycle of parent references through "
                                  f"CompositePodGroup {name[1]}")
                break
            index[at] = len(path)
            path.append(at)
            if node.parent is None:
                name = ("root", at)
                break
            at = node.parent
        for k in path:
            named[k] = name
        return name

    ident: dict[int, tuple[str, str]] = {}
    for m in members:
        if isinstance(m, PodGroup):
            ident[id(m)] = walk(m.parent, f"PodGroup {m.key}")  # type: ignore[arg-type]
        else:
            ident[id(m)] = walk(m.key, "")

    trees: dict[tuple[str, str], list[Member]] = {}
    for m in sorted(members, key=lambda m: m.order):
        trees.setdefault(ident[id(m)], []).append(m)
    out = []
    for name, ms in trees.items():
        keys = {m.key for m in ms}
        kids = {k: tuple(v) for k, v in children.items() if k in keys}
        root = by_key[name[1]] if name[0] == "root" else None
        tree = Tree(root, tuple(ms), kids, problems.get(name), name[0] == "cycle")
        if root is not None:
            deepest = _too_deep(root, kids)
            if deepest is not None:
                tree = Tree(root, tuple(ms), kids, f"invalid hierarchy: {deepest[1]} is at "
                            f"level {deepest[0]}, deeper than the maximum of "
                            f"{MAX_TREE_DEPTH}", True)
        out.append(tree)
    out.sort(key=lambda t: t.order)
    return out


def _too_deep(root: CompositePodGroup, children: Mapping[str, tuple[Member, ...]]
              ) -> tuple[int, str] | None:
    """The smallest-keyed member deeper than the limit (upstream names one, deterministically)."""
    found: list[tuple[int, str]] = []
    frontier: list[tuple[Member, int]] = [(root, 1)]
    while frontier:
        m, level = frontier.pop()
        if level > MAX_TREE_DEPTH:
            found.append((level, f"{m.kind} {m.key}"))
        if isinstance(m, CompositePodGroup):
            frontier.extend((c, level + 1) for c in children.get(m.key, ()))
    return min(found, key=lambda f: f[1]) if found else None
