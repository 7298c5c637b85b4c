"""What-if edits: change the loaded cluster (cordon, drain, remove or add nodes, evict pods,
change a group) before planning, and say what changed."""

from tasplan.whatif.apply import WhatIf, apply_edits
from tasplan.whatif.edits import OPS, AppliedEdit, Edit

__all__ = ["OPS", "AppliedEdit", "Edit", "WhatIf", "apply_edits"]
