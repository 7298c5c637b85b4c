"""A pod tested on nodes through a kube-scheduler profile's Filter (and Score) plugins, in the
run's shared state: how any scheduler (kube-scheduler's cycle, Kueue's hostname leaves, KAI's
and Volcano's per-task allocation) answers "does this pod fit on that node" without writing
predicates of its own."""

from __future__ import annotations

from collections.abc import Sequence

from tasplan.framework.diagnosis import Diagnosis
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.statement import Statement
from tasplan.framework.status import Status
from tasplan.model.pod import Pod
from tasplan.plan.pod_cycle import ClassCache, ClassCursor, GroupCache


class PodFit:
    """``pod`` (and every pod of its class: equal ``Pod.signature()``) on ``nodes``, a subset
    of ``cluster`` (the run's NodeInfos, which cross-node filters such as PodTopologySpread
    read). Answers follow the Statement: after ``statement.assume(...)`` they are those of
    the changed state. Valid until the Statement commits or rolls back below the point
    where the PodFit was made; then make a new one.

    Upstream's filter semantics come with it: nominated pods of equal or higher priority
    hold their room, the first failing filter in profile order names the reason, and the
    plugins' error statuses raise ``tasplan.plan.pod_cycle.PluginError``."""

    def __init__(self, fw: Framework, pod: Pod, nodes: Sequence[NodeInfo],
                 statement: Statement, cluster: Sequence[NodeInfo] | None = None) -> None:
        group = GroupCache(nodes if cluster is None else cluster, statement)
        self.nodes = nodes
        self._cursor = ClassCursor(fw, pod, nodes, statement, group, ClassCache())

    def statuses(self) -> list[Status | None]:
        """Per node of ``nodes``: None where the pod fits now, else why not."""
        return self._cursor.statuses()

    def feasible(self) -> list[NodeInfo]:
        """The nodes the pod fits on now, in ``nodes`` order."""
        return [n for n, s in zip(self.nodes, self.statuses(), strict=True) if s is None]

    def best(self) -> tuple[NodeInfo | None, Diagnosis | None]:
        """kube-scheduler's choice for the pod (highest score, ties by node name), or the
        diagnosis of why no node fits (upstream's "0/N nodes are available: ..." text)."""
        return self._cursor.next()

    def capacity(self) -> list[int] | None:
        """Per node, how many more pods of the class fit; None when a filter cannot say
        (it reads other nodes, or states no capacity): then assume and ask again."""
        return self._cursor.capacity()
