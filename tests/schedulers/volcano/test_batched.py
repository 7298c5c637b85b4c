"""The allocate core's counting shortcut (``Session(batched=True)``: a run of identical tasks
placed on one node at once, see ``Session._batch``) must decide exactly as Volcano's
task-by-task loop (``batched=False``, the mirror of ``allocateResourcesForTasks`` in volcano
``pkg/scheduler/actions/allocate/allocate.go`` at ed72c7c815a9fd547a787134676f73d42e9d049c):
the same nodes in the same order, the same HyperNodes tried with the same scores, the same
fit errors, ties and final node state, on random clusters, HyperNode trees and jobs."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tasplan.framework.statement import Statement
from tasplan.model.pod import HostPort
from tasplan.model.pod_affinity import LabelSelector, Requirement
from tasplan.model.volcano import (
    HARD,
    MEMBER_HYPERNODE,
    MEMBER_NODE,
    SOFT,
    HyperNode,
    Member,
    NetworkTopology,
    SubGroupPolicy,
    VolcanoInputs,
    VolcanoPodGroup,
)
from tasplan.plan.state import build_node_infos
from tasplan.schedulers.volcano.allocate import Plugins, Session
from tasplan.schedulers.volcano.cluster import ClusterSim, job_of, plan_volcano
from tasplan.schedulers.volcano.hypernodes import build_tree
from tasplan.schedulers.volcano.job import RUNNING, Job, Task
from tasplan.schedulers.volcano.run import StatementSim
from tasplan.schedulers.volcano.scoring import binpack_node_score
from tests.builders import make_group, make_node, make_pod, snapshot
from tests.schedulers.volcano.allocate_cases import CASES
from tests.schedulers.volcano.test_allocate_upstream import (
    PLUGINS,
    FixtureSim,
    build_jobs,
    fixture_tree,
)

GI = 1024**3
PARTITION = "partition"


class RandomSim:
    """Nodes with cpu, memory and a pod limit, resources being released, a node selector
    and an "exclusive" task kind (one per node, as host ports make it), binpack scores."""

    def __init__(self, nodes: Mapping[str, dict], binpack: bool) -> None:
        self.alloc = {n: {"cpu": v["cpu"], "memory": v["memory"]} for n, v in nodes.items()}
        self.max_pods = {n: v["pods"] for n, v in nodes.items()}
        self.labels = {n: v["labels"] for n, v in nodes.items()}
        self.rel = {n: v["releasing"] for n, v in nodes.items()}
        self.used_res = {n: dict(v["used"]) for n, v in nodes.items()}
        self.pods = dict.fromkeys(nodes, 0)
        self.exclusive: dict[str, int] = dict.fromkeys(nodes, 0)
        self.binpack = binpack

    def allocatable(self, node: str) -> Mapping[str, int]:
        return self.alloc[node]

    def used(self, node: str) -> Mapping[str, int]:
        return self.used_res[node]

    def releasing(self, node: str) -> Mapping[str, int]:
        return self.rel[node]

    def predicate(self, task: Task, node: str) -> list[str]:
        selector, exclusive = task.payload
        if self.pods[node] >= self.max_pods[node]:
            return ["node(s) pod number exceeded"]
        if any(self.labels[node].get(k) != v for k, v in selector):
            return ["node(s) didn't match Pod's node affinity/selector"]
        if exclusive and self.exclusive[node]:
            return ["node(s) didn't have free ports for the requested pod ports"]
        return []

    def room(self, task: Task, node: str) -> int:
        return 1 if task.payload[1] else self.max_pods[node] - self.pods[node]

    def assume(self, tasks: Sequence[Task], node: str) -> None:
        used = self.used_res[node]
        for task in tasks:
            for k, v in task.request.items():
                used[k] = used.get(k, 0) + v
            self.pods[node] += 1
            self.exclusive[node] += task.payload[1]

    def forget(self, tasks: Sequence[Task], node: str) -> None:
        used = self.used_res[node]
        for task in tasks:
            for k, v in task.request.items():
                used[k] -= v
            self.pods[node] -= 1
            self.exclusive[node] -= task.payload[1]

    def scores(self, task: Task, nodes: Sequence[str]) -> Mapping[str, float]:
        if not self.binpack:
            return {}
        return {n: binpack_node_score(task.request, self.alloc[n], self.used_res[n])
                for n in nodes}

    def task_class(self, task: Task) -> object:
        return tuple(sorted(task.request.items())), task.payload

    def state(self) -> tuple:
        return self.used_res, self.pods, self.exclusive


def random_world(rnd: random.Random) -> dict:
    """Nodes in racks (tier 1) in blocks (tier 2), some outside every HyperNode, nodes busy
    or releasing, jobs of a few task kinds with network topologies and partitions."""
    nodes: dict[str, dict] = {}
    racks: dict[str, list[str]] = {}
    for r in range(rnd.randint(1, 4)):
        for i in range(rnd.randint(1, 4)):
            name = f"n{r}-{i}"
            cpu = rnd.choice((2000, 4000, 8000, 16000))
            nodes[name] = {
                "cpu": cpu, "memory": rnd.choice((4, 8, 16)) * GI,
                "pods": rnd.choice((1, 2, 3, 5, 8, 110)),
                "labels": {"zone": rnd.choice("ab")},
                # a dump may show a node holding more than it has (overcommitted)
                "used": {"cpu": rnd.choice((0, 0, 500, cpu // 2, cpu + 1000)), "memory": 0},
                "releasing": {"cpu": rnd.choice((0, 0, 0, 1000, 2000)), "memory": 0},
            }
            racks.setdefault(f"rack{r}", []).append(name)
    loose = [n for n in nodes if rnd.random() < 0.1]
    hypernodes = {rack: (1, [n for n in members if n not in loose])
                  for rack, members in racks.items()}
    if rnd.random() < 0.2:  # a node in two racks (HyperNodes may overlap)
        hypernodes["rack-extra"] = (1, [rnd.choice(sorted(nodes))])
    names = sorted(racks)
    for b in range(0, len(names), rnd.choice((1, 2, 4))):
        hypernodes[f"block{b}"] = (2, names[b:b + 2])
    jobs = []
    for j in range(rnd.randint(1, 3)):
        kinds = [(rnd.choice((0, 250, 500, 1000, 1500)), rnd.choice((0, 1, 2)) * GI,
                  rnd.choice(("", "", "ps", "worker")),
                  (("zone", rnd.choice("ab")),) if rnd.random() < 0.2 else (),
                  int(rnd.random() < 0.1))
                 for _ in range(rnd.randint(1, 3))]
        if len(kinds) > 1 and rnd.random() < 0.3:  # one task class, two roles
            kinds[1] = (*kinds[0][:2], rnd.choice(("", "ps", "worker")), *kinds[0][3:])
        tasks = []
        for kind in kinds:
            tasks.extend([kind] * rnd.randint(1, 12))
        if rnd.random() < 0.5:
            rnd.shuffle(tasks)
        mode = rnd.choice((None, HARD, HARD, SOFT))
        policy = None
        if rnd.random() < 0.2:
            policy = (rnd.randint(1, 4), rnd.randint(0, 2),
                      rnd.choice((None, HARD, SOFT)), rnd.choice((1, 2)))
        jobs.append({
            "name": f"job{j}", "tasks": tasks,
            "min": rnd.randint(1, len(tasks)),
            "topology": None if mode is None else (mode, rnd.choice((1, 2, 3))),
            "running": rnd.random() < 0.2, "policy": policy,
            "priority": rnd.choice((0, 0, 1)),
            "task_min": rnd.random() < 0.3,
        })
    plugins = Plugins(
        sub_job_ready=rnd.random() < 0.5, sub_job_order=rnd.random() < 0.5,
        task_priority_order=rnd.random() < 0.5, nta_node_order=rnd.random() < 0.8,
        normal_pod_binpack=rnd.random() < 0.8, nta_hypernode_order=rnd.random() < 0.8)
    return {"nodes": nodes, "hypernodes": hypernodes, "jobs": jobs, "plugins": plugins,
            "binpack": rnd.random() < 0.8, "seed": rnd.random()}


def build(world: dict, batched: bool) -> tuple[Session, RandomSim, list[Job]]:
    nodes = world["nodes"]
    specs = [HyperNode(name, tier, tuple(
        Member(MEMBER_NODE if tier == 1 else MEMBER_HYPERNODE, exact=m) for m in members))
        for name, (tier, members) in world["hypernodes"].items()]
    tree = build_tree(specs, [(n, v["labels"]) for n, v in nodes.items()])
    sim = RandomSim(nodes, world["binpack"])
    rnd = random.Random(world["seed"])
    jobs = []
    for order, spec in enumerate(world["jobs"]):
        tasks = []
        for i, (cpu, mem, role, selector, exclusive) in enumerate(spec["tasks"]):
            labels = {PARTITION: str(i % 3)} if spec["policy"] else {}
            task = Task(f"{spec['name']}-{i}", f"{spec['name']}-{role or 'task'}-{i}",
                        {"cpu": cpu, "memory": mem}, role=role, labels=labels,
                        payload=(selector, exclusive), order=i,
                        priority=1 + (i % 2 if spec["priority"] else 0))
            tasks.append(task)
        if spec["running"] and tasks:
            task = tasks[0]
            node = rnd.choice(sorted(nodes))
            task.status, task.node = RUNNING, node
            sim.assume([task], node)
        topology = None if spec["topology"] is None else NetworkTopology(*spec["topology"])
        policies = ()
        if spec["policy"]:
            size, min_groups, mode, tier = spec["policy"]
            policies = (SubGroupPolicy("part", size, min_groups, None, (PARTITION,),
                                       None if mode is None else NetworkTopology(mode, tier)),)
        task_min = {}
        if spec["task_min"]:
            for t in tasks:
                task_min[t.role] = task_min.get(t.role, 0) + 1
            task_min = {r: rnd.randint(0, n) for r, n in sorted(task_min.items())}
        jobs.append(Job(f"ns/{spec['name']}", "ns", spec["name"], spec["min"], tasks,
                        task_min_available=task_min, network_topology=topology,
                        policies=policies, order=order))
    session = Session(tree, sim, sorted(nodes), world["plugins"], batched=batched)
    return session, sim, jobs


def observe(session: Session, outcomes, jobs: Sequence[Job], state: tuple) -> dict:
    return {
        "outcomes": [(o.job.uid, o.committed, o.pipelined, o.hypernode,
                      [(t.uid, n) for t, n in o.assignments],
                      [(a.hypernode, a.tier, a.gradient, a.placed, a.fits, a.score,
                        a.sub_job, a.reason) for a in o.attempts],
                      o.skipped, o.error) for o in outcomes],
        "tasks": [(t.uid, t.status, t.node) for j in jobs for t in j.tasks],
        "fit_errors": [(j.uid, {u: (fe.message(), fe.hypernode) for u, fe in
                                j.fit_errors.items()}) for j in jobs],
        "ties": list(session.ties), "node_ties": dict(session.node_ties),
        "used": {hn: dict(u) for hn, u in session.hn_used.items()},
        "hn_tasks": {k: dict(v) for k, v in session.hn_tasks.items()},
        "state": state,
    }


def run_world(world: dict, batched: bool) -> dict:
    session, sim, jobs = build(world, batched)
    outcomes = [o for job in jobs for o in session.allocate([job])]
    return observe(session, outcomes, jobs, sim.state())


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_batched_allocation_decides_as_task_by_task(rnd: random.Random) -> None:
    world = random_world(rnd)
    assert run_world(world, batched=True) == run_world(world, batched=False)


def test_a_run_of_identical_tasks_is_placed_by_count() -> None:
    """The shortcut is taken (not only allowed): 40 identical tasks on 4 roomy nodes ask for
    far fewer node choices batched than task by task, and land on the same nodes."""
    world = {
        "nodes": {f"n{i}": {"cpu": 64000, "memory": 64 * GI, "pods": 110,
                            "labels": {}, "used": {"cpu": 1000 * i, "memory": 0},
                            "releasing": {}} for i in range(4)},
        "hypernodes": {"rack": (1, ["n0", "n1", "n2", "n3"])},
        "jobs": [{"name": "j", "tasks": [(4000, GI, "", (), 0)] * 40, "min": 40,
                  "topology": (HARD, 1), "running": False, "policy": None,
                  "priority": 0, "task_min": False}],
        "plugins": Plugins(), "binpack": True, "seed": 0,
    }
    calls = {}
    for batched in (True, False):
        session, _sim, jobs = build(world, batched)
        count = 0
        original = session._prioritize

        def counting(*args, original=original):
            nonlocal count
            count += 1
            return original(*args)

        session._prioritize = counting
        (out,) = session.allocate(jobs)
        calls[batched] = (count, [(t.uid, n) for t, n in out.assignments])
    assert calls[True][1] == calls[False][1]
    # binpack fills the fullest node first: n3 takes 15, n2 takes 15, n1 the last 10
    assert [n for _, n in calls[True][1]] == ["n3"] * 15 + ["n2"] * 15 + ["n1"] * 10
    assert calls[False][0] == 40 and calls[True][0] <= 6


@pytest.mark.parametrize("case", CASES, ids=[f"{c['test']}/{c['name']}" for c in CASES])
def test_upstream_cases_batched_as_task_by_task(case: dict) -> None:
    """Volcano's own network-topology cases give the same outcome both ways."""
    seen = []
    for batched in (True, False):
        sim = FixtureSim(case["nodes"], case["test"] in ("TestNodeLevelScoreWith"
                                                         "NetWorkTopologies",))
        jobs = build_jobs(case)
        for job in jobs:
            for task in job.tasks:
                if task.node in sim.alloc:
                    sim.assume([task], task.node)
        session = Session(fixture_tree(case), sim, [n[0] for n in case["nodes"]],
                          PLUGINS[case["test"]], batched=batched)
        outcomes = session.allocate(jobs)
        seen.append(observe(session, outcomes, jobs, (sim.used_res, sim.pods)))
    assert seen[0] == seen[1]


# -- over tasplan's cluster model (ClusterSim: pod limits, host ports, deleting pods) -------

def random_snapshot(rnd: random.Random):
    nodes, pods = [], []
    for r in range(rnd.randint(1, 3)):
        for i in range(rnd.randint(1, 4)):
            name = f"n{r}-{i}"
            nodes.append(make_node(name, rnd.choice((2, 4, 8)), labels={"rack": f"r{r}"},
                                   pods=rnd.choice((2, 4, 110)), memory=16 * GI))
            for k in range(rnd.choice((0, 0, 1, 2))):
                pod = make_pod(f"bg-{name}-{k}", rnd.choice((0.5, 1)), node=name)
                if rnd.random() < 0.3:
                    pod = replace(pod, deleting=True)
                pods.append(pod)
    groups = []
    specs = {}
    for j in range(rnd.randint(1, 2)):
        group = make_group(f"job{j}", min_count=1)
        size = rnd.randint(1, 12)
        cpu = rnd.choice((0.25, 0.5, 1))
        ports = rnd.random() < 0.15
        for i in range(size):
            pod = make_pod(f"job{j}-w-{i}", cpu, group=group.key, memory=GI)
            if ports:
                pod = replace(pod, host_ports=(HostPort(8080),))
            pods.append(pod)
        groups.append(group)
        mode = rnd.choice((None, HARD, SOFT))
        specs[group.key] = VolcanoPodGroup(
            group.key, rnd.randint(1, size),
            network_topology=None if mode is None else NetworkTopology(mode, rnd.randint(1, 2)))
    racks = sorted({n.labels["rack"] for n in nodes})
    hypernodes = {r: HyperNode(r, 1, (Member(MEMBER_NODE, labels=LabelSelector(
        (Requirement("rack", "In", (r,)),))),)) for r in racks}
    hypernodes["top"] = HyperNode("top", 2, tuple(Member(MEMBER_HYPERNODE, exact=r)
                                                   for r in racks))
    return snapshot(nodes, pods, groups), VolcanoInputs(hypernodes, specs)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_batched_over_the_cluster_model(rnd: random.Random) -> None:
    snap, inputs = random_snapshot(rnd)
    seen = []
    for batched in (True, False):
        result = plan_volcano(snap, inputs, batched=batched)
        seen.append(([(o.job.uid, o.committed, o.hypernode,
                       [(t.uid, n) for t, n in o.assignments],
                       [(a.hypernode, a.placed, a.fits, a.score, a.reason)
                        for a in o.attempts]) for o in result.outcomes],
                     result.ties, result.node_ties))
    assert seen[0] == seen[1]


def _node_state(info) -> tuple:
    return (list(info.requested.items()), info.non_zero_cpu, info.non_zero_memory,
            [p.key for p in info.pods], list(info.ports), [p.key for p in info.affinity_pods])


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_statement_path_as_plain_task_by_task(rnd: random.Random) -> None:
    """The run's path (``StatementSim``: runs of copies assumed onto a node as one Statement
    step and rolled back as one, batched placement) decides as the plain one (``ClusterSim``
    adding pods one by one, task-by-task placement) and leaves the same NodeInfos; rolling
    the Statement back to its start restores the snapshot's node state."""
    snap, inputs = random_snapshot(rnd)
    tree = build_tree(inputs.hypernodes.values(), [(n.name, n.labels) for n in snap.nodes])
    groups = sorted((g for g in snap.groups if g.key in inputs.podgroups),
                    key=lambda g: (-(g.priority or 0), g.order))
    seen = []
    for path in ("statement", "plain"):
        state = SimpleNamespace(snapshot=snap, nodes=build_node_infos(snap)[0],
                                statement=Statement())
        sim = StatementSim(state) if path == "statement" else ClusterSim(snap)
        session = Session(tree, sim, [n.name for n in snap.nodes], batched=path == "statement")
        outcomes = []
        for group in groups:
            job = job_of(group, inputs.podgroups[group.key], snap.pods_by_group[group.key])
            outcomes.extend(session.allocate([job]))
        seen.append(([(o.job.uid, o.committed, o.pipelined, o.hypernode,
                       [(t.uid, n) for t, n in o.assignments],
                       [(a.hypernode, a.placed, a.fits, a.score, a.reason)
                        for a in o.attempts]) for o in outcomes],
                     session.ties, session.node_ties,
                     [_node_state(sim.infos[n.name]) for n in snap.nodes]))
        if path == "statement":
            state.statement.rollback(0)
            fresh = build_node_infos(snap)[0]
            # requests that went back to zero are equivalent to absent ones
            assert [({k: v for k, v in i.requested.items() if v}, *_node_state(i)[1:])
                    for i in state.nodes] == [(dict(i.requested), *_node_state(i)[1:])
                                              for i in fresh]
    assert seen[0] == seen[1]
