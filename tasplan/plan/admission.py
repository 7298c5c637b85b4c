"""A group as the scheduling queue hands it to a cycle: admitted (the framework and context
to plan it with) or held back with its verdict (no profile for its scheduler, invalid,
GenericWorkload off), decided once per group and unit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tasplan.framework.runtime import Framework
from tasplan.framework.types import GroupContext
from tasplan.model.group import PodGroup
from tasplan.model.pod import Pod
from tasplan.plan.result import GroupResult

# The group cycle (``group_cycle.schedule_group``'s signature): every place a group is
# scheduled (alone, as a tree's leaf, in a preemption re-run) calls one of these.
ScheduleGroup = Callable[..., GroupResult]


@dataclass(frozen=True, slots=True)
class Admission:
    """``verdict``: the result a group held back gets without a cycle, None when admitted
    (then ``fw`` and ``ctx`` are set)."""

    group: PodGroup
    fw: Framework | None = None
    ctx: GroupContext | None = None
    verdict: GroupResult | None = None

    @classmethod
    def admitted(cls, fw: Framework, ctx: GroupContext) -> Admission:
        return cls(ctx.group, fw, ctx)

    @classmethod
    def held(cls, verdict: GroupResult) -> Admission:
        return cls(verdict.group, verdict=verdict)

    @property
    def ok(self) -> bool:
        return self.verdict is None

    @property
    def pending(self) -> tuple[Pod, ...]:
        """The pods the cycle places (none when held back)."""
        return self.ctx.pending if self.ctx is not None and self.ok else ()

    @property
    def scheduled(self) -> tuple[tuple[Pod, str], ...]:
        return self.ctx.scheduled if self.ctx is not None and self.ok else ()

