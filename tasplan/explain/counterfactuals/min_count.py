"""The largest minCount the gang reaches now.

Feasibility is monotone in minCount (a smaller minCount only lets a placement's simulation
run longer), so a binary search finds the largest one. It starts from the most pods any
placement held; for counted placements (identical pods) that number is exact and one re-plan
verifies it."""

from __future__ import annotations

from dataclasses import replace

from tasplan.explain.case import Case
from tasplan.explain.result import Suggestion
from tasplan.model.group import Policy
from tasplan.plan.result import GroupResult

KIND = "minCount"


def suggest(case: Case) -> list[Suggestion]:
    group = case.group
    if group.policy != Policy.GANG or case.partial:
        return []
    scheduled = len(case.ctx.scheduled)
    upper = min(group.min_count - 1, len(case.ctx.pending) + scheduled)
    if upper < max(scheduled, 1):
        return []
    lower = max(scheduled, 1)

    def attempt(m: int) -> GroupResult | None:
        result = case.replan(group=replace(group, min_count=m))
        return result if result.schedulable else None

    guess = max((p.placed for p in case.result.placements), default=0) + scheduled
    guess = min(max(guess, lower), upper)
    exact = bool(case.result.placements) and not any(p.simulated for p in case.result.placements)
    best: tuple[int, GroupResult] | None = None
    found = attempt(guess)
    if found is None:
        lo, hi = lower, guess - 1
    else:
        # Counted placements hold exactly ``placed`` pods whatever minCount is: no placement
        # reaches guess + 1. Simulated ones stop early, so one more is tried, then searched.
        best, lo, hi = (guess, found), guess + 1, guess if exact else upper
        if lo <= hi:
            found = attempt(lo)
            if found is None:
                hi = lo - 1
            else:
                best, lo = (lo, found), lo + 1
    while lo <= hi:
        mid = (lo + hi + 1) // 2
        found = attempt(mid)
        if found is not None:
            best, lo = (mid, found), mid + 1
        else:
            hi = mid - 1
    if best is None:
        return []
    m, result = best
    return [Suggestion(KIND, f"lower minCount from {group.min_count} to {m}", result,
                       details={"minCount": m})]
