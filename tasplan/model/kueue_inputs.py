"""Kueue's API versions and the snapshot's container of its objects. The objects themselves
(``model/kueue.py``) are imported only when an input holds a Kueue kind: every run imports
this module, few need those."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

GROUP = "kueue.x-k8s.io"
VERSIONS = (f"{GROUP}/v1beta2", f"{GROUP}/v1beta1")


@dataclass(frozen=True, slots=True)
class KueueInputs:
    """Every Kueue object in the inputs, by name (``namespace/name`` when namespaced)."""

    # Values: model/kueue.py's Topology, ResourceFlavor, ClusterQueue, LocalQueue, Cohort and
    # Workload (not imported here).
    topologies: Mapping[str, Any] = field(default_factory=dict)
    flavors: Mapping[str, Any] = field(default_factory=dict)
    cluster_queues: Mapping[str, Any] = field(default_factory=dict)
    local_queues: Mapping[str, Any] = field(default_factory=dict)
    cohorts: Mapping[str, Any] = field(default_factory=dict)
    workloads: Mapping[str, Any] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return any((self.topologies, self.flavors, self.cluster_queues, self.local_queues,
                    self.cohorts, self.workloads))

    def tas_flavors(self) -> list[Any]:
        return [f for _, f in sorted(self.flavors.items()) if f.topology_name is not None]


NO_KUEUE = KueueInputs()
