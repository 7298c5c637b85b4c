"""What-if edits as data: what the flags and ``--what-if`` files say, and what applying
each one did (echoed in every report so a result is never mistaken for the real cluster)."""

from __future__ import annotations

import re
from dataclasses import dataclass

OPS = ("cordon", "drain", "remove", "addNodes", "evict", "set")
MAX_EDITS = 1000  # the WhatIf schema's edits.maxItems; checked before the schema runs
ADD_NODES_FIELDS = frozenset({"count", "like", "in", "labels"})  # addNodes only; not target
_DIGITS = re.compile(r"[+-]?[0-9]{1,19}")


def strict_int(text: str) -> int:
    """An integer as Go's strconv.ParseInt reads it: ASCII digits only (Python's ``int()``
    also takes ``٣`` and ``1_000``), within int64; raises ValueError."""
    text = text.strip()
    if not _DIGITS.fullmatch(text):
        raise ValueError(text)
    value = int(text)
    if not -(2**63) <= value < 2**63:
        raise ValueError(text)
    return value


@dataclass(frozen=True, slots=True)
class Edit:
    """One edit. ``target`` is the flag's value (node names or a selector for cordon,
    drain and remove; a pod filter for evict; ``GROUP.field=value`` for set). addNodes
    uses ``count``, ``like``, ``domain`` (``--in``) and ``labels`` (``--label``) instead.
    ``origin`` says where it was written, for errors (a flag or ``file: edits[i]``)."""

    op: str
    target: str = ""
    count: int = 0
    like: str = ""
    domain: str = ""
    labels: tuple[tuple[str, str], ...] = ()
    origin: str = ""

    def describe(self) -> str:
        """The edit as the command line would spell it (reports echo it)."""
        if self.op != "addNodes":
            return self.target
        text = f"{self.count} --like {self.like}"
        if self.domain:
            text += f" --in {self.domain}"
        for key, value in self.labels:
            text += f" --label {key}={value}"
        return text

    @property
    def where(self) -> str:
        return self.origin or f"--{_FLAGS.get(self.op, self.op)}"


_FLAGS = {"addNodes": "add-nodes"}


@dataclass(frozen=True, slots=True)
class AppliedEdit:
    """An edit and what it did, in words (``effect``); ``nodes`` names the nodes it
    changed (cordoned, drained, removed, added, or that lost evicted pods), sorted, for the
    pictures that show where an edit applied."""

    op: str
    target: str
    effect: str
    nodes: tuple[str, ...] = ()
