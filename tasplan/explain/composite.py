"""``tasplan explain`` for group trees: which level is short and where, and changes that
make the whole tree fit, each verified by re-planning it (the same planner, the same
inputs with one change)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from tasplan.explain.composite_suggest import Replan, TreeSuggestion, suggestions, tree_leaves
from tasplan.model.composite import CompositePodGroup
from tasplan.model.quantity import format_quantity
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.result import GroupResult, PlanResult
from tasplan.plan.tree_result import CompositeResult
from tasplan.whatif.draft import Draft


@dataclass(frozen=True)
class LevelShort:
    """A composite that failed: its closest domain (most children scheduled) and why."""

    composite: str
    domain: str | None
    scheduled: int
    children: int
    needed: int
    status: str
    # The root only: the first child that failed in the closest domain, and by how much
    # (``Shortfall``), from the tree re-planned inside that domain.
    shortfall: Shortfall | None = None


@dataclass(frozen=True)
class Shortfall:
    """``child`` failed in ``domain``: with ``amount`` more of ``resource`` in each of its own
    domains (values of ``key``, or the whole domain when ``key`` is None) it would not be
    short of it; ``amount`` is the smallest such gap (None when no resource is short in
    every one of them: ``message`` then says why it failed)."""

    child: str
    domain: str | None
    key: str | None
    resource: str | None
    amount: int | None
    message: str


@dataclass(frozen=True)
class TreeExplanation:
    root: str
    levels: tuple[LevelShort, ...]
    # (group, its message, the domain) of the first child that failed in the domain upstream
    # reports (its composite's first placement)
    first_failed_child: tuple[str, str, str] | None
    suggestions: tuple[TreeSuggestion, ...]


def explain_trees(snapshot: ClusterSnapshot, result: PlanResult,
                  replan: Replan) -> dict[str, TreeExplanation]:
    """An explanation for every root composite that is unschedulable (not for trees that
    wait for pods or are invalid: their message says all there is). ``replan(snapshot,
    preempt=...)`` plans changed inputs as the first plan did."""
    out: dict[str, TreeExplanation] = {}
    by_key = {c.composite.key: c for c in result.composites}
    leaves = {g.group.key: g for g in result.groups}
    for root in result.composites:
        cpg = root.composite
        if cpg.parent is not None or root.schedulable or root.error or not root.placements:
            continue
        levels = [_short(c) for c in _subtree(root, by_key)
                  if not c.schedulable and c.placements]
        if levels and levels[0].composite == cpg.key:
            levels[0] = replace(levels[0], shortfall=_shortfall(snapshot, result, root,
                                                                levels[0].domain, replan))
        out[cpg.key] = TreeExplanation(cpg.key, tuple(levels),
                                       _first_failed(root, by_key, leaves),
                                       tuple(suggestions(snapshot, root, replan)))
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
    # A composite without a constraint has one domain, its parent's: no name of its own.
    domain = closest.name if c.composite.topology_key else None
    return LevelShort(c.composite.key, domain, closest.scheduled, closest.children,
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


def _shortfall(snapshot: ClusterSnapshot, result: PlanResult, root: CompositeResult,
               domain: str | None, replan: Replan) -> Shortfall | None:
    """The tree re-planned inside the root's closest ``domain`` alone (the nodes of other
    domains gone; groups planned before the tree bound where the plan put them, groups
    after it left out), and the first of the root's children that failed there."""
    cpg = root.composite
    inside = _inside(snapshot, result, root, domain)
    again = replan(inside, preempt=False)
    leaves = {g.group.key: g for g in again.groups}
    inner = {c.composite.key: c for c in again.composites}
    for kind, key in root.children:
        if kind == "CompositePodGroup":
            c = inner.get(key)
            if c is not None and c.selected is None and c.closest is None and \
                    not c.message.startswith(
                    "not attempted"):
                return Shortfall(key, domain, c.composite.topology_key, None, None, c.message)
            continue
        g = leaves.get(key)
        # A leaf that found a placement but was not bound (its root failed) did not fail.
        if g is None or g.selected is not None or g.closest is not None \
                or g.message.startswith("not attempted") or g.error:
            continue
        return _leaf_gap(g, snapshot, domain, cpg)
    return None


def _inside(snapshot: ClusterSnapshot, result: PlanResult, root: CompositeResult,
            domain: str | None) -> ClusterSnapshot:
    key = root.composite.topology_key
    draft = Draft.of(snapshot)
    if key is not None and domain is not None:
        for name in [n for n, node in draft.nodes.items() if node.labels.get(key) != domain]:
            del draft.nodes[name]
    mine = tree_leaves(snapshot, root.composite.key)
    before = {}
    for g in result.groups[:root.position]:
        chosen = g.selected_placement if g.schedulable else None
        before.update(chosen.assignments if chosen is not None else {})
        if g.preemption is not None:
            before.update(g.preemption.nominated)
            draft.gone.update(id(p) for p in draft.pods
                              if p.key in {v.pod for v in g.preemption.victims})
    pods = []
    for p in draft.pods:
        if p.node_name or p.group in mine:
            pods.append(p)
        elif p.key in before:
            pods.append(replace(p, node_name=before[p.key], phase="Running"))
    draft.pods = [p for p in pods if not p.node_name or p.node_name in draft.nodes]
    return draft.snapshot()


def _leaf_gap(g: GroupResult, snapshot: ClusterSnapshot, domain: str | None,
              root: CompositePodGroup) -> Shortfall:
    """What the leaf's unplaced pods request beyond what each of its placements has free."""
    pending = sorted((p for p in snapshot.pods if p.group == g.group.key and not p.node_name),
                     key=lambda p: (-p.priority, p.order))
    gaps: dict[str, list[int]] = {}
    for placement in g.placements:
        missing = max(g.group.min_count - g.scheduled - placement.placed, 1)
        wanted: dict[str, int] = {}
        for pod in [p for p in pending if p.key not in placement.assignments][:missing]:
            for r, v in pod.requests.items():
                wanted[r] = wanted.get(r, 0) + v
        for r, v in wanted.items():
            gaps.setdefault(r, []).append(v - placement.free.get(r, 0))
    short = sorted((min(v), r) for r, v in gaps.items()
                   if len(v) == len(g.placements) and min(v) > 0)
    message = g.message
    if not short:
        return Shortfall(g.group.key, domain, g.group.topology_key, None, None, message)
    extended = [(a, r) for a, r in short if "/" in r]
    amount, resource = (extended or short)[0]
    return Shortfall(g.group.key, domain, g.group.topology_key, resource, amount, message)


def explanation_document(e: TreeExplanation) -> dict:
    return {
        "levels": [{"compositePodGroup": s.composite, "closestDomain": s.domain,
                    "scheduledChildren": s.scheduled, "children": s.children,
                    "minGroupCount": s.needed, "status": s.status,
                    "summary": level_summary(s),
                    "shortfall": None if s.shortfall is None else _shortfall_document(
                        s.shortfall)} for s in e.levels],
        "firstFailedChild": None if e.first_failed_child is None else {
            "name": e.first_failed_child[0], "message": e.first_failed_child[1],
            "domain": e.first_failed_child[2]},
        "suggestions": [{"kind": s.kind, "change": s.change, "selected": s.result.selected,
                         "message": s.result.message, "details": s.details}
                        for s in e.suggestions],
    }


def _shortfall_document(f: Shortfall) -> dict:
    return {"child": f.child, "domain": f.domain, "topologyKey": f.key,
            "resource": f.resource,
            "amount": None if f.amount is None else format_quantity(f.resource, f.amount),
            "message": f.message}


def level_summary(s: LevelShort) -> str:
    """``'b2' holds 3 of the 4 child groups (minGroupCount 4); default/r-3 is short 16
    nvidia.com/gpu in every rack of 'b2'``."""
    where = f"{s.domain!r} holds" if s.domain else "the cluster holds"
    text = (f"{where} {s.scheduled} of the {s.children} child groups "
            f"(minGroupCount {s.needed})")
    f = s.shortfall
    if f is None:
        return text
    inside = f"{f.domain!r}" if f.domain else "the cluster"
    if f.resource is None or f.amount is None:
        return f"{text}; {f.child} fails in {inside}: {f.message}"
    amount = format_quantity(f.resource, f.amount)
    # "every rack of 'b2'": the key's name without its prefix (JSON keeps the whole key)
    each = f"every {f.key.rsplit('/', 1)[-1]} of {inside}" if f.key else inside
    return f"{text}; {f.child} is short {amount} {f.resource} in {each}"
