"""--scheduler, --kube-version, --feature-gates, --no-preempt, --kueue-version and
--peer-feature-gates, shared by check and explain."""

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
    kueue_version: str | None = None
    peer_feature_gates: str | None = None

    def check(self) -> None:
        """Usage errors before anything is read."""
        from tasplan.schedulers.registry import check_choice, in_tree_schedulers

        parse_gates(self.feature_gates)
        if self.kube_version:
            parse_version(self.kube_version)
        check_choice(self.scheduler, in_tree_schedulers())
        self.kueue()

    def kueue(self):  # -> KueueScheduler (imported late: the CLI starts fast)
        """Kueue's scheduler for --kueue-version and its --peer-feature-gates."""
        from tasplan.schedulers.kueue import gates
        from tasplan.schedulers.kueue.scheduler import KueueScheduler

        release = gates.release_of(self.kueue_version) if self.kueue_version else gates.NEWEST
        return KueueScheduler(release, gates.parse_overrides(self.peer_feature_gates or ""))

    def schedulers(self, kube=None) -> dict:
        """The registry with the peers configured as asked (``kube``: explain's instance)."""
        from tasplan.schedulers.registry import in_tree_schedulers

        return in_tree_schedulers(kube, self.kueue())

    def target(self, snapshot: ClusterSnapshot) -> Target:
        from tasplan.schedulers.planner import target_for

        return target_for(snapshot, self.kube_version, parse_gates(self.feature_gates))
