"""InterPodAffinity: required (anti-)affinity filter, preferred (anti-)affinity score.

Upstream: kubernetes/kubernetes ``pkg/scheduler/framework/plugins/interpodaffinity/``
``filtering_test.go`` (TestRequiredAffinitySingleNode, TestRequiredAffinityMultipleNodes,
TestPreFilterStateAddRemovePod, TestPreFilterStateClone,
TestGetTPMapMatchingIncomingAffinityAntiAffinity) and ``scoring_test.go``
(TestPreferredAffinity, TestPreferredAffinityWithHardPodAffinitySymmetricWeight), case by
case; ids are upstream's case names. Left out: the rows with label values the API server
rejects ("{{.bad-value.}}"), which tasplan never sees as valid input. Upstream's default
namespace "" is "default" here. Expected values are upstream's, re-derived by hand in the
comments where the arithmetic is not obvious.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tasplan.errors import ProfileError
from tasplan.framework.status import Code, Status
from tasplan.framework.types import CycleState
from tasplan.model.pod_affinity import (
    LabelSelector,
    PodAffinity,
    PodAffinityTerm,
    WeightedPodAffinityTerm,
)
from tasplan.model.selectors import Requirement
from tasplan.plugins.inter_pod_affinity import (
    ERR_REASON_AFFINITY_RULES,
    ERR_REASON_ANTI_AFFINITY_RULES,
    ERR_REASON_EXISTING_ANTI_AFFINITY,
    InterPodAffinity,
    new,
)
from tests.builders import make_node, make_pod, node_infos, snapshot

AFFINITY = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_AFFINITY_RULES,))
ANTI = Status(Code.UNSCHEDULABLE, (ERR_REASON_ANTI_AFFINITY_RULES,))
EXISTING = Status(Code.UNSCHEDULABLE, (ERR_REASON_EXISTING_ANTI_AFFINITY,))
SKIP = "skip"
MAX = 100

# upstream scoring_test.go `namespaces`
NAMESPACES = {
    "subteam1.team1": {"team": "team1"},
    "subteam2.team1": {"team": "team1"},
    "subteam1.team2": {"team": "team2"},
    "subteam2.team2": {"team": "team2"},
}


# -- builders ------------------------------------------------------------------------------


def r(key: str, op: str, *values: str) -> Requirement:
    return Requirement(key, op, values)


def term(topology: str, *reqs: Requirement, namespaces: tuple[str, ...] = (),
         ns_selector: LabelSelector | None = None) -> PodAffinityTerm:
    """No namespaces and no namespaceSelector: the owning pod's namespace (filled by pod())."""
    return PodAffinityTerm(LabelSelector(reqs), topology, frozenset(namespaces), ns_selector)


def weighted(weight: int, t: PodAffinityTerm) -> WeightedPodAffinityTerm:
    return WeightedPodAffinityTerm(weight, t)


def affinity(required=(), preferred=(), required_anti=(), preferred_anti=()) -> PodAffinity:
    return PodAffinity(tuple(required), tuple(preferred), tuple(required_anti),
                       tuple(preferred_anti))


def _own_namespace(t: PodAffinityTerm, namespace: str) -> PodAffinityTerm:
    if t.namespaces or t.namespace_selector is not None:
        return t
    return replace(t, namespaces=frozenset((namespace,)))


def pod(labels: dict | None = None, *, ns: str = "default", node: str = "",
        aff: PodAffinity | None = None, name: str = "p", group: str | None = None):
    """A pod as the decoder makes it: terms without namespaces get the pod's own."""
    if aff is not None:
        def fill(terms):
            return tuple(_own_namespace(t, ns) for t in terms)

        def fill_w(terms):
            return tuple(WeightedPodAffinityTerm(w.weight, _own_namespace(w.term, ns))
                         for w in terms)

        aff = PodAffinity(fill(aff.required), fill_w(aff.preferred), fill(aff.required_anti),
                          fill_w(aff.preferred_anti))
    return replace(make_pod(name, 0, namespace=ns, node=node, group=group),
                   labels=dict(labels or {}), pod_affinity=aff)


def node(name: str, labels: dict):
    """Exactly the row's labels (make_node would add kubernetes.io/hostname)."""
    return replace(make_node(name), labels=dict(labels))


def plugin_for(nodes, pods, incoming, namespaces=None, **kw) -> InterPodAffinity:
    plugin = InterPodAffinity(**kw)
    snap = replace(snapshot(nodes, [*pods, incoming]), namespaces=namespaces or {})
    plugin.bind_snapshot(snap)
    return plugin


def run_filter(incoming, pods, nodes, namespaces=None):
    """SKIP when prepare skips (upstream PreFilter Skip), else the Filter status per node."""
    infos = node_infos(nodes, pods)
    plugin = plugin_for(nodes, pods, incoming, namespaces)
    summary = plugin.prepare(incoming, infos)
    if summary is None:
        return SKIP
    state = CycleState({plugin.name: summary})
    return [plugin.filter(state, incoming, info) for info in infos]


def run_score(incoming, pods, nodes, namespaces=NAMESPACES, **kw):
    """SKIP when prepare or pre_score skips, else the normalised scores of every node."""
    infos = node_infos(nodes, pods)
    plugin = plugin_for(nodes, pods, incoming, namespaces, **kw)
    summary = plugin.prepare(incoming, infos)
    if summary is None:
        return SKIP
    state = CycleState({plugin.name: summary})
    if not plugin.pre_score(state, incoming):
        return SKIP
    scores = [plugin.score(state, incoming, info) for info in infos]
    plugin.normalize_score(state, incoming, scores, infos)
    return scores


# -- TestRequiredAffinitySingleNode --------------------------------------------------------

POD_LABEL = {"service": "securityscan"}
POD_LABEL2 = {"security": "S1"}
NODE1 = node("node1", {"region": "r1", "zone": "z11"})
EXISTING_POD = pod(POD_LABEL, node="node1", name="existing")
IN_SECURITYSCAN = r("service", "In", "securityscan", "value2")
IN_ANTIVIRUS = r("service", "In", "antivirusscan", "value2")
TEAM1 = LabelSelector((r("team", "In", "team1"),))


def _single(incoming, pods, want, nodes=(NODE1,), namespaces=None, id=""):
    return pytest.param(incoming, pods, list(nodes), namespaces, want, id=id)


@pytest.mark.parametrize(("incoming", "pods", "nodes", "namespaces", "want"), [
    _single(pod(), [], SKIP,
            id="A pod that has no required pod affinity scheduling rules can schedule onto a "
               "node with no existing pods"),
    _single(pod(POD_LABEL2, aff=affinity([term("region", IN_SECURITYSCAN)])), [EXISTING_POD],
            [None],
            id="satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity "
               "using In operator that matches the existing pod"),
    _single(pod(POD_LABEL2, aff=affinity([term("region", r("service", "NotIn",
                                                          "securityscan3", "value3"))])),
            [EXISTING_POD], [None],
            id="satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in "
               "PodAffinity using not in operator in labelSelector that matches the existing "
               "pod"),
    _single(pod(POD_LABEL2, aff=affinity([term("", IN_SECURITYSCAN,
                                               namespaces=("DiffNameSpace",))])),
            [pod(POD_LABEL, ns="ns", node="node1")], [AFFINITY],
            id="Does not satisfy the PodAffinity with labelSelector because of diff Namespace"),
    _single(pod(POD_LABEL, aff=affinity([term("", IN_ANTIVIRUS)])), [EXISTING_POD], [AFFINITY],
            id="Doesn't satisfy the PodAffinity because of unmatching labelSelector with the "
               "existing pod"),
    _single(pod(POD_LABEL2, aff=affinity([
        term("region", r("service", "Exists"), r("wrongkey", "DoesNotExist")),
        term("region", r("service", "In", "securityscan"),
             r("service", "NotIn", "WrongValue"))])),
            [EXISTING_POD], [None],
            id="satisfies the PodAffinity with different label Operators in multiple "
               "RequiredDuringSchedulingIgnoredDuringExecution "),
    _single(pod(POD_LABEL2, aff=affinity([
        term("region", r("service", "Exists"), r("wrongkey", "DoesNotExist")),
        term("region", r("service", "In", "securityscan2"),
             r("service", "NotIn", "WrongValue"))])),
            [EXISTING_POD], [AFFINITY],
            id="The labelSelector requirements(items of matchExpressions) are ANDed, the pod "
               "cannot schedule onto the node because one of the matchExpression item don't "
               "match."),
    _single(pod(POD_LABEL2, aff=affinity([term("region", IN_SECURITYSCAN)],
                                         required_anti=[term("node", IN_ANTIVIRUS)])),
            [EXISTING_POD], [None],
            id="satisfies the PodAffinity and PodAntiAffinity with the existing pod"),
    _single(pod(POD_LABEL2, aff=affinity([term("region", IN_SECURITYSCAN)],
                                         required_anti=[term("node", IN_ANTIVIRUS)])),
            [pod(POD_LABEL, node="node1", aff=affinity(required_anti=[
                term("node", IN_ANTIVIRUS)]))], [None],
            id="satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry "
               "with the existing pod"),
    _single(pod(POD_LABEL2, aff=affinity([term("region", IN_SECURITYSCAN)],
                                         required_anti=[term("zone", IN_SECURITYSCAN)])),
            [EXISTING_POD], [ANTI],
            id="satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the "
               "existing pod"),
    _single(pod(POD_LABEL, aff=affinity([term("region", IN_SECURITYSCAN)],
                                        required_anti=[term("node", IN_ANTIVIRUS)])),
            [pod(POD_LABEL, node="node1", aff=affinity(required_anti=[
                term("zone", IN_SECURITYSCAN)]))], [EXISTING],
            id="satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy "
               "PodAntiAffinity symmetry with the existing pod"),
    # Upstream binds the other pod to a node2 absent from the snapshot; a node2 without the
    # region label is the same here: the pod does not match the NotIn term either way.
    _single(pod(POD_LABEL, aff=affinity([term("region", r("service", "NotIn", "securityscan",
                                                          "value2"))])),
            [pod({"service": "securityscan"}, node="node2")], [AFFINITY, AFFINITY],
            nodes=(NODE1, node("node2", {})),
            id="pod matches its own Label in PodAffinity and that matches the existing pod "
               "Labels"),
    _single(pod(POD_LABEL), [pod(POD_LABEL, node="node1", aff=affinity(
        required_anti=[term("zone", IN_SECURITYSCAN)]))], [EXISTING],
            id="verify that PodAntiAffinity from existing pod is respected when pod has no "
               "AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the "
               "existing pod"),
    _single(pod(POD_LABEL), [pod(POD_LABEL, node="node1", aff=affinity(
        required_anti=[term("zone", r("service", "NotIn", "securityscan", "value2"))]))], SKIP,
            id="verify that PodAntiAffinity from existing pod is respected when pod has no "
               "AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing "
               "pod"),
    _single(pod(POD_LABEL, aff=affinity(required_anti=[
        term("region", r("service", "Exists")), term("region", r("security", "Exists"))])),
            [pod(POD_LABEL2, node="node1", aff=affinity(required_anti=[
                term("zone", r("security", "Exists"))]))], [ANTI],
            id="satisfies the PodAntiAffinity with existing pod but doesn't satisfy "
               "PodAntiAffinity symmetry with incoming pod"),
    _single(pod(POD_LABEL, aff=affinity(required_anti=[
        term("zone", r("service", "Exists")), term("zone", r("security", "Exists"))])),
            [pod(POD_LABEL2, node="node1", aff=affinity(required_anti=[
                term("zone", r("security", "Exists"))]))], [ANTI],
            id="PodAntiAffinity symmetry check a1: incoming pod and existing pod partially "
               "match each other on AffinityTerms"),
    _single(pod(POD_LABEL2, aff=affinity(required_anti=[term("zone", r("security", "Exists"))])),
            [pod(POD_LABEL, node="node1", aff=affinity(required_anti=[
                term("zone", r("service", "Exists")), term("zone", r("security", "Exists"))]))],
            [EXISTING],
            id="PodAntiAffinity symmetry check a2: incoming pod and existing pod partially "
               "match each other on AffinityTerms"),
    _single(pod({"abc": "", "xyz": ""}, aff=affinity(required_anti=[
        term("zone", r("abc", "Exists")), term("zone", r("def", "Exists"))])),
            [pod({"def": "", "xyz": ""}, node="node1", aff=affinity(required_anti=[
                term("zone", r("abc", "Exists")), term("zone", r("def", "Exists"))]))],
            [ANTI],
            id="PodAntiAffinity symmetry check b1: incoming pod and existing pod partially "
               "match each other on AffinityTerms"),
    _single(pod({"def": "", "xyz": ""}, aff=affinity(required_anti=[
        term("zone", r("abc", "Exists")), term("zone", r("def", "Exists"))])),
            [pod({"abc": "", "xyz": ""}, node="node1", aff=affinity(required_anti=[
                term("zone", r("abc", "Exists")), term("zone", r("def", "Exists"))]))],
            [ANTI],
            id="PodAntiAffinity symmetry check b2: incoming pod and existing pod partially "
               "match each other on AffinityTerms"),
    _single(pod(POD_LABEL2, aff=affinity([term("region", IN_SECURITYSCAN, ns_selector=TEAM1)])),
            [pod(POD_LABEL, ns="subteam1.team1", node="node1")], [None],
            namespaces=NAMESPACES, id="affinity with NamespaceSelector"),
    _single(pod(POD_LABEL2, aff=affinity([term("region", IN_SECURITYSCAN, ns_selector=TEAM1)])),
            [pod(POD_LABEL, ns="subteam1.team2", node="node1")], [AFFINITY],
            namespaces=NAMESPACES, id="affinity with non-matching NamespaceSelector"),
    _single(pod(POD_LABEL2, ns="subteam1.team1", aff=affinity(required_anti=[
        term("zone", IN_SECURITYSCAN, ns_selector=TEAM1)])),
            [pod(POD_LABEL, ns="subteam2.team1", node="node1")], [ANTI],
            namespaces=NAMESPACES, id="anti-affinity with matching NamespaceSelector"),
    _single(pod(POD_LABEL2, ns="subteam1.team1", aff=affinity(required_anti=[
        term("zone", IN_SECURITYSCAN, ns_selector=LabelSelector())])),
            [pod(POD_LABEL, ns="subteam2.team1", node="node1")], [ANTI],
            namespaces=NAMESPACES, id="anti-affinity with matching all NamespaceSelector"),
    _single(pod(POD_LABEL2, ns="subteam1.team1", aff=affinity(required_anti=[
        term("zone", IN_SECURITYSCAN, ns_selector=TEAM1)])),
            [pod(POD_LABEL, ns="subteam1.team2", node="node1")], [None],
            namespaces=NAMESPACES, id="anti-affinity with non-matching NamespaceSelector"),
])
def test_required_affinity_single_node(incoming, pods, nodes, namespaces, want):
    """upstream: TestRequiredAffinitySingleNode"""
    assert run_filter(incoming, pods, nodes, namespaces) == want


# -- TestRequiredAffinityMultipleNodes -----------------------------------------------------

RG_CHINA = {"region": "China"}
RG_CHINA_AZ1 = {"region": "China", "az": "az1"}
RG_INDIA = {"region": "India"}


def _r1(zone):
    return lambda name: node(name, {"region": "r1", "zone": zone, "hostname": name})


def _multi(incoming, pods, nodes, want, id):
    return pytest.param(incoming, pods, nodes, want, id=id)


def _exists(topology, key):
    return term(topology, r(key, "Exists"))


@pytest.mark.parametrize(("incoming", "pods", "nodes", "want"), [
    _multi(pod(aff=affinity([term("region", r("foo", "In", "bar"))])),
           [pod({"foo": "bar"}, node="node1")],
           [node("node1", RG_CHINA), node("node2", RG_CHINA_AZ1), node("node3", RG_INDIA)],
           [None, None, AFFINITY],
           id="A pod can be scheduled onto all the nodes that have the same topology key & "
              "label value with one of them has an existing pod that matches the affinity "
              "rules"),
    _multi(pod({"foo": "bar", "service": "securityscan"}, aff=affinity([
        term("zone", r("foo", "In", "bar")), term("zone", r("service", "In", "securityscan"))])),
           [pod({"foo": "bar"}, node="nodeA")],
           [node("nodeA", {"zone": "az1", "hostname": "h1"}),
            node("nodeB", {"zone": "az2", "hostname": "h2"})],
           [None, None],
           id="The affinity rule is to schedule all of the pods of this collection to the same "
              "zone. The first pod of the collection should not be blocked from being "
              "scheduled onto any node, even there's no existing pod that matches the rule "
              "anywhere."),
    _multi(pod({"foo": "bar", "service": "securityscan"}, aff=affinity([
        term("zone", r("foo", "In", "bar")), term("zone", r("service", "In", "securityscan"))])),
           [pod({"foo": "bar"}, node="nodeA")],
           [node("nodeA", {"zoneLabel": "az1", "hostname": "h1"}),
            node("nodeB", {"zoneLabel": "az2", "hostname": "h2"})],
           [AFFINITY, AFFINITY],
           id="The first pod of the collection can only be scheduled on nodes labelled with "
              "the requested topology keys"),
    _multi(pod(aff=affinity(required_anti=[term("region", r("foo", "In", "abc"))])),
           [pod({"foo": "abc"}, node="nodeA")],
           [node("nodeA", {"region": "r1", "hostname": "nodeA"}),
            node("nodeB", {"region": "r1", "hostname": "nodeB"})],
           [ANTI, ANTI],
           id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod "
              "that matches the inter pod affinity rule. The pod can not be scheduled onto "
              "nodeA and nodeB."),
    _multi(pod(aff=affinity(required_anti=[term("region", r("foo", "In", "abc")),
                                           term("zone", r("service", "In", "securityscan"))])),
           [pod({"foo": "abc", "service": "securityscan"}, node="nodeA")],
           [_r1("z1")("nodeA"), _r1("z2")("nodeB")],
           [ANTI, ANTI],
           id="This test ensures that anti-affinity matches a pod when any term of the "
              "anti-affinity rule matches a pod."),
    _multi(pod(aff=affinity(required_anti=[term("region", r("foo", "In", "abc"))])),
           [pod({"foo": "abc"}, node="nodeA")],
           [node("nodeA", RG_CHINA), node("nodeB", RG_CHINA_AZ1), node("nodeC", RG_INDIA)],
           [ANTI, ANTI, None],
           id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod "
              "that matches the inter pod affinity rule. The pod can not be scheduled onto "
              "nodeA and nodeB but can be scheduled onto nodeC"),
    _multi(pod({"foo": "123"}, ns="NS1", aff=affinity(required_anti=[
        term("region", r("foo", "In", "bar"))])),
           [pod({"foo": "bar"}, ns="NS1", node="nodeA"),
            pod(ns="NS2", node="nodeC", aff=affinity(required_anti=[
                term("region", r("foo", "In", "123"))]))],
           [node("nodeA", RG_CHINA), node("nodeB", RG_CHINA_AZ1), node("nodeC", RG_INDIA)],
           [ANTI, ANTI, None],
           id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod "
              "that matches the inter pod affinity rule. The pod can not be scheduled onto "
              "nodeA, nodeB, but can be scheduled onto nodeC (NodeC has an existing pod that "
              "match the inter pod affinity rule but in different namespace)"),
    _multi(pod({"foo": ""}),
           [pod(node="nodeA", aff=affinity(required_anti=[
               _exists("invalid-node-label", "foo")]))],
           [_r1("z1")("nodeA"), _r1("z1")("nodeB")],
           SKIP,
           id="Test existing pod's anti-affinity: if an existing pod has a term with invalid "
              "topologyKey, labelSelector of the term is firstly checked, and then topologyKey "
              "of the term is also checked"),
    _multi(pod(aff=affinity(required_anti=[_exists("invalid-node-label", "foo")])),
           [pod({"foo": ""}, node="nodeA")],
           [_r1("z1")("nodeA"), _r1("z1")("nodeB")],
           [None, None],
           id="Test incoming pod's anti-affinity: even if labelSelector matches, we still check "
              "if topologyKey matches"),
    _multi(pod({"foo": "", "bar": ""}),
           [pod(node="nodeA", aff=affinity(required_anti=[_exists("zone", "foo")])),
            pod(node="nodeA", aff=affinity(required_anti=[_exists("region", "bar")]))],
           [_r1("z1")("nodeA"), _r1("z2")("nodeB")],
           [EXISTING, EXISTING],
           id="Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as "
              "it violates each existingPod's terms on all nodes"),
    _multi(pod(aff=affinity(required_anti=[_exists("zone", "foo"), _exists("region", "bar")])),
           [pod({"foo": ""}, node="nodeA"), pod({"bar": ""}, node="nodeB")],
           [_r1("z1")("nodeA"), _r1("z2")("nodeB")],
           [ANTI, ANTI],
           id="Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as "
              "it at least violates one anti-affinity rule of existingPod"),
    _multi(pod({"foo": "", "bar": ""}),
           [pod(node="nodeA", aff=affinity(required_anti=[
               _exists("invalid-node-label", "foo"), _exists("zone", "bar")]))],
           [_r1("z1")("nodeA"), _r1("z2")("nodeB")],
           [EXISTING, None],
           id="Test existing pod's anti-affinity: only when labelSelector and topologyKey both "
              "match, it's counted as a single term match - case when one term has invalid "
              "topologyKey"),
    _multi(pod(aff=affinity(required_anti=[_exists("invalid-node-label", "foo"),
                                           _exists("zone", "bar")])),
           [pod({"foo": "", "bar": ""}, node="nodeA")],
           [_r1("z1")("nodeA"), _r1("z2")("nodeB")],
           [ANTI, None],
           id="Test incoming pod's anti-affinity: only when labelSelector and topologyKey both "
              "match, it's counted as a single term match - case when one term has invalid "
              "topologyKey"),
    _multi(pod({"foo": "", "bar": ""}),
           [pod(node="nodeA", aff=affinity(required_anti=[_exists("region", "foo"),
                                                          _exists("zone", "bar")]))],
           [_r1("z1")("nodeA"), _r1("z2")("nodeB")],
           [EXISTING, EXISTING],
           id="Test existing pod's anti-affinity: only when labelSelector and topologyKey both "
              "match, it's counted as a single term match - case when all terms have valid "
              "topologyKey"),
    _multi(pod(aff=affinity(required_anti=[_exists("region", "foo"), _exists("zone", "bar")])),
           [pod({"foo": "", "bar": ""}, node="nodeA")],
           [_r1("z1")("nodeA"), _r1("z2")("nodeB")],
           [ANTI, ANTI],
           id="Test incoming pod's anti-affinity: only when labelSelector and topologyKey both "
              "match, it's counted as a single term match - case when all terms have valid "
              "topologyKey"),
    _multi(pod({"foo": "", "bar": ""}),
           [pod(node="nodeA", aff=affinity(required_anti=[_exists("zone", "foo"),
                                                          _exists("zone", "labelA")])),
            pod(node="nodeB", aff=affinity(required_anti=[_exists("zone", "bar"),
                                                          _exists("zone", "labelB")]))],
           [_r1("z1")("nodeA"), _r1("z2")("nodeB"), _r1("z3")("nodeC")],
           [EXISTING, EXISTING, None],
           id="Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least "
              "one anti-affinity term matches incoming pod, so incoming pod can only be "
              "scheduled to nodeC"),
    _multi(pod(aff=affinity([_exists("region", "foo"), _exists("zone", "bar")])),
           [pod({"foo": "", "bar": ""}, node="nodeA")],
           [_r1("z1")("nodeA"), _r1("z1")("nodeB")],
           [None, None],
           id="Test incoming pod's affinity: firstly check if all affinityTerms match, and then "
              "check if all topologyKeys match"),
    _multi(pod(aff=affinity([_exists("region", "foo"), _exists("zone", "bar")])),
           [pod({"foo": ""}, node="nodeA"), pod({"bar": ""}, node="nodeB")],
           [_r1("z1")("nodeA"), _r1("z2")("nodeB")],
           [AFFINITY, AFFINITY],
           id="Test incoming pod's affinity: firstly check if all affinityTerms match, and then "
              "check if all topologyKeys match, and the match logic should be satisfied on the "
              "same pod"),
])
def test_required_affinity_multiple_nodes(incoming, pods, nodes, want):
    """upstream: TestRequiredAffinityMultipleNodes"""
    assert run_filter(incoming, pods, nodes, {"NS1": {}}) == want


# -- TestPreFilterStateAddRemovePod, TestPreFilterStateClone -------------------------------

ANTI_FOO_BAR = [term("region", r("foo", "In", "bar"))]
COMPLEX = [term("region", r("foo", "In", "bar", "buzz")),
           term("zone", r("service", "NotIn", "bar", "security", "test"))]
ADD_REMOVE_NODES = [node("nodeA", {"region": "r1", "zone": "z11"}),
                    node("nodeB", {"region": "r1", "zone": "z12"}),
                    node("nodeC", {"region": "r2", "zone": "z21"})]


def _counts(s):
    return s.existing_anti, s.affinity, s.anti


@pytest.mark.parametrize(("pending", "existing", "added", "want_anti", "want_affinity"), [
    pytest.param(
        pod({"foo": "bar"}, aff=affinity(required_anti=ANTI_FOO_BAR)),
        [pod({"foo": "bar"}, node="nodeA", name="p1"),
         pod(node="nodeC", aff=affinity(required_anti=ANTI_FOO_BAR), name="p2")],
        pod({"foo": "bar"}, node="nodeB", aff=affinity(required_anti=ANTI_FOO_BAR),
            name="addedPod"),
        {("region", "r1"): 2}, {},
        id="preFilterState anti-affinity terms are updated correctly after adding and removing "
           "a pod"),
    # p1 {foo: bar} on nodeA matches both terms (NotIn holds without the label): region r1 and
    # zone z11; p2 without labels on nodeC matches the NotIn term: zone z21; the added pod on
    # nodeA adds region r1 and zone z11 again.
    pytest.param(
        pod({"foo": "bar"}, aff=affinity(required_anti=COMPLEX)),
        [pod({"foo": "bar"}, node="nodeA", name="p1"),
         pod(node="nodeC", aff=affinity(required_anti=ANTI_FOO_BAR), name="p2")],
        pod({"foo": "bar"}, node="nodeA", aff=affinity(required_anti=COMPLEX), name="addedPod"),
        {("region", "r1"): 2, ("zone", "z11"): 2, ("zone", "z21"): 1}, {},
        id="preFilterState anti-affinity terms are updated correctly after adding and removing "
           "a pod (complex)"),
    pytest.param(
        pod({"foo": "bar"}, aff=affinity(COMPLEX)),
        [pod({"foo": "bar"}, node="nodeA", name="p1"),
         pod(node="nodeC", aff=affinity(COMPLEX, required_anti=ANTI_FOO_BAR), name="p2")],
        pod({"foo": "bar"}, node="nodeA", aff=affinity(required_anti=COMPLEX), name="addedPod"),
        {}, {("region", "r1"): 2, ("zone", "z11"): 2},
        id="preFilterState matching pod affinity and anti-affinity are updated correctly after "
           "adding and removing a pod"),
])
def test_pre_filter_state_add_remove_pod(pending, existing, added, want_anti, want_affinity):
    """upstream: TestPreFilterStateAddRemovePod - adding a pod to the summary equals
    preparing with that pod placed; removing it again restores the summary."""
    plugin = InterPodAffinity()
    all_infos = node_infos(ADD_REMOVE_NODES, [*existing, added])
    all_pods = plugin.prepare(pending, all_infos)

    infos = node_infos(ADD_REMOVE_NODES, existing)
    summary = plugin.prepare(pending, infos)
    original = summary.copy()
    target = next(i for i in infos if i.name == added.node_name)
    plugin.add_pod(summary, pending, added, target)
    assert summary.anti == want_anti
    assert summary.affinity == want_affinity
    assert _counts(summary) == _counts(all_pods)
    plugin.remove_pod(summary, pending, added, target)
    assert _counts(summary) == _counts(original)


def test_add_pod_names_the_domains_it_changed():
    """tasplan-specific: the planner re-filters and re-scores only nodes in the domains
    add_pod returns - the added pod's node's values for the topology keys of both pods'
    terms - and every node when the first-pod rule may flip (affinity counts become
    non-empty)."""
    plugin = InterPodAffinity()
    infos = node_infos(ADD_REMOVE_NODES)
    pending = pod({"foo": "bar"}, aff=affinity(COMPLEX))
    summary = plugin.prepare(pending, infos)
    assert summary.self_match and not summary.affinity
    added = pod({"foo": "bar"}, node="nodeA", aff=affinity(required_anti=ANTI_FOO_BAR))
    assert plugin.add_pod(summary, pending, added, infos[0]) is None  # first match anywhere
    assert plugin.add_pod(summary, pending, added, infos[1]) == {("region", "r1"),
                                                               ("zone", "z12")}
    other = pod({"x": "y"}, node="nodeC")
    assert plugin.add_pod(summary, pending, other, infos[2]) == {("region", "r2"),
                                                               ("zone", "z21")}


def test_pre_filter_state_clone():
    """upstream: TestPreFilterStateClone - a copy is equal and independent."""
    plugin = InterPodAffinity()
    nodes = ADD_REMOVE_NODES
    pending = pod({"foo": "bar"}, aff=affinity(
        COMPLEX, required_anti=ANTI_FOO_BAR,
        preferred=[weighted(3, term("zone", r("foo", "Exists")))]))
    infos = node_infos(nodes, [pod({"foo": "bar"}, node="nodeA", aff=affinity(
        required_anti=ANTI_FOO_BAR))])
    source = plugin.prepare(pending, infos)
    assert source.existing_anti and source.affinity and source.anti and source.scores
    clone = source.copy()
    assert clone is not source
    assert (_counts(clone), clone.scores) == (_counts(source), source.scores)
    plugin.add_pod(clone, pending, pod({"foo": "bar"}, node="nodeC", aff=affinity(
        required_anti=ANTI_FOO_BAR)), infos[2])
    assert _counts(source) == ({("region", "r1"): 1}, {("region", "r1"): 1,
                                                       ("zone", "z11"): 1},
                               {("region", "r1"): 1})
    assert source.scores == {"zone": {"z11": 3}}


# -- TestGetTPMapMatchingIncomingAffinityAntiAffinity --------------------------------------

HOST_A = [node("nodeA", {"hostname": "nodeA"})]
ONE = {("hostname", "nodeA"): 1}


@pytest.mark.parametrize(("existing", "aff", "want_affinity", "want_anti"), [
    pytest.param({"bbb": ""}, affinity([_exists("hostname", "aaa")],
                                       required_anti=[_exists("hostname", "aaa")]), {}, {},
                 id="no pod has label that violates incoming pod's affinity and anti-affinity"),
    pytest.param({"aaa": ""}, affinity([_exists("hostname", "aaa")],
                                       required_anti=[_exists("hostname", "aaa")]), ONE, ONE,
                 id="existing pod matches incoming pod's affinity and anti-affinity - single "
                    "term case"),
    pytest.param({"aaa": "", "bbb": ""},
                 affinity([_exists("hostname", "aaa"), _exists("hostname", "bbb")],
                          required_anti=[_exists("hostname", "aaa")]),
                 {("hostname", "nodeA"): 2}, ONE,  # 2: one for each term
                 id="existing pod matches incoming pod's affinity and anti-affinity - multiple "
                    "terms case"),
    pytest.param({"aaa": ""},
                 affinity([_exists("hostname", "aaa"), _exists("hostname", "bbb")],
                          required_anti=[_exists("hostname", "aaa"),
                                         _exists("hostname", "bbb")]), {}, ONE,
                 id="existing pod not match incoming pod's affinity but matches anti-affinity"),
    pytest.param({"aaa": "", "bbb": ""},
                 affinity([_exists("hostname", "aaa"), _exists("hostname", "ccc")],
                          required_anti=[_exists("hostname", "aaa"),
                                         _exists("hostname", "ccc")]), {}, ONE,
                 id="incoming pod's anti-affinity has more than one term - existing pod violates "
                    "partial term - case 1"),
    pytest.param({"bbb": ""},
                 affinity([_exists("hostname", "aaa"), _exists("hostname", "bbb")],
                          required_anti=[_exists("hostname", "aaa"),
                                         _exists("hostname", "bbb")]), {}, ONE,
                 id="incoming pod's anti-affinity has more than one term - existing pod violates "
                    "partial term - case 2"),
])
def test_incoming_affinity_anti_affinity_counts(existing, aff, want_affinity, want_anti):
    """upstream: TestGetTPMapMatchingIncomingAffinityAntiAffinity"""
    infos = node_infos(HOST_A, [pod(existing, node="nodeA", name="normal")])
    summary = InterPodAffinity().prepare(pod(aff=aff), infos)
    assert (summary.affinity, summary.anti) == (want_affinity, want_anti)


def test_incoming_pod_without_terms_is_a_no_op():
    """upstream: TestGetTPMapMatchingIncomingAffinityAntiAffinity "nil test" and "incoming
    pod without affinity/anti-affinity causes a no-op": nothing to count, so nothing to do."""
    plugin = InterPodAffinity()
    assert plugin.prepare(pod(), node_infos(HOST_A)) is None
    assert plugin.prepare(pod(), node_infos(HOST_A, [pod({"aaa": ""}, node="nodeA")])) is None


# -- TestPreferredAffinity -----------------------------------------------------------------

S1 = {"security": "S1"}
S2 = {"security": "S2"}
AZ1 = {"az": "az1"}
AZ2 = {"az": "az2"}
STAY_S1_REGION = affinity(preferred=[weighted(5, term("region", r("security", "In", "S1")))])
STAY_S2_REGION = affinity(preferred=[weighted(6, term("region", r("security", "In", "S2")))])
AFFINITY3 = affinity(preferred=[
    weighted(8, term("region", r("security", "NotIn", "S1"), r("security", "In", "S2"))),
    weighted(2, term("region", r("security", "Exists"), r("wrongkey", "DoesNotExist")))])
HARD_AFFINITY = affinity([term("region", r("security", "In", "S1", "value2")),
                          term("region", r("security", "Exists"), r("wrongkey", "DoesNotExist"))])
AWAY_S1_AZ = affinity(preferred_anti=[weighted(5, term("az", r("security", "In", "S1")))])
AWAY_S2_AZ = affinity(preferred_anti=[weighted(5, term("az", r("security", "In", "S2")))])
STAY_S1_REGION_AWAY_S2_AZ = affinity(
    preferred=[weighted(8, term("region", r("security", "In", "S1")))],
    preferred_anti=[weighted(5, term("az", r("security", "In", "S2")))])
_NS_SELECTOR_TERM = term("region", r("security", "In", "S1"), namespaces=("subteam2.team2",),
                         ns_selector=TEAM1)
AFFINITY_NS_SELECTOR = affinity(preferred=[weighted(5, _NS_SELECTOR_TERM)])
ANTI_AFFINITY_NS_SELECTOR = affinity(preferred_anti=[weighted(5, _NS_SELECTOR_TERM)])


def _nodes(*labels):
    return [node(f"node{i}", lab) for i, lab in enumerate(labels, 1)]


def _on(*placements):
    """(node number, labels, affinity[, namespace]) -> bound pods."""
    out = []
    for k, (n, labels, aff, *ns) in enumerate(placements):
        out.append(pod(labels, node=f"node{n}", aff=aff, ns=ns[0] if ns else "default",
                       name=f"e{k}"))
    return out


@pytest.mark.parametrize(("incoming", "pods", "nodes", "want", "ignore"), [
    pytest.param(pod(S1), [], _nodes(RG_CHINA, RG_INDIA, AZ1), SKIP, False,
                 id="all nodes are same priority as Affinity is nil"),
    pytest.param(pod(S1, aff=STAY_S1_REGION),
                 _on((1, S1, None), (2, S2, None), (3, S1, None)),
                 _nodes(RG_CHINA, RG_INDIA, AZ1), [MAX, 0, 0], False,
                 id="Affinity: pod that matches topology key & pods in nodes will get high score "
                    "comparing to otherswhich doesn't match either pods in nodes or in topology "
                    "key"),
    pytest.param(pod(aff=STAY_S1_REGION), _on((1, S1, None)),
                 _nodes(RG_CHINA, RG_CHINA_AZ1, RG_INDIA), [MAX, MAX, 0], False,
                 id="All the nodes that have the same topology key & label value with one of "
                    "them has an existing pod that match the affinity rules, have the same "
                    "score"),
    # China: 4 matching pods x 6 = 24, India: 2 x 6 = 12.
    pytest.param(pod(S1, aff=STAY_S2_REGION),
                 _on((1, S2, None), (1, S2, None), (2, S2, None), (3, S2, None),
                     (4, S2, None), (5, S2, None)),
                 _nodes(RG_CHINA, RG_INDIA, RG_CHINA, RG_CHINA, RG_INDIA),
                 [MAX, 0, MAX, MAX, 0], False,
                 id="Affinity: nodes in one region has more matching pods comparing to other "
                    "region, so the region which has more matches will get high score"),
    # weight 8 matches the S2 pod (India); weight 2 matches every pod with a region: China 2,
    # India 8 + 2 = 10, node3 has no region: 0 -> 20, 100, 0.
    pytest.param(pod(S1, aff=AFFINITY3), _on((1, S1, None), (2, S2, None), (3, S1, None)),
                 _nodes(RG_CHINA, RG_INDIA, AZ1), [20, MAX, 0], False,
                 id="Affinity: different Label operators and values for pod affinity scheduling "
                    "preference, including some match failures "),
    pytest.param(pod(S2), _on((1, S1, STAY_S1_REGION), (2, S2, STAY_S2_REGION)),
                 _nodes(RG_CHINA, RG_INDIA, AZ1), [0, MAX, 0], False,
                 id="Affinity symmetry: considered only the "
                    "preferredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry"),
    pytest.param(pod(S1, ns="subteam1.team1"),
                 _on((1, S1, AFFINITY_NS_SELECTOR), (2, S2, STAY_S2_REGION)),
                 _nodes(RG_CHINA, RG_INDIA, AZ1), [MAX, 0, 0], False,
                 id="Affinity symmetry with namespace selector"),
    pytest.param(pod(S1, ns="subteam1.team1"),
                 _on((1, S1, ANTI_AFFINITY_NS_SELECTOR), (2, S2, STAY_S2_REGION)),
                 _nodes(RG_CHINA, RG_INDIA, AZ1), [0, MAX, MAX], False,
                 id="AntiAffinity symmetry with namespace selector"),
    pytest.param(pod(S1), _on((1, S1, HARD_AFFINITY), (2, S2, HARD_AFFINITY)),
                 _nodes(RG_CHINA, RG_INDIA, AZ1), [MAX, MAX, 0], False,
                 id="Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution "
                    "in pod affinity symmetry"),
    pytest.param(pod(S1, aff=AWAY_S1_AZ), _on((1, S1, None), (2, S2, None)),
                 _nodes(AZ1, RG_CHINA), [0, MAX], False,
                 id="Anti Affinity: pod that does not match existing pods in node will get high "
                    "score "),
    pytest.param(pod(S1, aff=AWAY_S1_AZ), _on((1, S1, None), (2, S1, None)),
                 _nodes(AZ1, RG_CHINA), [0, MAX], False,
                 id="Anti Affinity: pod that does not match topology key & match the pods in "
                    "nodes will get higher score comparing to others "),
    pytest.param(pod(S1, aff=AWAY_S1_AZ), _on((1, S1, None), (1, S1, None), (2, S2, None)),
                 _nodes(AZ1, RG_INDIA), [0, MAX], False,
                 id="Anti Affinity: one node has more matching pods comparing to other node, so "
                    "the node which has more unmatches will get high score"),
    pytest.param(pod(S2), _on((1, S1, AWAY_S2_AZ), (2, S2, AWAY_S1_AZ)),
                 _nodes(AZ1, AZ2), [0, MAX], False,
                 id="Anti Affinity symmetry: the existing pods in node which has anti affinity "
                    "match will get high score"),
    pytest.param(pod(S1, aff=STAY_S1_REGION_AWAY_S2_AZ), _on((1, S1, None), (2, S1, None)),
                 _nodes(RG_CHINA, AZ1), [MAX, 0], False,
                 id="Affinity and Anti Affinity: considered only "
                    "preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti "
                    "affinity"),
    pytest.param(pod(S1, aff=STAY_S1_REGION_AWAY_S2_AZ),
                 _on((1, S1, None), (1, S1, None), (2, S1, None), (3, S1, None),
                     (3, S1, None), (4, S1, None), (5, S1, None)),
                 _nodes(RG_CHINA_AZ1, RG_INDIA, RG_CHINA, RG_CHINA, RG_INDIA),
                 [MAX, 0, MAX, MAX, 0], False,
                 id="Affinity and Anti Affinity: considering both affinity and anti-affinity, the "
                    "pod to schedule and existing pods have the same labels"),
    # affinity 8, 0, 0, 0; anti-affinity 0, -5, 0, 0; symmetry 0, 0, 8, 0 and 0, 0, 0, -5.
    pytest.param(pod(S1, aff=STAY_S1_REGION_AWAY_S2_AZ),
                 _on((1, S1, None), (2, S2, None), (3, {}, STAY_S1_REGION_AWAY_S2_AZ),
                     (4, {}, AWAY_S1_AZ)),
                 _nodes(RG_CHINA, AZ1, RG_INDIA, AZ2), [MAX, 0, MAX, 0], False,
                 id="Affinity and Anti Affinity and symmetry: considered only "
                    "preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti "
                    "affinity & symmetry"),
    pytest.param(pod(S1), _on((1, S1, None), (2, {}, STAY_S1_REGION_AWAY_S2_AZ)),
                 _nodes(RG_CHINA, RG_CHINA), [0, 0], False,
                 id="Avoid panic when partial nodes in a topology don't have pods with affinity"),
    # China: two team1 pods x 5 = 10, India: one team1 pod = 5.
    pytest.param(pod(S1, ns="subteam1.team1", aff=AFFINITY_NS_SELECTOR),
                 _on((1, S1, None, "subteam1.team1"), (1, S1, None, "subteam1.team1"),
                     (1, S1, None, "subteam1.team2"), (2, S1, None, "subteam2.team1")),
                 _nodes(RG_CHINA, RG_INDIA), [MAX, 0], False,
                 id="Affinity with pods matching NamespaceSelector"),
    pytest.param(pod(S1, ns="subteam1.team1", aff=AFFINITY_NS_SELECTOR),
                 _on((1, S1, None, "subteam1.team1"), (1, S1, None, "subteam1.team1"),
                     (1, S1, None, "subteam2.team2"), (2, S1, None, "subteam2.team1")),
                 _nodes(RG_CHINA, RG_INDIA), [MAX, 0], False,
                 id="Affinity with pods matching both NamespaceSelector and Namespaces fields"),
    pytest.param(pod(S1, ns="subteam1.team1", aff=ANTI_AFFINITY_NS_SELECTOR),
                 _on((1, S1, None, "subteam1.team1"), (1, S1, None, "subteam1.team1"),
                     (1, S1, None, "subteam1.team2"), (2, S1, None, "subteam2.team1")),
                 _nodes(RG_CHINA, RG_INDIA), [0, MAX], False,
                 id="Affinity with pods matching NamespaceSelector (anti-affinity)"),
    pytest.param(pod(S1, ns="subteam1.team1", aff=ANTI_AFFINITY_NS_SELECTOR),
                 _on((1, S1, None, "subteam1.team1"), (1, S1, None, "subteam1.team1"),
                     (1, S1, None, "subteam2.team2"), (2, S1, None, "subteam2.team1")),
                 _nodes(RG_CHINA, RG_INDIA), [0, MAX], False,
                 id="Affinity with pods matching both NamespaceSelector and Namespaces fields "
                    "(anti-affinity)"),
    pytest.param(pod(S2), _on((1, S1, STAY_S1_REGION_AWAY_S2_AZ), (2, S2, STAY_S2_REGION)),
                 _nodes(RG_CHINA, RG_INDIA), SKIP, True,
                 id="Ignore preferred terms of existing pods"),
    pytest.param(pod(S2), _on((1, S1, STAY_S1_REGION_AWAY_S2_AZ), (2, S2, STAY_S2_REGION)),
                 _nodes(RG_CHINA, RG_INDIA), [0, MAX], False,
                 id="Do not ignore preferred terms of existing pods"),
    pytest.param(pod(S2), [], [], SKIP, False, id="No nodes to score"),
])
def test_preferred_affinity(incoming, pods, nodes, want, ignore):
    """upstream: TestPreferredAffinity (hardPodAffinityWeight 1)"""
    assert run_score(incoming, pods, nodes,
                     ignore_preferred_terms_of_existing_pods=ignore) == want


# -- TestPreferredAffinityWithHardPodAffinitySymmetricWeight -------------------------------

HARD_POD_AFFINITY = affinity([term("region", r("service", "In", "S1"),
                                   namespaces=("default", "subteam2.team2"), ns_selector=TEAM1)])
SERVICE_S1 = {"service": "S1"}


@pytest.mark.parametrize(("namespace", "weight", "want"), [
    pytest.param("default", 1, [MAX, MAX, 0], id="with default weight"),
    pytest.param("default", 0, SKIP, id="with zero weight"),
    pytest.param("subteam1.team2", 1, SKIP, id="with no matching namespace"),
    pytest.param("subteam1.team1", 1, [MAX, MAX, 0], id="with matching NamespaceSelector"),
    pytest.param("subteam2.team2", 1, [MAX, MAX, 0], id="with matching Namespaces"),
])
def test_preferred_affinity_with_hard_pod_affinity_symmetric_weight(namespace, weight, want):
    """upstream: TestPreferredAffinityWithHardPodAffinitySymmetricWeight"""
    pods = _on((1, {}, HARD_POD_AFFINITY), (2, {}, HARD_POD_AFFINITY))
    got = run_score(pod(SERVICE_S1, ns=namespace), pods, _nodes(RG_CHINA, RG_INDIA, AZ1),
                    hard_pod_affinity_weight=weight)
    assert got == want


@pytest.mark.parametrize(("weight", "want"), [(1, [0, MAX]), (5, [MAX, 0])])
def test_hard_pod_affinity_weight_scales_the_symmetric_term(weight, want):
    """Not an upstream row: the weight multiplies. The node1 pod's two required terms both
    match the incoming S1 pod (China: 2 x weight); the pod prefers S2 in its region with
    weight 6 (India: 6). Weight 1: 2 < 6; weight 5: 10 > 6."""
    pods = _on((1, {}, HARD_AFFINITY), (2, S2, None))
    got = run_score(pod(S1, aff=STAY_S2_REGION), pods, _nodes(RG_CHINA, RG_INDIA),
                    hard_pod_affinity_weight=weight)
    assert got == want


def test_normalize_truncates_like_upstream():
    """Min-max normalisation truncates (int64 of a float): -5, 1, 3 -> 0, 75, 100."""
    plugin = InterPodAffinity()
    state = CycleState({plugin.name: plugin.prepare(
        pod(aff=AWAY_S1_AZ), node_infos(HOST_A))})
    state[plugin.name].scores["az"] = {"az1": 1}  # any non-empty map: not skipped
    scores = [-5, 1, 3]
    plugin.normalize_score(state, pod(), scores, [])
    assert scores == [0, 75, 100]


# -- args (upstream ValidateInterPodAffinityArgs, SetDefaults_InterPodAffinityArgs) --------


def test_args_default():
    plugin = new({})
    assert plugin.hard_pod_affinity_weight == 1
    assert plugin.ignore_preferred_terms_of_existing_pods is False


@pytest.mark.parametrize("weight", [0, 100])
def test_args_valid_weights(weight):
    assert new({"hardPodAffinityWeight": weight}).hard_pod_affinity_weight == weight


@pytest.mark.parametrize(("args", "message"), [
    ({"hardPodAffinityWeight": -1}, "-1 not in valid range [0, 100]"),
    ({"hardPodAffinityWeight": 101}, "101 not in valid range [0, 100]"),
    ({"hardPodAffinityWeight": "1"}, "expected an integer"),
    ({"ignorePreferredTermsOfExistingPods": "yes"}, "expected true or false"),
])
def test_args_invalid(args, message):
    with pytest.raises(ProfileError, match=r"InterPodAffinity\.args") as err:
        new(args)
    assert message in str(err.value)


# -- Skip safety (tasplan-specific) --------------------------------------------------------


def test_skip_is_withheld_when_an_unplaced_pod_could_repel_the_class():
    """A class whose prepare finds nothing is skipped for the whole group cycle; an unplaced
    group pod whose anti-affinity selects it (it may be assumed before the class's later
    pods) keeps the summary alive. Without such a pod the class is skipped; pods outside
    any group are never assumed and do not count."""
    nodes = [node("n1", {"zone": "z1"})]
    incoming = pod({"app": "web"}, group="default/pg")
    repel_web = affinity(required_anti=[term("zone", r("app", "In", "web"))])
    repeller = pod({"app": "db"}, name="db", aff=repel_web, group="default/pg")
    ungrouped = pod({"app": "db"}, name="db", aff=repel_web)
    unrelated = pod({"app": "db"}, name="db2", group="default/pg", aff=affinity(
        required_anti=[term("zone", r("app", "In", "cache"))]))
    infos = node_infos(nodes)
    assert plugin_for(nodes, [unrelated], incoming).prepare(incoming, infos) is None
    assert plugin_for(nodes, [ungrouped], incoming).prepare(incoming, infos) is None
    summary = plugin_for(nodes, [repeller], incoming).prepare(incoming, infos)
    assert summary is not None and not summary.existing_anti
