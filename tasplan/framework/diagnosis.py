"""Why a pod found no node: per-node statuses folded into upstream's histogram message."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from tasplan.framework.status import Code, Status


@dataclass(frozen=True)
class Diagnosis:
    """``statuses`` maps each rejecting node to its status; ``total`` is the number of
    nodes the pod was tried against (the placement's nodes)."""

    total: int
    statuses: Mapping[str, Status]

    @cached_property
    def histogram(self) -> dict[str, int]:
        counts = Counter(reason for s in self.statuses.values() for reason in s.reasons)
        return dict(sorted(counts.items()))

    @cached_property
    def message(self) -> str:
        return nodes_message(self.total, self.histogram)

    @property
    def unresolvable(self) -> bool:
        """Every rejection is one preemption cannot fix."""
        return all(s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE for s in self.statuses.values())


def histogram_text(counts: Mapping[str, int]) -> str:
    """Upstream ``FitError``: "<n> <reason>" entries sorted as strings, comma separated."""
    return ", ".join(sorted(f"{n} {reason}" for reason, n in counts.items()))


def nodes_message(total: int, counts: Mapping[str, int]) -> str:
    if not counts:
        return f"0/{total} nodes are available:"
    return f"0/{total} nodes are available: {histogram_text(counts)}."
