"""``--scheduler kueue``: each group is the Workload its object would make in Kueue, placed
by Kueue's Topology-Aware Scheduling on a TAS ResourceFlavor, its pods then bound where
the topology ungater sends them.

A unit is one workload. The report lists the domains of the level Kueue settled on, in
Kueue's order, with how many of the workload's pods (or slices) each holds; the selected
placement holds the assignment (one domain, or several when a preferred or unconstrained
request spreads) and the pods' nodes. A workload Kueue would not admit carries Kueue's own
words, then tasplan's per-domain shortfall.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from tasplan.schedulers.kueue import gates as g

if TYPE_CHECKING:
    from tasplan.model.group import PodGroup
    from tasplan.model.pod import Pod
    from tasplan.model.snapshot import ClusterSnapshot
    from tasplan.plan.intent import Intent
    from tasplan.plan.state import PlanState
    from tasplan.schedulers.interface import UnitResult
    from tasplan.schedulers.kueue.admission import Admission
    from tasplan.schedulers.kueue.run import KueueRun

NAME = "kueue"


class KueueScheduler:
    name = NAME
    summary = ("Kueue Topology-Aware Scheduling: pod counts per topology domain of a TAS "
               "ResourceFlavor (BestFit, LeastFreeCapacity for unconstrained), per release")

    def __init__(self, release: str = g.NEWEST,
                 overrides: Iterable[tuple[str, bool]] = ()) -> None:
        self.gates = g.gates_for(release, overrides)
        # Group key -> what Kueue decided for it in the last run (explain reads it).
        self.records: dict[str, Admission] = {}
        # The Workloads of the inputs by owner, for claim (built once per snapshot).
        self._owners: tuple[object, dict] = (None, {})

    def claim(self, group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot
              ) -> str | None:
        kueue = snapshot.kueue
        if not kueue.tas_flavors():
            return None  # without a TAS flavor Kueue has nowhere to place it
        from tasplan.model import kueue as k
        from tasplan.schedulers.kueue.workload import asks_for_kueue

        if self._owners[0] is not kueue:
            self._owners = (kueue, k.owner_index(kueue.workloads))
        wl = k.workload_for(group, pods, kueue.workloads, self._owners[1])
        return asks_for_kueue(group, pods, kueue, wl)

    def intent(self, group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot
               ) -> Intent:
        """``check --compare``: the workload's intent in Kueue's dialect."""
        from tasplan.schedulers.kueue.intent import read_intent

        return read_intent(group, pods, snapshot, self.gates)

    def translate(self, snapshot: ClusterSnapshot, intents: Sequence[Intent]
                  ) -> tuple[ClusterSnapshot, dict[str, str]]:
        """``check --compare``: every group as a Kueue workload (or why not)."""
        from tasplan.schedulers.kueue.intent import translate

        return translate(snapshot, intents)

    def start(self, state: PlanState, groups: Sequence[PodGroup]) -> KueueRun | _NoUnits:
        self.records = {}
        if not groups:
            return _NoUnits()
        from tasplan.schedulers.kueue.run import KueueRun  # the algorithm, when it runs

        return KueueRun(state, groups, self.gates, self.records)


class _NoUnits:
    """The run of a plan that gives Kueue no workload."""

    def units(self) -> tuple[()]:
        return ()

    def schedule(self, unit: object) -> UnitResult:
        raise AssertionError("no units to schedule")
