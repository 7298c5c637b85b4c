"""Assume / checkpoint / rollback over node state (KAI's Statement, strictly LIFO).

Every placement is evaluated from the same starting state: take a checkpoint, assume pods
one by one, roll back to the checkpoint. A committed statement keeps its assumptions, which
is how one group's chosen placement becomes part of the world for the next group.

State outside the nodes (DRA devices) follows through ``reservers``: plugins whose
``reserve(pod, node)`` runs after each assumption (upstream's Reserve) and returns an undo
token that ``unreserve`` takes back on rollback (upstream's Unreserve).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from tasplan.framework.node_info import NodeInfo
from tasplan.model.pod import Pod


class StatementError(RuntimeError):
    """A broken invariant of the operation log: a bug, never bad input."""


class Reserver(Protocol):
    def reserve(self, pod: Pod, node: NodeInfo) -> object | None: ...

    def unreserve(self, token: object) -> None: ...


# One undo entry per assumption: (reserver, token) pairs, or None when nothing was reserved.
Undo = tuple[tuple[Reserver, object], ...] | None


class Statement:
    __slots__ = ("_log", "_undo", "reservers")

    def __init__(self, reservers: Iterable[Reserver] = ()) -> None:
        self._log: list[tuple[Pod, NodeInfo]] = []
        self._undo: list[Undo] = []
        self.reservers: list[Reserver] = list(reservers)

    def add_reservers(self, reservers: Iterable[Reserver]) -> None:
        for r in reservers:
            if r not in self.reservers:
                self.reservers.append(r)

    def assume(self, pod: Pod, node: NodeInfo) -> None:
        node.add_pod(pod)
        self._log.append((pod, node))
        undo = None
        if self.reservers:
            undo = tuple((r, t) for r in self.reservers
                         if (t := r.reserve(pod, node)) is not None) or None
        self._undo.append(undo)

    def checkpoint(self) -> int:
        return len(self._log)

    def rollback(self, checkpoint: int) -> None:
        log = self._log
        if not 0 <= checkpoint <= len(log):
            raise StatementError(f"checkpoint {checkpoint} outside the log (length {len(log)})")
        while len(log) > checkpoint:
            pod, node = log.pop()
            release(self._undo.pop())
            node.remove_pod(pod)

    def changes_since(self, position: int) -> list[tuple[Pod, NodeInfo]]:
        """Operations after ``position``: lets caches refresh only the nodes that changed."""
        return self._log[position:]

    def commit(self) -> list[tuple[Pod, NodeInfo]]:
        """Keep every assumption and start a new log; returns what was committed."""
        done, self._log = self._log, []
        self._undo = []
        return done


def release(undo: Undo) -> None:
    """Take back one assumption's reservations, latest first."""
    if undo:
        for reserver, token in reversed(undo):
            reserver.unreserve(token)
