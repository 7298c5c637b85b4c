"""The KAI core beyond upstream's tables: its messages, quirks and the fast node order."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.statement import Statement
from tasplan.model.kai import (
    GPU,
    SUBGROUP_LABEL,
    TASK_PRIORITY_LABEL,
    Constraint,
    KaiPodGroup,
    KaiTopology,
    TopologyLevel,
)
from tasplan.schedulers.kai import allocate as allocate_module
from tasplan.schedulers.kai.allocate import Allocator, fit_errors_text
from tasplan.schedulers.kai.fit import ResourceFit
from tasplan.schedulers.kai.jobs import build_job, task_order, tasks_to_allocate
from tasplan.schedulers.kai.tree import TopologyTree, _g3, insufficient, subset_nodes
from tests.schedulers.kai.cases import SRC, Case, _node, _pod, run, sub

T = "t"
RACK, ZONE = "k8s.io/rack", "k8s.io/zone"
HOST = "kubernetes.io/hostname"


def two_racks(gpus: int = 2) -> dict:
    return {"node0": (gpus, {RACK: "rack1"}), "node1": (gpus, {RACK: "rack1"}),
            "node2": (gpus, {RACK: "rack2"}), "node3": (gpus, {RACK: "rack2"})}


def allocate(nodes: dict, levels: tuple[TopologyLevel, ...], group: KaiPodGroup, pods: list,
             running: tuple = ()):
    infos = [NodeInfo(_node(n, g, labels, 20000), i)
             for i, (n, (g, labels)) in enumerate(sorted(nodes.items()))]
    by_name = {info.name: info for info in infos}
    for pod in running:
        by_name[pod.node_name].add_pod(pod)
    topo = KaiTopology(T, levels, SRC)
    job = build_job(group, [*running, *pods], {T: topo})
    return Allocator(infos, {T: TopologyTree(topo, infos)}, ResourceFit(),
                     Statement()).allocate(job)


def group(constraint: Constraint, min_member: int | None = 1, ns: str = "ns") -> KaiPodGroup:
    return KaiPodGroup(ns, "pg", min_member, None, "q", "", constraint, (), SRC)


RACK_LEVELS = (TopologyLevel(RACK),)


def test_unknown_topology_is_kais_error() -> None:
    out = allocate(two_racks(), RACK_LEVELS, group(Constraint("missing", RACK)),
                   [_pod("p", 1, 1, 0)])
    assert not out.allocated
    assert out.message() == "\nPodSchedulingErrors.\nRequested topology missing does not exist."


def test_a_topology_without_levels_is_only_logged() -> None:
    """A constraint naming a topology but neither level: upstream logs the error and never
    places the job."""
    out = allocate(two_racks(), RACK_LEVELS, group(Constraint(T)), [_pod("p", 1, 1, 0)])
    assert not out.allocated and not out.errors
    assert out.logs == ["Failed to run SubsetNodes on job <ns/pg>: no topology constraints were "
                        "found for subgroup , with topology name t"]


def test_unknown_level_is_only_logged() -> None:
    out = allocate(two_racks(), RACK_LEVELS, group(Constraint(T, "zone")), [_pod("p", 1, 1, 0)])
    assert out.logs == ["Failed to run SubsetNodes on job <ns/pg>: topology constraint error: "
                        "sub-group  specified 'zone' as the required topology constraint "
                        "level, but the topology tree 't' does not contain a level with this "
                        "name"]


def test_alias_resolves_to_its_label() -> None:
    out = allocate(two_racks(), (TopologyLevel(RACK, "rack"),),
                   group(Constraint(T, "rack"), 2), [_pod(f"p{i}", i, 2, 0) for i in range(2)])
    assert {p.name: i.name for p, i in out.assigned} == {"p0": "node0", "p1": "node1"}


def test_heterogeneous_tasks_use_the_resource_ratio() -> None:
    """Tasks that differ in GPU use are counted by the summed request (upstream
    ``getJobRatioToFreeResources``)."""
    out = allocate(two_racks(1), RACK_LEVELS, group(Constraint(T, RACK), 3, ns=""),
                   [_pod("a", 1, 2, 0), _pod("b", 2, 1, 0), _pod("c", 3, 0, 1000)])
    assert not out.allocated
    assert out.message() == (
        "\nUnable to schedule podgroup."
        "\n<rack1>: rack1 didn't have enough resource: GPUs, requested: 3, available: 2."
        "\n<rack2>: rack2 didn't have enough resource: GPUs, requested: 3, available: 2."
        "\ntopology t, requirement k8s.io/rack couldn't be satisfied for job </pg>.")


def test_insufficient_wording() -> None:
    tree_nodes = [NodeInfo(_node("n", 1, {RACK: "r"}, 4000), 0)]
    topo = KaiTopology(T, (TopologyLevel(RACK),), SRC)
    tree = TopologyTree(topo, tree_nodes)
    domain = tree.by_level[RACK]["r"]
    domain.free = {"cpu": 4000, "memory": 20 * 10**9, GPU: 1, "pods": 110, "example.com/x": 0}
    error = insufficient(domain, "", {"cpu": 5500, "memory": 25 * 10**9, GPU: 3,
                                      "example.com/x": 2, "pods": 3})
    assert error.detailed == (
        "r didn't have enough resources: CPU cores, requested: 5.5, available: 4",
        "r didn't have enough resources: memory, requested: 25, available: 20",
        "r didn't have enough resource: GPUs, requested: 3, available: 1",
        "r didn't have enough resource: example.com/x, requested: 2, available: 0")
    assert _g3(1234.0) == "1.23e+03" and _g3(0.5) == "0.5"


def test_fit_errors_text() -> None:
    from collections import Counter
    assert fit_errors_text(None) == "Unable to schedule pod"
    assert fit_errors_text(Counter({"b": 1, "a": 2})) == (
        "no nodes with enough resources were found: 1 b. \n2 a.")


def test_lca_below_required_level_fails_as_upstream() -> None:
    """Free capacity is summed only below the lowest common domain: when the whole node set
    sits below the required level, the required-level domain counts as empty and the job
    never fits (upstream ``subSetNodesFn``; reported, not fixed)."""
    nodes = {"node0": (2, {ZONE: "z1", RACK: "r1"}), "node1": (2, {ZONE: "z1", RACK: "r1"})}
    case = Case("x", T, (ZONE, RACK), nodes, [None, None], required=ZONE)
    result = run(case)
    assert not result.outcome.allocated
    subset = result.outcome.steps[0].traces[0].subset
    assert subset.lca_below_required and subset.lca.id == "z1.r1"
    assert "<z1>: z1 didn't have enough resource: GPUs, requested: 2, available: 0" in \
        result.outcome.message()


def test_running_pods_bound_the_required_domain() -> None:
    """Elastic pods stay in the required domain that holds the job's running pods, even when
    another domain would be the packed choice (upstream ``getRelevantDomainsWithAllocatedPods``)."""
    nodes = {"node0": (4, {RACK: "rack1"}), "node1": (1, {RACK: "rack2"})}
    out = allocate(nodes, RACK_LEVELS, group(Constraint(T, RACK)), [_pod("p", 1, 1, 0)],
                   running=(_pod("r", 0, 1, 0, node="node0"),))
    assert [(p.name, i.name) for p, i in out.assigned] == [("p", "node0")]
    assert [d.id for d, _ in out.steps[0].traces[0].subset.candidates] == ["rack1"]


def test_min_member_one_places_the_rest_one_by_one() -> None:
    """A Job's PodGroup gets minMember 1 from KAI's pod grouper: the first pod picks the most
    packed rack that holds one pod, the others follow elastically into that rack, and those
    that do not fit stay pending while the job runs."""
    nodes = {"node0": (2, {RACK: "rack1"}), "node1": (8, {RACK: "rack2"})}
    out = allocate(nodes, RACK_LEVELS, group(Constraint(T, RACK)),
                   [_pod(f"p{i}", i, 1, 0) for i in range(4)])
    assert out.allocated
    assert [(p.name, i.name) for p, i in out.assigned] == [("p0", "node0"), ("p1", "node0")]
    assert [s.ok for s in out.steps] == [True, True, False]


def test_gated_pods_keep_a_job_unready() -> None:
    group = KaiPodGroup("ns", "pg", 2, None, "q", "", Constraint(), (), SRC)
    pods = [_pod("a", 1, 1, 0), replace(_pod("b", 2, 1, 0), scheduling_gates=("g",))]
    job = build_job(group, pods, {})
    assert not job.root.ready()
    out = Allocator([], {}, ResourceFit(), Statement()).allocate(job)
    assert not out.ready and not out.steps


def test_pods_of_an_unknown_subgroup_are_never_scheduled() -> None:
    group = KaiPodGroup("ns", "pg", None, None, "q", "", Constraint(),
                        (sub("a", min_member=1, constraint=False),), SRC)
    pods = [_pod("x", 1, 1, 0, labels={SUBGROUP_LABEL: "a"}),
            _pod("y", 2, 1, 0, labels={SUBGROUP_LABEL: "b"}), _pod("z", 3, 1, 0)]
    job = build_job(group, pods, {})
    assert [p.name for p in job.invalid] == ["y", "z"]
    assert [p.name for p in tasks_to_allocate(job)] == ["x"]


def test_task_priority_label_orders_tasks() -> None:
    pods = [_pod("a", 1, 1, 0), _pod("b", 2, 1, 0, labels={TASK_PRIORITY_LABEL: "5"}),
            _pod("c", 3, 1, 0, labels={TASK_PRIORITY_LABEL: "x"}),
            _pod("d", 4, 1, 0, labels={TASK_PRIORITY_LABEL: "9"})]
    assert [p.name for p in sorted(pods, key=task_order)] == ["d", "b", "c", "a"]


def test_min_subgroup_takes_the_first_children_by_name() -> None:
    group = KaiPodGroup("ns", "pg", None, 1, "q", "", Constraint(),
                        (sub("b", min_member=1, constraint=False),
                         sub("a", min_member=1, constraint=False)), SRC)
    pods = [_pod("x", 1, 1, 0, labels={SUBGROUP_LABEL: "b"}),
            _pod("y", 2, 1, 0, labels={SUBGROUP_LABEL: "a"})]
    assert [p.name for p in tasks_to_allocate(build_job(group, pods, {}))] == ["y"]


def test_hostname_level_single_node_subgroup_quirk() -> None:
    """A subgroup requiring the level its parent chose, in a topology with a hostname level:
    the node set is one node, its lowest common domain the host, so the rack counts as
    empty (upstream behaviour, kept)."""
    nodes = {"node0": (1, {RACK: "rack1"}), "node1": (4, {RACK: "rack2"})}
    topo = KaiTopology(T, (TopologyLevel(RACK), TopologyLevel(HOST)), SRC)
    infos = [NodeInfo(_node(n, g, labels, 20000), i)
             for i, (n, (g, labels)) in enumerate(sorted(nodes.items()))]
    tree = TopologyTree(topo, infos)
    pods = [_pod("p", 1, 1, 0)]
    subset = subset_nodes(tree, infos, Constraint(T, RACK), "s", "s", "ns/pg", pods, [1], None,
                          workload=False)
    assert subset.lca is not None and subset.lca.level == HOST
    assert subset.lca_below_required and not subset.candidates


# -- the fast node order equals the scores' order ---------------------------------------------

@st.composite
def clusters(draw):
    n = draw(st.integers(2, 9))
    racks = draw(st.integers(1, 3))
    nodes = {}
    for i in range(n):
        gpus = draw(st.sampled_from([0, 1, 2, 4, 8])) if draw(st.booleans()) else 4
        nodes[f"node{i}"] = (gpus, {ZONE: f"z{i % 2}", RACK: f"z{i % 2}-r{i % racks}"})
    running = [(f"node{draw(st.integers(0, n - 1))}", draw(st.integers(0, 2)))
               for _ in range(draw(st.integers(0, 6)))]
    tasks = draw(st.integers(1, 6))
    kind = draw(st.sampled_from(["required", "preferred", "both", "none", "subgroups"]))
    required = RACK if kind in ("required", "both") else ""
    preferred = {"preferred": RACK, "both": RACK}.get(kind, "")
    if kind == "both":
        required, preferred = ZONE, RACK
    subgroups = ()
    labels: list[str | None] = [None] * tasks
    if kind == "subgroups":
        subgroups = (sub("a", T, min_member=1, preferred=RACK),
                     sub("b", T, min_member=1, required=RACK))
        labels = [("a", "b")[i % 2] for i in range(tasks)]
    return Case("random", T, (ZONE, RACK), nodes, labels, running=running, required=required,
                preferred=preferred, subgroups=subgroups,
                gpus=draw(st.integers(0, 2)), cpu_millis=draw(st.sampled_from([0, 500, 7000])))


@settings(max_examples=150, deadline=None)
@given(clusters())
def test_fast_order_matches_scored_order(case: Case) -> None:
    fast = run(case)
    original = allocate_module._Order.__init__

    def exact_init(self, allocator, nodes, pod, scores, exact):
        original(self, allocator, nodes, pod, scores, True)

    allocate_module._Order.__init__ = exact_init
    try:
        slow = run(case)
    finally:
        allocate_module._Order.__init__ = original
    assert fast.placed == slow.placed
    assert fast.outcome.message() == slow.outcome.message()
