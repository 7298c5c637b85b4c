"""Constraint what-if: a toleration the pods lack, or a node selector / required node
affinity that shuts them out of most nodes.

Candidates come from the planner's own rejections over the group's placements: each
untolerated taint (most nodes first) and, when NodeAffinity rejected nodes, dropping one
``nodeSelector`` entry or the required node affinity. Each is applied to every pending pod
of the group and verified by re-planning; only those that make the group fit are offered.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from tasplan.explain.case import Case
from tasplan.explain.domains import first_diagnosis
from tasplan.explain.result import Suggestion
from tasplan.model.pod import Pod
from tasplan.model.selectors import NodeSelectorTerm, Requirement
from tasplan.model.taints import Taint, Toleration
from tasplan.plugins import names

TOLERATION = "toleration"
NODE_SELECTOR = "nodeSelector"
NODE_AFFINITY = "nodeAffinity"
MAX_CANDIDATES = 3


def rejections(case: Case) -> tuple[Counter, int]:
    """Nodes rejected per untolerated taint, and nodes NodeAffinity rejected."""
    taints: Counter = Counter()
    affinity = 0
    for domain in case.result.placements:
        diagnosis = first_diagnosis(domain)
        if diagnosis is None:
            continue
        for status in diagnosis.statuses.values():
            if status.plugin == names.TAINT_TOLERATION:
                taints.update(d for d in status.details if isinstance(d, Taint))
            elif status.plugin == names.NODE_AFFINITY:
                affinity += 1
    return taints, affinity


def suggest(case: Case) -> list[Suggestion]:
    taints, affinity = rejections(case)
    candidates = []
    for taint, n in sorted(taints.items(), key=lambda kv: (-kv[1], str(kv[0]))):
        toleration = Toleration(taint.key, "Equal" if taint.value else "Exists", taint.value,
                                taint.effect)
        candidates.append((TOLERATION, f"add the toleration {_toleration(toleration)} to the "
                           f"pods (the taint {taint} rejects {n} node(s))",
                           lambda p, t=toleration: replace(p, tolerations=(*p.tolerations, t)),
                           {"taint": str(taint), "nodes": n}))
    if affinity:
        first = case.ctx.pending[0]
        for key, value in sorted(first.node_selector.items()):
            candidates.append((NODE_SELECTOR, f"drop nodeSelector {key}={value} (node "
                               f"affinity/selector rejects {affinity} node(s))",
                               lambda p, k=key: replace(p, node_selector={
                                   kk: v for kk, v in p.node_selector.items() if kk != k}),
                               {"key": key, "value": value, "nodes": affinity}))
        for i, requirement in _requirements(first.required_terms):
            what = _requirement(requirement)
            candidates.append((NODE_AFFINITY, f"drop the required node affinity term "
                               f"{what} (nodeSelectorTerms[{i}]; node affinity/selector "
                               f"rejects {affinity} node(s))",
                               lambda p, i=i, r=requirement: _drop(p, i, r),
                               {"term": i, "requirement": what, "nodes": affinity}))
    out = []
    for kind, change, edit, details in candidates[:MAX_CANDIDATES]:
        pending: list[Pod] = [edit(p) for p in case.ctx.pending]
        result = case.replan(pending=pending)
        if case.met(result):
            out.append(Suggestion(kind, change, result, details=details))
    return out


def _toleration(t: Toleration) -> str:
    if t.operator == "Exists":
        return f"{{key: {t.key}, operator: Exists, effect: {t.effect}}}"
    return f"{{key: {t.key}, operator: Equal, value: {t.value}, effect: {t.effect}}}"


def _requirements(terms: tuple[NodeSelectorTerm, ...] | None
                  ) -> list[tuple[int, Requirement]]:
    return [(i, r) for i, term in enumerate(terms or ())
            for r in (*term.match_expressions, *term.match_fields)]


def _requirement(r: Requirement) -> str:
    values = f" [{', '.join(r.values)}]" if r.values else ""
    return f"{r.key} {r.operator}{values}"


def _drop(pod: Pod, index: int, requirement: Requirement) -> Pod:
    """``pod`` without one requirement of its required node affinity term ``index``; a
    term left empty would match no node, so then the term (or the affinity) goes."""
    terms = list(pod.required_terms or ())
    if index >= len(terms):
        return pod
    term = terms[index]
    term = NodeSelectorTerm(
        tuple(r for r in term.match_expressions if r != requirement),
        tuple(r for r in term.match_fields if r != requirement))
    if term.match_expressions or term.match_fields:
        terms[index] = term
    else:
        del terms[index]
    return replace(pod, required_terms=tuple(terms) or None)
