"""The one interface every scheduler tasplan plans for implements (kube-scheduler, Kueue,
KAI, Volcano), and what a scheduler hands back.

A planning run (``tasplan.schedulers.planner.plan``) gives each planned PodGroup of the input
to one scheduler (``--scheduler NAME``, or ``auto``: the first registered scheduler that
``claim``s it, else kube-scheduler). Each scheduler turns its groups into queue *units*
(a group, a CompositePodGroup tree, a Kueue workload of several PodSets, a KAI PodGroup
with subgroups, ...). All units of all schedulers form one queue, ordered by priority
(highest first) then input order, and are scheduled one at a time against one shared
``PlanState``: the same NodeInfos and Statement, so what one unit placed, of whatever
scheduler, the next one sees.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # types only: `tasplan.cli.definition` reads AUTO without the planner
    from tasplan.model.group import PodGroup
    from tasplan.model.pod import Pod
    from tasplan.model.snapshot import ClusterSnapshot
    from tasplan.plan.intent import Intent
    from tasplan.plan.result import GroupResult
    from tasplan.plan.state import PlanState
    from tasplan.plan.tree_result import CompositeResult

AUTO = "auto"


class Unit(Protocol):
    """One entry of the run's queue. ``priority``: higher goes first; ``order``: the input
    position of its first group (``PodGroup.order``), which breaks priority ties."""

    @property
    def priority(self) -> int: ...

    @property
    def order(self) -> int: ...


@dataclass(frozen=True)
class UnitResult:
    """What scheduling one unit produced: one GroupResult per PodGroup of the unit, in the
    order the report lists them (its ``placements`` are the scheduler's candidate domains
    in its own order, ``selected`` its choice, the selected placement's ``assignments`` the
    pod -> node answer, ``notes`` what the plan may get wrong), and the unit's
    CompositePodGroups (kube-scheduler's group trees; empty for other schedulers)."""

    groups: tuple[GroupResult, ...]
    composites: tuple[CompositeResult, ...] = ()


class SchedulerRun(Protocol):
    """A scheduler inside one planning run: its own state for the run (caches, budgets,
    what it evicted) lives here, the cluster's in ``PlanState``."""

    def units(self) -> Iterable[Unit]:
        """The queue units over the groups this run was given, in any order."""
        ...

    def schedule(self, unit: Unit) -> UnitResult:
        """Plan one unit in the shared state as it is now. Whatever the unit gets (its pods'
        nodes, evictions) is committed to ``state.statement``; every trial is rolled back."""
        ...


class Scheduler(Protocol):
    """``name`` is what ``--scheduler`` takes and the report prints (``groups[].scheduler``);
    ``summary`` one line for ``--help`` and the docs."""

    name: str
    summary: str

    def claim(self, group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot
              ) -> str | None:
        """For ``--scheduler auto``: why this scheduler plans ``group`` (one sentence, shown
        in the group's ``scheduler-auto`` note), or None when it does not claim it. ``pods``:
        the group's pods (pending and bound). Asked in registry order; never asked when a
        scheduler is named."""
        ...

    def start(self, state: PlanState, groups: Sequence[PodGroup]) -> SchedulerRun:
        """This scheduler's part of one run: ``groups`` are the planned groups given to it,
        in input order, possibly none (with none, return a run of no units without
        importing the algorithm: import it here, not at the scheduler's module level)."""
        ...


class Comparing(Protocol):
    """What a scheduler adds to take part in ``check --compare`` (optional: the comparison
    asks every registered scheduler that has both methods; ``tasplan.plan.intent``)."""

    def intent(self, group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot
               ) -> Intent:
        """The group's placement intent read in this scheduler's dialect (only asked of the
        scheduler that planned the group)."""
        ...

    def translate(self, snapshot: ClusterSnapshot, intents: Sequence[Intent]
                  ) -> tuple[ClusterSnapshot, dict[str, str]]:
        """The snapshot with every intent written in this scheduler's dialect (its objects,
        labels, annotations, the pods' schedulerName), and why each group it cannot say is
        left out (group key -> reason; those groups no longer planned). Intents read in its
        own dialect stay as they are."""
        ...
