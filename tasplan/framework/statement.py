"""Assume / evict / checkpoint / rollback / commit over node state (KAI's Statement: every
operation is undoable, strictly LIFO).

Every placement is evaluated from the same starting state: take a checkpoint, assume pods
one by one, roll back to the checkpoint. A committed statement keeps its operations, which
is how one group's chosen placement becomes part of the world for the next group.

Eviction is an operation like assumption (preemption removes its candidates, re-runs the
cycle, puts victims back one by one and undoes it all): ``evict`` takes a pod off its node,
``restore`` puts an evicted pod back, and rollback undoes either. What an evicted pod holds
outside its node (DRA devices) stays held: upstream's preemption does not count devices
freed yet (KEP-5690; ``docs/dra.md``).

A *trial* (``trial()``, or ``begin``/``end``) is undone as a whole, what was committed inside
it included: a preemption re-run or a what-if runs the ordinary cycle, which commits its
winner, and leaves no trace.

``assume_many`` assumes copies of one pod onto one node as one step (one change to the
node's totals however many copies), undone in one step too; the log still holds one entry
per pod, so checkpoints, ``changes_since`` and ``commit`` read as if they were assumed one by
one.

State outside the nodes (DRA devices) follows through ``reservers``: plugins whose
``reserve(pod, node)`` runs after each assumption (upstream's Reserve) and returns an undo
token that ``unreserve`` takes back on rollback (upstream's Unreserve).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from enum import Enum
from itertools import repeat
from typing import Protocol

from tasplan.framework.node_info import NodeInfo, Totals
from tasplan.model.pod import Pod


class StatementError(RuntimeError):
    """A broken invariant of the operation log: a bug, never bad input."""


class Reserver(Protocol):
    """May also say, through ``reserves(pod) -> bool``, whether ``reserve`` can hold
    anything for ``pod`` at all (False: it returns None for that pod on every node)."""

    def reserve(self, pod: Pod, node: NodeInfo) -> object | None: ...

    def unreserve(self, token: object) -> None: ...


class Op(Enum):
    EVICT = "evict"
    RESTORE = "restore"
    EVICT_ALL = "evict-all"  # several pods of one node at once (one log entry per pod)


# One undo entry per operation: (reserver, token) pairs, or None when nothing was reserved.
Undo = tuple[tuple[Reserver, object], ...] | None


class Statement:
    __slots__ = ("_batches", "_commit_asked", "_evicted", "_log", "_moves", "_trials",
                 "_undo", "reservers")

    def __init__(self, reservers: Iterable[Reserver] = ()) -> None:
        self._log: list[tuple[Pod, NodeInfo]] = []
        self._undo: list[Undo] = []
        # (log start, log end, operation, the node's totals before) of the evictions and
        # restores, in order (one entry for the run of an ``evict_all``, with the totals it
        # puts back when undone whole): the rest of the log are assumptions (the hot path
        # stays as cheap as the log alone).
        self._moves: list[tuple[int, int, Op, Totals | None]] = []
        # (start, end) log positions of the runs ``assume_many`` added in one step, in order
        self._batches: list[tuple[int, int]] = []
        self._evicted: set[int] = set()  # id() of the pods evicted now, committed or not
        self._trials = 0
        self._commit_asked = False
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

    def assume_many(self, pods: Sequence[Pod], node: NodeInfo) -> None:
        """``assume`` of each of ``pods`` onto ``node``, in order: one step, undone in one
        step, when they are copies of one pod (``NodeInfo.add_pods``). With a reserver that
        may hold something for one of them, pod by pod: each pod's reservation is its
        own."""
        if len(pods) < 2 or (self.reservers and not self._unreserved(pods)):
            for pod in pods:
                self.assume(pod, node)
            return
        log = self._log
        start = len(log)
        block = node.add_pods(pods)
        log.extend(zip(pods, repeat(node)))
        self._undo.extend(repeat(None, len(pods)))
        if block:
            self._batches.append((start, len(log)))

    def _unreserved(self, pods: Sequence[Pod]) -> bool:
        """Every reserver says it holds nothing for any of ``pods`` (``Reserver``)."""
        for reserver in self.reservers:
            reserves = getattr(reserver, "reserves", None)
            if reserves is None or any(map(reserves, pods)):
                return False
        return True

    def evict(self, pod: Pod, node: NodeInfo) -> None:
        """``pod`` leaves ``node`` (preemption)."""
        node.remove_pod(pod)
        self._evicted.add(id(pod))
        self._move(pod, node, Op.EVICT)

    def evict_all(self, pods: Sequence[Pod], node: NodeInfo) -> None:
        """Every pod of ``pods`` leaves ``node``, as ``evict`` one by one would leave it
        (preemption's candidates, a whole cluster of them), in one step undone in one
        step; the log holds one entry per pod, as after one ``evict`` each."""
        if not pods:
            return
        totals = node.remove_pods(pods)
        self._evicted.update(map(id, pods))
        log = self._log
        start = len(log)
        log.extend(zip(pods, repeat(node)))
        self._undo.extend(repeat(None, len(pods)))
        self._moves.append((start, len(log), Op.EVICT_ALL, totals))

    def restore(self, pod: Pod, node: NodeInfo) -> None:
        """An evicted ``pod`` comes back to ``node``."""
        node.add_pod(pod)
        self._evicted.discard(id(pod))
        self._move(pod, node, Op.RESTORE)

    def evicted(self, pod: Pod) -> bool:
        """``pod`` was evicted (and is not back): its group no longer counts it."""
        return id(pod) in self._evicted

    def _move(self, pod: Pod, node: NodeInfo, op: Op) -> None:
        self._moves.append((len(self._log), len(self._log) + 1, op, None))
        self._log.append((pod, node))
        self._undo.append(None)

    def checkpoint(self) -> int:
        return len(self._log)

    def rollback(self, checkpoint: int) -> None:
        log = self._log
        if not 0 <= checkpoint <= len(log):
            raise StatementError(f"checkpoint {checkpoint} outside the log (length {len(log)})")
        moves, batches = self._moves, self._batches
        while len(log) > checkpoint:
            if batches and batches[-1][1] == len(log):
                start = batches.pop()[0]
                cut = max(start, checkpoint)  # a checkpoint inside the run keeps its head
                node = log[start][1]
                node.remove_copies([pod for pod, _ in log[cut:]])
                del log[cut:], self._undo[cut:]
                if cut - start > 1:
                    batches.append((start, cut))
                continue
            if moves and moves[-1][1] == len(log) and moves[-1][2] is Op.EVICT_ALL:
                start, _, _, totals = moves.pop()
                cut = max(start, checkpoint)  # a checkpoint inside the run keeps its head
                pods = [pod for pod, _ in log[cut:]]
                pods.reverse()  # back as one by one rollbacks would put them
                # undone whole: everything after it is undone already (LIFO), so the node's
                # totals are again what they were before it
                log[cut][1].add_back(pods, totals if cut == start else None)
                self._evicted.difference_update(map(id, pods))
                del log[cut:], self._undo[cut:]
                if cut > start:
                    moves.append((start, cut, Op.EVICT_ALL, totals))
                continue
            pod, node = log.pop()
            release(self._undo.pop())
            if moves and moves[-1][0] == len(log):
                op = moves.pop()[2]
                if op is Op.EVICT:
                    node.add_pod(pod)
                    self._evicted.discard(id(pod))
                else:
                    node.remove_pod(pod)
                    self._evicted.add(id(pod))
            else:
                node.remove_pod(pod)

    def changes_since(self, position: int) -> list[tuple[Pod, NodeInfo]]:
        """The pods assumed after ``position``: lets caches refresh only the nodes that
        changed. A cache never spans an eviction (preemption evicts before a cycle
        starts), and says so if one does."""
        if self._moves and self._moves[-1][1] > position:
            raise StatementError(f"evictions after position {position}: a cache over them "
                                 "would miss them")
        return self._log[position:]

    def commit(self) -> list[tuple[Pod, NodeInfo]]:
        """Keep every operation and start a new log; returns what was committed. Inside a
        trial nothing is forgotten (the trial undoes it all) until it ends with ``keep``."""
        done = self._log[:]
        if self._trials:
            self._commit_asked = True
            return done
        self._log, self._undo, self._moves, self._batches = [], [], [], []
        return done

    def begin(self) -> int:
        """Open a trial; returns its checkpoint, for ``end``."""
        self._trials += 1
        return len(self._log)

    def end(self, checkpoint: int, *, keep: bool) -> None:
        """Close the trial opened at ``checkpoint``: undo it, or keep it (what was
        committed inside it is committed once no trial is open)."""
        if self._trials <= 0:
            raise StatementError("end() without begin()")
        if not keep:
            self.rollback(checkpoint)
        self._trials -= 1
        if not self._trials and self._commit_asked:
            self._commit_asked = False
            if keep:
                self.commit()

    @contextmanager
    def trial(self) -> Iterator[int]:
        """``with statement.trial():`` -- everything inside is undone on the way out."""
        checkpoint = self.begin()
        try:
            yield checkpoint
        finally:
            self.end(checkpoint, keep=False)


def release(undo: Undo) -> None:
    """Take back one assumption's reservations, latest first."""
    if undo:
        for reserver, token in reversed(undo):
            reserver.unreserve(token)
