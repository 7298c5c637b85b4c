"""Mutable per-node usage: what is assigned or assumed on a node right now."""

from __future__ import annotations

from tasplan.model.node import Node
from tasplan.model.pod import HostPort, Pod


class NodeInfo:
    """Upstream ``NodeInfo``: requested totals (raw and non-zero), pods and used host ports.

    Only the Statement mutates it, so every change can be undone. ``generation`` grows on
    every change; caches compare it to know when to recompute.
    """

    __slots__ = ("generation", "index", "node", "non_zero_cpu", "non_zero_memory", "pods",
                 "ports", "requested")

    def __init__(self, node: Node, index: int) -> None:
        self.node = node
        self.index = index
        self.requested: dict[str, int] = {}
        self.non_zero_cpu = 0
        self.non_zero_memory = 0
        self.pods: list[Pod] = []
        self.ports: list[HostPort] = []
        self.generation = 0

    @property
    def name(self) -> str:
        return self.node.name

    def add_pod(self, pod: Pod) -> None:
        req = self.requested
        for name, value in pod.requests.items():
            req[name] = req.get(name, 0) + value
        cpu, mem = pod.non_zero
        self.non_zero_cpu += cpu
        self.non_zero_memory += mem
        self.pods.append(pod)
        if pod.host_ports:
            self.ports.extend(pod.host_ports)
        self.generation += 1

    def remove_pod(self, pod: Pod) -> None:
        pods = self.pods
        if pods and pods[-1] is pod:
            pods.pop()
        else:
            pods.remove(pod)
        req = self.requested
        for name, value in pod.requests.items():
            req[name] -= value
        cpu, mem = pod.non_zero
        self.non_zero_cpu -= cpu
        self.non_zero_memory -= mem
        for port in pod.host_ports:
            self.ports.remove(port)
        self.generation += 1

    def free(self, resource: str) -> int:
        return self.node.allocatable.get(resource, 0) - self.requested.get(resource, 0)

    def __repr__(self) -> str:
        return f"NodeInfo({self.node.name}, pods={len(self.pods)})"
