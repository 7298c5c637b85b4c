"""``index_usage`` (per-node usage summed once per distinct requests mapping) against the
plain pod-by-pod sum upstream's ``NodeInfo.AddPod`` does, on random clusters whose pods
share or do not share their requests mappings, with host ports, pod affinity, terminal
pods, pods on unknown nodes and nominated pending pods."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from tasplan.model.pod import TERMINAL_PHASES, HostPort
from tasplan.model.pod_affinity import PodAffinity
from tasplan.model.snapshot import NodeUsage, index_usage
from tests.builders import make_node, make_pod


def _plain(nodes, pods):
    """The pod-by-pod sum (index_usage as it was before it summed per shape)."""
    names = {n.name for n in nodes}
    acc, missing, nominated = {}, {}, []
    for pod in pods:
        if not pod.node_name:
            if (pod.nominated_node_name in names and pod.phase not in TERMINAL_PHASES
                    and not pod.deleting):
                nominated.append(pod)
            continue
        if pod.phase in TERMINAL_PHASES:
            continue
        if pod.node_name not in names:
            missing[pod.node_name] = missing.get(pod.node_name, 0) + 1
            continue
        req, nz, on, ports, aff = acc.setdefault(pod.node_name, ({}, [0, 0], [], [], []))
        for resource, value in pod.requests.items():
            req[resource] = req.get(resource, 0) + value
        nz[0] += pod.non_zero[0]
        nz[1] += pod.non_zero[1]
        on.append(pod)
        ports.extend(pod.host_ports)
        if pod.pod_affinity is not None:
            aff.append(pod)
    usage = {name: NodeUsage(req, nz[0], nz[1], tuple(on), tuple(ports), tuple(aff))
             for name, (req, nz, on, ports, aff) in acc.items()}
    return usage, missing, tuple(nominated)


@pytest.mark.parametrize("seed", range(40))
def test_index_usage_equals_the_pod_by_pod_sum(seed: int) -> None:
    rng = random.Random(seed)
    nodes = [make_node(f"n{i}") for i in range(rng.randint(1, 6))]
    resources = ["cpu", "memory", "nvidia.com/gpu", "ephemeral-storage", "example.com/x"]
    shapes = [{r: rng.randint(0, 4000) for r in rng.sample(resources, rng.randint(0, 4))}
              for _ in range(rng.randint(1, 4))]
    affinity = PodAffinity((), (), (), ())
    pods = []
    for i in range(rng.randint(0, 120)):
        where = rng.random()
        node = ("" if where < 0.1 else "gone" if where < 0.15
                else rng.choice(nodes).name)
        shape = rng.choice(shapes)
        pod = replace(
            make_pod(f"p{i}", node=node, phase=rng.choice(["Running", "Running", "Pending",
                                                           "Succeeded", "Failed"])),
            # shared mappings (as the readers' caches give) or an equal copy of one
            requests=shape if rng.random() < 0.7 else dict(shape),
            non_zero=(rng.randint(0, 500), rng.randint(0, 1 << 30)),
            host_ports=tuple(HostPort(rng.randint(1, 3)) for _ in range(rng.randint(0, 2)))
            if rng.random() < 0.2 else (),
            pod_affinity=affinity if rng.random() < 0.1 else None,
            nominated_node_name=rng.choice(["", nodes[0].name, "gone"]) if not node else "",
            deleting=rng.random() < 0.1)
        pods.append(pod)
    got, want = index_usage(tuple(nodes), tuple(pods)), _plain(nodes, pods)
    assert got == want
    for name, usage in got[0].items():  # resources in the order the pods first name them
        assert list(usage.requested) == list(want[0][name].requested)
        assert all(a is b for a, b in zip(usage.pods, want[0][name].pods, strict=True))
