"""Does a task fit a node, and why not, in KAI's words.

KAI checks the node's idle resources first (``NodeInfo.IsTaskAllocatableOnReleasingOrIdle``,
every resource including the pod slot), then its predicates: the node's condition
(``CheckNodeConditionPredicate``: a cordoned node is rejected whatever the pod tolerates)
and kube-scheduler's NodePorts, TaintToleration, NodeAffinity, InterPodAffinity and
VolumeBinding filters (``pkg/scheduler/k8s_internal/predicates``). There is no
PodTopologySpread filter. Reasons follow ``NewFitErrorInsufficientResource`` (d5bc503a).
The shared kube-scheduler filters are plugged in by the scheduler adapter; ``ResourceFit``
alone is what the algorithm's own tests use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from tasplan.framework.node_info import NodeInfo
from tasplan.model.kai import GPU, MIG_PREFIX
from tasplan.model.pod import Pod
from tasplan.schedulers.kai.tree import idle

UNSCHEDULABLE = "node is unschedulable"
MIG_ENABLED_LABEL = "node-role.kubernetes.io/mig-enabled"


class Fit(Protocol):
    """The per-node check the allocation runs for every task it tries on a node."""

    def check(self, pod: Pod, info: NodeInfo) -> str | None:
        """None when ``pod`` fits ``info`` now, else the first reason in KAI's order."""
        ...

    def monotone(self, pod: Pod) -> bool:
        """True when a node that rejects ``pod`` keeps rejecting it while pods are only
        added (no required pod affinity): the allocation then skips it afterwards."""
        ...

    def rolled_back(self) -> None:
        """The Statement went back to an earlier checkpoint."""
        ...

    def focus(self, nodes: Sequence[int]) -> None:
        """The nodes (indexes) the next checks are about, until the next ``focus``."""
        ...


def resource_reasons(pod: Pod, info: NodeInfo) -> list[str]:
    """The short reasons of upstream ``FittingError``: GPUs, CPU cores, memory, then the
    other resources (the pod slot included) by name."""
    reasons = []
    requests = pod.requests
    if requests.get(GPU, 0) > idle(info, GPU):
        reasons.append("node(s) didn't have enough resources: GPUs")
    if requests.get("cpu", 0) > idle(info, "cpu"):
        reasons.append("node(s) didn't have enough resources: CPU cores")
    if requests.get("memory", 0) > idle(info, "memory"):
        reasons.append("node(s) didn't have enough resources: memory")
    for resource in sorted({*requests, "pods"}):
        if resource in ("cpu", "memory", GPU) or resource.startswith(MIG_PREFIX):
            continue
        want = 1 if resource == "pods" else requests[resource]
        if want > 0 and idle(info, resource) < want:
            reasons.append(f"node(s) didn't have enough resources: {resource}")
    return reasons


def fits_resources(pod: Pod, info: NodeInfo) -> bool:
    """Every resource of the node, requested or not, stays non-negative (upstream
    ``lessEqualTaskToNodeResources``; pods that take none fit anywhere, as best-effort)."""
    alloc = info.node.allocatable
    if info.pod_count + 1 > alloc.get("pods", 0):
        return False
    requested = info.requested
    for resource, value in pod.requests.items():
        if value > alloc.get(resource, 0) - requested.get(resource, 0):
            return False
    return all(v <= alloc.get(r, 0) for r, v in requested.items())


def resource_reason(pod: Pod, info: NodeInfo) -> str | None:
    if fits_resources(pod, info):
        return None
    reasons = resource_reasons(pod, info)
    return reasons[0] if reasons else "node(s) didn't have enough resources"


def cpu_only_node(info: NodeInfo) -> bool:
    """Upstream ``IsCPUOnlyNode``: no GPUs and not a MIG node."""
    if info.node.labels.get(MIG_ENABLED_LABEL) in ("1", "t", "T", "TRUE", "true", "True"):
        return False
    return info.node.allocatable.get(GPU, 0) <= 0


def gpu_task(pod: Pod) -> bool:
    """Upstream ``IsRequireAnyKindOfGPU`` for whole GPUs and MIG profiles."""
    return any(v > 0 and (r == GPU or r.startswith(MIG_PREFIX)) for r, v in pod.requests.items())


class ResourceFit:
    """Idle resources, the cordon and the node selector: KAI's checks without the shared
    kube-scheduler filters (for the algorithm's tests)."""

    def check(self, pod: Pod, info: NodeInfo) -> str | None:
        reason = resource_reason(pod, info)
        if reason is not None:
            return reason
        if info.node.unschedulable:
            return UNSCHEDULABLE
        labels = info.node.labels
        if any(labels.get(k) != v for k, v in pod.node_selector.items()):
            return "node(s) didn't match Pod's node affinity/selector"
        return None

    def monotone(self, pod: Pod) -> bool:
        return True

    def rolled_back(self) -> None:
        pass

    def focus(self, nodes: Sequence[int]) -> None:
        pass
