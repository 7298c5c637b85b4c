"""Builders for group trees: blocks of racks of 2-CPU nodes, composites, leaves."""

from __future__ import annotations

from dataclasses import replace
from itertools import count

from tasplan.model.composite import CompositePodGroup
from tasplan.model.group import Policy
from tasplan.model.snapshot import ClusterSnapshot
from tests.builders import WORKLOAD, gang_pods, make_group, make_node

_order = count(10_000)


def cluster(**blocks: dict[str, int]) -> list:
    """``cluster(b1={"r1": 2, "r2": 2})``: nodes labelled block=b1, rack=r1/r2."""
    return [make_node(f"{rack}-{i}", labels={"block": block, "rack": rack})
            for block, racks in blocks.items() for rack, n in racks.items() for i in range(n)]


def composite(name: str, *, min_groups: int | None = 1, key: str | None = "block",
              parent: str | None = None, priority: int | None = 100,
              namespace: str = "default") -> CompositePodGroup:
    """The builders' priority by default, as the leaves' (upstream validates a tree's pods
    against its root's priority: a composite without one has priority 0)."""
    policy = Policy.GANG if min_groups is not None else Policy.BASIC
    return CompositePodGroup(
        f"{namespace}/{name}", namespace, name, policy, min_groups or 1, key,
        f"{namespace}/{parent}" if parent else None, "wl", f"{name}-t",
        "scheduling.k8s.io/v1alpha3", WORKLOAD, next(_order), priority)


def leaf(name: str, parent: str, *, min_count: int | None = 2, key: str | None = "rack",
         pods: int | None = None, cpu: float = 2, priority: int | None = None):
    """A leaf of ``pods`` pods (default minCount) of ``cpu`` each: by default one pod fills
    a node."""
    kw = {"priority": priority} if priority is not None else {}
    # A PodGroup without a priority has priority 0 and must match its pods: by default both
    # take the builders' priority.
    group = replace(make_group(name, min_count=min_count, key=key, **kw),
                    parent=f"default/{parent}")
    return group, gang_pods(group, pods if pods is not None else (min_count or 1), cpu, **kw)


def tree_snapshot(nodes, composites, leaves, extra_pods=()) -> ClusterSnapshot:
    groups = tuple(g for g, _ in leaves)
    pods = tuple(p for _, ps in leaves for p in ps) + tuple(extra_pods)
    return ClusterSnapshot(tuple(sorted(nodes, key=lambda n: n.name)), pods, groups,
                           composites=tuple(composites))
