"""Per-domain analysis of a group that did not fit: pods that fit of those needed, the
resources that stopped the rest, the nodes no pod of the group may use and why, and who
else uses the domain. Everything is read from the planner's result and node state."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from tasplan.explain.case import Case
from tasplan.explain.result import Consumer, DomainExplanation
from tasplan.framework.diagnosis import Diagnosis
from tasplan.framework.status import InsufficientResource, Status
from tasplan.model.pod import Pod
from tasplan.model.taints import Taint
from tasplan.plan.result import PlacementResult
from tasplan.plugins import names
from tasplan.plugins.dynamic_resources import DEVICES
from tasplan.plugins.node_resources_fit import TOO_MANY_PODS

# Consumers are listed for this many of the closest domains: the others are rarely read and
# summing every pod of a large cluster per explained group is not free.
CONSUMER_DOMAINS = 3
TOP_CONSUMERS = 3


def analyse_domains(case: Case) -> tuple[DomainExplanation, ...]:
    out = []
    demands: dict[int, dict[str, int]] = {}  # id(pod) -> devices per DeviceClass
    for rank, domain in enumerate(case.domains):
        explanation = _domain(case, domain, demands)
        if rank < CONSUMER_DOMAINS:
            resources = list(explanation.shortfall) or ["cpu"]
            explanation = replace(explanation,
                                  consumers=consumers(case, domain, resources))
        out.append(explanation)
    return tuple(out)


def _domain(case: Case, domain: PlacementResult,
            demands: dict[int, dict[str, int]]) -> DomainExplanation:
    """``demands``: what each pod's claims ask for, shared by the domains (pending pods
    only: they live as long as the case)."""
    diagnosis = first_diagnosis(domain)
    short = max(case.needed - domain.placed, 0)
    shortfall: dict[str, int] = {}
    per_pod: dict[str, int] = {}
    if short and diagnosis is not None:
        binding = binding_resources(diagnosis)
        missing = unplaced_pods(case, domain)[:short]
        devices = case.fw.plugin(names.DYNAMIC_RESOURCES)

        def demand(pod: Pod) -> dict[str, int]:
            hit = demands.get(id(pod))
            if hit is None:
                hit = demands[id(pod)] = devices.demand(pod)
            return hit

        for resource in binding:
            amounts = [1 if resource == "pods"
                       else demand(p).get(resource.removeprefix(DEVICES), 0)
                       if resource.startswith(DEVICES) and devices is not None
                       else p.requests.get(resource, 0) for p in missing]
            if sum(amounts):
                shortfall[resource] = sum(amounts)
                if len(set(amounts)) == 1 and len(amounts) == short:
                    per_pod[resource] = amounts[0]
    return DomainExplanation(
        name=domain.name, nodes=len(domain.nodes), fit=domain.placed, needed=case.needed,
        shortfall=shortfall, per_pod=per_pod,
        excluded=exclusions(diagnosis, full_before(case)) if diagnosis is not None else {})


def first_diagnosis(domain: PlacementResult) -> Diagnosis | None:
    return next(iter(domain.diagnoses.values()), None)


def unplaced_pods(case: Case, domain: PlacementResult) -> list[Pod]:
    """Pending pods without a node in ``domain``, in the planner's order. A counted
    placement places the first ``placed`` pods of the (identical) class."""
    if not domain.simulated:
        return list(case.ctx.pending[domain.placed:])
    return [p for p in case.ctx.pending if p.key in domain.unplaced]


def binding_resources(diagnosis: Diagnosis) -> list[str]:
    """Resources some node was short of: short on the most nodes first, extended resources
    (GPUs) before cpu and memory on a tie; ``pods`` for nodes whose pod slots are full."""
    counts: Counter = Counter()
    for status in diagnosis.statuses.values():
        counts.update({d.resource for d in status.details if isinstance(d, InsufficientResource)})
    return sorted(counts, key=lambda r: (-counts[r], "/" not in r, r))


def exclusions(diagnosis: Diagnosis, full: Callable[[str], bool] | None = None
               ) -> dict[str, int]:
    """Nodes no pod of the group may use before it is placed, by reason: taints (named, as
    upstream's reason did before v1.34), selector/affinity, cordon, pod slots that were full
    already (``full``; slots the group's own pods filled are not an exclusion), ..."""
    counts: Counter = Counter()
    for node, status in diagnosis.statuses.items():
        reason = exclusion_reason(status)
        if reason == TOO_MANY_PODS and full is not None and not full(node):
            continue
        if reason:
            counts[reason] += 1
    return dict(sorted(counts.items()))


def full_before(case: Case) -> Callable[[str], bool]:
    """Whether a node's pod slots were all taken before the group was placed."""
    def full(node: str) -> bool:
        index = case.node_index.get(node)
        if index is None:
            return True
        info = case.infos[index]
        return info.pod_count >= info.node.allocatable.get("pods", 0)
    return full


def short_of_devices(status: Status) -> bool:
    """The DRA plugin rejected the node for want of free devices (not for reach or class)."""
    return status.plugin == names.DYNAMIC_RESOURCES and any(
        isinstance(d, InsufficientResource) for d in status.details)


def exclusion_reason(status: Status) -> str:
    if short_of_devices(status):
        return ""  # short of devices: a shortfall, not an exclusion
    if status.plugin == names.NODE_RESOURCES_FIT:
        return TOO_MANY_PODS if TOO_MANY_PODS in status.reasons else ""
    if status.plugin == names.TAINT_TOLERATION:
        taint = next((d for d in status.details if isinstance(d, Taint)), None)
        if taint is not None:
            return f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}"
    return status.message


def consumers(case: Case, domain: PlacementResult,
              resources: Sequence[str]) -> tuple[Consumer, ...]:
    """The other pods on the domain's nodes, by namespace and priority, largest users of
    ``resources`` first (the group's own running pods are left out)."""
    totals: dict[tuple[str, int], list] = {}
    own = case.group.key
    for name in domain.nodes:
        for pod in case.infos[case.node_index[name]].pods:
            if pod.group == own:
                continue
            entry = totals.setdefault((pod.namespace, pod.priority), [0, Counter()])
            entry[0] += 1
            entry[1].update({r: pod.requests.get(r, 0) for r in resources})
    ranked = sorted(totals.items(), key=lambda kv: (
        *(-kv[1][1][r] for r in resources), kv[0][1], kv[0][0]))
    return tuple(Consumer(ns, prio, n, _nonzero(req))
                 for (ns, prio), (n, req) in ranked[:TOP_CONSUMERS])


def _nonzero(requests: Mapping[str, int]) -> dict[str, int]:
    return {r: v for r, v in requests.items() if v}
