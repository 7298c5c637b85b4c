"""Mutable per-node usage: what is assigned or assumed on a node right now."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import is_
from typing import Any

from tasplan.model.node import Node
from tasplan.model.pod import HostPort, Pod
from tasplan.model.snapshot import EMPTY_USAGE, NodeUsage


class NodeInfo:
    """Upstream ``NodeInfo``: requested totals (raw and non-zero), pods and used host ports.

    Only the Statement mutates it, so every change can be undone. ``generation`` grows on
    every change; caches compare it to know when to recompute.
    """

    __slots__ = ("_bound", "_pods", "affinity_pods", "generation", "index", "node", "nominated",
                 "non_zero_cpu", "non_zero_memory", "ports", "requested")

    def __init__(self, node: Node, index: int, usage: NodeUsage = EMPTY_USAGE) -> None:
        self.node = node
        self.index = index
        self.requested: dict[str, int] = dict(usage.requested)
        self.non_zero_cpu = usage.non_zero_cpu
        self.non_zero_memory = usage.non_zero_memory
        # The node's pods: a list built from the usage's (maybe lazy) pods on first read.
        self._bound = usage.pods
        self._pods: list[Pod] | None = None
        self.ports: list[HostPort] = list(usage.ports)
        # Pods with pod (anti-)affinity terms (upstream PodsWithAffinity): rules of pods
        # already placed bind pods that come later.
        self.affinity_pods: list[Pod] = list(usage.affinity_pods)
        # Pending pods whose status.nominatedNodeName is this node, highest priority first:
        # room the scheduler holds for them (filled in by the planner).
        self.nominated: list[Pod] = []
        self.generation = 0

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def pods(self) -> list[Pod]:
        pods = self._pods
        if pods is None:
            pods = self._pods = list(self._bound)
        return pods

    @pods.setter
    def pods(self, pods: list[Pod]) -> None:
        self._pods = pods

    @property
    def pod_count(self) -> int:
        """``len(self.pods)``, without building the pods of a lazy node."""
        pods = self._pods
        return len(self._bound) if pods is None else len(pods)

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
        if pod.pod_affinity is not None:
            self.affinity_pods.append(pod)
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
        if pod.pod_affinity is not None:
            self.affinity_pods.remove(pod)
        self.generation += 1

    def add_pods(self, pods: Sequence[Pod]) -> bool:
        """``add_pod`` of each of ``pods`` in order. Copies of one pod (equal requests,
        non-zero requests, host ports and pod affinity, as one equivalence class has) are
        added in one step, their count times one copy's totals: then True, and
        ``remove_copies`` undoes it in one step too."""
        n = len(pods)
        if n < 2 or not _alike(pods):
            for pod in pods:
                self.add_pod(pod)
            return False
        first = pods[0]
        req = self.requested
        for name, value in first.requests.items():
            req[name] = req.get(name, 0) + value * n
        cpu, mem = first.non_zero
        self.non_zero_cpu += cpu * n
        self.non_zero_memory += mem * n
        self.pods.extend(pods)
        if first.host_ports:
            for pod in pods:
                self.ports.extend(pod.host_ports)
        if first.pod_affinity is not None:
            self.affinity_pods.extend(pods)
        self.generation += n
        return True

    def remove_copies(self, pods: Sequence[Pod]) -> None:
        """Undo an ``add_pods(pods)`` that returned True (``remove_pod`` of each, last
        first): in one step while they are still the node's last pods, in order (an
        eviction undone since puts its pod back at the end: then one by one)."""
        n = len(pods)
        mine = self.pods
        if len(mine) < n or not all(map(is_, mine[len(mine) - n:], pods)):
            for pod in reversed(pods):
                self.remove_pod(pod)
            return
        del mine[len(mine) - n:]
        first = pods[0]
        req = self.requested
        for name, value in first.requests.items():
            req[name] -= value * n
        cpu, mem = first.non_zero
        self.non_zero_cpu -= cpu * n
        self.non_zero_memory -= mem * n
        if first.host_ports:
            for pod in reversed(pods):
                for port in pod.host_ports:
                    self.ports.remove(port)
        if first.pod_affinity is not None:
            for pod in reversed(pods):
                self.affinity_pods.remove(pod)
        self.generation += n

    def remove_pods(self, pods: Sequence[Pod]) -> Totals:
        """``remove_pod`` of each of ``pods``, in order, with one pass over the node's pods.
        Returns the node's totals from before, for ``add_back``."""
        before = Totals(dict(self.requested), self.non_zero_cpu, self.non_zero_memory)
        gone = set(map(id, pods))
        self.pods[:] = [p for p in self.pods if id(p) not in gone]
        req = self.requested
        cpu = mem = 0
        for pod in pods:
            for name, value in pod.requests.items():
                req[name] -= value
            c, m = pod.non_zero
            cpu += c
            mem += m
            if pod.host_ports:
                for port in pod.host_ports:
                    self.ports.remove(port)
                before.extras = True
            if pod.pod_affinity is not None:
                self.affinity_pods.remove(pod)
                before.extras = True
        self.non_zero_cpu -= cpu
        self.non_zero_memory -= mem
        self.generation += len(pods)
        return before

    def add_back(self, pods: Sequence[Pod], totals: Totals | None = None) -> None:
        """``add_pod`` of each of ``pods``, in order, in one call (evicted pods put back).
        ``totals``: what ``remove_pods`` of these pods returned, when every change since is
        undone: the totals are set back instead of adding every pod's requests."""
        self.pods.extend(pods)
        if totals is not None:
            self.requested.update(totals.requested)  # the names added since stay, at 0
            self.non_zero_cpu, self.non_zero_memory = totals.non_zero_cpu, totals.non_zero_memory
            if totals.extras:
                for pod in pods:
                    if pod.host_ports:
                        self.ports.extend(pod.host_ports)
                    if pod.pod_affinity is not None:
                        self.affinity_pods.append(pod)
            self.generation += len(pods)
            return
        req = self.requested
        cpu = mem = 0
        for pod in pods:
            for name, value in pod.requests.items():
                req[name] = req.get(name, 0) + value
            c, m = pod.non_zero
            cpu += c
            mem += m
            if pod.host_ports:
                self.ports.extend(pod.host_ports)
            if pod.pod_affinity is not None:
                self.affinity_pods.append(pod)
        self.non_zero_cpu += cpu
        self.non_zero_memory += mem
        self.generation += len(pods)

    def with_pods(self, pods: list[Pod]) -> NodeInfo:
        """A detached copy of this node with ``pods`` added (nominated pods, upstream's
        ``addGENominatedPods``)."""
        clone = NodeInfo(self.node, self.index)
        clone.requested = dict(self.requested)
        clone.non_zero_cpu, clone.non_zero_memory = self.non_zero_cpu, self.non_zero_memory
        clone.pods, clone.ports = list(self.pods), list(self.ports)
        clone.affinity_pods = list(self.affinity_pods)
        for pod in pods:
            clone.add_pod(pod)
        return clone

    def with_copies(self, pod: Pod, copies: int) -> NodeInfo:
        """A detached copy of this node with ``copies`` more copies of ``pod`` on it: what a
        filter would see after that many identical pods were assumed."""
        clone = NodeInfo(self.node, self.index)
        clone.requested = dict(self.requested)
        for name, value in pod.requests.items():
            clone.requested[name] = clone.requested.get(name, 0) + value * copies
        clone.non_zero_cpu = self.non_zero_cpu + pod.non_zero[0] * copies
        clone.non_zero_memory = self.non_zero_memory + pod.non_zero[1] * copies
        extra = [pod] * copies
        if self._pods is None:  # the node's own pods stay unbuilt (filters count them)
            clone._bound = _Plus(self._bound, extra)
        else:
            clone.pods = self._pods + extra
        clone.ports = self.ports + list(pod.host_ports) * copies
        clone.affinity_pods = self.affinity_pods + ([pod] * copies if pod.pod_affinity else [])
        return clone

    def __repr__(self) -> str:
        return f"NodeInfo({self.node.name}, pods={self.pod_count})"


class _Plus(Sequence):
    """``base`` then ``extra``, concatenated only when read (a lazy node's copy)."""

    __slots__ = ("base", "extra")

    def __init__(self, base: Sequence[Pod], extra: list[Pod]) -> None:
        self.base, self.extra = base, extra

    def __len__(self) -> int:
        return len(self.base) + len(self.extra)

    def __iter__(self) -> Iterator[Pod]:
        return chain(self.base, self.extra)

    def __getitem__(self, index: Any) -> Any:
        return [*self.base, *self.extra][index]


@dataclass(slots=True)
class Totals:
    """A node's requested totals at one moment (``remove_pods`` -> ``add_back``);
    ``extras``: a removed pod held host ports or pod affinity (put back pod by pod)."""

    requested: dict[str, int]
    non_zero_cpu: int
    non_zero_memory: int
    extras: bool = False


def _alike(pods: Sequence[Pod]) -> bool:
    """Every pod adds to a node what the first one adds."""
    first = pods[0]
    requests, non_zero, ports, affinity = (first.requests, first.non_zero, first.host_ports,
                                           first.pod_affinity)
    return all(p.requests == requests and p.non_zero == non_zero and p.host_ports == ports
               and p.pod_affinity == affinity for p in pods)
