"""The capacity view: per topology domain, nodes, allocatable, free, and how many pods of
each shape fit now and in an empty domain, with per-node counts from ``fit``.

Everything is per-node arithmetic summed up the tree: the cost is one pass over the nodes
per shape and state plus the filter runs per node class, whatever the pods' count.
"""

from __future__ import annotations

from collections.abc import Sequence

from tasplan.capacity.fit import NodeClasses, node_fits
from tasplan.capacity.report import CapacityReport, Domain, Largest, ShapeFit
from tasplan.capacity.shapes import Shape
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.profile import Profile
from tasplan.framework.runtime import Framework
from tasplan.model.snapshot import ClusterSnapshot, NodeUsage
from tasplan.model.topology import infer_levels
from tasplan.plan.state import build_node_infos
from tasplan.plugins.defaults import default_scheduler_config
from tasplan.plugins.registry import in_tree_registry


def capacity(snapshot: ClusterSnapshot, shapes: Sequence[Shape],
             levels: Sequence[str] | None = None,
             profile: Profile | None = None) -> CapacityReport:
    """``levels`` default to the topology keys the nodes carry (``model.topology``);
    ``profile`` to kube-scheduler's default profile."""
    registry = in_tree_registry()
    if profile is None:
        profile = next(iter(default_scheduler_config(registry).profiles.values()))
    fw = Framework(profile, registry)
    fw.bind_snapshot(snapshot)
    nodes = snapshot.nodes
    levels = tuple(levels) if levels else infer_levels(n.labels for n in nodes)
    now, warnings = build_node_infos(snapshot)
    empty = [NodeInfo(n, i, _node_local(snapshot.node_usage(n.name)))
             for i, n in enumerate(nodes)]
    notes = []
    counts = {}
    now_classes, empty_classes = NodeClasses(now), NodeClasses(empty)
    for shape in shapes:
        fits_now = node_fits(fw, shape.pod, now_classes)
        fits_empty = node_fits(fw, shape.pod, empty_classes)
        counts[shape.name] = (fits_now.counts, fits_empty.counts)
        if fits_now.rejected:
            parts = ", ".join(f"{n} by {name}" for name, n in fits_now.rejected.items())
            notes.append(f"shape {shape.name}: node(s) ruled out whatever they hold: {parts}")
        ignored = dict.fromkeys((*fits_now.ignored, *fits_empty.ignored))
        if ignored:
            notes.append(f"shape {shape.name}: its own {' and '.join(ignored)} constraints are "
                         "not counted (they depend on where earlier pods went): the counts "
                         "are upper bounds")
    free = [_free(info) for info in now]

    def domain(level: str, name: str, parent: str | None, members: list[int]) -> Domain:
        fit = {}
        if len(members) == 1:
            alloc, spare = dict(nodes[members[0]].allocatable), free[members[0]]
        else:
            alloc = _sum(nodes[i].allocatable for i in members)
            spare = _sum(free[i] for i in members)
        for shape in shapes:
            n_now, n_empty = counts[shape.name]
            got = sum(n_now[i] for i in members)
            fit[shape.name] = ShapeFit(
                got, sum(n_empty[i] for i in members),
                {r: spare.get(r, 0) - got * v for r, v in shape.requests.items()})
        return Domain(level, name, parent, len(members), alloc, spare, fit)

    members_of = _members(nodes, levels)
    domains = []
    for depth, level in enumerate(levels):
        for value, members in sorted(members_of[depth].items()):
            domains.append(domain(level, value, _parent(nodes, levels, depth, members), members))
    total = domain("", "cluster", None, list(range(len(nodes))))
    largest = []
    for level in levels:
        at_level = [d for d in domains if d.level == level]
        for shape in shapes:
            best = max((d.fit[shape.name].now for d in at_level), default=0)
            largest.append(Largest(level, shape.name, best, tuple(
                d.name for d in at_level if best and d.fit[shape.name].now == best)))
    return CapacityReport(levels, tuple((s.name, s.requests) for s in shapes), total,
                          tuple(domains), tuple(largest), tuple(notes),
                          tuple(snapshot.warnings) + tuple(warnings))


def _node_local(usage: NodeUsage) -> NodeUsage:
    """What a node holds with every pod gone but its DaemonSet and mirror pods."""
    kept = [p for p in usage.pods if p.node_local]
    requested: dict[str, int] = {}
    for pod in kept:
        for r, v in pod.requests.items():
            requested[r] = requested.get(r, 0) + v
    return NodeUsage(requested, sum(p.non_zero[0] for p in kept),
                     sum(p.non_zero[1] for p in kept), tuple(kept),
                     tuple(port for p in kept for port in p.host_ports),
                     tuple(p for p in kept if p.pod_affinity is not None))


def _free(info: NodeInfo) -> dict[str, int]:
    """Allocatable minus requested per resource (never below 0), pod slots included."""
    alloc = info.node.allocatable
    out = {r: max(v - info.requested.get(r, 0), 0) for r, v in alloc.items() if r != "pods"}
    if "pods" in alloc:
        out["pods"] = max(alloc["pods"] - len(info.pods), 0)
    return out


def _sum(maps) -> dict[str, int]:
    out: dict[str, int] = {}
    for m in maps:
        for r, v in m.items():
            out[r] = out.get(r, 0) + v
    return out


def _members(nodes, levels: Sequence[str]) -> list[dict[str, list[int]]]:
    """Per level, label value -> indices of the nodes in that domain."""
    out: list[dict[str, list[int]]] = [{} for _ in levels]
    for i, node in enumerate(nodes):
        labels = node.labels
        for depth, key in enumerate(levels):
            value = labels.get(key)
            if value is not None:
                out[depth].setdefault(value, []).append(i)
    return out


def _parent(nodes, levels: Sequence[str], depth: int, members: list[int]) -> str | None:
    """``key=value`` of the nearest outer level where every member has one same value."""
    for outer in range(depth - 1, -1, -1):
        key = levels[outer]
        values = {nodes[i].labels.get(key) for i in members}
        if len(values) == 1 and None not in values:
            return f"{key}={values.pop()}"
    return None
