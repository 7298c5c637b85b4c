"""NodeAffinity filter (nodeSelector + required terms) and preferred-term score.

Upstream: kubernetes/kubernetes
``pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go`` TestNodeAffinity
and TestNodeAffinityPriority (rows using scheduler-enforced ``addedAffinity`` are left out:
tasplan has no such argument); matching rules from
``k8s.io/component-helpers/scheduling/corev1/nodeaffinity``.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tasplan.framework.status import Code, Status
from tasplan.framework.types import CycleState
from tasplan.model.selectors import NodeSelectorTerm, PreferredTerm, Requirement
from tasplan.plugins.node_affinity import NodeAffinity, new
from tests.builders import make_node, make_pod, node_infos

REJECTED = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                  ("node(s) didn't match Pod's node affinity/selector",))
NAME = "metadata.name"


def _req(key, op, *values):
    return Requirement(key, op, tuple(values))


def _term(*exprs, fields=()):
    return NodeSelectorTerm(tuple(exprs), tuple(fields))


def _filter(labels, *, selector=None, terms=None, node_name="node1"):
    info = node_infos([make_node(node_name, labels=labels)])[0]
    # make_node adds kubernetes.io/hostname; drop it so that labels are exactly the row's
    info.node = replace(info.node, labels=dict(labels))
    pod = replace(make_pod("p", node_selector=selector), required_terms=terms)
    return NodeAffinity().filter(CycleState(), pod, info)


# upstream: node_affinity_test.go TestNodeAffinity
@pytest.mark.parametrize(
    ("labels", "selector", "terms", "node_name", "want"),
    [
        pytest.param({}, {"foo": "bar"}, None, "node1", REJECTED, id="missing labels"),
        pytest.param({"foo": "bar"}, {"foo": "bar"}, None, "node1", None, id="same labels"),
        pytest.param({"foo": "bar", "baz": "blah"}, {"foo": "bar"}, None, "node1", None,
                     id="node labels are superset"),
        pytest.param({"foo": "bar"}, {"foo": "bar", "baz": "blah"}, None, "node1", REJECTED,
                     id="node labels are subset"),
        pytest.param({"foo": "bar"}, None, (_term(_req("foo", "In", "bar", "value2")),),
                     "node1", None,
                     id="Pod with matchExpressions using In operator that matches the existing "
                        "node"),
        pytest.param({"kernel-version": "0206"}, None,
                     (_term(_req("kernel-version", "Gt", "0204")),), "node1", None,
                     id="Pod with matchExpressions using Gt operator that matches the existing "
                        "node"),
        pytest.param({"mem-type": "DDR3"}, None,
                     (_term(_req("mem-type", "NotIn", "DDR", "DDR2")),), "node1", None,
                     id="Pod with matchExpressions using NotIn operator that matches the "
                        "existing node"),
        pytest.param({"GPU": "NVIDIA-GRID-K1"}, None, (_term(_req("GPU", "Exists")),),
                     "node1", None,
                     id="Pod with matchExpressions using Exists operator that matches the "
                        "existing node"),
        pytest.param({"foo": "bar"}, None, (_term(_req("foo", "In", "value1", "value2")),),
                     "node1", REJECTED,
                     id="Pod with affinity that don't match node's labels won't schedule onto "
                        "the node"),
        pytest.param({"foo": "bar"}, None, (_term(),), "node1", REJECTED,
                     id="Pod with empty MatchExpressions is not a valid value will match no "
                        "objects and won't schedule onto the node"),
        pytest.param({"foo": "bar"}, None, None, "node1", None,
                     id="Pod with no Affinity will schedule onto a node"),
        pytest.param({"GPU": "NVIDIA-GRID-K1"}, None,
                     (_term(_req("GPU", "Exists"), _req("GPU", "NotIn", "AMD", "INTER")),),
                     "node1", None,
                     id="Pod with multiple matchExpressions ANDed that matches the existing "
                        "node"),
        pytest.param({"GPU": "NVIDIA-GRID-K1"}, None,
                     (_term(_req("GPU", "Exists"), _req("GPU", "In", "AMD", "INTER")),),
                     "node1", REJECTED,
                     id="Pod with multiple matchExpressions ANDed that doesn't match the "
                        "existing node"),
        pytest.param({"foo": "bar"}, None,
                     (_term(_req("foo", "In", "bar", "value2")),
                      _term(_req("diffkey", "In", "wrong", "value2"))),
                     "node1", None,
                     id="Pod with multiple NodeSelectorTerms ORed in affinity, matches the "
                        "node's labels and will schedule onto the node"),
        pytest.param({"foo": "bar"}, {"foo": "bar"}, (_term(_req("foo", "Exists")),),
                     "node1", None,
                     id="Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we "
                        "are deprecating) both are satisfied, will schedule onto the node"),
        pytest.param({"foo": "barrrrrr"}, {"foo": "bar"}, (_term(_req("foo", "Exists")),),
                     "node1", REJECTED,
                     id="Pod with an Affinity matches node's labels but the "
                        "PodSpec.NodeSelector(the old thing that we are deprecating) is not "
                        "satisfied, won't schedule onto the node"),
        # upstream: the invalid label value makes the term fail to parse; a term that does
        # not parse matches nothing (nodeaffinity.NewLazyErrorNodeSelector)
        pytest.param({"foo": "bar"}, None,
                     (_term(_req("foo", "NotIn", "invalid value: ___@#$%^")),), "node1",
                     REJECTED,
                     id="Pod with an invalid value in Affinity term won't be scheduled onto the "
                        "node"),
        pytest.param({}, None, (_term(fields=(_req(NAME, "In", "node1"),)),), "node1", None,
                     id="Pod with matchFields using In operator that matches the existing node"),
        pytest.param({}, None, (_term(fields=(_req(NAME, "In", "node1"),)),), "node2",
                     REJECTED,
                     id="Pod with matchFields using In operator that does not match the "
                        "existing node"),
        pytest.param({"foo": "bar"}, None,
                     (_term(fields=(_req(NAME, "In", "node1"), _req(NAME, "In", "node2"))),
                      _term(_req("foo", "In", "bar"))),
                     "node2", None,
                     id="Pod with two terms: matchFields does not match, but matchExpressions "
                        "matches"),
        pytest.param({"foo": "bar"}, None,
                     (_term(_req("foo", "In", "bar"), fields=(_req(NAME, "In", "node1"),)),),
                     "node2", REJECTED,
                     id="Pod with one term: matchFields does not match, but matchExpressions "
                        "matches"),
        pytest.param({"foo": "bar"}, None,
                     (_term(_req("foo", "In", "bar"), fields=(_req(NAME, "In", "node1"),)),),
                     "node1", None,
                     id="Pod with one term: both matchFields and matchExpressions match"),
        pytest.param({"foo": "bar"}, None,
                     (_term(fields=(_req(NAME, "In", "node1"),)),
                      _term(_req("foo", "In", "not-match-to-bar"))),
                     "node2", REJECTED,
                     id="Pod with two terms: both matchFields and matchExpressions do not "
                        "match"),
        pytest.param({}, None,
                     (_term(fields=(_req(NAME, "In", "node1"),)),
                      _term(fields=(_req(NAME, "In", "node2"),))),
                     "node2", None, id="Pod with two terms of node.Name affinity"),
        pytest.param({"foo": "bar"}, None,
                     (_term(fields=(_req(NAME, "In", "node1"), _req(NAME, "In", "node2"))),),
                     "node2", REJECTED, id="Pod with two conflicting mach field requirements"),
        # operator semantics (labels.Requirement.Matches)
        pytest.param({}, None, (_term(_req("foo", "NotIn", "bar")),), "node1", None,
                     id="NotIn matches a node without the label"),
        pytest.param({}, None, (_term(_req("foo", "DoesNotExist")),), "node1", None,
                     id="DoesNotExist matches a node without the label"),
        pytest.param({"foo": ""}, None, (_term(_req("foo", "DoesNotExist")),), "node1",
                     REJECTED, id="DoesNotExist rejects a node with the label, even empty"),
        pytest.param({}, None, (_term(_req("foo", "Exists")),), "node1", REJECTED,
                     id="Exists rejects a node without the label"),
        pytest.param({}, None, (_term(_req("foo", "In", "bar")),), "node1", REJECTED,
                     id="In rejects a node without the label"),
        pytest.param({"n": "5"}, None, (_term(_req("n", "Gt", "5")),), "node1", REJECTED,
                     id="Gt is strict"),
        pytest.param({"n": "4"}, None, (_term(_req("n", "Lt", "5")),), "node1", None,
                     id="Lt compares integers"),
        pytest.param({"n": "10"}, None, (_term(_req("n", "Lt", "9")),), "node1", REJECTED,
                     id="Lt compares as integers, not strings"),
        pytest.param({"n": "abc"}, None, (_term(_req("n", "Gt", "1")),), "node1", REJECTED,
                     id="Gt on a non-integer label does not match"),
        pytest.param({}, None, (_term(_req("n", "Lt", "5")),), "node1", REJECTED,
                     id="Lt on a missing label does not match"),
        pytest.param({}, None, (_term(fields=(_req(NAME, "NotIn", "node1"),)),), "node1",
                     REJECTED, id="matchFields NotIn excludes the named node"),
        pytest.param({}, None, (_term(fields=(_req(NAME, "NotIn", "node1"),)),), "node2",
                     None, id="matchFields NotIn admits other nodes"),
        pytest.param({"foo": "bar"}, None, (), "node1", REJECTED,
                     id="an empty list of terms matches nothing"),
    ],
)
def test_filter(labels, selector, terms, node_name, want):
    assert _filter(labels, selector=selector, terms=terms, node_name=node_name) == want


LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}
AFFINITY1 = (PreferredTerm(2, _term(_req("foo", "In", "bar"))),)
AFFINITY2 = (
    PreferredTerm(2, _term(_req("foo", "In", "bar"))),
    PreferredTerm(4, _term(_req("key", "In", "value"))),
    PreferredTerm(5, _term(_req("foo", "In", "bar"), _req("key", "In", "value"),
                           _req("az", "In", "az1"))),
)


# upstream: node_affinity_test.go TestNodeAffinityPriority
@pytest.mark.parametrize(
    ("preferred", "nodes", "want", "want_pre_score"),
    [
        pytest.param((), [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)],
                     [0, 0, 0], False,
                     id="all nodes are same priority as NodeAffinity is nil"),
        pytest.param(AFFINITY1, [("node1", LABEL4), ("node2", LABEL2), ("node3", LABEL3)],
                     [0, 0, 0], True,
                     id="no node matches preferred scheduling requirements in NodeAffinity of "
                        "pod so all nodes' priority is zero"),
        pytest.param(AFFINITY1, [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)],
                     [100, 0, 0], True,
                     id="only node1 matches the preferred scheduling requirements of pod"),
        pytest.param(AFFINITY2, [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)],
                     [18, 100, 36], True,
                     id="all nodes matches the preferred scheduling requirements of pod but "
                        "with different priorities"),
    ],
)
def test_score(preferred, nodes, want, want_pre_score):
    infos = node_infos([make_node(n, labels=labels) for n, labels in nodes])
    pod = replace(make_pod("p"), preferred_terms=preferred)
    plugin = NodeAffinity()
    assert plugin.pre_score(CycleState(), pod) is want_pre_score
    scores = [plugin.score(CycleState(), pod, i) for i in infos]
    plugin.normalize_score(CycleState(), pod, scores, infos)
    assert scores == want


def test_raw_score_is_sum_of_matching_weights():
    info = node_infos([make_node("node5", labels=LABEL5)])[0]
    pod = replace(make_pod("p"), preferred_terms=AFFINITY2)
    assert NodeAffinity().score(CycleState(), pod, info) == 11


def test_factory_builds_the_plugin():
    plugin = new({})
    assert isinstance(plugin, NodeAffinity)
    assert plugin.name == "NodeAffinity"
