"""KEP-6012 CompositePodGroup: trees of pod groups planned as one scheduling unit.

``model`` (the objects), ``templates`` (a Workload's compositePodGroupTemplates),
``decode`` (CompositePodGroup objects), ``tree`` (the group trees of an input and the
scheduler's runtime validation of them), ``algorithm`` (upstream's composite placement
algorithm, driving the ordinary pod-group cycle for each leaf inside its parent's domain).
"""
