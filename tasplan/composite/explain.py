"""``tasplan explain`` for group trees: which level is short and where, and changes that
make the whole tree fit, each verified by re-planning it (the same planner, the same
inputs with one change)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from tasplan.composite.model import CompositePodGroup
from tasplan.composite.result import CompositeResult
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.result import GroupResult, PlanResult


@dataclass(frozen=True)
class LevelShort:
    """A composite that failed: its closest domain (most children scheduled) and why."""

    composite: str
    domain: str | None
    scheduled: int
    children: int
    needed: int
    status: str


@dataclass(frozen=True)
class TreeSuggestion:
    change: str
    result: CompositeResult  # the root's verdict after the change


@dataclass(frozen=True)
class TreeExplanation:
    root: str
    levels: tuple[LevelShort, ...]
    # (group, its message, the domain) of the first child that failed in the domain upstream
    # reports (its composite's first placement)
    first_failed_child: tuple[str, str, str] | None
    suggestions: tuple[TreeSuggestion, ...]


def explain_trees(snapshot: ClusterSnapshot, result: PlanResult,
                  replan: Callable[[ClusterSnapshot], PlanResult]) -> dict[str, TreeExplanation]:
    """An explanation for every root composite that is unschedulable (not for trees that
    wait for pods or are invalid: their message says all there is)."""
    out: dict[str, TreeExplanation] = {}
    by_key = {c.composite.key: c for c in result.composites}
    leaves = {g.group.key: g for g in result.groups}
    for root in result.composites:
        cpg = root.composite
        if cpg.parent is not None or root.schedulable or root.error or not root.placements:
            continue
        levels = tuple(_short(c) for c in _subtree(root, by_key)
                       if not c.schedulable and c.placements)
        out[cpg.key] = TreeExplanation(cpg.key, levels, _first_failed(root, by_key, leaves),
                                       tuple(_suggestions(snapshot, cpg, replan)))
    return out


def _subtree(root: CompositeResult, by_key: Mapping[str, CompositeResult]
             ) -> list[CompositeResult]:
    out, stack = [], [root]
    while stack:
        c = stack.pop(0)
        out.append(c)
        stack.extend(by_key[k] for kind, k in c.children
                     if kind == "CompositePodGroup" and k in by_key)
    return out


def _short(c: CompositeResult) -> LevelShort:
    closest = max(c.placements, key=lambda p: (p.scheduled, p.feasible))
    return LevelShort(c.composite.key, closest.name, closest.scheduled, closest.children,
                      c.composite.min_group_count, closest.status)


def _first_failed(root: CompositeResult, by_key: Mapping[str, CompositeResult],
                  leaves: Mapping[str, GroupResult]) -> tuple[str, str, str] | None:
    for c in _subtree(root, by_key):
        for kind, key in c.children:
            g = leaves.get(key) if kind == "PodGroup" else None
            if g is not None and not g.message.startswith("not attempted") and \
                    not g.schedulable and "not bound" not in g.message and c.placements:
                return key, g.message, min(p.name for p in c.placements)
    return None


def _suggestions(snapshot: ClusterSnapshot, root: CompositePodGroup,
                 replan: Callable[[ClusterSnapshot], PlanResult]):
    """The largest minGroupCount of the root that fits; the tree without the root's
    topology constraint. Each is the planner's verdict on the changed inputs."""
    def verdict(changed: CompositePodGroup) -> CompositeResult | None:
        composites = tuple(changed if c.key == changed.key else c for c in snapshot.composites)
        result = replan(replace(snapshot, composites=composites))
        return next((c for c in result.composites if c.composite.key == changed.key), None)

    for count in range(root.min_group_count - 1, 0, -1):
        found = verdict(replace(root, min_group_count=count))
        if found is not None and found.schedulable:
            yield TreeSuggestion(f"set minGroupCount of {root.key} to {count}", found)
            break
    if root.topology_key:
        found = verdict(replace(root, topology_key=None))
        if found is not None and found.schedulable:
            yield TreeSuggestion(f"drop the constraint {root.topology_key} of {root.key}",
                                 found)


def explanation_document(e: TreeExplanation) -> dict:
    return {
        "levels": [{"compositePodGroup": s.composite, "closestDomain": s.domain,
                    "scheduledChildren": s.scheduled, "children": s.children,
                    "minGroupCount": s.needed, "status": s.status} for s in e.levels],
        "firstFailedChild": None if e.first_failed_child is None else {
            "name": e.first_failed_child[0], "message": e.first_failed_child[1],
            "domain": e.first_failed_child[2]},
        "suggestions": [{"change": s.change, "selected": s.result.selected,
                         "message": s.result.message} for s in e.suggestions],
    }
