"""How many pods of a shape each node takes, by the planner's own filters.

Nodes are grouped into equivalence classes twice: by what the static filters read (labels
without the hostname, taints, cordon, allocatable), and by what the resource filters read
(that, plus the requested totals, the pod count and the host ports in use). Each filter runs
once per class, not per node, and never per pod: NodeResourcesFit and NodePorts state how
many more copies fit (their ``capacity``). A 5,000-node cluster has a few hundred classes.

Cluster-wide filters (PodTopologySpread, InterPodAffinity, DynamicResources) depend on the
pods placed before: when a shape has spread constraints, pod (anti-)affinity or resource
claims of its own, its counts leave them out and say so; the anti-affinity of running pods
towards the shape is checked per node (it does not change as copies are added).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.types import CycleState, Scope
from tasplan.model.node import Node
from tasplan.model.pod import Pod
from tasplan.model.topology import HOSTNAME
from tasplan.plugins import names


@dataclass(frozen=True)
class NodeFits:
    """Per node (index-aligned with the NodeInfos), how many pods of the shape fit;
    ``ignored`` names filters whose constraints the counts leave out; ``rejected`` counts
    the nodes each filter rules out for the shape whatever they hold (plugin -> nodes)."""

    counts: tuple[int, ...]
    ignored: tuple[str, ...] = ()
    rejected: Mapping[str, int] = field(default_factory=dict)


def reads_node_name(pod: Pod) -> bool:
    """Whether a pod's node selection can tell nodes apart by name."""
    terms = [*(pod.required_terms or ()), *(p.term for p in pod.preferred_terms)]
    return (HOSTNAME in pod.node_selector
            or any(t.match_fields or any(r.key == HOSTNAME for r in t.match_expressions)
                   for t in terms))


def _static_key(node: Node) -> tuple:
    labels = frozenset((k, v) for k, v in node.labels.items() if k != HOSTNAME)
    return (labels, node.taints, node.unschedulable, frozenset(node.allocatable.items()))


class NodeClasses:
    """One state of the cluster (its NodeInfos) and its node classes, shared by every shape:
    ``static[i]`` / ``usage[i]`` are the class numbers of node i."""

    def __init__(self, infos: Sequence[NodeInfo]) -> None:
        self.infos = infos
        statics: dict[tuple, int] = {}
        usages: dict[tuple, int] = {}
        self.static = []
        self.usage = []
        for info in infos:
            s = statics.setdefault(_static_key(info.node), len(statics))
            self.static.append(s)
            self.usage.append(usages.setdefault(
                (s, frozenset(info.requested.items()), info.pod_count, tuple(info.ports)),
                len(usages)))


def node_fits(fw: Framework, pod: Pod, classes: NodeClasses) -> NodeFits:
    infos = classes.infos
    by_name = reads_node_name(pod)
    static = [f for f in fw.filters if f.scope == Scope.STATIC]
    dynamic = [f for f in fw.filters if f.scope == Scope.NODE]
    counted = [f for f in dynamic if id(f) in fw.counting]
    ignored = [f.name for f in dynamic if id(f) not in fw.counting]
    state = CycleState()
    per_node = []  # cluster-wide filters that reject nodes one by one
    for plugin in fw.cluster_state:
        if plugin not in fw.filters:
            continue
        summary = plugin.prepare(pod, infos)
        if summary is None:
            continue
        if (pod.spread_constraints or pod.pod_affinity is not None
                or plugin.name == names.DYNAMIC_RESOURCES):
            ignored.append(plugin.name)  # depends on the copies placed before
            continue
        state[plugin.name] = summary
        per_node.append(plugin)

    static_fail: dict[int, str | None] = {}
    rejected: Counter = Counter()
    fit: dict[int, int] = {}
    counts = []
    for i, info in enumerate(infos):
        skey = i if by_name else classes.static[i]
        if skey in static_fail:
            failed = static_fail[skey]
        else:
            failed = static_fail[skey] = next(
                (f.name for f in static if f.filter(state, pod, info) is not None), None)
        if failed is None and per_node:
            failed = next((p.name for p in per_node if p.filter(state, pod, info) is not None),
                          None)
        if failed is not None:
            rejected[failed] += 1
            counts.append(0)
            continue
        # Room held for pending pods nominated here at the shape's priority or higher.
        reserved = [p for p in info.nominated if p.priority >= pod.priority]
        ukey = -1 - i if reserved else classes.usage[i]
        n = fit.get(ukey)
        if n is None:
            view = info.with_pods(reserved) if reserved else info
            n = fit[ukey] = max(min((f.capacity(pod, view) for f in counted), default=0), 0)
        counts.append(n)
    return NodeFits(tuple(counts), tuple(dict.fromkeys(ignored)), dict(sorted(rejected.items())))
