"""KAI-Scheduler (``--scheduler kai``): its Topology and ``scheduling.run.ai`` PodGroups
(``model``, ``decode``), the topology plugin's domain tree and job filtering (``tree``), the
PodGroup's subgroup tree (``jobs``) and the Allocate action's first-fit over candidate node
sets on the Statement (``allocate``), with the per-node check plugged in (``fit``)."""

KAI = "kai"  # --scheduler kai, groups[].scheduler
