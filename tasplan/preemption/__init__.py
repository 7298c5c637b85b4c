"""Workload-aware preemption (KEP-5710): what kube-scheduler does next for a pod group that
does not fit, as upstream's ``DefaultPreemption`` PodGroupPostFilter does it.

``victims`` builds the eviction units of the cluster (single pods, or whole groups whose
``disruptionMode`` is all) in upstream's order of importance and splits them by
PodDisruptionBudget; ``evaluator`` removes every lower-priority unit, re-runs the group's
cycle, then reprieves units one by one, most important first, while the group's proposed
assignments still pass the filters. ``budgets`` holds the disruption budgets both this and
``tasplan explain``'s eviction what-ifs respect.
"""
