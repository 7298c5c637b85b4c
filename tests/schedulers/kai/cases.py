"""A compact form of KAI's allocate test fixtures (``test_utils.TestTopologyBasic``): nodes
with GPUs and labels, running pods, one pending job with its PodGroup, and the expected
node of every pending task or the PodGroup's message.

Defaults follow KAI's fakes (``pkg/scheduler/test_utils/{nodes_fake,jobs_fake}``): nodes
with 20 cores and 20G of memory, tasks asking only for GPUs (and cpu where the case says),
a job without subgroups gets minMember = its number of tasks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.statement import Statement
from tasplan.model.kai import (
    GPU,
    SUBGROUP_LABEL,
    Constraint,
    KaiPodGroup,
    KaiTopology,
    SubGroup,
    TopologyLevel,
)
from tasplan.model.node import Node
from tasplan.model.pod import Pod
from tasplan.model.source import Source
from tasplan.schedulers.kai.allocate import Allocator, Outcome
from tasplan.schedulers.kai.fit import ResourceFit
from tasplan.schedulers.kai.jobs import build_job
from tasplan.schedulers.kai.tree import TopologyTree

SRC = Source("kai.yaml", workload=True)
AFFINITY_KEY = "kai.test/affinity"


@dataclass
class Case:
    name: str
    topology: str
    levels: tuple[str, ...]
    nodes: dict[str, tuple[int, dict[str, str]]]  # name -> (GPUs, labels)
    tasks: list[str | None]  # subgroup of each pending task
    running: list[tuple[str, int]] = field(default_factory=list)  # (node, GPUs) per pod
    required: str = ""
    preferred: str = ""
    subgroups: tuple[SubGroup, ...] = ()
    gpus: int = 1
    cpu_millis: int = 0
    node_cpu: dict[str, int] = field(default_factory=dict)
    affinity: dict[int, str] = field(default_factory=dict)  # task index -> affinity value
    expect: dict[int, str] | None = None  # task index -> node
    message: str | None = None
    placed: int | None = None  # tasks expected placed when nodes are not named


def sub(name: str, topology: str = "", *, min_member: int | None = None,
        min_subgroup: int | None = None, parent: str | None = None, required: str = "",
        preferred: str = "", constraint: bool = True) -> SubGroup:
    c = Constraint(topology, required, preferred) if constraint else None
    return SubGroup(name, min_member, min_subgroup, parent, c)


def even_nodes(zones: int, spines: int, racks: int, per_rack: int, gpus: int
               ) -> dict[str, tuple[int, dict[str, str]]]:
    """Upstream ``buildEvenlyDistributedTopologyNodes``."""
    out = {}
    node = 0
    for z in range(1, zones + 1):
        for sp in range(1, spines + 1):
            spine = f"spine{sp + (z - 1) * spines}"
            for r in range(1, racks + 1):
                rack = f"rack{r + (sp - 1) * racks + (z - 1) * spines * racks}"
                for _ in range(per_rack):
                    out[f"node{node}"] = (gpus, {"k8s.io/zone": f"zone{z}",
                                                 "k8s.io/spine": spine, "k8s.io/rack": rack})
                    node += 1
    return out


def _node(name: str, gpus: int, labels: dict[str, str], cpu: int) -> Node:
    allocatable = {"cpu": cpu, "memory": 20 * 10**9, "pods": 110}
    if gpus:
        allocatable[GPU] = gpus
    return Node(name, {"kubernetes.io/hostname": name, **labels}, (), False, allocatable,
                Source("cluster.yaml"))


def _pod(name: str, order: int, gpus: int, cpu: int, *, node: str = "",
         labels: dict[str, str] | None = None, selector: dict[str, str] | None = None) -> Pod:
    requests = {k: v for k, v in (("cpu", cpu), (GPU, gpus)) if v}
    return Pod(namespace="", name=name, node_name=node, phase="Running" if node else "Pending",
               priority=0, requests=requests, non_zero=(cpu or 100, 200 * 1024 * 1024),
               source=SRC, order=order, labels=labels or {}, scheduler_name="kai-scheduler",
               node_selector=selector or {})


@dataclass
class Run:
    outcome: Outcome
    placed: dict[str, str]  # pod name -> node
    infos: list[NodeInfo]


def run(case: Case) -> Run:
    nodes = sorted((_node(n, g, labels, case.node_cpu.get(n, 20000))
                    for n, (g, labels) in case.nodes.items()), key=lambda n: n.name)
    infos = [NodeInfo(n, i) for i, n in enumerate(nodes)]
    by_name = {info.name: info for info in infos}
    for k, (node, gpus) in enumerate(case.running):
        by_name[node].add_pod(_pod(f"running-{k}", k, gpus, 0, node=node))
    pods = []
    for i, subgroup in enumerate(case.tasks):
        labels = {SUBGROUP_LABEL: subgroup} if subgroup else {}
        selector = {AFFINITY_KEY: case.affinity[i]} if i in case.affinity else None
        pods.append(_pod(f"pending_job0-{i}", 100 + i, case.gpus, case.cpu_millis,
                         labels=labels, selector=selector))
    constraint = Constraint(case.topology, case.required, case.preferred) \
        if case.required or case.preferred else Constraint()
    group = KaiPodGroup("", "pending_job0", None if case.subgroups else len(case.tasks), None,
                        "queue0", "", constraint, case.subgroups, SRC)
    topology = KaiTopology(case.topology, tuple(TopologyLevel(lv) for lv in case.levels), SRC)
    topologies = {topology.name: topology}
    job = build_job(group, pods, topologies)
    trees = {topology.name: TopologyTree(topology, infos)}
    outcome = Allocator(infos, trees, ResourceFit(), Statement()).allocate(job)
    placed = {pod.name: info.name for pod, info in outcome.assigned}
    return Run(outcome, placed, infos)
