"""Plugin names as KubeSchedulerConfiguration spells them."""

NODE_UNSCHEDULABLE = "NodeUnschedulable"
NODE_NAME = "NodeName"
TAINT_TOLERATION = "TaintToleration"
NODE_AFFINITY = "NodeAffinity"
NODE_PORTS = "NodePorts"
NODE_RESOURCES_FIT = "NodeResourcesFit"
POD_TOPOLOGY_SPREAD = "PodTopologySpread"
NODE_RESOURCES_BALANCED_ALLOCATION = "NodeResourcesBalancedAllocation"
POD_TOPOLOGY_SPREAD = "PodTopologySpread"
INTER_POD_AFFINITY = "InterPodAffinity"
TOPOLOGY_PLACEMENT_GENERATOR = "TopologyPlacementGenerator"
GANG_SCHEDULING = "GangScheduling"
POD_GROUP_PODS_COUNT = "PodGroupPodsCount"

# Upstream in-tree plugins (v1.36 ``plugins/registry.go``) that tasplan may not model.
SCHEDULING_GATES = "SchedulingGates"
PRIORITY_SORT = "PrioritySort"
VOLUME_RESTRICTIONS = "VolumeRestrictions"
NODE_VOLUME_LIMITS = "NodeVolumeLimits"
VOLUME_BINDING = "VolumeBinding"
VOLUME_ZONE = "VolumeZone"
DYNAMIC_RESOURCES = "DynamicResources"
DEFAULT_PREEMPTION = "DefaultPreemption"
IMAGE_LOCALITY = "ImageLocality"
DEFAULT_BINDER = "DefaultBinder"
NODE_DECLARED_FEATURES = "NodeDeclaredFeatures"

UPSTREAM_IN_TREE = frozenset({
    NODE_UNSCHEDULABLE, NODE_NAME, TAINT_TOLERATION, NODE_AFFINITY, NODE_PORTS,
    NODE_RESOURCES_FIT, NODE_RESOURCES_BALANCED_ALLOCATION, POD_TOPOLOGY_SPREAD,
    INTER_POD_AFFINITY, TOPOLOGY_PLACEMENT_GENERATOR, GANG_SCHEDULING, POD_GROUP_PODS_COUNT,
    SCHEDULING_GATES, PRIORITY_SORT, VOLUME_RESTRICTIONS, NODE_VOLUME_LIMITS, VOLUME_BINDING,
    VOLUME_ZONE, DYNAMIC_RESOURCES, DEFAULT_PREEMPTION, IMAGE_LOCALITY, DEFAULT_BINDER,
    NODE_DECLARED_FEATURES,
})
# Rejected by v1 validation: "was invalid in version kubescheduler.config.k8s.io/v1".
REMOVED = frozenset({"AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits"})
