"""Rules that need the cluster (``--cluster``): topology keys the nodes do not carry, groups
that can never fit, groups that do not fit now, and taints or selectors that rule out
every node. Reuses the spine: ``assemble`` builds the snapshot, ``plan`` gives the verdict
``tasplan check`` would print.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from tasplan.errors import InputError
from tasplan.framework.node_info import NodeInfo
from tasplan.lint.composite_cluster import tree_findings
from tasplan.lint.reader import Manifest
from tasplan.lint.report import Violation
from tasplan.load.batch import JobOverrides
from tasplan.load.document import Document
from tasplan.load.documents import expand_paths, read_documents
from tasplan.load.loader import assemble
from tasplan.model.group import PodGroup, Policy
from tasplan.model.kueue_inputs import KueueInputs
from tasplan.model.node import Node
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.model.source import Source
from tasplan.plugins.node_affinity import NodeAffinity
from tasplan.plugins.taint_toleration import TaintToleration
from tasplan.schedulers.planner import plan

Found = tuple[Manifest, Violation]


class NotPlannable(Exception):
    """The lint inputs cannot be assembled with the cluster; carries the loader's error."""

    def __init__(self, error: InputError) -> None:
        super().__init__(str(error))
        self.error = error


def read_cluster(paths: Iterable[str | Path]) -> list[Document]:
    """The --cluster inputs; an unreadable or invalid one raises InputError (exit 2)."""
    return [doc for path in paths for file in expand_paths(path)
            for doc in read_documents(file, workload=False)]


def check(manifests: list[Manifest], cluster: list[Document], namespace: str) -> list[Found]:
    """``manifests`` are the lint inputs without error-level findings. Raises NotPlannable
    when the loader rejects them together with the cluster (a missing PriorityClass, ...)."""
    by_source: dict[tuple, Manifest] = {}
    docs = list(cluster)
    for m in manifests:
        source = Source(m.file.label, m.document, m.item, True)
        by_source[source[:3]] = m
        obj = m.obj
        if not m.namespace and namespace != "default":
            obj = {**obj, "metadata": {**(obj.get("metadata") or {}), "namespace": namespace}}
        docs.append(Document(source, obj))
    try:
        snapshot = assemble(docs, JobOverrides())
    except InputError as exc:
        if any(exc.source == m.file.label for m in manifests):
            raise NotPlannable(exc) from None
        raise
    result = plan(snapshot)
    now = {r.group.key: r for r in result.groups}
    out: list[Found] = []
    for group in snapshot.groups:
        owner = by_source.get(group.source[:3])
        if owner is not None and group.planned:
            out.extend(_check_group(snapshot, group, owner, by_source, now))
    out.extend(tree_findings(snapshot, by_source, result.composites))
    return out


def _check_group(snapshot: ClusterSnapshot, group: PodGroup, owner: Manifest,
                 by_source: dict[tuple, Manifest], now: dict) -> list[Found]:
    pods = [p for p in snapshot.pods_by_group.get(group.key, []) if not p.terminal]
    pending = [p for p in pods if not p.node_name]
    key = group.topology_key
    nodes = [n for n in snapshot.nodes if key is None or key in n.labels]
    # The topology key is checked first: it holds whether or not the group has pods yet
    # (a controller creates them later) and whatever its Workload reference points at.
    if not nodes and key and snapshot.nodes:
        return [(owner, Violation("TP301", _topology_path(group), (
            f"no node of the cluster ({len(snapshot.nodes)} nodes) carries the topology key "
            f"{key!r}: there is no placement for {group.key}")))]
    if not nodes or not pending or (group.policy == Policy.GANG
                                    and len(pods) < group.min_count):
        return []  # no nodes (the loader warns), or nothing to place yet (TP204 / TP208)
    result = now.get(group.key)
    kueue = result is not None and result.scheduler == "kueue"
    # Kueue filters nodes itself, with its flavor's tolerations: its verdict says why.
    blocked = None if kueue else _blocked(pending, nodes, key, by_source, owner)
    if blocked:
        return [blocked]
    # A leaf of a tree is checked alone here (the tree as a whole by TP307); a Kueue
    # workload alone on its flavor's topology, no admitted Workload holding anything.
    alone = plan(ClusterSnapshot(nodes=snapshot.nodes, pods=tuple(pods),
                                 groups=(replace(group, parent=None),),
                                 priority_classes=snapshot.priority_classes,
                                 dra=snapshot.dra.unallocated(),
                                 kueue=_unadmitted(snapshot.kueue),
                                 kai=snapshot.kai),
                 scheduler="kueue" if kueue else "auto").groups[0]
    if not alone.schedulable and not alone.error:
        return [(owner, Violation("TP302", ("metadata", "name"), (
            f"{group.key} cannot be placed even in an empty cluster: {alone.message}")))]
    # A tree's verdict "now" is reported once, on its root (tasplan.lint.composite_cluster).
    if result is not None and not result.schedulable and group.parent is None:
        return [(owner, Violation("TP303", ("metadata", "name"), (
            f"{group.key} does not fit the cluster now: {result.message}")))]
    return []


def _unadmitted(kueue: KueueInputs) -> KueueInputs:
    """Kueue's inputs with no Workload admitted: nothing holds a domain, and a group made
    from a Workload object keeps what the object asks for."""
    return replace(kueue, workloads={key: replace(wl, quota_reserved=False, assignments=(),
                                                  unhealthy_nodes=())
                                     for key, wl in kueue.workloads.items()})


def _topology_path(group: PodGroup) -> tuple:
    if group.kind in ("Job", "LeaderWorkerSet"):
        return ("spec", "scheduling", "schedulingConstraints", "topology", 0, "key")
    return ("spec", "schedulingConstraints", "topology", 0, "key")


def _blocked(pending: list[Pod], nodes: list[Node], key: str | None,
             by_source: dict[tuple, Manifest], owner: Manifest) -> Found | None:
    """TP304 / TP305 when taints, or selectors, rule out every candidate node for every
    pending pod (the same filters the planner runs)."""
    infos = [NodeInfo(node, i) for i, node in enumerate(nodes)]
    where = f"every node with the topology key {key!r}" if key else "every node"
    for rule_id, plugin, field in (("TP304", TaintToleration(), "tolerations"),
                                   ("TP305", NodeAffinity(), "nodeSelector")):
        first = None
        for pod in pending:
            for info in infos:
                status = plugin.filter(None, pod, info)
                if status is None:
                    break
                first = first or (info, status)
            else:
                continue
            break  # some pod passes on some node
        else:
            pod = pending[0]
            holder = by_source.get(pod.source[:3], owner)
            spec = ("spec", "template", "spec") if holder.kind == "Job" else ("spec",)
            info, status = first
            if rule_id == "TP304":
                detail = f"e.g. {status.details[0]} on node {info.name}"
                what = f"{where} ({len(nodes)}) has a taint the pods of {pod.group} do not " \
                       f"tolerate, {detail}"
            else:
                what = (f"the pods of {pod.group} match no node: their nodeSelector / required "
                        f"node affinity excludes {where} ({len(nodes)} nodes)")
            if rule_id == "TP305" and field not in (_spec_of(holder, spec) or {}):
                field = "affinity"
            return holder, Violation(rule_id, (*spec, field), what)
    return None


def _spec_of(m: Manifest, path: tuple) -> dict | None:
    obj = m.obj
    for part in path:
        obj = obj.get(part) if isinstance(obj, dict) else None
    return obj if isinstance(obj, dict) else None
