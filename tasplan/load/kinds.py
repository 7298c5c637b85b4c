"""The kinds of DRA and of the peer schedulers (Kueue, KAI, Volcano) that the loader reads:
their apiVersions and kind names, known without importing their decoders.

A run imports a family's decoder (``load/dra.py``, ``kueue.py``, ``kai.py``, ``volcano.py``)
and its records (``model/...``) only when an input holds one of its kinds: building their
~40 frozen dataclasses is a good part of a small ``check``'s start-up, and most inputs hold
none of them. The loader's kind table (``loader._KINDS``) is built from these names.
"""

from __future__ import annotations

from tasplan.model.kai_inputs import POD_GROUP_API as KAI_POD_GROUP_API
from tasplan.model.kai_inputs import TOPOLOGY_API as KAI_TOPOLOGY_API
from tasplan.model.kueue_inputs import VERSIONS as KUEUE_VERSIONS
from tasplan.model.volcano_inputs import HYPERNODE_VERSION, PODGROUP_VERSION, VCJOB_VERSION

DRA_GROUP = "resource.k8s.io"
DRA_VERSIONS = (f"{DRA_GROUP}/v1", f"{DRA_GROUP}/v1beta2", f"{DRA_GROUP}/v1beta1")
DRA_KINDS = ("DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate",
             "DeviceTaintRule")
KUEUE_KINDS = ("Topology", "ResourceFlavor", "ClusterQueue", "LocalQueue", "Cohort",
               "Workload")
KUEUE_INTERNAL = {kind: f"Kueue{kind}" for kind in KUEUE_KINDS}  # the loader's kind names
KAI_KINDS = {(KAI_TOPOLOGY_API, "Topology"): "KaiTopology",
             (KAI_POD_GROUP_API, "PodGroup"): "KaiPodGroup"}
VOLCANO_KINDS = {
    (HYPERNODE_VERSION, "HyperNode"): "HyperNode",
    (PODGROUP_VERSION, "PodGroup"): "VolcanoPodGroup",
    (VCJOB_VERSION, "Job"): "VolcanoJob",
}

# (apiVersion, kind) -> the loader's kind name, for every kind of these four families.
KINDS = {
    **{(v, k): k for v in DRA_VERSIONS for k in DRA_KINDS},
    **{(v, k): KUEUE_INTERNAL[k] for v in KUEUE_VERSIONS for k in KUEUE_KINDS},
    **KAI_KINDS,
    **VOLCANO_KINDS,
}
