"""--scheduler, --kube-version, --feature-gates and --no-preempt, shared by check and
explain."""

from __future__ import annotations

from dataclasses import dataclass

from tasplan.model.snapshot import ClusterSnapshot
from tasplan.schedulers.interface import AUTO
from tasplan.target import Target, parse_gates, parse_version


@dataclass(frozen=True)
class ReleaseOptions:
    kube_version: str | None = None
    feature_gates: str | None = None
    preempt: bool = True
    scheduler: str = AUTO

    def check(self) -> None:
        """Usage errors before anything is read."""
        from tasplan.schedulers.registry import check_choice, in_tree_schedulers

        parse_gates(self.feature_gates)
        if self.kube_version:
            parse_version(self.kube_version)
        check_choice(self.scheduler, in_tree_schedulers())

    def target(self, snapshot: ClusterSnapshot) -> Target:
        from tasplan.schedulers.planner import target_for

        return target_for(snapshot, self.kube_version, parse_gates(self.feature_gates))
