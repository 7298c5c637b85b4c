"""TaintToleration filter and score, toleration matching and default normalisation.

Upstream: kubernetes/kubernetes
``pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go``
(TestTaintTolerationFilter, TestTaintTolerationScore; rows needing the alpha
TaintTolerationComparisonOperators gate are left out: the loader rejects Gt/Lt),
``k8s.io/api/core/v1`` ``toleration.go`` ToleratesTaint, and
``pkg/scheduler/framework/plugins/helper/normalize_score_test.go`` TestDefaultNormalizeScore.
"""

from __future__ import annotations

import pytest

from tasplan.framework.status import Code, Status
from tasplan.framework.types import CycleState
from tasplan.model.taints import Taint, Toleration, tolerated
from tasplan.plugins.normalize import default_normalize
from tasplan.plugins.taint_toleration import TaintToleration, new
from tests.builders import make_node, make_pod, node_infos

REASON = "node(s) had untolerated taint(s)"
NS, PNS, NE = "NoSchedule", "PreferNoSchedule", "NoExecute"


def _filter(tolerations, taints):
    info = node_infos([make_node("nodeA", taints=tuple(taints))])[0]
    pod = make_pod("pod1", tolerations=tuple(tolerations))
    return TaintToleration().filter(CycleState(), pod, info)


def _rejected(taint: Taint) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (REASON,), (taint,))


# upstream: taint_toleration_test.go TestTaintTolerationFilter
@pytest.mark.parametrize(
    ("tolerations", "taints", "want"),
    [
        pytest.param([], [Taint("dedicated", "user1", NS)],
                     _rejected(Taint("dedicated", "user1", NS)),
                     id="A pod having no tolerations can't be scheduled onto a node with "
                        "nonempty taints"),
        pytest.param([Toleration("dedicated", "Equal", "user1", NS)],
                     [Taint("dedicated", "user1", NS)], None,
                     id="A pod which can be scheduled on a dedicated node assigned to user1 with "
                        "effect NoSchedule"),
        pytest.param([Toleration("dedicated", "Equal", "user2", NS)],
                     [Taint("dedicated", "user1", NS)],
                     _rejected(Taint("dedicated", "user1", NS)),
                     id="A pod which can't be scheduled on a dedicated node assigned to user2 "
                        "with effect NoSchedule"),
        pytest.param([Toleration("foo", "Exists", "", NS)], [Taint("foo", "bar", NS)], None,
                     id="A pod can be scheduled onto the node, with a toleration uses operator "
                        "Exists that tolerates the taints on the node"),
        pytest.param([Toleration("dedicated", "Equal", "user2", NS),
                      Toleration("foo", "Exists", "", NS)],
                     [Taint("dedicated", "user2", NS), Taint("foo", "bar", NS)], None,
                     id="A pod has multiple tolerations, node has multiple taints, all the "
                        "taints are tolerated, pod can be scheduled onto the node"),
        pytest.param([Toleration("foo", "Equal", "bar", PNS)], [Taint("foo", "bar", NS)],
                     _rejected(Taint("foo", "bar", NS)),
                     id="A pod has a toleration that keys and values match the taint on the "
                        "node, but (non-empty) effect doesn't match, can't be scheduled onto "
                        "the node"),
        pytest.param([Toleration("foo", "Equal", "bar")], [Taint("foo", "bar", NS)], None,
                     id="The pod has a toleration that keys and values match the taint on the "
                        "node, the effect of toleration is empty, and the effect of taint is "
                        "NoSchedule. Pod can be scheduled onto the node"),
        pytest.param([Toleration("dedicated", "Equal", "user2", NS)],
                     [Taint("dedicated", "user1", PNS)], None,
                     id="The pod has a toleration that key and value don't match the taint on "
                        "the node, but the effect of taint on node is PreferNoSchedule. Pod can "
                        "be scheduled onto the node"),
        pytest.param([], [Taint("dedicated", "user1", PNS)], None,
                     id="The pod has no toleration, but the effect of taint on node is "
                        "PreferNoSchedule. Pod can be scheduled onto the node"),
        # helper.DoNotScheduleTaintsFilterFunc: NoExecute taints are checked too; the first
        # untolerated taint is the one reported
        pytest.param([], [Taint("evict", "", NE)], _rejected(Taint("evict", "", NE)),
                     id="NoExecute taint must be tolerated"),
        pytest.param([Toleration("a", "Exists")],
                     [Taint("a", "1", NS), Taint("b", "2", NE), Taint("c", "3", NS)],
                     _rejected(Taint("b", "2", NE)),
                     id="first untolerated taint is reported"),
    ],
)
def test_filter(tolerations, taints, want):
    assert _filter(tolerations, taints) == want


# upstream: k8s.io/api core/v1 toleration.go ToleratesTaint (and toleration_test.go)
@pytest.mark.parametrize(
    ("toleration", "taint", "want"),
    [
        pytest.param(Toleration("", "Exists"), Taint("any", "v", NS), True,
                     id="Exists with empty key and empty effect tolerates everything"),
        pytest.param(Toleration("", "Exists"), Taint("other", "", NE), True,
                     id="Exists with empty key tolerates NoExecute too"),
        pytest.param(Toleration("", "Exists", "", PNS), Taint("k", "v", NS), False,
                     id="Exists with empty key but an effect only tolerates that effect"),
        pytest.param(Toleration("k", "Exists"), Taint("k", "anything", NS), True,
                     id="Exists ignores the value"),
        pytest.param(Toleration("k", "Exists"), Taint("other", "v", NS), False,
                     id="Exists with a key needs the same key"),
        pytest.param(Toleration("k", "Equal", "v"), Taint("k", "v", NE), True,
                     id="empty effect matches every effect"),
        pytest.param(Toleration("k", "Equal", "v", NS), Taint("k", "v", NE), False,
                     id="effect must be equal when set"),
        pytest.param(Toleration("k", "Equal", "v"), Taint("k", "w", NS), False,
                     id="Equal compares the value"),
        pytest.param(Toleration("k", "Equal", ""), Taint("k", "", NS), True,
                     id="Equal with empty values matches"),
        pytest.param(Toleration("k", "Equal", "v"), Taint("K", "v", NS), False,
                     id="keys are case sensitive"),
    ],
)
def test_toleration_tolerates_taint(toleration, taint, want):
    assert toleration.tolerates(taint) is want
    assert tolerated(taint, [Toleration("unrelated", "Exists"), toleration]) is want


def _scores(tolerations, node_taints):
    infos = node_infos([make_node(f"node{c}", taints=tuple(t))
                        for c, t in zip("ABC", node_taints, strict=False)])
    pod = make_pod("pod1", tolerations=tuple(tolerations))
    plugin = TaintToleration()
    scores = [plugin.score(CycleState(), pod, i) for i in infos]
    plugin.normalize_score(CycleState(), pod, scores, infos)
    return scores


# upstream: taint_toleration_test.go TestTaintTolerationScore
@pytest.mark.parametrize(
    ("tolerations", "node_taints", "want"),
    [
        pytest.param([Toleration("foo", "Equal", "bar", PNS)],
                     [[Taint("foo", "bar", PNS)], [Taint("foo", "blah", PNS)]], [100, 0],
                     id="node with taints tolerated by the pod, gets a higher score than those "
                        "node with intolerable taints"),
        pytest.param([Toleration("cpu-type", "Equal", "arm64", PNS),
                      Toleration("disk-type", "Equal", "ssd", PNS)],
                     [[], [Taint("cpu-type", "arm64", PNS)],
                      [Taint("cpu-type", "arm64", PNS), Taint("disk-type", "ssd", PNS)]],
                     [100, 100, 100],
                     id="the nodes that all of their taints are tolerated by the pod, get the "
                        "same score, no matter how many tolerable taints a node has"),
        pytest.param([Toleration("foo", "Equal", "bar", PNS)],
                     [[], [Taint("cpu-type", "arm64", PNS)],
                      [Taint("cpu-type", "arm64", PNS), Taint("disk-type", "ssd", PNS)]],
                     [100, 50, 0],
                     id="the more intolerable taints a node has, the lower score it gets."),
        pytest.param([Toleration("cpu-type", "Equal", "arm64", NS),
                      Toleration("disk-type", "Equal", "ssd", NS)],
                     [[], [Taint("cpu-type", "arm64", NS)],
                      [Taint("cpu-type", "arm64", PNS), Taint("disk-type", "ssd", PNS)]],
                     [100, 100, 0],
                     id="only taints and tolerations that have effect PreferNoSchedule are "
                        "checked by taints-tolerations priority function"),
        pytest.param([], [[], [Taint("cpu-type", "arm64", PNS)]], [100, 0],
                     id="Default behaviour No taints and tolerations, lands on node with no "
                        "taints"),
        pytest.param([Toleration("", "Exists")],
                     [[Taint("a", "1", PNS)], [Taint("b", "2", PNS), Taint("c", "3", PNS)]],
                     [100, 100],
                     id="toleration with empty effect applies to PreferNoSchedule taints"),
    ],
)
def test_score(tolerations, node_taints, want):
    assert _scores(tolerations, node_taints) == want


# upstream: helper/normalize_score_test.go TestDefaultNormalizeScore
@pytest.mark.parametrize(
    ("reverse", "scores", "want"),
    [
        pytest.param(False, [1, 2, 3, 4], [25, 50, 75, 100], id="scale by the maximum"),
        pytest.param(True, [1, 2, 3, 4], [75, 50, 25, 0], id="reverse"),
        pytest.param(False, [1000, 10, 20, 30], [100, 1, 2, 3], id="integer division"),
        pytest.param(True, [1000, 10, 20, 30], [0, 99, 98, 97], id="reverse integer division"),
        pytest.param(False, [1, 1, 1, 1], [100, 100, 100, 100], id="all equal"),
        pytest.param(False, [1000, 1, 1, 1], [100, 0, 0, 0], id="small values round to 0"),
        pytest.param(True, [0, 1, 1, 1], [100, 0, 0, 0], id="reverse with zeros"),
        pytest.param(False, [0, 0, 0, 0], [0, 0, 0, 0], id="all zero stays zero"),
        pytest.param(True, [0, 0, 0, 0], [100, 100, 100, 100], id="all zero reversed is 100"),
        pytest.param(False, [], [], id="empty list"),
    ],
)
def test_default_normalize(reverse, scores, want):
    scores = list(scores)
    default_normalize(scores, reverse=reverse)
    assert scores == want


def test_factory_builds_the_plugin():
    plugin = new({})
    assert isinstance(plugin, TaintToleration)
    assert plugin.name == "TaintToleration"
