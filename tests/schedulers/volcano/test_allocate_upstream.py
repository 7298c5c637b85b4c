"""Volcano's allocate-action network-topology tests, case by case, against tasplan's core.

Mirrors ``TestAllocateWithNetWorkTopologies``, ``TestNodeLevelScoreWithNetWorkTopologies``,
``TestHyperNodeBinpackWithNetWorkTopologies`` and
``TestAllocateWithPartitionPolicyNetworkTopology`` of volcano
``pkg/scheduler/actions/allocate/allocate_test.go`` at commit
ed72c7c815a9fd547a787134676f73d42e9d049c (data in ``allocate_cases.py``). The harness
mirrors ``pkg/scheduler/uthelper/helper.go``: the HyperNode view is given as the fixture's
tier sets, real node sets and HyperNodeInfo map (parents from HyperNode members), the
plugin flags are the test function's tiers, and the predicates are resources, pod count and
nodeSelector (all the fixtures use).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from tasplan.model.quantity import parse_milli, parse_value
from tasplan.model.volcano import TASK_SPEC_KEY, NetworkTopology, SubGroupPolicy
from tasplan.schedulers.volcano.allocate import Plugins, Session
from tasplan.schedulers.volcano.hypernodes import ROOT, HyperNodeTree, leaf_index
from tasplan.schedulers.volcano.job import RUNNING, Job, Task
from tasplan.schedulers.volcano.scoring import binpack_node_score
from tests.schedulers.volcano.allocate_cases import CASES

COMMIT = "ed72c7c815a9fd547a787134676f73d42e9d049c"
POD_NUMBER_EXCEEDED = "node(s) pod number exceeded"
SELECTOR_MISMATCH = "node(s) didn't match Pod's node affinity/selector"

BASE = dict(sub_job_ready=False, sub_job_order=False, sub_job_pipelined=False,
            task_priority_order=False, job_priority_order=False)
PLUGINS = {
    "TestAllocateWithNetWorkTopologies": Plugins(**BASE),
    "TestNodeLevelScoreWithNetWorkTopologies": Plugins(**BASE),
    "TestHyperNodeBinpackWithNetWorkTopologies": Plugins(**BASE),
    "TestAllocateWithPartitionPolicyNetworkTopology": Plugins(
        **{**BASE, "sub_job_ready": True, "sub_job_order": True}),
}
BINPACK = {"TestNodeLevelScoreWithNetWorkTopologies"}


class FixtureSim:
    """Nodes as ``util.BuildNode`` makes them; predicates of the fixtures."""

    def __init__(self, nodes: Sequence[tuple], binpack: bool) -> None:
        self.alloc = {n: {"cpu": parse_milli(cpu), "memory": parse_value(mem)}
                      for n, cpu, mem, _, _ in nodes}
        self.max_pods = {n: int(pods) if pods else 110 for n, _, _, pods, _ in nodes}
        self.labels = {n: labels for n, *_, labels in nodes}
        self.used_res: dict[str, dict[str, int]] = {n: {} for n in self.alloc}
        self.pods: dict[str, int] = dict.fromkeys(self.alloc, 0)
        self.binpack = binpack

    def allocatable(self, node: str) -> Mapping[str, int]:
        return self.alloc[node]

    def used(self, node: str) -> Mapping[str, int]:
        return self.used_res[node]

    def releasing(self, node: str) -> Mapping[str, int]:
        return {}

    def predicate(self, task: Task, node: str) -> list[str]:
        if self.pods[node] >= self.max_pods[node]:
            return [POD_NUMBER_EXCEEDED]
        selector = task.payload
        if any(self.labels[node].get(k) != v for k, v in selector.items()):
            return [SELECTOR_MISMATCH]
        return []

    def room(self, task: Task, node: str) -> int:
        return self.max_pods[node] - self.pods[node]

    def assume(self, tasks: Sequence[Task], node: str) -> None:
        used = self.used_res[node]
        for task in tasks:
            for k, v in task.request.items():
                used[k] = used.get(k, 0) + v
            self.pods[node] += 1

    def forget(self, tasks: Sequence[Task], node: str) -> None:
        used = self.used_res[node]
        for task in tasks:
            for k, v in task.request.items():
                used[k] -= v
            self.pods[node] -= 1

    def task_class(self, task: Task) -> object:
        return tuple(sorted(task.request.items())), tuple(sorted(task.payload.items()))

    def scores(self, task: Task, nodes: Sequence[str]) -> Mapping[str, float]:
        if not self.binpack:
            return {}
        return {n: binpack_node_score(task.request, self.alloc[n], self.used_res[n])
                for n in nodes}


def fixture_tree(case: dict) -> HyperNodeTree:
    """``createSchedulerCache`` + ``addClusterTopHyperNode`` over the case's fixtures."""
    by_tier = case.get("tiers", {})
    specs = case.get("hypernodes", {})
    tiers = {hn: t for t, names in by_tier.items() for hn in names}
    tiers.update({hn: spec["tier"] for hn, spec in specs.items()})
    parent: dict[str, str] = {}
    children: dict[str, list[str]] = {hn: [] for hn in specs}
    for hn, spec in specs.items():
        if "parent" in spec:
            parent[hn] = spec["parent"]
        for member, kind, _ in spec["members"]:
            if kind == "HyperNode":
                children[hn].append(member)
                if member in specs:
                    parent[member] = hn
    top = max(by_tier, default=0) + 1
    tiers[ROOT] = top
    roots = sorted(hn for hn in specs if hn not in parent)
    for hn in roots:
        parent[hn] = ROOT
    kids = {hn: tuple(sorted(c)) for hn, c in children.items()}
    kids[ROOT] = tuple(roots)
    real = {hn: frozenset(nodes) for hn, nodes in case.get("real", {}).items()}
    real[ROOT] = frozenset(n[0] for n in case["nodes"])
    # Only HyperNodes of the tier sets are seen by FindHyperNodeForNode.
    listed = {hn for names in by_tier.values() for hn in names} | {ROOT}
    view = HyperNodeTree({hn: t for hn, t in tiers.items() if hn in listed}, parent, kids,
                         real, dict(case.get("tier_names", {})))
    tree = HyperNodeTree(tiers, parent, kids, real, dict(case.get("tier_names", {})))
    tree.leaf_of = leaf_index(view)
    return tree


def build_jobs(case: dict) -> list[Job]:
    jobs = []
    for order, pg in enumerate(case["podgroups"]):
        tasks = []
        for ns, name, node, phase, cpu, mem, group, labels, selector in case["pods"]:
            if group != pg["name"] or ns != pg["ns"]:
                continue
            task = Task(f"{ns}-{name}", name,
                        {"cpu": parse_milli(cpu), "memory": parse_value(mem)},
                        role=labels.get(TASK_SPEC_KEY, ""), labels=labels, payload=selector)
            if phase == "Running":
                task.status, task.node = RUNNING, node
            tasks.append(task)
        nt = None
        if pg.get("mode"):
            nt = NetworkTopology(pg["mode"], pg.get("tier"), pg.get("tier_name", ""))
        policies = tuple(
            SubGroupPolicy(p["name"], p["size"], p["min"], None, tuple(p["keys"]),
                           NetworkTopology(p["mode"], p["tier"]) if p["mode"] else None)
            for p in pg.get("policies", ()))
        jobs.append(Job(f"{pg['ns']}/{pg['name']}", pg["ns"], pg["name"], pg["min"], tasks,
                        network_topology=nt, policies=policies, order=order))
    return jobs


def run(case: dict) -> tuple[Session, dict[str, str]]:
    sim = FixtureSim(case["nodes"], case["test"] in BINPACK)
    jobs = build_jobs(case)
    for job in jobs:
        for task in job.tasks:
            if task.node in sim.alloc:  # a pod on a node the fixture lacks holds nothing
                sim.assume([task], task.node)
    session = Session(fixture_tree(case), sim, [n[0] for n in case["nodes"]],
                      PLUGINS[case["test"]])
    binds = {}
    for out in session.allocate(jobs):
        if out.committed:
            binds.update({f"{out.job.namespace}/{t.name}": n for t, n in out.assignments})
    return session, binds


@pytest.mark.parametrize("case", CASES, ids=[f"{c['test']}/{c['name']}" for c in CASES])
def test_upstream_case(case: dict) -> None:
    session, binds = run(case)
    assert len(binds) == case["binds"], binds
    _hard_constraints_hold(case, session, binds)
    if case["minimal"]:
        return  # MinimalBindCheck: upstream checks the number of binds only
    assert binds == case.get("bind_map", binds), binds
    if "binds_in_hypernode" in case:
        leaf_of = session.tree.leaf_of
        per_leaf: dict[str, int] = {}
        for node in binds.values():
            per_leaf[leaf_of.get(node, "")] = per_leaf.get(leaf_of.get(node, ""), 0) + 1
        assert sorted(per_leaf.values()) == case["binds_in_hypernode"], binds


def test_case_count() -> None:
    """64 network-topology cases at the commit read (25 + 1 + 1 + 37)."""
    assert len(CASES) == 64
    assert COMMIT in __doc__


def _hard_constraints_hold(case: dict, session: Session, binds: dict[str, str]) -> None:
    """Beyond upstream's bind counts: the pods of a hard job (and of a hard sub-group) that
    run or were bound lie under one HyperNode of an allowed tier."""
    tree = session.tree
    running = {f"{ns}/{name}": node for ns, name, node, phase, *_ in case["pods"]
               if phase == "Running" and node in tree.real_nodes.get(ROOT, ())}
    placed = {**running, **binds}
    labels = {f"{p[0]}/{p[1]}": p[7] for p in case["pods"]}
    for pg in case["podgroups"]:
        pods = [k for k in placed if k.startswith(pg["ns"] + "/")
                and any(p[1] == k.split("/")[1] and p[6] == pg["name"] for p in case["pods"])]
        groups = []
        if pg.get("mode") == "hard" and pg.get("tier") is not None:
            groups.append((pods, pg["tier"]))
        for policy in pg.get("policies", ()):
            if policy["mode"] != "hard":
                continue
            by_value: dict[tuple, list[str]] = {}
            for k in pods:
                values = tuple(labels[k].get(key, "") for key in policy["keys"])
                if all(values):
                    by_value.setdefault(values, []).append(k)
            groups.extend((members, policy["tier"]) for members in by_value.values())
        for members, tier in groups:
            lca = ""
            for k in members:
                lca = tree.lca(lca, tree.leaf_of.get(placed[k], ROOT))
            if members and binds.keys() & set(members):
                assert tree.tiers.get(lca, 0) <= tier, (members, lca)
