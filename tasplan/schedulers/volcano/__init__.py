"""``--scheduler volcano``: Volcano's allocate action over HyperNodes (network-topology-aware
scheduling), vcjobs and ``scheduling.volcano.sh`` PodGroups."""

VOLCANO = "volcano"  # the scheduler's name (--scheduler volcano, schedulerName)
