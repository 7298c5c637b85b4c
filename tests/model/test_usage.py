"""Per-node usage (``index_usage``): sums taken per distinct requests mapping equal the
pod-by-pod sums of upstream NodeInfo's AddPod, on the samples and on random pods."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

from tasplan.load.loader import load_inputs
from tasplan.model.pod import TERMINAL_PHASES, HostPort, Pod
from tasplan.model.snapshot import NodeUsage, index_usage

REPO = Path(__file__).resolve().parents[2]


def reference(nodes: tuple, pods: tuple[Pod, ...]) -> tuple[dict, dict, tuple]:
    """The plain algorithm: each pod's requests added to its node, one by one."""
    names = {n.name for n in nodes}
    acc: dict = {}
    missing: dict = {}
    nominated = []
    for pod in pods:
        if not pod.node_name:
            if pod.nominated_node_name in names and pod.phase not in TERMINAL_PHASES \
                    and not pod.deleting:
                nominated.append(pod)
            continue
        if pod.phase in TERMINAL_PHASES:
            continue
        if pod.node_name not in names:
            missing[pod.node_name] = missing.get(pod.node_name, 0) + 1
            continue
        requested, nz, on, ports, affinity = acc.setdefault(pod.node_name,
                                                            ({}, [0, 0], [], [], []))
        for resource, value in pod.requests.items():
            requested[resource] = requested.get(resource, 0) + value
        nz[0] += pod.non_zero[0]
        nz[1] += pod.non_zero[1]
        on.append(pod)
        ports.extend(pod.host_ports)
        if pod.pod_affinity is not None:
            affinity.append(pod)
    usage = {name: NodeUsage(r, nz[0], nz[1], tuple(on), tuple(ports), tuple(a))
             for name, (r, nz, on, ports, a) in acc.items()}
    return usage, missing, tuple(nominated)


def same(a: tuple, b: tuple) -> None:
    assert a == b
    for name in a[0]:  # the order resources are listed in, too
        assert list(a[0][name].requested) == list(b[0][name].requested)


def test_samples() -> None:
    snap = load_inputs([REPO / "samples" / "workloads"], [REPO / "samples" / "cluster"])
    assert len(snap.usage) > 10
    same(index_usage(snap.nodes, snap.pods), reference(snap.nodes, snap.pods))


def test_random_pods_sharing_and_not_sharing_their_requests() -> None:
    snap = load_inputs([], [REPO / "samples" / "cluster"])
    rng = random.Random(7)
    shapes = [{"cpu": 1000, "memory": 2**30}, {"memory": 5}, {"nvidia.com/gpu": 8, "cpu": 0},
              {}, {"cpu": 250, "example.com/x": 3}]
    template = snap.pods[0]
    names = [n.name for n in snap.nodes] + ["gone-1", ""]
    pods = []
    for i in range(600):
        shape = rng.choice(shapes)
        pods.append(replace(
            template, name=f"p{i}", node_name=rng.choice(names),
            requests=shape if rng.random() < 0.7 else dict(shape),  # shared or a copy
            non_zero=(rng.randrange(0, 4000), rng.randrange(0, 2**33)),
            phase=rng.choice(["Running", "Pending", "Succeeded", "Failed", ""]),
            host_ports=(HostPort(8000 + i),) if rng.random() < 0.1 else (),
            pod_affinity=template.pod_affinity if rng.random() < 0.8 else object(),
            nominated_node_name=rng.choice(names), deleting=rng.random() < 0.1))
    pods = tuple(pods)
    same(index_usage(snap.nodes, pods), reference(snap.nodes, pods))
