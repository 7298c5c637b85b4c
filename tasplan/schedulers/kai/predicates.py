"""KAI's per-node check in a planning run: its own resource and cordon checks, then the
kube-scheduler filters it runs (``pkg/scheduler/k8s_internal/predicates``: NodePorts,
TaintToleration, NodeAffinity, InterPodAffinity; DynamicResources through KAI's
dynamicresources plugin), taken from tasplan's plugins in one framework of their own.
PodTopologySpread is not among them: KAI does not run it."""

from __future__ import annotations

from collections.abc import Sequence

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.profile import Profile
from tasplan.framework.runtime import Framework
from tasplan.framework.status import Status
from tasplan.model.kai import SCHEDULER_NAME
from tasplan.model.pod import Pod
from tasplan.plan.pod_fit import PodFit
from tasplan.plan.state import PlanState
from tasplan.plugins import names
from tasplan.schedulers.kai.fit import UNSCHEDULABLE, resource_reason

FILTERS = (names.NODE_PORTS, names.TAINT_TOLERATION, names.NODE_AFFINITY,
           names.INTER_POD_AFFINITY)


def kai_framework(state: PlanState, devices: bool) -> Framework:
    """A framework of the filters KAI runs (``devices``: with DynamicResources); its
    Reserve plugin joins the run's Statement."""
    filters = (*FILTERS, names.DYNAMIC_RESOURCES) if devices else FILTERS
    profile = Profile(SCHEDULER_NAME, filters, (), (), (), ())
    fw = Framework(profile, state.registry, state.target)
    fw.bind_snapshot(state.snapshot)
    state.statement.add_reservers(fw.reservers)
    return fw


class KaiFit:
    """``check(pod, node)``: KAI's order of checks. The shared filters run on the nodes of
    the set being tried (``focus``; the whole cluster is what cross-node filters read), per
    pod class, their answers kept while the Statement does not move."""

    def __init__(self, state: PlanState, fw: Framework, nodes: Sequence[NodeInfo]) -> None:
        self.state = state
        self.fw = fw
        self.nodes = nodes
        self._focus: tuple[int, ...] = tuple(range(len(nodes)))
        self._local: dict[int, int] | None = None
        self._fits: dict[tuple, PodFit] = {}
        self._statuses: dict[tuple, tuple[int, list[Status | None]]] = {}

    def focus(self, nodes: Sequence[int]) -> None:
        focus = tuple(nodes)
        if focus != self._focus:
            self._focus, self._local = focus, None
            self._fits.clear()
            self._statuses.clear()

    def check(self, pod: Pod, info: NodeInfo) -> str | None:
        reason = resource_reason(pod, info)
        if reason is not None:
            return reason
        if info.node.unschedulable:
            return UNSCHEDULABLE
        if self._local is None:
            self._local = {i: k for k, i in enumerate(self._focus)}
        local = self._local.get(info.index)
        if local is None:  # outside the focus: ask about this node alone
            self.focus((*self._focus, info.index))
            return self.check(pod, info)
        status = self._filters(pod)[local]
        return None if status is None else ", ".join(status.reasons) or status.plugin

    def _filters(self, pod: Pod) -> list[Status | None]:
        key = pod.signature()
        position = self.state.statement.checkpoint()
        cached = self._statuses.get(key)
        if cached is not None and cached[0] == position:
            return cached[1]
        fit = self._fits.get(key)
        if fit is None:
            fit = self._fits[key] = PodFit(self.fw, pod, [self.nodes[i] for i in self._focus],
                                           self.state.statement, cluster=self.nodes)
        statuses = fit.statuses()
        self._statuses[key] = (position, statuses)
        return statuses

    def monotone(self, pod: Pod) -> bool:
        """Only required pod affinity can let a node that rejected the pod take it later."""
        return pod.pod_affinity is None or not pod.pod_affinity.required

    def rolled_back(self) -> None:
        """The Statement went back: the filters' views start again."""
        self._fits.clear()
        self._statuses.clear()
