"""Choosing among feasible placements, for a group and for a CompositePodGroup alike
(upstream ``findBestPlacement``): the only feasible placement is taken without scoring;
otherwise the PlacementScore plugins' total decides, ties broken by placement name in
natural order, rack-2 before rack-10 (upstream breaks them at random: the report's
``random-ties`` note says so)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.types import GroupContext, Placement, ProposedAssignment
from tasplan.model.topology import natural_key


@dataclass(frozen=True)
class Ranking:
    """``order``: candidate indexes, best first. ``totals``/``parts``: each candidate's
    total score and each scorer's weighted part (None/empty when chosen without scoring).
    ``tied``: the names of the candidates whose total equals the best's, in order."""

    order: tuple[int, ...]
    totals: tuple[int | None, ...]
    parts: tuple[Mapping[str, int], ...]
    tied: tuple[str, ...]

    @property
    def best(self) -> int:
        return self.order[0]

    def is_tied(self, i: int) -> bool:
        """Candidate ``i`` ties with the best (and there is a tie)."""
        return bool(self.tied) and self.totals[i] == self.totals[self.best]


def rank_placements(fw: Framework, ctx: GroupContext, placements: Sequence[Placement],
                    proposed: Callable[[int], Sequence[ProposedAssignment]],
                    nodes: Sequence[NodeInfo]) -> Ranking:
    """``placements``: the feasible ones; ``proposed(i)``: what the scorers see of the
    group in placement ``i`` (asked only when there is more than one). Plugin errors raise
    ``PluginError``."""
    if len(placements) == 1:
        parts: list[Mapping[str, int]] = [{}]
        totals: list[int | None] = [None]
    else:
        parts = fw.run_placement_score(
            ctx, [(p, proposed(i)) for i, p in enumerate(placements)], nodes)
        totals = [sum(p.values()) for p in parts]
    order = sorted(range(len(placements)),
                   key=lambda i: (-(totals[i] or 0), natural_key(placements[i].name)))
    best = order[0]
    tied = tuple(placements[i].name for i in order[1:] if totals[i] == totals[best])
    return Ranking(tuple(order), tuple(totals), tuple(parts), tied)
