"""kube-scheduler (KEP-5732 workload scheduling): the pod-group cycle of ``tasplan.plan``,
CompositePodGroup trees and workload-aware preemption, as one scheduler of the registry."""
