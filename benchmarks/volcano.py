"""Volcano's allocate action (``tasplan.schedulers.volcano``) on a benchmark cluster: the
1,024-pod gang of ``generate.py --gang-out`` as a Volcano job with ``networkTopology`` hard,
``highestTierAllowed: 1`` (one rack), HyperNodes made from the rack and block labels (tier 1
racks by label, tier 2 blocks by name). Prints the load time and the planning wall and CPU
time (HyperNode tree, gradient walk, dry runs in every eligible rack, commit).

    python benchmarks/volcano.py CLUSTER GANG [--no-min-resources]

``--no-min-resources`` plans it as a bare PodGroup without ``minResources`` (every rack is
dry-run) instead of a vcjob's PodGroup (racks without the gang's total idle are skipped).
The cluster side's predicates here are resources, pod count and cordon only.
"""
from __future__ import annotations

import sys
import time

from tasplan.load.loader import load_inputs
from tasplan.model.pod_affinity import LabelSelector, Requirement
from tasplan.model.volcano import (
    MEMBER_HYPERNODE,
    MEMBER_NODE,
    HyperNode,
    Member,
    NetworkTopology,
)
from tasplan.schedulers.volcano.allocate import Session
from tasplan.schedulers.volcano.hypernodes import build_tree
from tasplan.schedulers.volcano.job import Job, Task

RACK, BLOCK = "topology.example.com/rack", "topology.example.com/block"


class Sim:
    def __init__(self, snapshot):
        self.nodes = {n.name: n for n in snapshot.nodes}
        self.used_res = {}
        self.pods = {}
        for n in snapshot.nodes:
            u = snapshot.node_usage(n.name)
            self.used_res[n.name] = dict(u.requested)
            self.pods[n.name] = len(u.pods)

    def allocatable(self, node):
        return self.nodes[node].allocatable

    def used(self, node):
        return self.used_res[node]

    def releasing(self, node):
        return {}

    def predicate(self, task, node):
        n = self.nodes[node]
        if n.unschedulable:
            return ["node(s) were unschedulable"]
        if self.pods[node] >= n.allocatable.get("pods", 0):
            return ["node(s) pod number exceeded"]
        return []

    def assume(self, task, node):
        u = self.used_res[node]
        for k, v in task.request.items():
            u[k] = u.get(k, 0) + v
        self.pods[node] += 1

    def forget(self, task, node):
        u = self.used_res[node]
        for k, v in task.request.items():
            u[k] -= v
        self.pods[node] -= 1

    def task_class(self, task):
        return task.payload.signature()

    def scores(self, task, nodes):
        return {}


def main(cluster: str, gang: str, min_resources: bool) -> None:
    t0 = time.perf_counter()
    snap = load_inputs([gang], [cluster])
    t1 = time.perf_counter()
    racks, blocks = {}, {}
    for n in snap.nodes:
        if RACK in n.labels:
            racks.setdefault(n.labels[RACK], n.labels.get(BLOCK, ""))
    hns = [HyperNode(r, 1, (Member(MEMBER_NODE, labels=LabelSelector(
        (Requirement(RACK, "In", (r,)),))),)) for r in sorted(racks)]
    for r, b in racks.items():
        blocks.setdefault(b, []).append(r)
    hns += [HyperNode(b, 2, tuple(Member(MEMBER_HYPERNODE, exact=r) for r in sorted(rs)))
            for b, rs in sorted(blocks.items())]
    pods = [p for p in snap.pods if p.group == "bench/gang"]
    tasks = [Task(p.key, p.name, dict(p.requests), payload=p) for p in pods]
    req = {}
    for t in tasks:
        for k, v in t.request.items():
            req[k] = req.get(k, 0) + v
    cpu0 = time.process_time()
    t2 = time.perf_counter()
    tree = build_tree(hns, [(n.name, n.labels) for n in snap.nodes])
    session = Session(tree, Sim(snap), [n.name for n in snap.nodes])
    job = Job("bench/gang", "bench", "gang", len(tasks), tasks,
              network_topology=NetworkTopology("hard", 1),
              min_resources=req if min_resources else None)
    (out,) = session.allocate([job])
    cpu = time.process_time() - cpu0
    wall = time.perf_counter() - t2
    print(f"load {t1 - t0:.2f}s; plan wall {wall:.2f}s cpu {cpu:.2f}s; "
          f"minResources={'yes' if min_resources else 'no'}; committed={out.committed} "
          f"hypernode={out.hypernode} placed={len(out.assignments)} "
          f"attempts={len(out.attempts)} ties={len(session.ties)} "
          f"node-ties={sum(session.node_ties.values())}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], "--no-min-resources" not in sys.argv[3:])
