"""The in-tree registry: every plugin tasplan ships, by its upstream name."""

from __future__ import annotations

from tasplan.framework.registry import Registry
from tasplan.plugins import (
    balanced_allocation,
    dynamic_resources,
    gang_scheduling,
    inter_pod_affinity,
    names,
    node_affinity,
    node_name,
    node_ports,
    node_resources_fit,
    node_unschedulable,
    pod_topology_spread,
    podgroup_pods_count,
    taint_toleration,
    topology_placement,
)


def in_tree_registry() -> Registry:
    return Registry({
        names.NODE_UNSCHEDULABLE: node_unschedulable.new,
        names.NODE_NAME: node_name.new,
        names.TAINT_TOLERATION: taint_toleration.new,
        names.NODE_AFFINITY: node_affinity.new,
        names.NODE_PORTS: node_ports.new,
        names.NODE_RESOURCES_FIT: node_resources_fit.new,
        names.POD_TOPOLOGY_SPREAD: pod_topology_spread.new,
        names.INTER_POD_AFFINITY: inter_pod_affinity.new,
        names.DYNAMIC_RESOURCES: dynamic_resources.new,
        names.NODE_RESOURCES_BALANCED_ALLOCATION: balanced_allocation.new,
        names.TOPOLOGY_PLACEMENT_GENERATOR: topology_placement.new,
        names.GANG_SCHEDULING: gang_scheduling.new,
        names.POD_GROUP_PODS_COUNT: podgroup_pods_count.new,
    })
