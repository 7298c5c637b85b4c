"""Kueue's ``TestFindTopologyAssignments`` table, case by case, against tasplan's port.

The cases are Kueue's own (kubernetes-sigs/kueue ``pkg/cache/scheduler/tas_cache_test.go``
at ff69552e79ad21652c36caa97038382e55625cf7), read into ``data/find_topology_assignments
.json``: nodes, non-TAS pods, levels, flavor node labels, prior usage, feature gates, the
PodSets and the assignment or failure reason Kueue's test expects. The harness below does
what the Go test's loop does: Ready and schedulable nodes of the flavor, non-TAS usage
from the pods, prior usage as TAS usage, then ``FindTopologyAssignmentsForFlavor``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tasplan.model.node import Node
from tasplan.model.pod import TERMINAL_PHASES
from tasplan.model.quantity import parse_milli, parse_value
from tasplan.model.selectors import NodeSelectorTerm, PreferredTerm, Requirement
from tasplan.model.source import Source
from tasplan.model.taints import Taint, Toleration
from tasplan.schedulers.kueue import gates as g
from tasplan.schedulers.kueue.request import SliceLayer, TopologyRequest
from tasplan.schedulers.kueue.tas import Assignment, FlavorSnapshot, PodSetRequest, Replacement
from tasplan.schedulers.kueue.tree import HOSTNAME, TopologyTree, add, node_matches_flavor

DATA = json.loads((Path(__file__).parent / "data" / "find_topology_assignments.json")
                  .read_text())
KUEUE_COMMIT = DATA["commit"]

# ElasticJobsViaWorkloadSlices gates Kueue's job integrations (a job may scale); only
# ElasticJobsViaWorkloadSlicesWithTAS changes the placement.
NOT_PLACEMENT_GATES = {"ElasticJobsViaWorkloadSlices"}


def _quantity(resource: str, text: str) -> int:
    return parse_milli(text) if resource == "cpu" else parse_value(text)


def _node(raw: dict) -> Node:
    return Node(raw["name"], raw["labels"], tuple(
        Taint(t.get("key", ""), t.get("value", ""), t.get("effect", ""))
        for t in raw.get("taints", ())), bool(raw.get("unschedulable")),
        {r: _quantity(r, q) for r, q in raw["allocatable"].items()}, Source("kueue-test"))


def _terms(raw: list[dict]) -> tuple[NodeSelectorTerm, ...]:
    return tuple(NodeSelectorTerm((Requirement(t["key"], t["op"], tuple(t["values"])),))
                 for t in raw)


def _topology(raw: dict | None, group: str | None) -> TopologyRequest | None:
    if raw is None:
        return None
    return TopologyRequest(
        required=raw.get("Required"), preferred=raw.get("Preferred"),
        unconstrained=raw.get("Unconstrained"),
        slice_topology=raw.get("PodSetSliceRequiredTopology"),
        slice_size=raw.get("PodSetSliceSize"),
        layers=tuple(SliceLayer(c["Topology"], c["Size"])
                     for c in raw.get("PodsetSliceRequiredTopologyConstraints") or ()),
        group=group)


def _podset(raw: dict) -> PodSetRequest:
    affinity = raw.get("nodeAffinity") or {}
    required = affinity.get("RequiredDuringSchedulingIgnoredDuringExecution")
    preferred = affinity.get("PreferredDuringSchedulingIgnoredDuringExecution")
    return PodSetRequest(
        name=raw.get("podSetName", ""), count=raw["count"],
        requests={r: int(v) for r, v in raw["requests"].items()},
        topology=_topology(raw.get("topologyRequest"), raw.get("podSetGroupName")),
        implied=raw.get("topologyRequest") is None,
        tolerations=tuple(Toleration(t.get("Key", ""), t.get("Operator", "Equal"),
                                     t.get("Value", ""), t.get("Effect", ""))
                          for t in raw.get("tolerations") or ()),
        node_selector=raw.get("nodeSelector") or {},
        required_terms=_terms(required["NodeSelectorTerms"]["required"])
        if required else None,
        preferred_terms=tuple(PreferredTerm(t["weight"], _terms([t])[0])
                              for t in preferred["preferred"]) if preferred else (),
        previous=_assignment(raw.get("previousAssignment")))


def _assignment(raw: dict | None) -> Assignment | None:
    if raw is None:
        return None
    return Assignment(tuple(raw["Levels"]), tuple(
        (tuple(d["Values"]), d["Count"]) for d in raw["Domains"]))


def _usage(entries: list[dict]) -> dict[str, dict[str, int]]:
    """``TASFlavorCache.addUsage``: per domain, the pods' requests and their pod slots."""
    out: dict[str, dict[str, int]] = {}
    for e in entries:
        usage = out.setdefault(",".join(e["Values"]), {})
        add(usage, {r: v * e["Count"] for r, v in e["SinglePodRequests"].items()})
        add(usage, {"pods": e["Count"]})
    return out


def _replacement(wl: dict | None) -> Replacement | None:
    """The case's admitted Workload with an unhealthy node (``WithWorkload``): its
    assignments, and ``workload.OwnedBySinglePod`` from its owners and annotation."""
    if wl is None:
        return None
    single = (len(wl["ownerReferences"]) == 1 and wl["ownerReferences"][0] == ["v1", "Pod"]
              and wl["annotations"].get("kueue.x-k8s.io/is-group-workload") != "true")
    return Replacement(wl["unhealthyNodes"][0],
                       {a["podSet"]: _assignment(a) for a in wl["admission"]}, single)


def _run(case: dict) -> dict:
    overrides = [(k, v) for k, v in case.get("featureGates", {}).items()
                 if k not in NOT_PLACEMENT_GATES]
    gates = g.gates_for(g.NEWEST, overrides)
    levels = case["levels"]
    flavor_labels = case.get("nodeLabels") or {}
    nodes = [_node(n) for n in DATA["nodeSets"][case["nodes"]]
             if n["ready"] and not n.get("unschedulable")]
    nodes = [n for n in nodes if node_matches_flavor(n.labels, flavor_labels, levels)]
    tree = TopologyTree(levels, nodes)
    for pod in case.get("pods", ()):
        if pod["phase"] in TERMINAL_PHASES:
            continue
        usage = {r: _quantity(r, q) for r, q in pod["requests"].items()}
        usage["pods"] = 1
        tree.add_non_tas_usage(pod["node"], usage)
    own = _usage(case.get("priorOwnUsage", []))
    if g.OVERLAPPING_FLAVORS in gates and levels[-1] == HOSTNAME:
        own = _usage(case.get("priorFlavorUsage", []))  # the harness's aggregated usages
    for domain, usage in own.items():
        tree.add_tas_usage(domain, usage)
    snapshot = FlavorSnapshot("default", tree, (), gates)
    results = snapshot.find_assignments([_podset(ps) for ps in case["podSets"]],
                                        replacing=_replacement(case.get("workload")))
    out = {}
    for name, res in results.items():
        a = res.assignment
        out[name] = {"reason": res.reason, "assignment": None if a is None else {
            "Levels": list(a.levels),
            "Domains": [{"Count": c, "Values": list(v)} for v, c in a.domains]}}
    return out


def _want(case: dict) -> dict:
    return {ps.get("podSetName", ""): {"reason": ps.get("wantReason", ""),
                                       "assignment": ps.get("wantAssignment")}
            for ps in case["podSets"]}


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["name"] for c in DATA["cases"]])
def test_find_topology_assignments(case: dict) -> None:
    assert _run(case) == _want(case)


def test_table_is_kueue_s_whole_table() -> None:
    """Every case of the upstream table is here, named as upstream names it."""
    assert KUEUE_COMMIT == "ff69552e79ad21652c36caa97038382e55625cf7"
    names = [c["name"] for c in DATA["cases"]]
    assert len(names) == len(set(names)) == 140

