"""The what-if operations, one module each, named by the op they implement.

Each module has ``apply(draft, edit) -> AppliedEdit``: it changes the draft and says what
it did; anything that matches nothing or cannot be done is a UsageError naming it."""

from __future__ import annotations

from collections.abc import Callable

from tasplan.whatif.draft import Draft
from tasplan.whatif.edits import AppliedEdit, Edit
from tasplan.whatif.ops import add_nodes, cordon, drain, evict, remove, set_field

Op = Callable[[Draft, Edit], AppliedEdit]

REGISTRY: dict[str, Op] = {
    "cordon": cordon.apply,
    "drain": drain.apply,
    "remove": remove.apply,
    "addNodes": add_nodes.apply,
    "evict": evict.apply,
    "set": set_field.apply,
}
