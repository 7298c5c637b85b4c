"""PlanResult -> the ``tasplan/v1`` PlanReport document shared by JSON and YAML output.

The contract: keys may be added, never renamed. Dict insertion order is fixed here, so the
same result always serialises to the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tasplan.model.quantity import format_quantity
from tasplan.plan.result import GroupResult
from tasplan.report.tree_order import report_order

if TYPE_CHECKING:
    from tasplan.explain.result import Explanation
    from tasplan.model.skipped import Skipped
    from tasplan.plan.preemption_result import PreemptionResult
    from tasplan.plan.result import PlacementResult, PlanResult
    from tasplan.plan.tree_result import CompositeResult
    from tasplan.whatif.edits import AppliedEdit

API_VERSION = "tasplan/v1"


def plan_document(result: PlanResult,
                  explanations: Mapping[str, Explanation] | None = None,
                  what_if: Sequence[AppliedEdit] = (),
                  trees: Mapping[str, Any] | None = None,
                  skipped: Sequence[Skipped] = ()) -> dict[str, Any]:
    """With ``explanations`` (``tasplan explain``) every group gets an ``explanation``:
    null for a group that needed none; root CompositePodGroups get theirs from ``trees``.
    ``summary.whatIf`` lists the what-if edits the
    cluster was planned with, in the order applied (empty: the cluster as loaded).
    ``skipped``: what the workload inputs hold that was not planned (the snapshot's)."""
    groups = []
    if explanations is not None:  # explain's parts, imported by explain only
        from tasplan.explain.composite import explanation_document as tree_explanation
        from tasplan.report.explain_document import explanation_document
    for item, _ in report_order(result):
        if not isinstance(item, GroupResult):
            doc = composite_document(item)
            if explanations is not None and item.composite.parent is None:
                found = (trees or {}).get(item.composite.key)
                doc["explanation"] = None if found is None else tree_explanation(found)
            groups.append(doc)
            continue
        doc = _group(item)
        if explanations is not None:
            found = explanations.get(item.group.key)
            doc["explanation"] = None if found is None else explanation_document(found)
        groups.append(doc)
    return {
        "apiVersion": API_VERSION,
        "kind": "PlanReport",
        "summary": {
            "nodes": result.nodes,
            "pods": result.pods,
            "groups": len(result.groups) + len(result.composites),
            "schedulable": sum(1 for g in result.groups if g.schedulable)
            + sum(1 for c in result.composites if c.schedulable),
            "scheduler": result.scheduler,
            "kubeVersion": result.target.version if result.target else None,
            "featureGates": dict(sorted(result.target.gates.items())) if result.target
            else {},
            "targetNotes": list(result.target.all_notes) if result.target else [],
            "pdbAllowance": result.pdb_allowance,
            "whatIf": [{"op": e.op, "target": e.target, "effect": e.effect} for e in what_if],
        },
        "warnings": list(result.warnings),
        "skipped": [{"kind": k.kind, "apiVersion": k.api_version, "count": k.count,
                     "reason": k.reason, "hint": k.hint, "names": list(k.names),
                     "checked": k.checked} for k in skipped],
        "groups": groups,
    }


def _group(g: GroupResult) -> dict[str, Any]:
    doc = _group_fields(g)
    if g.workload is not None:  # only for groups a queueing scheduler (Kueue) planned
        w = g.workload
        doc["workload"] = {
            "queue": w.queue,
            "clusterQueue": w.cluster_queue,
            "flavor": w.flavor,
            "workloadObject": w.workload,
            "admitted": w.admitted,
            "podSets": [{
                "name": ps.name,
                "count": ps.count,
                "pendingPods": ps.pending,
                "mode": ps.mode,
                "level": ps.level,
                "implied": ps.implied,
                "slices": [{"level": level, "size": size} for level, size in ps.slices],
                "podSetGroup": ps.group,
            } for ps in w.pod_sets],
        }
    return doc


def _group_fields(g: GroupResult) -> dict[str, Any]:
    return {
        "name": g.group.key,
        "kind": g.group.kind,
        "policy": g.group.policy.value,
        "minCount": g.group.min_count,
        "scheduler": g.scheduler,
        "schedulerName": g.scheduler_name,
        "topologyKey": g.group.topology_key,
        "pendingPods": g.pending,
        "scheduledPods": g.scheduled,
        "schedulable": g.schedulable,
        "outcome": str(g.outcome),
        "gatedPods": g.gated,
        "selected": g.selected,
        # A group that will not be bound: the placement its own cycle chose, and where its
        # pods went there (its placements list no assignments).
        "closest": None if (c := g.closest_placement) is None else {
            "placement": c.name, "assignments": dict(c.assignments)},
        "tiedWith": list(g.tied_with),
        "message": g.message,
        "error": g.error,
        "notes": [{"code": str(n.code), "message": n.message} for n in g.notes],
        "preemption": _preemption(g.preemption),
        "preemptionMessage": g.preemption_message or None,
        # Pods tasplan synthesised from pod-producing objects (Job, JobSet, ...) for it.
        "expandedFrom": [{"kind": e.kind, "name": e.name, "synthesised": e.synthesised,
                          "existing": e.existing, "via": list(e.via),
                          "podSets": [{"name": ps.name, "count": ps.count,
                                       "minCount": ps.min_count} for ps in e.pod_sets]}
                         for e in g.group.expansions],
        "placements": [_placement(p, g.schedulable) for p in g.placements],
        "parent": g.group.parent,
    }


def composite_document(c: CompositeResult) -> dict[str, Any]:
    cpg = c.composite
    return {
        "name": cpg.key,
        "kind": cpg.kind,
        "policy": cpg.policy.value,
        "minGroupCount": cpg.min_group_count,
        "scheduler": c.scheduler,
        "schedulerName": c.scheduler_name,
        "topologyKey": cpg.topology_key,
        "schedulable": c.schedulable,
        "outcome": str(c.outcome),
        "selected": c.selected,
        "closest": c.closest,
        "tiedWith": list(c.tied_with),
        "message": c.message,
        "error": c.error,
        "preemption": _preemption(c.preemption),
        "preemptionMessage": c.preemption_message or None,
        "notes": [{"code": str(n.code), "message": n.message} for n in c.notes],
        "placements": [{
            "name": p.name,
            "nodes": p.nodes,
            "feasible": p.feasible,
            "score": p.score,
            "scores": dict(p.scores),
            "tied": p.tied,
            "scheduledChildren": p.scheduled,
            "evaluatedChildren": p.evaluated,
            "status": p.status,
        } for p in c.placements],
        "parent": cpg.parent,
        "children": [{"kind": kind, "name": key} for kind, key in c.children],
    }


def _preemption(p: PreemptionResult | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {
        "placement": p.placement,
        "victims": [v.document() for v in p.victims],
        "nominated": dict(sorted(p.nominated.items())),
        "pdbViolations": p.pdb_violations,
    }


def _placement(p: PlacementResult, bound: bool) -> dict[str, Any]:
    """``bound``: the group's pods bind as its cycle placed them; otherwise no placement
    lists assignments or device allocations (after preemption they bind where
    ``preemption.nominated`` says)."""
    out = {
        "name": p.name,
        "nodes": len(p.nodes),
        "feasible": p.feasible,
        "score": p.score,
        "scores": dict(p.scores),
        "tied": p.tied,
        "placed": p.placed,
        "simulated": p.simulated,
        "status": p.status,
        "free": {r: format_quantity(r, v) for r, v in p.free.items()},
        "assignments": dict(p.assignments) if bound else {},
        "unplaced": dict(p.unplaced),
    }
    if p.allocations is not None:
        out["allocations"] = {k: [dict(d) for d in v] for k, v in p.allocations.items()
                              } if bound else {}
    return out
