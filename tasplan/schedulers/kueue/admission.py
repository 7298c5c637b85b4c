"""One Kueue workload through what Kueue's scheduler does before it admits it: a flavor
per the ClusterQueue (order, static quota), the TAS placement on that flavor's topology,
then the pods' nodes as the topology ungater hands out the assigned domains.

Mirrors ``pkg/scheduler/flavorassigner`` (``tas_flavorassigner.go``,
``fitsResourceQuota``'s messages), ``pkg/cache/scheduler/tas_flavor.go`` (the snapshot of
a flavor: its nodes, non-TAS usage, admitted TAS usage) and
``pkg/controller/tas/topology_ungater.go`` (ranks -> domains) of kubernetes-sigs/kueue at
ff69552e. What a plan made offline cannot know is returned as notes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace

from tasplan.framework.node_info import NodeInfo
from tasplan.model import kueue as k
from tasplan.model.quantity import format_quantity
from tasplan.plan.fidelity import Note
from tasplan.schedulers.kueue import gates as g
from tasplan.schedulers.kueue import request as r
from tasplan.schedulers.kueue.tas import (
    PodSetRequest,
    PodSetResult,
)
from tasplan.schedulers.kueue.tree import HOSTNAME, TopologyTree
from tasplan.schedulers.kueue.workload import KueuePodSet

PODSET_LABEL = "kueue.x-k8s.io/podset"


@dataclass
class Admission:
    """The outcome for one workload: the flavor tried last, Kueue's results per PodSet,
    the message Kueue would write, and the notes."""

    flavor: k.ResourceFlavor | None = None
    topology: k.Topology | None = None
    tree: TopologyTree | None = None
    results: dict[str, PodSetResult] = field(default_factory=dict)
    requests: dict[str, PodSetRequest] = field(default_factory=dict)
    message: str = ""
    admitted: bool = False
    fits_empty: bool | None = None  # TAS alone, with admitted TAS usage gone
    notes: list[Note] = field(default_factory=list)
    gates: g.Gates | None = None
    # The ClusterQueue refused the workload on quota (message: Kueue's words); then
    # ``cluster_queue`` is that queue and ``without_quota`` the placement on the first of
    # its TAS flavors whose topology holds the workload (None: none does).
    quota_refused: bool = False
    cluster_queue: k.ClusterQueue | None = None
    without_quota: Admission | None = None


def build_requests(sets: Sequence[KueuePodSet], gates: g.Gates, implied: bool, *,
                   whole: bool = False) -> tuple[list[PodSetRequest], str]:
    """The TAS requests of the PodSets that ask for TAS (or all of them, implied by a
    TAS-only ClusterQueue), or Kueue's refusal of an annotation. Counts: the pending
    pods, or with ``whole`` the running ones too."""
    out = []
    for ps in sets:
        try:
            topology = r.from_workload(ps.stored.topology, gates) if ps.stored is not None \
                else r.build(ps.annotations, gates)
        except r.RequestError as err:
            return [], f"PodSet {ps.name}: {err}"
        if (topology is None or not topology.explicit) and not implied:
            continue
        pod = ps.template
        out.append(PodSetRequest(
            ps.name, len(ps.pods) + (ps.bound if whole else 0), dict(pod.requests), topology,
            implied=implied and (topology is None or not topology.explicit),
            tolerations=pod.tolerations, node_selector=dict(pod.node_selector),
            required_terms=pod.required_terms, preferred_terms=pod.preferred_terms))
    return out, ""


def stored_requests(wl: k.Workload, names: Collection[str], gates: g.Gates, implied: bool
                    ) -> list[PodSetRequest]:
    """The TAS requests of a Workload object's PodSets ``names``, from what it stores
    (``podSetTopologyRequest``: the whole count, the template's requests)."""
    out = []
    for ps in wl.pod_sets:
        if ps.name not in names:
            continue
        topology = r.from_workload(ps.topology, gates)
        out.append(PodSetRequest(
            ps.name, ps.count, dict(ps.requests), topology,
            implied=implied and (topology is None or not topology.explicit),
            tolerations=ps.tolerations, node_selector=dict(ps.node_selector),
            required_terms=ps.required_terms, preferred_terms=ps.preferred_terms))
    return out


def has_levels(topology: k.Topology, request: PodSetRequest) -> bool:
    """``TASFlavorSnapshot.HasLevel``."""
    tr = request.topology
    levels = topology.levels
    if tr is None or not tr.explicit:
        return True
    key = tr.required or tr.preferred or (levels[0] if tr.slice_layers() else levels[-1])
    layers = tr.slice_layers()
    slice_key = layers[0].topology if layers else levels[-1]
    return key in levels and slice_key in levels and all(
        layer.topology in levels for layer in layers)


def flavor_tree(state_nodes: Sequence[NodeInfo], topology: k.Topology,
                flavor: k.ResourceFlavor, workloads: Mapping[str, k.Workload],
                within: Callable[[Mapping[str, str]], bool] | None = None
                ) -> tuple[TopologyTree, list[Note]]:
    """The flavor's tree in the run's state: Ready, schedulable nodes with every flavor
    label and level label; free = allocatable minus every pod bound or assumed there;
    admitted Workloads' topology assignments count for the pods not bound yet.
    ``within``: only the nodes whose labels it accepts (a domain the workload is held to)."""
    notes = []
    nodes, unstated = [], 0
    wanted = tuple(flavor.node_labels.items())
    levels = topology.levels
    for info in state_nodes:
        node = info.node
        if node.unschedulable or node.ready is False:
            continue
        labels = node.labels
        if any(labels.get(k, "") != v for k, v in wanted) or \
                any(level not in labels for level in levels):
            continue  # utiltas.NodeMatchesFlavor
        if within is not None and not within(labels):
            continue
        if node.ready is None:
            unstated += 1
        nodes.append(info)
    used = {}
    for info in nodes:
        usage = info.requested
        if info.pods:
            usage = {**usage, "pods": usage.get("pods", 0) + info.pod_count}
        used[info.node.name] = usage
    tree = TopologyTree(topology.levels, (info.node for info in nodes), used)
    if unstated:
        notes.append(Note("kueue-node-ready", f"{unstated} node(s) of flavor {flavor.name} "
                          "state no Ready condition; planned as Ready (Kueue counts only "
                          "nodes whose Ready condition is True)"))
    held = _admitted_usage(tree, flavor, workloads, nodes)
    if held:
        notes.append(Note("kueue-admitted-usage", f"{held} pod(s) of admitted Workloads not "
                          f"bound yet hold their assigned domains on flavor {flavor.name}"))
    return tree, notes


def _admitted_usage(tree: TopologyTree, flavor: k.ResourceFlavor,
                    workloads: Mapping[str, k.Workload], nodes: Sequence[NodeInfo]) -> int:
    """Kueue's TAS usage of admitted Workloads, less what their bound pods already hold."""
    bound: dict[tuple[str, str, str, str], int] = {}
    for info in nodes:
        leaf = tree.node_leaf.get(info.node.name)
        for pod in info.pods:
            if pod.kueue_workload:
                key = (pod.namespace, pod.kueue_workload,
                       pod.labels.get(PODSET_LABEL, ""), leaf or "")
                bound[key] = bound.get(key, 0) + 1
    held = 0
    for wl in workloads.values():
        if not wl.holds_capacity:
            continue
        specs = {ps.name: ps for ps in wl.pod_sets}
        for psa in wl.assignments:
            if flavor.name not in psa.flavors.values() or not psa.domains:
                continue
            spec = specs.get(psa.name)
            requests = dict(spec.requests) if spec is not None else {}
            for dom in psa.domains:
                leaf = dom.values[-1] if psa.levels[-1:] == (HOSTNAME,) else ",".join(dom.values)
                left = dom.count - bound.get((wl.namespace, wl.name, psa.name, leaf), 0)
                if left <= 0:
                    continue
                usage = {res: v * left for res, v in requests.items()}
                usage["pods"] = left
                if tree.add_tas_usage(leaf, usage):
                    held += left
    return held


# -- quota ------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuotaVerdict:
    fits: bool  # within the maximum capacity (nominal, plus what it may borrow)
    message: str = ""  # Kueue's words when it does not fit, or needs unused quota
    needs_more: bool = False  # fits the maximum but not the unused quota


def quota(cq: k.ClusterQueue, flavor: str, requests: Sequence[PodSetRequest],
          workloads: Mapping[str, k.Workload]) -> QuotaVerdict:
    """``fitsResourceQuota`` for one flavor, statically: the workload's requests on top of
    what the inputs' admitted Workloads of the ClusterQueue use there."""
    quotas = flavor_quotas(cq, flavor)
    used = quota_usage(cq, flavor, workloads)
    assumed: dict[str, int] = {}
    short = ""
    for ps in requests:
        for res, value in sorted(ps.requests.items()):
            q = quotas.get(res)
            if q is None:
                continue
            ask = value * ps.count
            before = assumed.get(res, 0)
            total = used.get(res, 0) + before + ask
            maximum = q.nominal + ((q.borrowing_limit or 0) if cq.cohort else 0)
            if total > maximum and not (cq.cohort and q.borrowing_limit is None):
                return QuotaVerdict(False, (
                    f"insufficient quota for {res} in flavor {flavor}, previously considered "
                    f"podsets requests ({format_quantity(res, before)}) + current podset "
                    f"request ({format_quantity(res, ask)}) > maximum capacity "
                    f"({format_quantity(res, maximum)})"))
            if total > q.nominal and not short:
                short = (f"insufficient unused quota for {res} in flavor {flavor}, "
                         f"{format_quantity(res, total - q.nominal)} more needed")
            assumed[res] = before + ask
    return QuotaVerdict(True, short, bool(short))


def flavor_quotas(cq: k.ClusterQueue, flavor: str) -> dict[str, k.Quota]:
    return {res: q for group in cq.resource_groups for fq in group.flavors
            if fq.name == flavor for res, q in fq.resources.items()}


def quota_usage(cq: k.ClusterQueue, flavor: str, workloads: Mapping[str, k.Workload]
                ) -> dict[str, int]:
    """What the admitted Workloads of the inputs use of the ClusterQueue's quota in the
    flavor, per resource."""
    used: dict[str, int] = {}
    for wl in workloads.values():
        if not wl.holds_capacity or wl.cluster_queue != cq.name:
            continue
        specs = {ps.name: ps for ps in wl.pod_sets}
        for psa in wl.assignments:
            spec = specs.get(psa.name)
            if spec is None:
                continue
            count = spec.count if psa.count is None else psa.count
            for res, f in psa.flavors.items():
                if f == flavor:
                    used[res] = used.get(res, 0) + spec.requests.get(res, 0) * count
    return used


def with_nominal(cq: k.ClusterQueue, flavor: str, nominal: Mapping[str, int]
                 ) -> k.ClusterQueue:
    """The ClusterQueue with the flavor's nominal quota of some resources changed."""
    groups = tuple(replace(group, flavors=tuple(
        replace(fq, resources={res: replace(q, nominal=nominal.get(res, q.nominal))
                               for res, q in fq.resources.items()})
        if fq.name == flavor else fq for fq in group.flavors))
        for group in cq.resource_groups)
    return replace(cq, resource_groups=groups)
