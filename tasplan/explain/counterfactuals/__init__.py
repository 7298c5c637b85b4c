"""One module per kind of suggestion. Each ``suggest(case)`` returns only suggestions it has
verified by re-planning the group on the changed cluster with the real planner."""
