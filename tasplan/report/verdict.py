"""The verdict in words: one plain sentence of tasplan's own that is true on its own ("fits
in rack-a2 after evicting 2 pods", "no rack holds all 4 pods: the best, rack-a3, holds
3"), then the scheduler's own words as the quoted reason.

Built only from the result fields every scheduler fills (outcome, placements and what each
placed, the selected placement, the preemption), so kube-scheduler's, Kueue's, KAI's and
Volcano's groups read alike. The scheduler's message keeps its upstream wording: it is the
reason, never the headline (upstream's "0/6 placements are available" is the status
*before* preemption found room; a tree's leaf may fit alone while its tree does not).
"""

from __future__ import annotations

import re

from tasplan.model.topology import domain_noun
from tasplan.plan.notes import Outcome
from tasplan.plan.result import GroupResult, PlacementResult
from tasplan.plan.tree_result import CompositeResult

# Placement names of a group without a topology constraint: the whole cluster (Volcano
# calls its virtual root HyperNode "cluster").
WHOLE_CLUSTER = ("", "*")


def _where(name: str | None, topology_key: str | None) -> str:
    """" in rack-a2", or nothing for the whole cluster."""
    if name is None or name in WHOLE_CLUSTER or (name == "cluster" and not topology_key):
        return ""
    return f" in {name}"
_NODES_AVAILABLE = re.compile(r"^0/[\d,]+ nodes are available: ")


def pods(n: int) -> str:
    return f"{n:,} pod" + ("" if n == 1 else "s")


def group_sentence(g: GroupResult) -> str:
    """The headline of a group's verdict (without the outcome word)."""
    outcome = g.outcome
    if outcome in (Outcome.ERROR, Outcome.NOT_PLANNED, Outcome.WAITING) or not g.pending:
        return g.message  # already the scheduler's plain account, and never a contradiction
    chosen = g.selected_placement
    if outcome == Outcome.SCHEDULED_AFTER_PREEMPTION:
        p = g.preemption
        text = f"fits in {p.placement} after evicting {pods(len(p.victims))}"
        if p.pdb_violations:
            text += f" ({p.pdb_violations} beyond a PodDisruptionBudget)"
        return text
    where = _where(chosen and chosen.name, g.group.topology_key)
    if outcome == Outcome.SCHEDULED:
        placed = chosen.placed if chosen is not None else g.pending
        if placed >= g.pending:
            return (f"all {g.pending:,} pending pods fit{where}" if g.pending > 1
                    else f"its pending pod fits{where}")
        return (f"{placed:,} of {g.pending:,} pending pods fit{where} (minCount "
                f"{g.group.min_count}); the other {g.pending - placed:,} stay pending")
    # Unschedulable. A leaf of a tree whose ancestor failed keeps its cycle's choice as
    # ``closest`` (only a group that binds has a selected placement).
    chosen = chosen or g.closest_placement
    where = _where(chosen and chosen.name, g.group.topology_key)
    if chosen is not None and chosen.placed:
        # Fits alone but is not bound: a leaf of a tree that did not fit.
        if g.group.parent:
            return (f"its {pods(chosen.placed)} fit{where} on their own, but its "
                    f"CompositePodGroup {g.group.parent} does not fit, so none is bound")
        return f"{pods(chosen.placed)} fit{where}, but the scheduler does not bind them"
    if not g.placements:
        # No node carries the topology key; else the scheduler stopped it before any
        # placement (a tree's leaf not attempted, Kueue's quota): its own account says why.
        if g.group.topology_key and not (g.group.parent and g.message.startswith(
                "not attempted")):
            return f"no {domain_noun(g.group.topology_key)} to place it in"
        return g.message
    return shortfall(g.placements, _needed(g), g.pending, g.group.min_count,
                     domain_noun(g.group.topology_key), "pod", g.group.topology_key)


def _needed(g: GroupResult) -> int:
    """Pods the group still needs: what minCount asks beyond its running pods, or, when a
    placement holds that many and the group still does not fit (a scheduler that admits
    all pods or none, as Kueue), every pending pod."""
    needed = max(g.group.min_count - g.scheduled, 1)
    if any(p.placed >= needed for p in g.placements):
        return g.pending
    return needed


def shortfall(placements: tuple, needed: int, pending: int, min_count: int, noun: str,
              unit: str, topology_key: str | None = None) -> str:
    """"no rack holds all 4 pods: the best, rack-a3, holds 3" (``unit``: pod or child
    group)."""
    best = max(placements, key=lambda p: _placed(p))
    most = _placed(best)
    units = f"{unit}s" if needed != 1 else unit
    if len(placements) == 1 and not _where(best.name, topology_key):
        if not most:
            if needed == 1:  # a basic group: not one of its pods fits
                return (f"none of its {pending:,} pending {unit}s fits in the cluster"
                        if pending > 1 else f"its {unit} fits nowhere in the cluster")
            return f"none of the {needed:,} {units} it needs fits in the cluster"
        return f"the cluster holds {most:,} of the {needed:,} {units} it needs"
    if needed == pending:
        wanted = f"all {needed:,} {units}" if needed > 1 else f"its {unit}"
    elif unit == "pod":
        wanted = f"the {needed:,} {units} minCount {min_count} needs"
    else:
        wanted = f"the {needed:,} {units} minGroupCount {min_count} needs"
    if not most:  # nothing placed: a scheduler may rule domains out without trying a pod
        return f"no {noun} holds {wanted}"
    return f"no {noun} holds {wanted}: the best, {best.name}, holds {most:,}"


def _placed(p: PlacementResult | object) -> int:
    return p.placed if isinstance(p, PlacementResult) else p.scheduled


def group_reason(g: GroupResult) -> str | None:
    """The scheduler's words, quoted, when they are not the headline already: why it did
    not fit, or why it needed preemption."""
    if g.outcome in (Outcome.ERROR, Outcome.NOT_PLANNED, Outcome.WAITING, Outcome.SCHEDULED) \
            or not g.pending or group_sentence(g) == g.message:
        return None
    chosen = g.selected_placement
    if g.outcome == Outcome.UNSCHEDULABLE and chosen is not None and chosen.placed:
        return None  # fits alone, not bound: the sentence says why, the message is ours
    who = g.scheduler or "scheduler"
    if g.outcome == Outcome.SCHEDULED_AFTER_PREEMPTION:
        who += ", before preemption"
    return f'{who}: "{g.message}"'


def placement_status(p: PlacementResult, needed: int) -> str:
    """The STATUS column: what the placement holds and, when it falls short, why the first
    pod that did not fit failed (the scheduler's words); its own status when it has no
    failed pod to show (a placement decided from capacity counts)."""
    if p.feasible:
        return "fits"
    reason = next((r for r in p.unplaced.values() if not r.startswith("not attempted")),
                  None)
    if reason is None:
        reason = f'"{p.status}"' if p.status else "does not fit"
    else:  # "0/4 nodes are available: 4 Insufficient cpu.": NODES says how many there are
        reason = _NODES_AVAILABLE.sub("", reason).removesuffix(".")
    return f"holds {p.placed:,}, needs {needed:,}: {reason}"


def composite_sentence(c: CompositeResult) -> str:
    """The headline of a CompositePodGroup's verdict."""
    if c.error or c.waiting:
        return c.message
    cpg = c.composite
    if c.schedulable:
        chosen = next((p for p in c.placements if p.name == c.selected), None)
        if chosen is None:
            return c.message
        where = _where(chosen.name, cpg.topology_key)
        if chosen.scheduled >= chosen.children:
            return f"all {chosen.children} child groups fit{where}"
        return (f"{chosen.scheduled} of {chosen.children} child groups fit{where} "
                f"(minGroupCount {cpg.min_group_count})")
    if c.preemption is not None:
        p = c.preemption
        return f"fits in {p.placement} after evicting {pods(len(p.victims))}"
    where = c.selected or c.closest
    if c.after_preemption:  # placed by the re-plan of its root's preemption
        return (f"fits{f' in {where}' if where else ''} with its tree, after the root's "
                "preemption")
    if c.closest is not None and cpg.parent:
        return (f"its child groups fit in {c.closest} on their own, but its parent "
                f"{cpg.parent} does not fit, so none is bound")
    if not c.placements:
        return c.message
    children = c.placements[0].children
    return shortfall(c.placements, cpg.min_group_count, children, cpg.min_group_count,
                     domain_noun(cpg.topology_key), "child group", cpg.topology_key)


def composite_status(p: object) -> str:
    """A composite placement's STATUS from its counts (tasplan.plan.tree_result
    CompositePlacement): children that fit, failed and were not tried (upstream stops at
    the first child that cannot fit)."""
    failed = p.evaluated - p.scheduled
    text = f"{p.scheduled} fit" + (f", {failed} failed" if failed else "")
    left = p.children - p.evaluated
    return text + (f", {left} not tried" if left else "")


def composite_reason(c: CompositeResult) -> str | None:
    if c.error or c.schedulable or composite_sentence(c) == c.message:
        return None
    who = c.scheduler or "scheduler"
    if c.preemption is not None:
        who += ", before preemption"
    return f'{who}: "{c.message}"'
