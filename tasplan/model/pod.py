"""Pods, reduced to what scheduling reads, plus the group they belong to."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields

from tasplan.model.dra_inputs import PodClaim
from tasplan.model.pod_affinity import LabelSelector, PodAffinity, SpreadConstraint
from tasplan.model.selectors import NodeSelectorTerm, PreferredTerm
from tasplan.model.source import Source
from tasplan.model.taints import Toleration

TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})
DEFAULT_SCHEDULER = "default-scheduler"
# Pod features read by upstream plugins tasplan does not model (see plan/fidelity.py).
UNMODELLED_VOLUMES = "volumes"
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
# Kueue sets it on the pods of an admitted Workload: the Workload's name.
KUEUE_WORKLOAD_ANNOTATION = "kueue.x-k8s.io/workload"
NODE_LOCAL_OWNERS = frozenset({"DaemonSet", "Node"})


@dataclass(frozen=True, slots=True)
class HostPort:
    """A requested host port; ``ip`` ``0.0.0.0`` conflicts with every address."""

    port: int
    protocol: str = "TCP"
    ip: str = "0.0.0.0"

    def conflicts(self, other: HostPort) -> bool:
        if self.port != other.port or self.protocol != other.protocol:
            return False
        return self.ip == other.ip or "0.0.0.0" in (self.ip, other.ip)


@dataclass(slots=True, eq=False)
class Pod:
    """A pod in the snapshot or synthesised from a Job template.

    Not frozen, unlike the rest of the model, on purpose: one is built per pod of the
    snapshot (150k in a 5k-node cluster) and a frozen dataclass's ``__init__`` costs 2-3x as
    much. Treat it as immutable: derive changed copies with ``dataclasses.replace``.
    Identity equality: two pod objects are the same pod only if they are the same object.

    ``requests`` are upstream ``PodRequests`` in canonical integers (no ``pods`` slot);
    ``non_zero`` is (milli_cpu, memory_bytes) with the scoring defaults for missing requests.
    ``group`` is the key of the pod group it belongs to, if any. ``order`` is the position in
    the input, standing in for the scheduler's first-seen timestamp.
    """

    namespace: str
    name: str
    node_name: str
    phase: str
    priority: int
    requests: Mapping[str, int]
    non_zero: tuple[int, int]
    source: Source
    order: int
    labels: Mapping[str, str] = field(default_factory=dict)
    group: str | None = None
    priority_class_name: str = ""
    scheduler_name: str = DEFAULT_SCHEDULER
    preemption_policy: str = "PreemptLowerPriority"
    node_selector: Mapping[str, str] = field(default_factory=dict)
    required_terms: tuple[NodeSelectorTerm, ...] | None = None
    preferred_terms: tuple[PreferredTerm, ...] = ()
    tolerations: tuple[Toleration, ...] = ()
    host_ports: tuple[HostPort, ...] = ()
    spread_constraints: tuple[SpreadConstraint, ...] = ()
    # What the Services and the controller selecting this pod select (upstream
    # ``DefaultSelector``); default spread constraints count pods with it. None: nothing
    # selects the pod, so no default constraint applies.
    default_spread_selector: LabelSelector | None = None
    pod_affinity: PodAffinity | None = None
    nominated_node_name: str = ""
    deleting: bool = False
    synthesised: bool = False
    unmodelled: frozenset[str] = frozenset()
    # DRA: spec.resourceClaims and status.resourceClaimStatuses (entry name -> claim name).
    claims: tuple[PodClaim, ...] = ()
    claim_statuses: tuple[tuple[str, str], ...] = ()
    # Kind of the controlling owner (``ownerReferences`` entry with ``controller: true``);
    # ``Node`` for mirror pods (the kubelet's static pods). kubectl drain leaves DaemonSet
    # and mirror pods where they are, and so do the what-if edits and capacity's "empty".
    owner_kind: str = ""

    # spec.schedulingGates names: a gated pod never enters a scheduling cycle
    # (SchedulingGates PreEnqueue) but exists for the gang's pod count.
    scheduling_gates: tuple[str, ...] = ()
    # The Kueue Workload the pod runs for (annotation kueue.x-k8s.io/workload): its bound
    # pods already hold part of the Workload's topology assignment.
    kueue_workload: str = ""
    # metadata.uid and status.startTime (RFC 3339 text, "" when unset): upstream orders
    # preemption victims of equal priority, rank and size by start time, then UID.
    uid: str = ""
    start_time: str = ""

    @property
    def node_local(self) -> bool:
        """A DaemonSet or mirror pod: it belongs to its node, drain does not evict it."""
        return self.owner_kind in NODE_LOCAL_OWNERS

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def terminal(self) -> bool:
        return self.phase in TERMINAL_PHASES

    @property
    def bound(self) -> bool:
        return bool(self.node_name)

    def signature(self) -> tuple:
        """Everything a per-pod filter or score reads: pods with equal signatures are
        interchangeable for scheduling, so they are simulated as one equivalence class
        (upstream's ``SignPlugin`` / opportunistic batching)."""
        return (
            self.namespace,
            tuple(sorted(self.requests.items())),
            self.non_zero,
            self.priority,
            self.scheduler_name,
            tuple(sorted(self.node_selector.items())),
            self.required_terms,
            self.preferred_terms,
            self.tolerations,
            self.host_ports,
            self.spread_constraints,
            self.pod_affinity,
            # Labels only matter to rules between pods; leaving them out otherwise keeps
            # pods that differ only in labels (job indexes) in one class.
            tuple(sorted(self.labels.items()))
            if self.spread_constraints or self.pod_affinity else None,
            self.default_spread_selector,
            # Of its labels, default spreading reads only whether the pod matches itself.
            self.default_spread_selector.matches(self.labels)
            if self.default_spread_selector is not None else None,
            self.claims,
            self.claim_statuses,
        )

    def __str__(self) -> str:
        return self.key


# The field order of the readers that build pods positionally (load/typed.py,
# load/pod_table.py: kwargs cost half as much again per pod): a new field must be added
# there too, or the import fails here.
POSITIONAL = ("namespace", "name", "node_name", "phase", "priority", "requests", "non_zero",
              "source", "order", "labels", "group", "priority_class_name", "scheduler_name",
              "preemption_policy", "node_selector", "required_terms", "preferred_terms",
              "tolerations", "host_ports", "spread_constraints", "default_spread_selector",
              "pod_affinity", "nominated_node_name", "deleting", "synthesised", "unmodelled",
              "claims", "claim_statuses", "owner_kind", "scheduling_gates",
              "kueue_workload", "uid", "start_time")
if tuple(f.name for f in fields(Pod)) != POSITIONAL:
    raise ImportError("tasplan.model.pod.Pod changed its fields: update POSITIONAL and the "
                      "positional Pod(...) calls of load/typed.py and load/pod_table.py")
