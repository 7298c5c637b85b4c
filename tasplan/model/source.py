"""Where an object came from, so every error and report can point back at the input."""

from __future__ import annotations

from typing import NamedTuple


class Source(NamedTuple):
    """A document in an input file: ``path``, its index in a multi-document stream and,
    for ``kind: List`` documents, the item index. ``workload`` marks positional inputs
    (the things to plan) as opposed to ``--cluster`` inputs (the world they land in).
    ``collection`` names the list the item sits in (``items``; ``pods`` in a tasplan
    snapshot's pod table).

    A NamedTuple rather than a frozen dataclass: one is made per input object (150k+ in a
    large dump) and building a tuple costs a fraction of a dataclass ``__init__``."""

    path: str
    document: int = 0
    item: int | None = None
    workload: bool = False
    collection: str = "items"
    # The field path of an object nested in another (an AppWrapper component, a
    # TrainingRuntime's JobSet template), below the document's object.
    nested: str = ""

    def field_prefix(self) -> str:
        """Field path of the object inside its document (``items[3]`` for list items, with
        ``nested`` after it)."""
        outer = "" if self.item is None else f"{self.collection}[{self.item}]"
        if not self.nested:
            return outer
        return f"{outer}.{self.nested}" if outer else self.nested

    def __str__(self) -> str:
        where = self.path
        if self.document:
            where += f" (document {self.document + 1})"
        if self.item is not None:
            where += f" {self.collection}[{self.item}]"
        if self.nested:
            where += f" {self.nested}"
        return where

