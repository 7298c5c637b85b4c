"""Fidelity notes about DRA: what the plan assumed or could not model for a group."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from tasplan.dra.allocator import CANNOT_ALLOCATE, TIMED_OUT
from tasplan.dra.claims import resolve
from tasplan.framework.types import GroupContext
from tasplan.model.dra import DraInputs
from tasplan.plan.notes import NoteCode

if TYPE_CHECKING:
    from tasplan.plan.result import GroupResult


def dra_notes(ctx: GroupContext, result: GroupResult,
              inputs: DraInputs) -> Iterator[tuple[str, str]]:
    """(code, message) pairs."""
    pending = [p for p in ctx.pending if p.claims]
    if not pending:
        return
    uses = [u for p in pending for u in resolve(p, ctx.group, inputs)]
    synthesised = sorted({u.key for u in uses if u.synthesised})
    if synthesised:
        shown = ", ".join(synthesised[:3]) + (f" and {len(synthesised) - 3} more"
                                               if len(synthesised) > 3 else "")
        yield (NoteCode.DRA_TEMPLATE_SYNTHESIZED,
                   f"{len(synthesised)} ResourceClaim(s) were generated from their templates "
                   f"for the plan ({shown}); upstream's claim controller creates them before "
                   "the pods can be scheduled")
    unmodelled = set()
    for u in uses:
        if u.spec is None:
            continue
        for request in u.spec.requests:
            for r in request.subrequests or (request,):
                unmodelled.update(r.unmodelled)
                device_class = inputs.classes.get(r.class_name)
                if device_class is not None and device_class.extended_resource_name:
                    unmodelled.add("extended resources backed by a DeviceClass")
    if any(d.binding_conditions for s in inputs.slices for d in s.devices):
        unmodelled.add("binding conditions (PreBind waits)")
    if any(d.allow_multiple_allocations for s in inputs.slices for d in s.devices):
        unmodelled.add("consumable capacity (devices allowing multiple allocations are "
                       "treated as exclusive)")
    if unmodelled:
        yield (NoteCode.DRA_NOT_MODELLED, "DRA features not modelled: "
                   + "; ".join(sorted(unmodelled)))
    messages = [m for p in result.placements for m in p.unplaced.values()]
    if not result.schedulable and len(pending) > 1 and any(
            p.placed and any(CANNOT_ALLOCATE in m for m in p.unplaced.values())
            for p in result.placements):
        yield (NoteCode.DRA_GREEDY, "devices are allocated pod by pod, each pod taking the first "
                   "devices that fit in upstream's order; a DRA failure might be avoidable "
                   "with other devices for earlier pods, which upstream does not search for")
    if any(TIMED_OUT in m for m in messages):
        yield (NoteCode.DRA_SEARCH_LIMIT, "the device search on some node was cut off after "
                   "a fixed number of steps (upstream bounds it by a 10 s timeout)")
