"""Builders defaulting to upstream test conventions: 2-CPU nodes, 1-CPU "small" pods,
priority 100, racks under label ``rack``."""

from __future__ import annotations

from dataclasses import replace
from itertools import count

from tasplan.model.group import PodGroup, Policy
from tasplan.model.node import Node
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.model.source import Source
from tasplan.model.taints import Taint, Toleration
from tasplan.schedulers.planner import target_for
from tasplan.target import Target

CLUSTER = Source("cluster.yaml")
WORKLOAD = Source("workload.yaml", workload=True)
_order = count()


def make_node(name: str, cpu: str | int = 2, *, labels: dict | None = None,
              taints: tuple[Taint, ...] = (), unschedulable: bool = False,
              pods: int = 110, **extra: int) -> Node:
    milli = int(float(cpu) * 1000)
    allocatable = {"cpu": milli, "pods": pods, **{k.replace("_", "/"): v for k, v in extra.items()}}
    labels = {"kubernetes.io/hostname": name, **(labels or {})}
    return Node(name, labels, taints, unschedulable, allocatable, CLUSTER)


def rack_nodes(**racks: list[str]) -> list[Node]:
    """``rack_nodes(**{"rack-1": ["n1", "n2"]})`` -> nodes labelled rack=rack-1."""
    return [make_node(n, labels={"rack": r}) for r, names in racks.items() for n in names]


def make_pod(name: str, cpu: float = 1, *, namespace: str = "default", node: str = "",
             group: str | None = None, priority: int = 100, phase: str | None = None,
             tolerations: tuple[Toleration, ...] = (), memory: int = 0,
             node_selector: dict | None = None, **extra: int) -> Pod:
    milli = int(cpu * 1000)
    requests = {"cpu": milli, **({"memory": memory} if memory else {}),
                **{k.replace("_", "/"): v for k, v in extra.items()}}
    non_zero = (milli or 100, memory or 200 * 1024 * 1024)
    return Pod(
        namespace=namespace, name=name, node_name=node,
        phase=phase or ("Running" if node else "Pending"),
        priority=priority, requests={k: v for k, v in requests.items() if v},
        non_zero=non_zero, source=CLUSTER if node else WORKLOAD, order=next(_order),
        group=group, tolerations=tolerations, node_selector=node_selector or {},
    )


def make_group(name: str = "pg", *, min_count: int | None = 3, key: str | None = "rack",
               namespace: str = "default", priority: int | None = 100) -> PodGroup:
    policy = Policy.GANG if min_count is not None else Policy.BASIC
    return PodGroup(f"{namespace}/{name}", namespace, policy, min_count or 1, key, "PodGroup",
                    "scheduling.k8s.io/v1beta1", WORKLOAD, next(_order), priority, planned=True)


def gang_pods(group: PodGroup, n: int, cpu: float = 1, prefix: str | None = None,
              **kw) -> list[Pod]:
    prefix = prefix or group.key.split("/")[-1]
    return [make_pod(f"{prefix}-{i}", cpu, namespace=group.namespace, group=group.key, **kw)
            for i in range(n)]


def snapshot(nodes, pods=(), groups=()) -> ClusterSnapshot:
    return ClusterSnapshot(tuple(sorted(nodes, key=lambda n: n.name)), tuple(pods), tuple(groups))


# -- helpers added for the plugin / framework tests ---------------------------------------


def pod_with(requests: dict, name: str = "p", *, node: str = "",
             non_zero: tuple[int, int] | None = None, **kw) -> Pod:
    """A pod with exactly ``requests`` (canonical integers, zero entries kept, keys in the
    given order). ``non_zero`` defaults to upstream's container defaults (100m / 200Mi) for a
    missing cpu / memory request; pass ``(0, 0)`` for a pod without containers."""
    from dataclasses import replace

    if non_zero is None:
        non_zero = (requests.get("cpu") or 100, requests.get("memory") or 200 * 1024 * 1024)
    return replace(make_pod(name, 0, node=node, **kw), requests=dict(requests),
                   non_zero=non_zero)


def node_infos(nodes, pods=()) -> list:
    """Index-aligned NodeInfos, in the order given, with bound ``pods`` added."""
    from tasplan.framework.node_info import NodeInfo

    infos = [NodeInfo(n, i) for i, n in enumerate(nodes)]
    by_name = {info.name: info for info in infos}
    for pod in pods:
        by_name[pod.node_name].add_pod(pod)
    return infos


def release(snap: ClusterSnapshot, version: str, **gates: bool) -> Target:
    """The target ``version`` with the gates ``snap`` needs (and ``gates``), without the
    API-version check (the builders write every group as scheduling.k8s.io/v1beta1)."""
    return replace(target_for(snap, version, gates), strict=False)
