"""Upstream's default profile with GenericWorkload and TopologyAwareWorkloadScheduling on,
restricted to the plugins tasplan models (see the fidelity notes in the README)."""

from __future__ import annotations

from tasplan.framework.profile import PluginRef, Profile
from tasplan.model.pod import DEFAULT_SCHEDULER
from tasplan.plugins import names


def default_profile(scheduler_name: str = DEFAULT_SCHEDULER) -> Profile:
    # Filter order is upstream's multiPoint order: the first failing filter names the reason.
    return Profile(
        scheduler_name=scheduler_name,
        filter=(
            names.NODE_UNSCHEDULABLE,
            names.NODE_NAME,
            names.TAINT_TOLERATION,
            names.NODE_AFFINITY,
            names.NODE_PORTS,
            names.NODE_RESOURCES_FIT,
            names.INTER_POD_AFFINITY,
        ),
        score=(
            PluginRef(names.TAINT_TOLERATION, 3),
            PluginRef(names.NODE_AFFINITY, 2),
            PluginRef(names.NODE_RESOURCES_FIT, 1),
            PluginRef(names.INTER_POD_AFFINITY, 2),
            PluginRef(names.NODE_RESOURCES_BALANCED_ALLOCATION, 1),
        ),
        placement_generate=(names.TOPOLOGY_PLACEMENT_GENERATOR,),
        placement_feasible=(names.GANG_SCHEDULING,),
        placement_score=(
            PluginRef(names.NODE_RESOURCES_FIT, 1),
            PluginRef(names.POD_GROUP_PODS_COUNT, 1),
        ),
    )
