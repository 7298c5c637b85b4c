"""What planning a group tree produced for its composites (leaves are ordinary
GroupResults whose group names its ``parent``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tasplan.model.composite import CompositePodGroup
from tasplan.plan.notes import Note, Outcome
from tasplan.plan.preemption_result import PreemptionResult


@dataclass(frozen=True)
class CompositePlacement:
    """One candidate domain of a composite after its children were planned inside it:
    ``scheduled`` children succeeded out of ``evaluated`` tried (of ``children``)."""

    name: str
    nodes: int
    feasible: bool
    status: str
    scheduled: int
    evaluated: int
    children: int
    score: int | None = None
    scores: Mapping[str, int] = field(default_factory=dict)
    tied: bool = False


@dataclass(frozen=True)
class CompositeResult:
    """``children``: (kind, key) in scheduling order. ``position``: index in
    ``PlanResult.groups`` where the tree's leaves start (reports show the tree there)."""

    composite: CompositePodGroup
    children: tuple[tuple[str, str], ...]
    schedulable: bool
    message: str
    placements: tuple[CompositePlacement, ...] = ()
    selected: str | None = None
    tied_with: tuple[str, ...] = ()
    error: bool = False
    notes: tuple[Note, ...] = ()
    position: int = 0
    scheduler_name: str = ""
    # A root that did not fit: workload-aware preemption's answer for the whole tree (its
    # placement is the root's domain) and upstream's status text when it was tried.
    preemption: PreemptionResult | None = None
    preemption_message: str = ""
    # The scheduler that planned the tree (``tasplan.schedulers``), set by the planning run.
    scheduler: str = ""
    # Held back before any placement is tried: the tree waits for its quorum.
    waiting: bool = False
    # An inner composite the re-plan of its root's preemption placed: it binds with it.
    after_preemption: bool = False
    # The placement it chose although an ancestor failed (``selected`` is then None).
    closest: str | None = None

    @property
    def outcome(self) -> Outcome:
        """As a group's (``GroupResult.outcome``)."""
        if self.error:
            return Outcome.ERROR
        if self.schedulable:
            return Outcome.SCHEDULED
        if self.preemption is not None or self.after_preemption:
            return Outcome.SCHEDULED_AFTER_PREEMPTION
        return Outcome.WAITING if self.waiting else Outcome.UNSCHEDULABLE
