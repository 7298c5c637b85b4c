"""Consolidation what-if (KAI scheduler's consolidate action): move, rather than evict, the
fewest lower-priority pods out of the closest domain to other nodes where they still fit,
so that the group fits.

The pods to move are found as eviction finds its victims (``eviction.fewest``: moving a pod
frees the same room), from the candidates eviction would take (lower priority, not
system-critical, within PodDisruptionBudgets: a move is an eviction and a restart) that can
be moved one by one: not DaemonSet or mirror pods (they belong to their node) and not
members of a pod group (a gang moves whole or not at all).

A running pod's own nodeSelector, node affinity and tolerations are not in the inputs
(kubectl dumps of bound pods are read for requests only, snapshots drop them), so a moved
pod may only go where those could not tell the difference: a node outside the domain with
the same labels as its node, but the topology labels (hostname, rack, block, ...: a pod
that selects its rack is assumed not to exist, and the suggestion says so), and no taint
its node lacks; its requests, host ports and pod (anti-)affinity are checked as for any
pod. Verification: the moved pods
are planned onto the cluster without them, their placements assumed, and the group is
re-planned on the result.

Offered only when it moves no more pods than the eviction suggestion evicts: a move loses
no pod, so it is the cheaper change of the two. And only for at most ``MAX_MOVES`` pods: a
larger move is no longer a small change to suggest, and planning each moved pod over the
whole cluster would dominate explain's time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tasplan.explain.case import Case
from tasplan.explain.counterfactuals import eviction
from tasplan.explain.result import Suggestion
from tasplan.framework.statement import Statement
from tasplan.framework.types import GroupContext
from tasplan.model.group import PodGroup, Policy
from tasplan.model.pod import Pod
from tasplan.model.selectors import NodeSelectorTerm, Requirement
from tasplan.model.taints import Toleration
from tasplan.model.topology import HOSTNAME, infer_levels
from tasplan.plan.group_cycle import schedule_group
from tasplan.plan.result import PlacementResult

KIND = "consolidate"
MAX_MOVES = 16
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"


def suggest(case: Case, earlier: Sequence[Suggestion]) -> list[Suggestion]:
    """``earlier``: the suggestions made so far (the eviction one sets the bar)."""
    evicted = next((s.cost["podsEvicted"] for s in earlier if s.kind == eviction.KIND), None)
    if evicted is None:
        return []  # moving frees no more than evicting: if eviction cannot, neither can this
    evicted = min(evicted, MAX_MOVES)
    for domain in case.domains[:eviction.DOMAINS_TRIED]:
        suggestion = _in_domain(case, domain, evicted)
        if suggestion is not None:
            return [suggestion]
    return []


def movable(pod: Pod) -> bool:
    return not pod.node_local and pod.group is None


def _in_domain(case: Case, domain: PlacementResult, evicted: int) -> Suggestion | None:
    pool = [p for p in eviction.candidates(case, domain) if movable(p)]
    found = eviction.fewest(case, domain, pool)
    if found is None or len(found[0]) > evicted:
        return None
    moved, minimal = found
    moved = sorted(moved, key=lambda p: p.key)
    infos = eviction.infos_without(case, moved)
    copies = [_elsewhere(case, pod, domain) for pod in moved]
    trial = Statement()
    with trial.trial():
        group = PodGroup(f"{case.group.key}/consolidate", case.group.namespace, Policy.BASIC,
                         1, None, "PodGroup", "", case.group.source, case.group.order)
        placed = schedule_group(case.fw, GroupContext(group, tuple(copies), ()), infos, trial)
        chosen = placed.selected_placement
        if chosen is None or chosen.placed < len(copies):
            return None  # some pod finds no other node
        targets = dict(chosen.assignments)
        result = case.replan(infos=infos)
    if not case.met(result):
        return None
    moves = [{"pod": p.key, "from": p.node_name, "to": targets.get(c.key, ""),
              "priority": p.priority} for p, c in zip(moved, copies, strict=True)]
    shown = ", ".join(f"{m['pod']} {m['from']}→{m['to']}" for m in moves[:4])
    if len(moves) > 4:
        shown += f" and {len(moves) - 4} more"
    return Suggestion(
        KIND, f"move {len(moved)} pod(s) of lower priority out of {domain.name!r}: {shown} "
        "(to nodes like their own; assuming they select no topology label)",
        result, cost={"podsMoved": len(moved)}, minimal=minimal,
        details={"domain": domain.name, "moves": moves})


def _topology_keys(case: Case) -> frozenset[str]:
    memo = case.memo.setdefault(KIND, {})
    if "levels" not in memo:
        keys = set(infer_levels(i.node.labels for i in case.infos)) | {HOSTNAME}
        memo["levels"] = frozenset(keys)
    keys = memo["levels"]
    return keys | {case.group.topology_key} if case.group.topology_key else keys


def _elsewhere(case: Case, pod: Pod, domain: PlacementResult) -> Pod:
    """A pending copy of ``pod`` that only a node like its own, outside ``domain``, takes."""
    node = case.infos[case.node_index[pod.node_name]].node
    topology = _topology_keys(case)
    same = tuple(Requirement(k, "In", (v,)) for k, v in sorted(node.labels.items())
                 if k not in topology)
    away = (Requirement("metadata.name", "NotIn", tuple(domain.nodes)),)
    tolerations = tuple(Toleration(t.key, "Equal", t.value, t.effect) for t in node.taints
                        if t.key != UNSCHEDULABLE_TAINT)
    return replace(pod, node_name="", phase="Pending", nominated_node_name="", node_selector={},
                   required_terms=(NodeSelectorTerm(same, away),), preferred_terms=(),
                   tolerations=tolerations, spread_constraints=(),
                   default_spread_selector=None)
