"""--kube-version, --feature-gates, --no-preempt and --pdb-allowance, shared by check and
explain."""

from __future__ import annotations

from dataclasses import dataclass

from tasplan.model.snapshot import ClusterSnapshot
from tasplan.target import Target, parse_gates


@dataclass(frozen=True)
class ReleaseOptions:
    kube_version: str | None = None
    feature_gates: str | None = None
    preempt: bool = True
    pdb_allowance: str = "status"

    def target(self, snapshot: ClusterSnapshot) -> Target:
        from tasplan.plan.planner import target_for

        return target_for(snapshot, self.kube_version, parse_gates(self.feature_gates))
