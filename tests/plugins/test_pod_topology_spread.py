"""PodTopologySpread, case by case after upstream's ``podtopologyspread`` tests
(filtering_test.go: TestSingleConstraint, TestMultipleConstraints, TestPreFilterState*,
scoring_test.go: TestPodTopologySpreadScore, TestPreScoreStateEmptyNodes, TestPreScoreSkip).
Expected values are worked out by hand from upstream's rules; the arithmetic is in the
comments."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tasplan.errors import ProfileError
from tasplan.framework.types import CycleState
from tasplan.model.pod_affinity import (
    DO_NOT_SCHEDULE,
    HONOR,
    IGNORE,
    SCHEDULE_ANYWAY,
    LabelSelector,
    SpreadConstraint,
)
from tasplan.model.selectors import NodeSelectorTerm, Requirement
from tasplan.model.taints import NO_SCHEDULE, Taint
from tasplan.plugins.pod_topology_spread import (
    HOSTNAME,
    SYSTEM_DEFAULT_CONSTRAINTS,
    PodTopologySpread,
    new,
)
from tests.builders import make_node, make_pod, node_infos

S, U, UU = "Success", "UNSCHEDULABLE", "UNSCHEDULABLE_AND_UNRESOLVABLE"


def exists(key: str) -> LabelSelector:
    return LabelSelector((Requirement(key, "Exists"),))


FOO, BAR = exists("foo"), exists("bar")


def node(name: str, **labels: str):
    """A node with exactly these labels (``make_node`` would add the hostname label)."""
    return replace(make_node(name), labels=labels)


def zone_nodes(key: str = "node"):
    """Upstream's four filtering-test nodes: a, b in zone1; x, y in zone2."""
    return [node(n, zone=z, **{key: n}) for n, z in
            (("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"),
             ("node-y", "zone2"))]


def pod(name: str = "p", *, labels: dict | None = None, node_name: str = "",
        constraints: tuple = (), namespace: str = "default", **kw):
    return replace(make_pod(name, 0, node=node_name, namespace=namespace),
                   labels={"foo": ""} if labels is None else labels,
                   spread_constraints=constraints, **kw)


def placed(spec: str, labels: dict | None = None, **kw) -> list:
    """``placed("node-a:2 node-b:1")`` -> matching pods p-a1, p-a2, p-b1 bound there."""
    out = []
    for part in spec.split():
        name, n = part.split(":")
        out += [pod(f"p-{name[-1]}{i + 1}", node_name=name, labels=labels, **kw)
                for i in range(int(n))]
    return out


def hard(skew: int, key: str, selector=FOO, **kw) -> SpreadConstraint:
    return SpreadConstraint(skew, key, DO_NOT_SCHEDULE, selector, **kw)


def soft(skew: int, key: str, selector=FOO, **kw) -> SpreadConstraint:
    return SpreadConstraint(skew, key, SCHEDULE_ANYWAY, selector, **kw)


def run_filter(incoming, nodes, existing=(), plugin=None) -> dict[str, str]:
    plugin = plugin or PodTopologySpread()
    infos = node_infos(nodes, existing)
    state = CycleState({plugin.name: plugin.prepare(incoming, infos)})
    out = {}
    for info in infos:
        status = plugin.filter(state, incoming, info)
        out[info.name] = S if status is None else status.code.name
    return out


SPREAD_2103 = "node-a:2 node-b:1 node-y:3"  # upstream's "2/1/0/3" over a/b/x/y


@pytest.mark.parametrize("incoming, nodes, existing, want", [
    pytest.param(pod(constraints=(hard(1, "zone"),)), zone_nodes(), [],
                 dict.fromkeys(("node-a", "node-b", "node-x", "node-y"), S),
                 id="no existing pods"),
    pytest.param(pod(constraints=(hard(1, "zone", BAR),)), zone_nodes(), [],
                 dict.fromkeys(("node-a", "node-b", "node-x", "node-y"), S),
                 id="no existing pods, incoming pod doesn't match itself"),
    # zone1 0 (other namespaces), zone2 2: x, y skew 2 + 1 - 0 = 3 > 1.
    pytest.param(pod(constraints=(hard(1, "zone"),)), zone_nodes(),
                 [pod("p-a1", node_name="node-a", namespace="ns1"),
                  pod("p-b1", node_name="node-a", namespace="ns2"),
                  *placed("node-x:1 node-y:1")],
                 {"node-a": S, "node-b": S, "node-x": U, "node-y": U},
                 id="existing pods in a different namespace do not count"),
    pytest.param(pod(constraints=(hard(1, "zone"),)), zone_nodes(), placed(SPREAD_2103),
                 dict.fromkeys(("node-a", "node-b", "node-x", "node-y"), S),
                 id="pods spread across zones as 3/3, all nodes fit"),
    # node-b lacks "zone": zone1 = 1 (a), zone2 = 2; min 1; x, y: 2 + 1 - 1 = 2 > 1.
    pytest.param(pod(constraints=(hard(1, "zone"),)),
                 [node("node-a", zone="zone1"), node("node-b", zon="zone1"),
                  node("node-x", zone="zone2"), node("node-y", zone="zone2")],
                 placed("node-a:1 node-b:1 node-x:1 node-y:1"),
                 {"node-a": S, "node-b": UU, "node-x": U, "node-y": U},
                 id="pods spread across zones as 1/2 due to absence of label 'zone' on node-b"),
    pytest.param(pod(constraints=(hard(1, "rack"),)),
                 [node("node-a", zone="zone1"), node("node-x", zone="zone2")], [],
                 {"node-a": UU, "node-x": UU},
                 id="pod cannot be scheduled as all nodes don't have label 'rack'"),
    # min 0: a 2+1, b 1+1, x 0+1, y 3+1.
    pytest.param(pod(constraints=(hard(1, "node"),)), zone_nodes(), placed(SPREAD_2103),
                 {"node-a": U, "node-b": U, "node-x": S, "node-y": U},
                 id="pods spread across nodes as 2/1/0/3, only node-x fits"),
    pytest.param(pod(constraints=(hard(2, "node"),)), zone_nodes(), placed(SPREAD_2103),
                 {"node-a": U, "node-b": S, "node-x": S, "node-y": U},
                 id="pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit"),
    pytest.param(pod(labels={"bar": ""}, constraints=(hard(1, "node"),)), zone_nodes(),
                 placed(SPREAD_2103),
                 {"node-a": U, "node-b": S, "node-x": S, "node-y": U},
                 id="pods spread across nodes as 2/1/0/3, but pod doesn't match itself"),
    # Only node-a (2) and node-y (3) are eligible domains: min 2; y: 3 + 1 - 2 = 2 > 1.
    pytest.param(pod(constraints=(hard(1, "node"),), required_terms=(NodeSelectorTerm(
                     (Requirement("node", "In", ("node-a", "node-y")),)),)),
                 zone_nodes(), placed(SPREAD_2103),
                 {"node-a": S, "node-b": S, "node-x": S, "node-y": U},
                 id="incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits"),
    pytest.param(pod(constraints=(hard(1, "node"),)),
                 [node("node-a", node="node-a"), node("node-b", node="node-b")],
                 [pod("p-a", node_name="node-a", deleting=True),
                  pod("p-b", node_name="node-b")],
                 {"node-a": S, "node-b": U},
                 id="terminating Pods should be excluded"),
])
def test_single_constraint(incoming, nodes, existing, want):
    """Upstream TestSingleConstraint."""
    assert run_filter(incoming, nodes, existing) == want


@pytest.mark.parametrize("incoming, existing, want", [
    # zone 3/3 lets every node pass; node 2/1/0/3 only node-x.
    pytest.param(pod(constraints=(hard(1, "zone"), hard(1, "node"))), placed(SPREAD_2103),
                 {"node-a": U, "node-b": U, "node-x": S, "node-y": U},
                 id="two Constraints on zone and node, spreads = [3/3, 2/1/0/3]"),
    # zone1 = a2 + b1 = 3, zone2 = y2 = 2: zone1 nodes 3 + 1 - 2 = 2 > 1 fail; node
    # spread 2/1/0/2 (min 0): x 0 + 1 fits, y 2 + 1 fails.
    pytest.param(pod(constraints=(hard(1, "zone"), hard(1, "node"))),
                 placed("node-a:2 node-b:1 node-y:2"),
                 {"node-a": U, "node-b": U, "node-x": S, "node-y": U},
                 id="two Constraints on zone and node, spreads = [3/2, 2/1/0/2] (variant)"),
    # zone1 = 4, zone2 = 1: zone fails a, b (4 + 1 - 1); no pod has "bar", so the node
    # constraint only counts the incoming pod itself: 0 + 1 - 0 passes everywhere.
    pytest.param(pod(labels={"foo": "", "bar": ""},
                     constraints=(hard(1, "zone"), hard(1, "node", BAR))),
                 placed("node-a:2 node-b:2 node-y:1"),
                 {"node-a": U, "node-b": U, "node-x": S, "node-y": S},
                 id="two Constraints on zone and node, with different labelSelectors (variant)"),
])
def test_multiple_constraints(incoming, existing, want):
    """Upstream TestMultipleConstraints: a node must pass every constraint. The first case
    is upstream's; the "(variant)" ones follow its pattern with other pod spreads."""
    assert run_filter(incoming, zone_nodes(), existing) == want


def test_reasons_are_upstream_strings():
    """Upstream plugin.go ErrReasonConstraintsNotMatch / ErrReasonNodeLabelNotMatch."""
    incoming = pod(constraints=(hard(1, "node"),))
    plugin = PodTopologySpread()
    nodes = [node("node-a", node="node-a"), node("node-b", node="node-b"), node("node-c")]
    infos = node_infos(nodes, placed("node-a:2"))
    state = CycleState({plugin.name: plugin.prepare(incoming, infos)})
    assert plugin.filter(state, incoming, infos[0]).reasons == (
        "node(s) didn't match pod topology spread constraints",)
    assert plugin.filter(state, incoming, infos[1]) is None
    assert plugin.filter(state, incoming, infos[2]).reasons == (
        "node(s) didn't match pod topology spread constraints (missing required label)",)


@pytest.mark.parametrize("min_domains, want", [
    # 3 domains < minDomains 4: global minimum 0; a, b: 2 + 1 - 0 = 3 > 2, c: 1 + 1 = 2.
    pytest.param(4, {"node-a": U, "node-b": U, "node-c": S},
                 id="pods spread as 2/2/1, maxSkew 2, domains < minDomains: only node-c fits"),
    # 3 domains >= minDomains 2: minimum 1; a, b: 2 + 1 - 1 = 2 <= 2.
    pytest.param(2, dict.fromkeys(("node-a", "node-b", "node-c"), S),
                 id="pods spread as 2/2/1, maxSkew 2, domains >= minDomains: all nodes fit"),
])
def test_min_domains(min_domains, want):
    """Upstream TestSingleConstraint minDomains cases (``minMatchNum``)."""
    incoming = pod(constraints=(hard(2, "node", min_domains=min_domains),))
    nodes = [node(n, node=n) for n in ("node-a", "node-b", "node-c")]
    assert run_filter(incoming, nodes, placed("node-a:2 node-b:2 node-c:1")) == want


TAINT = Taint("t", "", NO_SCHEDULE)


@pytest.mark.parametrize("policy, want", [
    # Ignore: tainted node-a is a domain with 0 pods: min 0, node-b 1 + 1 - 0 = 2 > 1.
    pytest.param(IGNORE, {"node-a": S, "node-b": U}, id="NodeTaintsPolicy ignored"),
    # Honor: only node-b (1) is a domain: min 1, node-b 1 + 1 - 1 = 1.
    pytest.param(HONOR, {"node-a": S, "node-b": S}, id="NodeTaintsPolicy honored"),
])
def test_node_taints_policy(policy, want):
    """Upstream TestSingleConstraint NodeTaintsPolicy cases: nodes with untolerated
    NoSchedule taints count only when the policy is Ignore."""
    incoming = pod(constraints=(hard(1, "node", node_taints_policy=policy),))
    nodes = [replace(node("node-a", node="node-a"), taints=(TAINT,)),
             node("node-b", node="node-b")]
    assert run_filter(incoming, nodes, placed("node-b:1")) == want


@pytest.mark.parametrize("policy, want", [
    # Honor (default): node-a fails the nodeSelector and is no domain: min 1.
    pytest.param(HONOR, {"node-a": S, "node-b": S}, id="NodeAffinityPolicy honored"),
    pytest.param(IGNORE, {"node-a": S, "node-b": U}, id="NodeAffinityPolicy ignored"),
])
def test_node_affinity_policy(policy, want):
    """Upstream TestSingleConstraint NodeAffinityPolicy cases."""
    incoming = pod(constraints=(hard(1, "node", node_affinity_policy=policy),),
                   node_selector={"pool": "b"})
    nodes = [node("node-a", node="node-a"), node("node-b", node="node-b", pool="b")]
    assert run_filter(incoming, nodes, placed("node-b:1")) == want


def test_prefilter_state_counts_and_minimum():
    """Upstream TestPreFilterState "normal case with two spreadConstraints": matching pods
    per domain (TpValueToMatchNum) and the global minimum (CriticalPaths[0])."""
    incoming = pod(constraints=(hard(1, "zone"), hard(1, "node")))
    plugin = PodTopologySpread()
    existing = [*placed("node-a:2 node-b:1 node-y:3"), *placed("node-x:1", labels={"bar": ""})]
    hard_state = plugin.prepare(incoming, node_infos(zone_nodes(), existing)).hard
    assert hard_state.counts == [{"zone1": 3, "zone2": 3},
                                 {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 3}]
    assert hard_state.mins == [3, 0]


def test_add_and_remove_pod():
    """Upstream TestPreFilterStateAddPod / RemovePod: only pods of the namespace that match
    count, on nodes carrying every key; the minimum follows."""
    incoming = pod(constraints=(hard(1, "zone"), hard(1, "node")))
    plugin = PodTopologySpread()
    nodes = [*zone_nodes(), node("node-z", node="node-z")]  # node-z has no zone
    infos = node_infos(nodes, placed("node-a:1 node-b:1"))
    summary = plugin.prepare(incoming, infos)
    a, _, x, _, z = infos
    plugin.add_pod(summary, incoming, pod("q1", node_name="node-x"), x)
    plugin.add_pod(summary, incoming, pod("q2", node_name="node-x", namespace="ns1"), x)
    plugin.add_pod(summary, incoming, pod("q3", node_name="node-x", labels={}), x)
    plugin.add_pod(summary, incoming, pod("q4", node_name="node-z"), z)
    assert summary.hard.counts == [{"zone1": 2, "zone2": 1},
                                   {"node-a": 1, "node-b": 1, "node-x": 1, "node-y": 0}]
    assert summary.hard.mins == [1, 0]
    copy = summary.copy()
    plugin.remove_pod(copy, incoming, placed("node-a:1")[0], a)
    assert copy.hard.counts[0] == {"zone1": 1, "zone2": 1}
    assert summary.hard.counts[0] == {"zone1": 2, "zone2": 1}  # the copy is independent


# -- scoring -------------------------------------------------------------------------------

def host_nodes(*names: str):
    return [make_node(n) for n in names]  # make_node sets kubernetes.io/hostname


def run_score(incoming, nodes, failed=(), existing=(), plugin=None) -> list[int]:
    """Scores of ``nodes`` (the feasible ones); ``failed`` nodes exist and hold pods."""
    plugin = plugin or PodTopologySpread()
    infos = node_infos([*nodes, *failed], existing)
    feasible = infos[:len(nodes)]
    state = CycleState({plugin.name: plugin.prepare(incoming, infos)})
    assert plugin.pre_score(state, incoming)
    scores = [plugin.score(state, incoming, info) for info in feasible]
    plugin.normalize_score(state, incoming, scores, feasible)
    return scores


ABCD = ("node-a", "node-b", "node-c", "node-d")


@pytest.mark.parametrize("incoming, nodes, failed, existing, want", [
    pytest.param(pod(constraints=(soft(1, HOSTNAME),)), host_nodes("node-a", "node-b"), (),
                 (), [100, 100], id="one constraint on node, no existing pods"),
    pytest.param(pod(constraints=(soft(1, HOSTNAME),)), host_nodes("node-a"),
                 host_nodes("node-b"), placed("node-a:2 node-b:1"), [100],
                 id="one constraint on node, only one node is candidate"),
    pytest.param(pod(constraints=(soft(1, HOSTNAME),)), host_nodes("node-a", "node-b"), (),
                 placed("node-a:1 node-b:1"), [100, 100],
                 id="one constraint on node, all nodes have the same number of matching pods"),
    # weight ln(4 + 2) = 1.79: raw 2w=3.58->4, w->2, 0, 3w=5.38->5; 100 * (5 + 0 - s) / 5.
    pytest.param(pod(constraints=(soft(1, HOSTNAME),)), host_nodes(*ABCD), (),
                 placed("node-a:2 node-b:1 node-d:3"), [20, 60, 100, 0],
                 id="one constraint on node, all 4 nodes are candidates"),
    pytest.param(pod(constraints=(soft(1, HOSTNAME, None),)), host_nodes(*ABCD), (),
                 placed("node-a:2 node-b:1 node-d:3"), [100, 100, 100, 100],
                 id="one constraint on node, null selector"),
    # + maxSkew - 1 = 1: raw 5, 3, 1, 6; 100 * (7 - s) / 6.
    pytest.param(pod(constraints=(soft(2, HOSTNAME),)), host_nodes(*ABCD), (),
                 placed("node-a:2 node-b:1 node-d:3"), [33, 66, 100, 16],
                 id="one constraint on node, all 4 nodes are candidates, maxSkew=2"),
    # + 2: raw 4w+2=9.17->9, 3w+2->7, 2w+2=5.58->6, w+2=3.79->4; 100 * (13 - s) / 9.
    pytest.param(pod(constraints=(soft(3, HOSTNAME),)), host_nodes(*ABCD), (),
                 placed("node-a:4 node-b:3 node-c:2 node-d:1"), [44, 66, 77, 100],
                 id="one constraint on node, all 4 nodes are candidates, maxSkew=3"),
    # 4/2/1/~3~, w = ln(5): raw 6.44->6, 3.22->3, 1.61->2; 100 * (8 - s) / 6.
    pytest.param(pod(constraints=(soft(1, HOSTNAME),)),
                 host_nodes("node-a", "node-b", "node-x"), host_nodes("node-y"),
                 placed("node-a:4 node-b:2 node-x:1 node-y:3"), [33, 83, 100],
                 id="one constraint on node, 3 out of 4 nodes are candidates"),
    # node-b lacks the hostname label: ignored (0), w = ln(2 + 2): a 4w=5.55->6, x 1.39->1.
    pytest.param(pod(constraints=(soft(1, HOSTNAME),)),
                 [make_node("node-a"), node("node-b", n="node-b"), make_node("node-x")],
                 host_nodes("node-y"), placed("node-a:4 node-b:2 node-x:1 node-y:3"),
                 [16, 0, 100],
                 id="one constraint on node, 3 out of 4 nodes are candidates, "
                    "one node doesn't match topology key"),
    # zone1 = 6, zone2 = 4 (node-y counts though not feasible); w = ln(2 + 2):
    # 8.32->8, 5.55->6; 100 * (14 - s) / 8.
    pytest.param(pod(constraints=(soft(1, "zone"),)),
                 [make_node("node-a", labels={"zone": "zone1"}),
                  make_node("node-b", labels={"zone": "zone1"}),
                  make_node("node-x", labels={"zone": "zone2"})],
                 [make_node("node-y", labels={"zone": "zone2"})],
                 placed("node-a:4 node-b:2 node-x:1 node-y:3"), [75, 75, 100],
                 id="one constraint on zone, 3 out of 4 nodes are candidates"),
    # zone1 = 3, zone2 = 6, both weights ln 4 = 1.386: a 4.16 + 2.77 -> 7,
    # x 8.32 + 2.77 -> 11; 100 * (18 - s) / 11.
    pytest.param(pod(constraints=(soft(1, "zone"), soft(1, HOSTNAME))),
                 [make_node("node-a", labels={"zone": "zone1"}),
                  make_node("node-x", labels={"zone": "zone2"})],
                 [make_node("node-b", labels={"zone": "zone1"}),
                  make_node("node-y", labels={"zone": "zone2"})],
                 placed("node-a:2 node-b:1 node-x:2 node-y:4"), [100, 63],
                 id="two Constraints on zone and node, 2 out of 4 nodes are candidates"),
])
def test_score(incoming, nodes, failed, existing, want):
    """Upstream TestPodTopologySpreadScore."""
    assert run_score(incoming, nodes, failed, existing) == want


FOO_EMPTY = LabelSelector((Requirement("foo", "In", ("",)),))


def test_system_default_constraints_score_like_a_hostname_constraint():
    """Upstream TestPodTopologySpreadScore "system defaulting, nodes don't have zone, pods
    match service": without zone labels only the hostname default (maxSkew 3) scores, so
    the scores equal the maxSkew=3 case: 44, 66, 77, 100."""
    incoming = pod(default_spread_selector=FOO_EMPTY)
    existing = placed("node-a:4 node-b:3 node-c:2 node-d:1")
    assert run_score(incoming, host_nodes(*ABCD), (), existing, new({})) == [44, 66, 77, 100]


def test_pre_score_state_system_defaults_keep_nodes_without_zone():
    """Upstream TestPreScoreStateEmptyNodes "system default constraints and a replicaset":
    the defaults are hostname maxSkew 3 and zone maxSkew 5, and nodes without a zone are
    not ignored (with listed or the pod's own constraints they would be)."""
    assert [(c.topology_key, c.max_skew, c.when_unsatisfiable)
            for c in SYSTEM_DEFAULT_CONSTRAINTS] == [
        (HOSTNAME, 3, SCHEDULE_ANYWAY), ("topology.kubernetes.io/zone", 5, SCHEDULE_ANYWAY)]
    incoming = pod(default_spread_selector=FOO_EMPTY)
    zone = {"topology.kubernetes.io/zone": "mars"}
    nodes = [make_node("node-a", labels=zone), make_node("node-b", labels=zone),
             make_node("node-c"), make_node("node-d")]
    infos = node_infos(nodes)
    soft_state = new({}).prepare(incoming, infos).soft
    assert [c.selector for c in soft_state.constraints] == [FOO_EMPTY, FOO_EMPTY]
    # No pods: every node scores 0 + (3 - 1) [+ (5 - 1) with a zone], none is ignored.
    assert soft_state.scores(infos) == [6, 6, 2, 2]
    listed = new({"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 3, "topologyKey": HOSTNAME, "whenUnsatisfiable": SCHEDULE_ANYWAY},
        {"maxSkew": 5, "topologyKey": "topology.kubernetes.io/zone",
         "whenUnsatisfiable": SCHEDULE_ANYWAY}]})
    assert listed.prepare(incoming, infos).soft.scores(infos) == [6, 6, None, None]


def test_pre_score_state_ignored_nodes():
    """Upstream TestPreScoreStateEmptyNodes "node-x doesn't have label zone": node-x is
    ignored and scores 0 after normalisation."""
    incoming = pod(constraints=(soft(1, "zone"), soft(1, HOSTNAME, BAR)))
    nodes = [make_node("node-a", labels={"zone": "zone1"}),
             make_node("node-b", labels={"zone": "zone1"}), make_node("node-x")]
    assert run_score(incoming, nodes) == [100, 100, 0]


def test_default_constraints_from_args_split_by_action():
    """Upstream TestPreScoreStateEmptyNodes "default constraints and a replicaset": listed
    defaults take the pod's default selector; DoNotSchedule ones filter, ScheduleAnyway
    ones score; a pod with its own constraints ignores the defaults."""
    plugin = new({"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": HOSTNAME, "whenUnsatisfiable": SCHEDULE_ANYWAY},
        {"maxSkew": 2, "topologyKey": "rack", "whenUnsatisfiable": DO_NOT_SCHEDULE},
        {"maxSkew": 2, "topologyKey": "planet", "whenUnsatisfiable": SCHEDULE_ANYWAY}]})
    infos = node_infos([make_node("node-a", labels={"rack": "rack1", "planet": "mars"})])
    summary = plugin.prepare(pod(default_spread_selector=FOO), infos)
    assert [(c.topology_key, c.selector) for c in summary.hard.constraints] == [("rack", FOO)]
    assert [(c.topology_key, c.selector) for c in summary.soft.constraints] == [
        (HOSTNAME, FOO), ("planet", FOO)]
    own = plugin.prepare(pod(default_spread_selector=FOO,
                             constraints=(soft(2, "planet", BAR),)), infos)
    assert own.hard is None
    assert [(c.topology_key, c.selector) for c in own.soft.constraints] == [("planet", BAR)]


@pytest.mark.parametrize("args, incoming", [
    pytest.param({"defaultingType": "List"}, pod(default_spread_selector=FOO),
                 id="the pod doesn't have soft topology spread Constraints"),
    pytest.param({}, pod(), id="default constraints and a replicaset that doesn't match"),
])
def test_pre_score_skip(args, incoming):
    """Upstream TestPreScoreSkip: nothing to spread -> the plugin is skipped for the pod
    (``prepare`` returns None). No selector comes from a controller that does not exist
    (see tests/load/test_spread_selectors.py)."""
    assert new(args).prepare(incoming, node_infos([make_node("node-a")])) is None


@pytest.mark.parametrize("args, field", [
    ({"defaultingType": "Other"}, "PodTopologySpread.args.defaultingType"),
    ({"defaultConstraints": [{"maxSkew": 1, "topologyKey": "k",
                              "whenUnsatisfiable": SCHEDULE_ANYWAY}]},
     "PodTopologySpread.args.defaultingType"),
    ({"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 0, "topologyKey": "k", "whenUnsatisfiable": SCHEDULE_ANYWAY}]},
     "PodTopologySpread.args.defaultConstraints[0].maxSkew"),
    ({"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": "", "whenUnsatisfiable": SCHEDULE_ANYWAY}]},
     "PodTopologySpread.args.defaultConstraints[0].topologyKey"),
    ({"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": "k", "whenUnsatisfiable": "Sometimes"}]},
     "PodTopologySpread.args.defaultConstraints[0].whenUnsatisfiable"),
    ({"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": "k", "whenUnsatisfiable": SCHEDULE_ANYWAY,
         "labelSelector": {}}]},
     "PodTopologySpread.args.defaultConstraints[0].labelSelector"),
    ({"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": "k", "whenUnsatisfiable": SCHEDULE_ANYWAY},
        {"maxSkew": 2, "topologyKey": "k", "whenUnsatisfiable": SCHEDULE_ANYWAY}]},
     "PodTopologySpread.args.defaultConstraints[1]"),
])
def test_invalid_args(args, field):
    """Upstream TestValidatePodTopologySpreadArgs: System defaulting with listed
    constraints, bad maxSkew / topologyKey / whenUnsatisfiable, a selector, a repeated
    (topologyKey, whenUnsatisfiable) pair."""
    with pytest.raises(ProfileError) as err:
        new(args)
    assert err.value.field == field


def test_args_defaults():
    """kubescheduler.config.k8s.io/v1 defaults defaultingType to System; List without
    constraints spreads nothing by default."""
    assert new({}).default_constraints == SYSTEM_DEFAULT_CONSTRAINTS
    assert new({"defaultingType": "List"}).default_constraints == ()
