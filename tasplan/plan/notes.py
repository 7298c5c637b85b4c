"""The words a plan's verdicts are made of: a group's outcome and the codes of the notes that
say where the plan may differ from the scheduler's decision. Both are StrEnums: they compare
equal to, and print as, the strings the report carries."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Outcome(StrEnum):
    """A group's verdict (``groups[].outcome``)."""

    SCHEDULED = "scheduled"
    SCHEDULED_AFTER_PREEMPTION = "scheduled-after-preemption"
    UNSCHEDULABLE = "unschedulable"
    WAITING = "waiting"
    NOT_PLANNED = "not-planned"
    ERROR = "error"

    @property
    def fits(self) -> bool:
        """Scheduled now, or once the preemption victims are gone."""
        return self in (Outcome.SCHEDULED, Outcome.SCHEDULED_AFTER_PREEMPTION)


class NoteCode(StrEnum):
    """kube-scheduler's note codes (``groups[].notes[].code``). Other schedulers may use
    codes of their own: ``Note.code`` is any string."""

    VOLUMES = "volumes"
    IMAGE_LOCALITY = "image-locality"
    NODE_SAMPLING = "node-sampling"
    BASIC_TIMING = "basic-timing"
    RANDOM_TIES = "random-ties"
    NAMESPACE_LABELS = "namespace-labels"
    PREEMPTION = "preemption"
    VICTIM_ORDER = "victim-order"
    PDB_STATUS = "pdb-status"
    DRA_TEMPLATE_SYNTHESIZED = "dra-template-synthesized"
    DRA_NOT_MODELLED = "dra-not-modelled"
    DRA_GREEDY = "dra-greedy"
    DRA_SEARCH_LIMIT = "dra-search-limit"
    COMPOSITE_GATE_OFF = "composite-gate-off"
    COMPOSITE_CHILD_ORDER = "composite-child-order"
    COMPOSITE_MIXED_PRIORITY = "composite-mixed-priority"
    SCHEDULER_AUTO = "scheduler-auto"


@dataclass(frozen=True, slots=True)
class Note:
    code: str
    message: str
