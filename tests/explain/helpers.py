"""Small clusters for explain tests; every expected number is worked out in the test."""

from __future__ import annotations

from tasplan.explain.explainer import explain
from tasplan.explain.result import Explanation, Suggestion
from tasplan.model.snapshot import ClusterSnapshot
from tests.builders import make_node


def rack(name: str, *nodes: str, cpu: int = 2, **labels: str) -> list:
    return [make_node(n, cpu, labels={"rack": name, **labels}) for n in nodes]


def explained(snap: ClusterSnapshot, key: str = "default/pg") -> Explanation:
    result = explain(snap)
    return result.explanations[key]


def kinds(e: Explanation) -> list[str]:
    return [s.kind for s in e.suggestions]


def only(e: Explanation, kind: str) -> Suggestion:
    found = [s for s in e.suggestions if s.kind == kind]
    assert len(found) == 1, kinds(e)
    return found[0]
