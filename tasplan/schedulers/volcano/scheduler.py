"""``--scheduler volcano``: Volcano's allocate action behind tasplan's scheduler interface.

One unit per Volcano job (a ``scheduling.volcano.sh`` PodGroup or a vcjob's). The run keeps
one Volcano session (its HyperNode tree and HyperNode resource cache) across units; nodes
change only through the run's Statement, so what any scheduler placed before is seen here.
The report's placements are the HyperNodes Volcano tried, in its walk order (tier by tier),
with their HyperNode bin-packing scores; the selected one is the job's HyperNode.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tasplan.model.group import PodGroup
    from tasplan.model.pod import Pod
    from tasplan.model.snapshot import ClusterSnapshot
    from tasplan.plan.intent import Intent
    from tasplan.plan.state import PlanState
    from tasplan.schedulers.interface import UnitResult
    from tasplan.schedulers.volcano.run import VolcanoRun

from tasplan.schedulers.volcano import VOLCANO


class VolcanoScheduler:
    name = VOLCANO
    summary = ("Volcano's allocate action: HyperNode tiers walked from the lowest, the job "
               "dry-run in each HyperNode, the best bin-packed one wins")

    def claim(self, group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot
              ) -> str | None:
        spec = snapshot.volcano.podgroups.get(group.key)
        if spec is not None:
            return "it is a vcjob's PodGroup" if spec.from_vcjob else \
                "it is a scheduling.volcano.sh PodGroup"
        if pods and all(p.scheduler_name == VOLCANO for p in pods):
            return 'its pods ask for schedulerName "volcano"'
        return None

    def intent(self, group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot
               ) -> Intent:
        """``check --compare``: the job's intent in Volcano's dialect."""
        from tasplan.schedulers.volcano.intent import read_intent

        return read_intent(group, pods, snapshot)

    def translate(self, snapshot: ClusterSnapshot, intents: Sequence[Intent]
                  ) -> tuple[ClusterSnapshot, dict[str, str]]:
        """``check --compare``: every group as a Volcano PodGroup (or why not)."""
        from tasplan.schedulers.volcano.intent import translate

        return translate(snapshot, intents)

    def start(self, state: PlanState, groups: Sequence[PodGroup]) -> VolcanoRun | _NoJobs:
        if not groups:
            return _NoJobs()  # no HyperNode tree to build, no allocate core to import
        from tasplan.schedulers.volcano.run import VolcanoRun

        return VolcanoRun(state, groups)


class _NoJobs:
    """The run of a plan that gives Volcano no job."""

    def units(self) -> tuple[()]:
        return ()

    def schedule(self, unit: object) -> UnitResult:
        raise AssertionError("no units to schedule")
