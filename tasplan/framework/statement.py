"""Assume / checkpoint / rollback over node state (KAI's Statement, strictly LIFO).

Every placement is evaluated from the same starting state: take a checkpoint, assume pods
one by one, roll back to the checkpoint. A committed statement keeps its assumptions, which
is how one group's chosen placement becomes part of the world for the next group.
"""

from __future__ import annotations

from tasplan.framework.node_info import NodeInfo
from tasplan.model.pod import Pod


class StatementError(RuntimeError):
    """A broken invariant of the operation log: a bug, never bad input."""


class Statement:
    __slots__ = ("_log",)

    def __init__(self) -> None:
        self._log: list[tuple[Pod, NodeInfo]] = []

    def assume(self, pod: Pod, node: NodeInfo) -> None:
        node.add_pod(pod)
        self._log.append((pod, node))

    def checkpoint(self) -> int:
        return len(self._log)

    def rollback(self, checkpoint: int) -> None:
        log = self._log
        if not 0 <= checkpoint <= len(log):
            raise StatementError(f"checkpoint {checkpoint} outside the log (length {len(log)})")
        while len(log) > checkpoint:
            pod, node = log.pop()
            node.remove_pod(pod)

    def changes_since(self, position: int) -> list[tuple[Pod, NodeInfo]]:
        """Operations after ``position``: lets caches refresh only the nodes that changed."""
        return self._log[position:]

    def commit(self) -> list[tuple[Pod, NodeInfo]]:
        """Keep every assumption and start a new log; returns what was committed."""
        done, self._log = self._log, []
        return done
