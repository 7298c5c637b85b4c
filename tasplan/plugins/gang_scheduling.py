"""GangScheduling.PlacementFeasible: a placement succeeds once minCount pods of the group
hold a node in it, and is abandoned as soon as that can no longer happen."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tasplan.framework.status import Code, Status
from tasplan.framework.types import GroupContext
from tasplan.plugins import names


def cannot_satisfy(min_count: int, scheduled: int, remaining: int) -> str:
    return (f"minCount ({min_count}) cannot be satisfied: {scheduled} scheduled, "
            f"{remaining} remaining")


def not_yet_satisfied(min_count: int, scheduled: int, remaining: int) -> str:
    return (f"minCount ({min_count}) is not yet satisfied: {scheduled} scheduled, "
            f"{remaining} remaining")


class GangScheduling:
    name = names.GANG_SCHEDULING

    def placement_feasible(self, ctx: GroupContext, remaining: int, scheduled: int) -> Status:
        min_count = ctx.group.min_count  # basic groups carry min_count 1
        if remaining + scheduled < min_count:
            return Status(Code.UNSCHEDULABLE,
                          (cannot_satisfy(min_count, scheduled, remaining),))
        if scheduled < min_count:
            return Status(Code.WAIT, (not_yet_satisfied(min_count, scheduled, remaining),))
        return Status(Code.SUCCESS)


def new(args: Mapping[str, Any]) -> GangScheduling:
    return GangScheduling()
