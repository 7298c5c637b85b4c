"""The capacity view: per topology domain, nodes, allocatable, free, and how many pods of
each shape fit now and in an empty domain, with per-node counts from ``fit``.

Everything is per-node arithmetic summed up the tree: the cost is one pass over the nodes
per shape and state plus the filter runs per node class, whatever the pods' count.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from tasplan.capacity.fit import NodeClasses, node_fits
from tasplan.capacity.report import Box, CapacityReport, Domain, Largest, ShapeFit
from tasplan.capacity.shapes import Shape, workload_shapes
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.profile import Profile
from tasplan.framework.runtime import Framework
from tasplan.model.snapshot import ClusterSnapshot, NodeUsage
from tasplan.model.topology import HOSTNAME, infer_levels, natural_key
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
                {r: spare.get(r, 0) - got * v for r, v in shape.requests.items()},
                None if shape.gang is None else got >= shape.gang)
        return Domain(level, name, parent, len(members), alloc, spare, fit)

    members_of = _members(nodes, levels)
    domains = []
    for depth, level in enumerate(levels):
        for value, members in sorted(members_of[depth].items(),
                                     key=lambda kv: natural_key(kv[0])):
            domains.append(domain(level, value, _parent(nodes, levels, depth, members), members))
    total = domain("", "cluster", None, list(range(len(nodes))))
    nested = _nesting(nodes, levels, members_of)
    by_key = {d.key: d for d in domains}
    tree, outside = _boxes(nodes, nested, total, by_key, domain)
    largest = []
    for level in levels:
        at_level = [d for d in domains if d.level == level]
        for shape in shapes:
            best = max((d.fit[shape.name].now for d in at_level), default=0)
            holders = tuple(d.name for d in at_level if best and d.fit[shape.name].now == best)
            largest.append(Largest(level, shape.name, best, holders,
                                   len(holders) == 1 and len(at_level) > 1))
    return CapacityReport(levels, tuple((s.name, s.requests) for s in shapes), total,
                          tuple(domains), tuple(largest), tuple(notes),
                          tuple(snapshot.warnings) + tuple(warnings),
                          {s.name: s.gang for s in shapes if s.gang is not None},
                          nested, outside, tree)


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
        out["pods"] = max(alloc["pods"] - info.pod_count, 0)
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


def _nesting(nodes, levels: Sequence[str],
             members_of: list[dict[str, list[int]]]) -> tuple[str, ...]:
    """The longest chain of levels (outermost first, the first such chain on a tie) in
    which each level nests in the one before: all nodes of each of its domains carry one
    same value of that level's label, or all lack it."""
    def nests(inner: int, outer: int) -> bool:
        domains = members_of[inner]
        if all(len(members) == 1 for members in domains.values()):
            return True  # single nodes (the hostname level) nest in anything
        key = levels[outer]
        for members in domains.values():
            first = nodes[members[0]].labels.get(key)
            if any(nodes[i].labels.get(key) != first for i in members):
                return False
        return True

    chains: list[tuple[int, ...]] = []
    for j in range(len(levels)):
        before = [chains[i] for i in range(j) if nests(j, i)]
        chains.append((*max(before, key=len, default=()), j))
    best = max(chains, key=len, default=())
    return tuple(levels[i] for i in best)


def _boxes(nodes, nested: Sequence[str], total: Domain, by_key: Mapping[str, Domain],
           domain: Callable[[str, str, str | None, list[int]], Domain]
           ) -> tuple[Box, tuple[Domain, ...]]:
    """The nested levels as boxes. A node sits in the box of each nested level down to the
    first whose label it lacks; there it sits in that level's remainder box (a domain named
    "") inside the box above. Its hostname box, when the hostname level is nested, goes
    into the deepest box it reached."""
    host = HOSTNAME if nested and nested[-1] == HOSTNAME else None
    levels = [k for k in nested if k != host]
    children: dict[tuple, dict[tuple, None]] = {}  # box path -> child box paths
    remainder: dict[tuple, list[int]] = {}  # remainder box path -> its nodes
    hosts: dict[tuple, list[str]] = {}
    for i, node in enumerate(nodes):
        path: tuple = ()
        for key in levels:
            value = node.labels.get(key)
            child = (*path, (key, value))
            children.setdefault(path, {})[child] = None
            if value is None:
                remainder.setdefault(child, []).append(i)
                path = child
                break
            path = child
        if host is not None and host in node.labels:
            hosts.setdefault(path, []).append(node.labels[host])
    outside = {path: domain(path[-1][0], "", _key(path[:-1]), members)
               for path, members in sorted(remainder.items(), key=lambda kv: _order(kv[0]))}

    def box(path: tuple, d: Domain) -> Box:
        inner = sorted(children.get(path, ()), key=_order)
        kids = [box(p, outside[p] if p[-1][1] is None else by_key[_key(p)]) for p in inner]
        kids.extend(Box(by_key[f"{host}={name}"]) for name in sorted(hosts.get(path, ())))
        return Box(d, tuple(kids))

    return box((), total), tuple(outside.values())


def _key(path: tuple) -> str | None:
    return f"{path[-1][0]}={path[-1][1]}" if path else None


def _order(path: tuple) -> tuple:
    """Named boxes by name, the remainder box last."""
    return tuple((value is None, value or "") for _, value in path)


def plan_capacity(snapshot: ClusterSnapshot) -> CapacityReport:
    """The capacity view a plan's pictures draw (``check --html``, ``explain --html``): the
    cluster's topology levels and the planned groups' topology keys, and one shape per
    group (and kind of pending pod) with its minCount as the gang size."""
    levels = list(infer_levels(n.labels for n in snapshot.nodes))
    for group in snapshot.groups:
        key = group.topology_key
        if group.planned and key and key not in levels:
            levels.insert(len(levels) - (levels[-1:] == [HOSTNAME]), key)
    return capacity(snapshot, workload_shapes(snapshot), levels)
