"""Apply what-if edits to a loaded cluster, in order, before anything is planned."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tasplan.model.snapshot import ClusterSnapshot
    from tasplan.whatif.edits import AppliedEdit, Edit


@dataclass(frozen=True)
class WhatIf:
    """The edited cluster and, per edit in the order applied, what it did."""

    snapshot: ClusterSnapshot
    applied: tuple[AppliedEdit, ...]


def apply_edits(snapshot: ClusterSnapshot, edits: Sequence[Edit]) -> WhatIf:
    if not edits:
        return WhatIf(snapshot, ())
    from tasplan.whatif.draft import Draft  # the edits' machinery, when there are edits
    from tasplan.whatif.ops import REGISTRY

    draft = Draft.of(snapshot)
    applied = tuple(REGISTRY[edit.op](draft, edit) for edit in edits)
    return WhatIf(draft.snapshot(), applied)
