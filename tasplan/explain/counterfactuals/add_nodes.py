"""Capacity what-if: how many nodes shaped like an existing node of a domain must join it.

The template is a schedulable node of the domain that, empty, takes the most of the group's
pods (per the planner's own filters); a domain where no node would take one, because a
taint or selector or the node size excludes the pods, gets no suggestion: more such nodes
cannot help. The count is computed from the shortfall, then verified by re-planning, and
raised a few times if the verification fails; one node fewer is re-planned too, so the
count is proven minimal. New nodes start empty: DaemonSet pods a real
node would run are not modelled. They publish the template's node-local DRA devices
(ResourceSlices, copied as ``check --add-nodes --like`` copies them), all free.
"""

from __future__ import annotations

from tasplan.explain.case import Case, renamed
from tasplan.explain.result import Suggestion
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.types import Placement
from tasplan.model.node import Node
from tasplan.plan.result import PlacementResult

KIND = "addNodes"
DOMAINS_TRIED = 3
EXTRA_TRIES = 3


def suggest(case: Case) -> list[Suggestion]:
    for domain in case.domains[:DOMAINS_TRIED]:
        suggestion = _in_domain(case, domain)
        if suggestion is not None:
            return [suggestion]
    return []


def template(case: Case, domain: PlacementResult) -> tuple[Node, int] | None:
    """The node to copy and how many of the group's pods one empty copy takes."""
    best: tuple[Node, int] | None = None
    for name in domain.nodes:
        info = case.infos[case.node_index[name]]
        if info.node.unschedulable:
            continue
        capacity = case.empty_capacity(info.node)
        if capacity == 0:
            continue
        capacity = capacity or 1  # unknown: count one per node and let verification decide
        if best is None or capacity > best[1]:
            best = (info.node, capacity)
    return best


def _in_domain(case: Case, domain: PlacementResult) -> Suggestion | None:
    found = template(case, domain)
    if found is None:
        return None
    node, per_node = found
    placement = case.placement(domain)

    def added(n: int) -> list[NodeInfo]:
        # Placements index the node list by position: the added nodes come last.
        return [NodeInfo(renamed(node, f"{node.name}-new-{k}"), len(case.infos) + k - 1)
                for k in range(1, n + 1)]

    def works(n: int) -> bool:
        grown = Placement(placement.name,
                          placement.nodes + tuple(range(len(case.infos), len(case.infos) + n)))
        new = added(n)
        with case.copies_of(node, [i.node for i in new]):
            return case.fits(case.simulate(grown, [*case.infos, *new]))

    # Only this domain changes, so the search simulates it alone; the answer is verified by
    # re-planning the whole group.
    guess = -(-max(case.needed - domain.placed, 1) // per_node)
    n = next((k for k in range(guess, guess + EXTRA_TRIES + 1) if works(k)), None)
    if n is None:
        return None
    while n > 1 and works(n - 1):  # more nodes never hurt: minimal once one fewer fails
        n -= 1
    new = added(n)
    with case.copies_of(node, [i.node for i in new]):
        result = case.replan(infos=[*case.infos, *new])
    if not case.met(result):
        return None
    return Suggestion(
        KIND, f"add {n} node(s) shaped like {node.name} to {domain.name!r}", result,
        cost={"nodesAdded": n},
        details={"domain": domain.name, "template": node.name,
                 "nodes": [f"{node.name}-new-{k}" for k in range(1, n + 1)]})
