"""tasplan's cluster as a Volcano session sees it, and one Volcano scheduling cycle over the
Volcano gangs of a snapshot.

Node usage lives in tasplan's ``NodeInfo``s; the predicates are kube-scheduler's node-local
filters that Volcano's ``predicates`` plugin wraps (NodeUnschedulable, NodeName,
TaintToleration, NodeAffinity, NodePorts) plus its own pod-number check; node scores are
Volcano's ``binpack`` plugin (the default ConfigMap's ``nodeorder`` plugin is not modelled:
see ``NOT_MODELLED``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.types import CycleState
from tasplan.model.group import PodGroup
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.model.volcano import TASK_SPEC_KEY, VolcanoInputs, VolcanoPodGroup
from tasplan.plugins import (
    node_affinity,
    node_name,
    node_ports,
    node_unschedulable,
    taint_toleration,
)
from tasplan.schedulers.volcano.allocate import Outcome, Plugins, Session
from tasplan.schedulers.volcano.hypernodes import HyperNodeTree, build_tree
from tasplan.schedulers.volcano.job import FAILED, RELEASING, RUNNING, SUCCEEDED, Job, Task
from tasplan.schedulers.volcano.scoring import binpack_node_score

POD_NUMBER_EXCEEDED = "node(s) pod number exceeded"
NOT_MODELLED = (
    "the nodeorder plugin's scores (least/most requested, balanced resources, node and pod "
    "affinity, taints, image locality) are not added to Volcano's node scores; "
    "inter-pod affinity and topology spread constraints of Volcano pods are not checked"
)


class ClusterSim:
    """The ``Simulator`` of the allocate core over tasplan's nodes."""

    def __init__(self, snapshot: ClusterSnapshot,
                 infos: Mapping[str, NodeInfo] | None = None) -> None:
        self.infos = dict(infos) if infos is not None else {
            n.name: NodeInfo(n, i, snapshot.node_usage(n.name))
            for i, n in enumerate(snapshot.nodes)}
        self.state = CycleState()
        self.filters = [m.new({}) for m in (node_unschedulable, node_name, taint_toleration,
                                             node_affinity, node_ports)]
        self.release: dict[str, dict[str, int]] = {}
        self.binpack: dict[tuple, dict[str, tuple[int, float]]] = {}
        self.binpack_of: dict[str, dict[str, tuple[int, float]]] = {}  # task uid -> its entry
        for info in self.infos.values():
            for pod in [p for p in info.pods if p.deleting]:
                acc = self.release.setdefault(info.name, {})
                for k, v in pod.requests.items():
                    acc[k] = acc.get(k, 0) + v

    def allocatable(self, node: str) -> Mapping[str, int]:
        return self.infos[node].node.allocatable

    def used(self, node: str) -> Mapping[str, int]:
        return self.infos[node].requested

    def releasing(self, node: str) -> Mapping[str, int]:
        return self.release.get(node, {})

    def predicate(self, task: Task, node: str) -> list[str]:
        info = self.infos[node]
        pod: Pod = task.payload
        for plugin in self.filters:
            status = plugin.filter(self.state, pod, info)
            if status is not None:
                return list(status.reasons)
        if info.pod_count >= info.node.allocatable.get("pods", 0):
            return [POD_NUMBER_EXCEEDED]
        return []

    def room(self, task: Task, node: str) -> int:
        """The pod-number check's room; a pod with host ports conflicts with its copies."""
        if task.payload.host_ports:
            return 1
        info = self.infos[node]
        return info.node.allocatable.get("pods", 0) - info.pod_count

    def assume(self, tasks: Sequence[Task], node: str) -> None:
        info = self.infos[node]
        for task in tasks:
            info.add_pod(task.payload)

    def forget(self, tasks: Sequence[Task], node: str) -> None:
        info = self.infos[node]
        for task in reversed(tasks):
            info.remove_pod(task.payload)

    def scores(self, task: Task, nodes: Sequence[str]) -> Mapping[str, float]:
        """The binpack plugin's scores, kept per (request, node) until the node changes
        (``NodeInfo.generation``)."""
        cache = self.binpack_of.get(task.uid)
        if cache is None:
            key = tuple(sorted(task.request.items()))
            cache = self.binpack_of[task.uid] = self.binpack.setdefault(key, {})
        out = {}
        for n in nodes:
            info = self.infos[n]
            hit = cache.get(n)
            if hit is None or hit[0] != info.generation:
                hit = cache[n] = (info.generation, binpack_node_score(
                    task.request, info.node.allocatable, info.requested))
            out[n] = hit[1]
        return out

    def task_class(self, task: Task) -> object:
        return task.payload.signature()


def task_of(pod: Pod) -> Task:
    """A pod as a Volcano task: bound pods run, deleting ones are releasing."""
    task = Task(pod.key, pod.name, dict(pod.requests), role=pod.labels.get(TASK_SPEC_KEY, ""),
                labels=pod.labels, priority=pod.priority, order=pod.order,
                gated=bool(pod.scheduling_gates), payload=pod)
    if pod.phase == "Succeeded":
        task.status = SUCCEEDED
    elif pod.phase == "Failed":
        task.status = FAILED
    elif pod.node_name:
        task.status, task.node = (RELEASING if pod.deleting else RUNNING), pod.node_name
    return task


def job_of(group: PodGroup, spec: VolcanoPodGroup, pods: Sequence[Pod]) -> Job:
    return Job(group.key, group.namespace, group.key.split("/", 1)[1], spec.min_member,
               [task_of(p) for p in pods], task_min_available=dict(spec.min_task_member),
               network_topology=spec.network_topology, policies=spec.sub_group_policies,
               min_resources=spec.min_resources, priority=group.priority or 0,
               order=group.order, queue=spec.queue, payload=group)


@dataclass
class VolcanoPlan:
    """One Volcano cycle: an outcome per job in the order they were allocated."""

    tree: HyperNodeTree
    outcomes: list[Outcome]
    ties: list[str] = field(default_factory=list)
    node_ties: dict[str, int] = field(default_factory=dict)


def plan_volcano(snapshot: ClusterSnapshot, inputs: VolcanoInputs,
                 groups: Sequence[PodGroup] | None = None,
                 plugins: Plugins | None = None, *, batched: bool = True) -> VolcanoPlan:
    """Allocate the Volcano gangs among ``groups`` (default: the snapshot's planned groups
    that have a Volcano PodGroup) in priority, then input order, each one's committed pods
    assumed before the next."""
    chosen = [g for g in (groups if groups is not None else snapshot.groups)
              if g.key in inputs.podgroups and (groups is not None or g.planned)]
    chosen.sort(key=lambda g: (-(g.priority or 0), g.order))
    tree = build_tree(inputs.hypernodes.values(),
                      [(n.name, n.labels) for n in snapshot.nodes])
    sim = ClusterSim(snapshot)
    session = Session(tree, sim, [n.name for n in snapshot.nodes], plugins, batched=batched)
    by_group = snapshot.pods_by_group
    outcomes = []
    for group in chosen:
        job = job_of(group, inputs.podgroups[group.key], by_group.get(group.key, []))
        outcomes.extend(session.allocate([job]))
    return VolcanoPlan(tree, outcomes, session.ties, session.node_ties)
