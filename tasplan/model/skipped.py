"""What the workload inputs hold that tasplan did not plan, and why: every exit reports it
(the table, ``skipped`` in JSON/YAML), so that "nothing to plan" is never silent."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Skipped:
    """``count`` objects of one kind (``names``: up to three of them, ``ns/name``) left out
    for one ``reason``; ``hint`` says what would plan them. ``checked`` is False when they
    should have been planned but could not be from these inputs (a TrainJob whose runtime
    is missing): the run then could not check everything it was asked to."""

    kind: str
    api_version: str
    count: int
    reason: str
    hint: str = ""
    names: tuple[str, ...] = ()
    checked: bool = True
