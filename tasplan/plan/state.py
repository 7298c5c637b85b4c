"""What every scheduler of one planning run shares: the cluster, its mutable node state and
one Statement, so that what one scheduler places the next one sees."""

from __future__ import annotations

from dataclasses import dataclass, field

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.profile import Profile, SchedulerConfig
from tasplan.framework.registry import Registry
from tasplan.framework.runtime import Framework
from tasplan.framework.statement import Statement
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plugins.defaults import default_scheduler_config, gated_profile
from tasplan.target import Target


def build_node_infos(snapshot: ClusterSnapshot) -> tuple[list[NodeInfo], list[str]]:
    """Mutable node state starting from the snapshot's usage index. Pods on nodes missing
    from the snapshot are reported, not counted."""
    infos = [NodeInfo(node, i, snapshot.node_usage(node.name))
             for i, node in enumerate(snapshot.nodes)]
    index = snapshot.node_index
    for pod in snapshot.nominated:
        infos[index[pod.nominated_node_name]].nominated.append(pod)
    for info in infos:
        info.nominated.sort(key=lambda p: -p.priority)
    warnings = [f"{n} pod(s) are bound to node {name}, which is not in the snapshot; "
                "their requests are not counted"
                for name, n in sorted(snapshot.unknown_nodes.items())]
    return infos, warnings


@dataclass
class PlanState:
    """One planning run's shared state.

    ``nodes``: one NodeInfo per node of ``snapshot`` (same order); only ``statement``
    changes them, so every change can be undone and every scheduler sees the others'
    commits. ``framework(name)`` gives the kube-scheduler framework of a profile (its
    Filter plugins are how any scheduler tests a pod on a node); frameworks are made once
    per run, and their Reserve plugins (DRA) join the Statement. ``warnings`` collects the
    run's input warnings (the report prints them after the snapshot's)."""

    snapshot: ClusterSnapshot
    target: Target
    registry: Registry
    config: SchedulerConfig
    profile: Profile | None = None
    all_assignments: bool = False
    preempt: bool = True
    nodes: list[NodeInfo] = field(default_factory=list)
    statement: Statement = field(default_factory=Statement)
    warnings: list[str] = field(default_factory=list)
    # How preemption counts PodDisruptionBudgets without a status (preemption.budgets).
    pdb_allowance: str = "status"
    _frameworks: dict[str, Framework] = field(default_factory=dict, repr=False)

    @classmethod
    def start(cls, snapshot: ClusterSnapshot, target: Target, registry: Registry,
              config: SchedulerConfig | None = None, profile: Profile | None = None, *,
              all_assignments: bool = False, preempt: bool = True,
              pdb_allowance: str = "status") -> PlanState:
        nodes, warnings = build_node_infos(snapshot)
        return cls(snapshot, target, registry, config or default_scheduler_config(registry),
                   profile, all_assignments, preempt, nodes, Statement(), warnings,
                   pdb_allowance)

    def framework(self, name: str) -> Framework | None:
        """The framework of profile ``name`` (every name: the run's one ``profile`` when
        given), None when the configuration has no such profile."""
        chosen = self.profile or self.config.profiles.get(name)
        if chosen is None:
            return None
        fw = self._frameworks.get(chosen.scheduler_name)
        if fw is None:
            fw = self._frameworks[chosen.scheduler_name] = Framework(
                gated_profile(chosen, self.target), self.registry, self.target)
            fw.bind_snapshot(self.snapshot)
            self.statement.add_reservers(fw.reservers)
        return fw
