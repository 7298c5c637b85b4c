"""Where the group trees go in a report: each tree (composites and its leaves, pre-order) at
the place of its first leaf in the plan's group order."""

from __future__ import annotations

from collections.abc import Iterator

from tasplan.plan.result import PlanResult


def report_order(result: PlanResult) -> Iterator[tuple[object, int]]:
    """Every group and composite result once, with its depth in its tree (0 for a root or a
    group outside any tree)."""
    leaves = {g.group.key: g for g in result.groups}
    composites = {c.composite.key: c for c in result.composites}
    by_position: dict[int, list] = {}
    for c in result.composites:
        if c.composite.parent is None or c.composite.parent not in composites:
            by_position.setdefault(c.position, []).append(c)
    shown: set[str] = set()

    visited: set[str] = set()

    def tree(root, depth: int) -> Iterator[tuple[object, int]]:
        """Pre-order with an explicit stack: a hierarchy can be any depth (an invalid one
        too, and a 1,000-deep chain was a RecursionError); each composite once."""
        stack: list[tuple[bool, object, int]] = [(False, root, depth)]
        while stack:
            is_leaf, item, level = stack.pop()
            if is_leaf:
                if item not in shown:
                    shown.add(item)
                    yield leaves[item], level
                continue
            if item.composite.key in visited:
                continue
            visited.add(item.composite.key)
            yield item, level
            for kind, key in reversed(item.children):
                if kind == "CompositePodGroup":
                    if key in composites:
                        stack.append((False, composites[key], level + 1))
                elif key in leaves:
                    stack.append((True, key, level + 1))

    for i, g in enumerate(result.groups):
        for root in by_position.pop(i, ()):
            yield from tree(root, 0)
        if g.group.key not in shown:
            shown.add(g.group.key)
            yield g, 0
    for roots in by_position.values():
        for root in roots:
            yield from tree(root, 0)

