"""The in-memory cluster every planner works on, and its indexes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from tasplan.model.bound_pods import LazyPods, NodePods
from tasplan.model.disruption import PodDisruptionBudget
from tasplan.model.dra_inputs import NO_DRA, DraInputs
from tasplan.model.group import PodGroup
from tasplan.model.kai_inputs import NO_KAI, KaiInputs
from tasplan.model.kueue_inputs import NO_KUEUE, KueueInputs
from tasplan.model.node import Node
from tasplan.model.pod import TERMINAL_PHASES, HostPort, Pod
from tasplan.model.volcano_inputs import NO_VOLCANO, VolcanoInputs


@dataclass(frozen=True, slots=True)
class PriorityClass:
    name: str
    value: int
    global_default: bool = False
    preemption_policy: str = "PreemptLowerPriority"


@dataclass(frozen=True, slots=True)
class NodeUsage:
    """What the bound, non-terminal pods of a node hold: upstream NodeInfo's starting point.
    ``pods`` may be a ``NodePods``: built on first read (``len()`` does not build it)."""

    requested: Mapping[str, int]
    non_zero_cpu: int
    non_zero_memory: int
    pods: Sequence[Pod]
    ports: tuple[HostPort, ...]
    affinity_pods: tuple[Pod, ...] = ()  # those with pod (anti-)affinity terms


EMPTY_USAGE = NodeUsage({}, 0, 0, (), ())


def index_usage(nodes: tuple[Node, ...], pods: Sequence[Pod]
                ) -> tuple[dict, dict, tuple[Pod, ...]]:
    """Node name -> NodeUsage for the nodes that have pods; node name -> count of pods
    bound to nodes missing from the snapshot (their requests cannot be counted); and the
    pending pods nominated to a node of the snapshot (room is held for them there). The
    records of lazy pods (``LazyPods``) are summed per node and shape, not built."""
    names = {n.name for n in nodes}
    stores = ()
    if isinstance(pods, LazyPods):
        pods, stores = pods.eager, pods.stores
    acc: dict[str, tuple[dict, list, list, list]] = {}
    missing: dict[str, int] = {}
    nominated = []
    affinity: dict[str, list[Pod]] = {}
    for pod in pods:
        name = pod.node_name
        if not name:
            if pod.nominated_node_name in names and pod.phase not in TERMINAL_PHASES \
                    and not pod.deleting:
                nominated.append(pod)
            continue
        if pod.phase in TERMINAL_PHASES:
            continue
        if name not in names:
            missing[name] = missing.get(name, 0) + 1
            continue
        entry = acc.get(name)
        if entry is None:
            entry = acc[name] = ({}, [0, 0], [], [])
        requested, non_zero, on_node, ports = entry
        for resource, value in pod.requests.items():
            requested[resource] = requested.get(resource, 0) + value
        cpu, mem = pod.non_zero
        non_zero[0] += cpu
        non_zero[1] += mem
        on_node.append(pod)
        if pod.pod_affinity is not None:
            affinity.setdefault(name, []).append(pod)
        if pod.host_ports:
            ports.extend(pod.host_ports)
    if stores:
        return _with_records(acc, affinity, names, stores, missing), missing, tuple(nominated)
    usage = {name: NodeUsage(req, nz[0], nz[1], tuple(on), tuple(ports),
                             tuple(affinity.get(name, ())))
             for name, (req, nz, on, ports) in acc.items()}
    return usage, missing, tuple(nominated)


def _with_records(acc: dict, affinity: dict, names: set[str], stores: tuple,
                  missing: dict[str, int]) -> dict[str, NodeUsage]:
    """``index_usage``'s totals with the stores' records added, node by node."""
    counts: dict[str, int] = {}
    on_stores: dict[str, list] = {}
    for store in stores:
        for name, n, requests, cpu, mem in store.totals():
            if name not in names:
                missing[name] = missing.get(name, 0) + n
                continue
            entry = acc.get(name)
            if entry is None:
                entry = acc[name] = ({}, [0, 0], [], [])
            requested, non_zero = entry[0], entry[1]
            for resource, value in requests:
                requested[resource] = requested.get(resource, 0) + value
            non_zero[0] += cpu
            non_zero[1] += mem
            if name in counts:
                counts[name] += n
                on_stores[name].append(store)
            else:
                counts[name] = n
                on_stores[name] = [store]
    return {name: NodeUsage(req, nz[0], nz[1],
                            NodePods(name, tuple(on), on_stores[name], counts[name])
                            if name in counts else tuple(on),
                            tuple(ports), tuple(affinity.get(name, ())))
            for name, (req, nz, on, ports) in acc.items()}


@dataclass(frozen=True)
class ClusterSnapshot:
    """Nodes sorted by name, pods and groups in input order.

    ``ignored`` counts objects of kinds tasplan does not use (Deployments, ConfigMaps, ...),
    so reports can say what was skipped instead of dropping it silently. ``usage`` (node
    name -> NodeUsage) is derived from nodes and pods when not given.
    """

    nodes: tuple[Node, ...]
    pods: Sequence[Pod]  # a tuple, or LazyPods (model/bound_pods.py) from the loader
    groups: tuple[PodGroup, ...]
    priority_classes: Mapping[str, PriorityClass] = field(default_factory=dict)
    # Namespace name -> labels, for namespaceSelectors of pod affinity terms.
    namespaces: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    ignored: Mapping[tuple[str, str], int] = field(default_factory=Counter)  # (apiVersion, kind)
    warnings: tuple[str, ...] = ()
    usage: Mapping[str, NodeUsage] | None = None
    unknown_nodes: Mapping[str, int] = field(default_factory=dict)
    nominated: tuple[Pod, ...] = ()
    disruption_budgets: tuple[PodDisruptionBudget, ...] = ()
    # CompositePodGroups (tasplan.model.composite.CompositePodGroup) in input order.
    composites: tuple = ()
    # The Kubernetes version a live read or tasplan snapshot recorded ("" for kubectl dumps).
    server_version: str = ""
    # The parsed input objects. Kept so their (large) memory is released together with the
    # snapshot instead of inside the load: freeing a 1 GB dump's parse tree takes about half
    # as long as parsing it, and a one-shot CLI run never needs to pay that.
    documents: tuple = field(default=(), repr=False, compare=False)
    # DeviceClasses, ResourceSlices, ResourceClaims and the rest of DRA.
    dra: DraInputs = NO_DRA
    # Scheduling keys found in the workload inputs (tasplan.model.scheduling_keys.Intent):
    # the planner warns about those its scheduler does not honour.
    intents: tuple = ()
    # What the workload inputs hold that was not planned (tasplan.model.skipped.Skipped).
    skipped: tuple = ()
    # Volcano's HyperNodes and PodGroups (--scheduler volcano).
    volcano: VolcanoInputs = NO_VOLCANO
    # Kueue's Topologies, ResourceFlavors, queues and Workloads (--scheduler kueue).
    kueue: KueueInputs = NO_KUEUE
    # KAI's Topologies and scheduling.run.ai PodGroups (--scheduler kai).
    kai: KaiInputs = NO_KAI

    def __post_init__(self) -> None:
        if self.usage is None:
            usage, missing, nominated = index_usage(self.nodes, self.pods)
            object.__setattr__(self, "usage", usage)
            object.__setattr__(self, "unknown_nodes", missing)
            object.__setattr__(self, "nominated", nominated)

    @cached_property
    def pod_namespaces(self) -> set[str]:
        """The namespaces pods live in (lazy pods are not built for it)."""
        pods = self.pods
        if isinstance(pods, LazyPods):
            return {p.namespace for p in pods.eager}.union(
                *(s.namespaces() for s in pods.stores))
        return {p.namespace for p in pods}

    def node_usage(self, name: str) -> NodeUsage:
        return self.usage.get(name, EMPTY_USAGE)

    @cached_property
    def node_index(self) -> dict[str, int]:
        return {n.name: i for i, n in enumerate(self.nodes)}

    @cached_property
    def group_index(self) -> dict[str, PodGroup]:
        return {g.key: g for g in self.groups}

    @cached_property
    def pods_by_group(self) -> dict[str, list[Pod]]:
        out: dict[str, list[Pod]] = {}
        pods = self.pods
        # Lazy pods belong to no group: only the eager ones are looked at.
        for pod in pods.eager if isinstance(pods, LazyPods) else pods:
            if pod.group is not None:
                out.setdefault(pod.group, []).append(pod)
        return out
