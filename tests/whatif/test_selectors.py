"""Targets of what-if edits: kubectl selector syntax (apimachinery ``labels.Parse``, the
cases of its ``TestToString``/``TestRequirementSelectorMatching`` tables that node labels
use), bare-key resolution and --evict's priority / namespace expressions."""

from __future__ import annotations

import pytest

from tasplan.errors import UsageError
from tasplan.whatif.selectors import is_selector, label_selector, pod_filter, resolve_key

KEYS = {"topology.example.com/rack", "topology.example.com/block", "kubernetes.io/hostname",
        "pool"}


@pytest.mark.parametrize(("text", "labels", "matches"), [
    ("pool=a", {"pool": "a"}, True),
    ("pool==a", {"pool": "a"}, True),
    ("pool=a", {"pool": "b"}, False),
    ("pool!=a", {"pool": "b"}, True),
    ("pool!=a", {}, True),  # NotIn matches a missing label
    ("pool in (a, b)", {"pool": "b"}, True),
    ("pool notin (a,b)", {"pool": "b"}, False),
    ("pool", {"pool": ""}, True),
    ("!pool", {"pool": ""}, False),
    ("!pool", {}, True),
    ("pool=a,rack in (r1,r2)", {"pool": "a", "topology.example.com/rack": "r2"}, True),
    ("pool=a,rack in (r1,r2)", {"pool": "a", "topology.example.com/rack": "r3"}, False),
    ("pool=", {"pool": ""}, True),
])
def test_node_selector_syntax(text: str, labels: dict, matches: bool) -> None:
    assert label_selector(text, KEYS, "--cordon").matches(labels) is matches


@pytest.mark.parametrize("text", ["pool=a,", "pool in ()", "pool in (a", "a b", "!pool=a",
                                  "pool<3", "Bad Key=x", "pool=not valid"])
def test_bad_selectors_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError):
        label_selector(text, KEYS, "--cordon")


def test_node_names_are_not_selectors() -> None:
    assert not is_selector("gpu-a1-0,gpu-a1-1")
    assert is_selector("rack=r1") and is_selector("!pool") and is_selector("rack in (a)")


def test_bare_key_resolves_by_last_segment_and_ambiguity_is_an_error() -> None:
    assert resolve_key("rack", KEYS, "x") == "topology.example.com/rack"
    assert resolve_key("pool", KEYS, "x") == "pool"  # a node label itself wins
    assert resolve_key("zone", KEYS, "x") == "zone"  # nothing to resolve to: kept
    with pytest.raises(UsageError, match=r"ambiguous.*a\.example/rack, b\.example/rack"):
        resolve_key("rack", {"a.example/rack", "b.example/rack"}, "--drain")


@pytest.mark.parametrize(("text", "pod", "matches"), [
    ("priority<1000", ("ns", 999, {}), True),
    ("priority<1000", ("ns", 1000, {}), False),
    ("priority<=1000", ("ns", 1000, {}), True),
    ("namespace=research", ("research", 5, {}), True),
    ("namespace=research", ("research-2", 5, {}), False),
    ("app=etl", ("any", 5, {"app": "etl"}), True),
    ("app=etl", ("any", 5, {"app": "web"}), False),
    ("namespace=ml,priority<10,app in (a,b)", ("ml", 5, {"app": "b"}), True),
    ("namespace=ml,priority<10,app in (a,b)", ("ml", 50, {"app": "b"}), False),
])
def test_evict_filters(text: str, pod: tuple, matches: bool) -> None:
    assert pod_filter(text).matches(*pod) is matches


@pytest.mark.parametrize("text", ["priority=5", "priority<x", "namespace!=a", "namespace=",
                                  "app<3"])
def test_bad_evict_filters(text: str) -> None:
    with pytest.raises(UsageError):
        pod_filter(text)
