"""KAI-Scheduler behind tasplan's scheduler interface (``--scheduler kai``; ``auto`` for pods
asking for ``schedulerName: kai-scheduler``).

The registry asks every plan whether KAI claims a group, so this module is the light part;
the algorithm (``run``: the job tree, the Allocate action) is imported when a run gives
KAI a group.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tasplan.model.kai_inputs import SCHEDULER_NAME
from tasplan.schedulers.kai import KAI

if TYPE_CHECKING:
    from tasplan.model.group import PodGroup
    from tasplan.model.pod import Pod
    from tasplan.model.snapshot import ClusterSnapshot
    from tasplan.plan.intent import Intent
    from tasplan.plan.state import PlanState
    from tasplan.schedulers.interface import UnitResult
    from tasplan.schedulers.kai.run import KaiRun

__all__ = ["KAI", "KaiScheduler"]


class KaiScheduler:
    """``explain``: called with the run, the group, its KAI PodGroup, the result and the
    outcome of a group that does not (fully) fit, in the state the group was planned in
    (``tasplan explain`` looks at it there)."""

    name = KAI
    summary = ("KAI-Scheduler's Allocate action: each PodGroup in the first domain between "
               "its preferred and required topology level where every pod fits, most packed "
               "first; subgroups inside it")

    def __init__(self, explain: Callable[..., None] | None = None) -> None:
        self._explain = explain

    def claim(self, group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot
              ) -> str | None:
        waiting = [p for p in pods if not p.node_name and not p.terminal]
        if waiting and all(p.scheduler_name == SCHEDULER_NAME for p in waiting):
            return f'its pods ask for schedulerName "{SCHEDULER_NAME}"'
        return None

    def start(self, state: PlanState, groups: Sequence[PodGroup]) -> KaiRun | _NoUnits:
        if not groups:
            return _NoUnits()  # no topology tree to build, no Allocate action to import
        from tasplan.schedulers.kai.run import KaiRun

        return KaiRun(state, groups, self._explain)

    def intent(self, group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot
               ) -> Intent:
        """``check --compare``: the group's intent in KAI's dialect."""
        from tasplan.schedulers.kai.intent import read_intent

        return read_intent(group, pods, snapshot)

    def translate(self, snapshot: ClusterSnapshot, intents: Sequence[Intent]
                  ) -> tuple[ClusterSnapshot, dict[str, str]]:
        """``check --compare``: every group as a KAI PodGroup (or why not)."""
        from tasplan.schedulers.kai.intent import translate

        return translate(snapshot, intents)


class _NoUnits:
    """The run of a plan that gives KAI no group."""

    def units(self) -> tuple[()]:
        return ()

    def schedule(self, unit: object) -> UnitResult:
        raise AssertionError("no units to schedule")
