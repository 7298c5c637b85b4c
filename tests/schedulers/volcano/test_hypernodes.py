"""HyperNode member selectors and tree building (volcano ``pkg/util/hypernode/
member_selector.go`` ``GetMembers``, ``pkg/scheduler/api/hyper_node_info.go``
``BuildHyperNodeCache``, ``framework/session.go`` ``addClusterTopHyperNode``; volcano commit
ed72c7c815a9fd547a787134676f73d42e9d049c)."""

from __future__ import annotations

import pytest

from tasplan.load.go_regex import RegexError, compile_go_regex
from tasplan.model.pod_affinity import LabelSelector, Requirement
from tasplan.model.volcano import MEMBER_HYPERNODE, MEMBER_NODE, HyperNode, Member
from tasplan.schedulers.volcano.hypernodes import ROOT, build_tree

NODES = [(f"node-{i}", {"rack": f"r{i // 2}"}) for i in range(6)] + [("gpu-a", {})]


def node(exact=None, regex=None, labels=None) -> Member:
    sel = LabelSelector(tuple(Requirement(k, "In", (v,)) for k, v in labels.items())) \
        if labels is not None else None
    return Member(MEMBER_NODE, exact, regex, sel)


def hn(name: str) -> Member:
    return Member(MEMBER_HYPERNODE, exact=name)


def test_members_exact_regex_labels_and_virtual_root() -> None:
    tree = build_tree([
        HyperNode("s0", 1, (node(exact="node-0"), node(exact="node-1"))),
        HyperNode("s1", 1, (node(regex="^node-[23]$"),)),
        HyperNode("s2", 1, (node(labels={"rack": "r2"}),)),
        HyperNode("s3", 2, (hn("s0"), hn("s1"))),
    ], NODES)
    assert tree.real_nodes["s0"] == {"node-0", "node-1"}
    assert tree.real_nodes["s1"] == {"node-2", "node-3"}
    assert tree.real_nodes["s2"] == {"node-4", "node-5"}
    assert tree.real_nodes["s3"] == {"node-0", "node-1", "node-2", "node-3"}
    assert tree.tiers[ROOT] == 3 and tree.children[ROOT] == ("s2", "s3")
    assert tree.real_nodes[ROOT] == {n for n, _ in NODES}
    assert tree.lca("s0", "s1") == "s3" and tree.lca("s0", "s2") == ROOT
    assert tree.leaf_of["node-4"] == "s2" and "gpu-a" not in tree.leaf_of
    assert tree.ready


def test_regex_is_an_unanchored_search_like_go_match_string() -> None:
    tree = build_tree([HyperNode("s0", 1, (node(regex="de-[01]"),))], NODES)
    assert tree.real_nodes["s0"] == {"node-0", "node-1"}


def test_exact_member_of_missing_node_and_empty_label_selector_select_nothing() -> None:
    tree = build_tree([HyperNode("s0", 1, (node(exact="ghost"), node(labels={})))], NODES)
    assert tree.real_nodes["s0"] == frozenset()


def test_two_parents_make_the_view_unready() -> None:
    tree = build_tree([HyperNode("a", 1, (node(exact="node-0"),)),
                       HyperNode("p", 2, (hn("a"),)), HyperNode("q", 2, (hn("a"),))], NODES)
    assert not tree.ready
    assert "already has a parent p" in tree.errors[0]


def test_cycle_makes_the_view_unready() -> None:
    tree = build_tree([HyperNode("a", 2, (hn("b"),)), HyperNode("b", 1, (hn("a"),))], NODES)
    assert not tree.ready and "cyclic" in " ".join(tree.errors)


def test_no_hypernodes_root_is_tier_one_over_all_nodes() -> None:
    tree = build_tree([], NODES)
    assert tree.tiers == {ROOT: 1} and tree.leaf_of["node-0"] == ROOT


@pytest.mark.parametrize("pattern,reason", [
    ("(?=x)node", "lookahead"), ("(?<!x)node", "lookbehind"), ("(a)\\1", "backreference"),
    ("a++", "possessive"), ("(", "missing \\)"), ("\\pL", "Unicode"),
])
def test_patterns_go_rejects_or_tasplan_cannot_translate(pattern: str, reason: str) -> None:
    with pytest.raises(RegexError, match=reason):
        compile_go_regex(pattern)


def test_re2_spellings_translate() -> None:
    assert compile_go_regex("^node-[[:digit:]]+\\z").search("node-12")
    assert not compile_go_regex("^node-[[:digit:]]+\\z").search("node-12x")
    assert compile_go_regex("(?<n>node)-0").search("node-0")


def test_a_long_chain_of_hypernodes_needs_no_recursion() -> None:
    chain = [HyperNode("h0", 1, (node(exact="node-0"),))]
    chain += [HyperNode(f"h{i}", i + 1, (hn(f"h{i - 1}"),)) for i in range(1, 5000)]
    tree = build_tree(chain, NODES)
    assert tree.ready and tree.real_nodes["h4999"] == {"node-0"}
    assert tree.lca("h0", "h4999") == "h4999"


def test_a_pattern_python_would_backtrack_on_selects_nothing_with_a_warning() -> None:
    tree = build_tree([HyperNode("s0", 1, (node(regex="^(node-+)+x$"),))], NODES)
    assert tree.real_nodes["s0"] == frozenset() and tree.ready
    assert "exponential time" in tree.warnings[0]
