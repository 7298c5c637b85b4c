"""Statement reservations (upstream Reserve / Unreserve): every assumption reserves in each
reserver, rollback undoes exactly those reservations, latest first; commit keeps them."""

from __future__ import annotations

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.statement import Statement
from tests.builders import make_node, make_pod


class _Ledger:
    def __init__(self) -> None:
        self.held: list[str] = []
        self.undone: list[str] = []

    def reserve(self, pod, node):
        if pod.name.startswith("skip"):
            return None  # nothing to undo
        self.held.append(pod.name)
        return pod.name

    def unreserve(self, token):
        assert self.held[-1] == token  # strictly LIFO
        self.held.pop()
        self.undone.append(token)


def test_rollback_undoes_reservations_latest_first_and_commit_keeps_them():
    ledger = _Ledger()
    statement = Statement([ledger])
    node = NodeInfo(make_node("n1", 8), 0)
    statement.assume(make_pod("a"), node)
    statement.commit()
    mark = statement.checkpoint()
    for name in ("b", "skip-c", "d"):
        statement.assume(make_pod(name), node)
    assert ledger.held == ["a", "b", "d"]
    statement.rollback(mark)
    assert ledger.held == ["a"] and ledger.undone == ["d", "b"]
    assert [p.name for p in node.pods] == ["a"]


def test_reservers_are_added_once():
    ledger = _Ledger()
    statement = Statement()
    statement.add_reservers([ledger])
    statement.add_reservers([ledger])
    statement.assume(make_pod("a"), NodeInfo(make_node("n1", 8), 0))
    assert ledger.held == ["a"]
