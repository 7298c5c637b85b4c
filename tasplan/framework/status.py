"""One Status type for every plugin outcome, as kube-scheduler's framework has.

``None`` stands for success on the hot path (a nil Status upstream), so filters that pass
allocate nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class Code(IntEnum):
    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    # Preemption cannot help (taints, selectors, a node too small even when empty).
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5


@dataclass(frozen=True, slots=True)
class InsufficientResource:
    """The numbers behind an ``Insufficient <resource>`` reason."""

    resource: str
    requested: int
    used: int
    capacity: int


@dataclass(frozen=True, slots=True)
class Status:
    """``reasons`` use upstream's wording; ``details`` keep the numbers the text was made
    from, so explain and JSON never parse text. ``plugin`` is stamped by the runtime."""

    code: Code
    reasons: tuple[str, ...] = ()
    details: tuple[object, ...] = ()
    plugin: str = ""

    @property
    def message(self) -> str:
        return ", ".join(self.reasons)

    @property
    def success(self) -> bool:
        return self.code == Code.SUCCESS

    @property
    def rejected(self) -> bool:
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    def with_plugin(self, name: str) -> Status:
        if self.plugin == name:
            return self
        return Status(self.code, self.reasons, self.details, name)


def unschedulable(*reasons: str, unresolvable: bool = False, details: tuple = ()) -> Status:
    code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else Code.UNSCHEDULABLE
    return Status(code, tuple(reasons), details)


class PluginError(Exception):
    """A plugin answered with an ERROR status: the group fails (upstream: the pods get a
    SchedulerError), other groups go on."""

    def __init__(self, status: Status) -> None:
        self.status = status
        super().__init__(f"{status.plugin}: {status.message}")


def error(message: str) -> Status:
    return Status(Code.ERROR, (message,))
