"""Exit codes, in one place."""

from enum import IntEnum


class ExitStatus(IntEnum):
    OK = 0  # every group schedulable
    UNSCHEDULABLE = 1  # some group is not
    FINDINGS = 1  # lint: error findings (any finding with --strict)
    INVALID = 2  # bad input or usage
    INTERNAL = 3  # a bug in tasplan
    NOT_CHECKED = 4  # valid inputs, but (some of) what they hold could not be planned
    INTERRUPTED = 130
