"""What planning produced: the only thing renderers read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tasplan.framework.diagnosis import Diagnosis
from tasplan.framework.sampling import NodeSampling
from tasplan.model.group import PodGroup
from tasplan.model.pod import DEFAULT_SCHEDULER
from tasplan.plan.notes import Note, Outcome
from tasplan.plan.preemption_result import PreemptionResult
from tasplan.target import Target


@dataclass(frozen=True)
class PlacementResult:
    """One candidate domain after simulation.

    ``assignments`` pod key -> node for the pods that fit; ``unplaced`` pod key -> reason
    (upstream wording) for those that did not, with the node-level ``diagnoses`` behind it.
    ``placed`` counts pods that got a node (also when ``assignments`` is not listed).
    ``score``/``scores`` are None/empty unless the placement was feasible; ``scores`` holds
    each placement scorer's weighted part. ``free`` is what the domain has left after the
    proposed assignments (allocatable minus requested, summed over its nodes).
    """

    name: str
    nodes: tuple[str, ...]
    feasible: bool
    status: str
    placed: int
    assignments: Mapping[str, str]
    unplaced: Mapping[str, str]
    diagnoses: Mapping[str, Diagnosis] = field(default_factory=dict)
    score: int | None = None
    scores: Mapping[str, int] = field(default_factory=dict)
    free: Mapping[str, int] = field(default_factory=dict)
    tied: bool = False
    # False when rejected from exact capacity counts: ``assignments`` is then empty.
    simulated: bool = True
    # DRA claims allocated in this placement (claim key -> devices); None when the group's
    # pods use no claims.
    allocations: Mapping[str, list[Mapping[str, str]]] | None = None
    # Pod key -> DeviceClass -> devices (DRA), for the assignments view.
    devices: Mapping[str, Mapping[str, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class PodSetView:
    """One PodSet of a workload as its scheduler admits it (Kueue): how many pods it admits
    for it and what it asks of the topology. ``mode``: ``required``, ``preferred`` or
    ``unconstrained`` (``level`` the node label), or None when the PodSet asks nothing;
    ``slices``: (node label, pods per slice), outermost first; ``implied``: the ClusterQueue
    makes it topology-aware (unconstrained) without an annotation."""

    name: str
    count: int
    pending: int
    mode: str | None = None
    level: str | None = None
    slices: tuple[tuple[str, int], ...] = ()
    group: str | None = None
    implied: bool = False


@dataclass(frozen=True)
class WorkloadView:
    """The group as the workload a queueing scheduler admits (Kueue): its queue, the flavor
    it was planned on, the Workload object it was read from (``ns/name``, when the inputs
    hold one; ``admitted`` when that Workload's own admission was used) and its PodSets.
    What the report's group header shows instead of kube-scheduler's policy/minCount."""

    pod_sets: tuple[PodSetView, ...]
    queue: str | None = None
    cluster_queue: str | None = None
    flavor: str | None = None
    workload: str | None = None
    admitted: bool = False


@dataclass(frozen=True)
class GroupResult:
    """``scheduler_name`` is the profile the group was planned with (or would have been);
    ``sampling`` lists the placements where upstream would filter and score only part of
    the nodes for each pod (``percentageOfNodesToScore``), which tasplan does not."""

    group: PodGroup
    pending: int
    scheduled: int
    schedulable: bool
    message: str
    placements: tuple[PlacementResult, ...] = ()
    selected: str | None = None
    tied_with: tuple[str, ...] = ()
    error: bool = False
    scheduler_name: str = DEFAULT_SCHEDULER
    sampling: tuple[NodeSampling, ...] = ()
    notes: tuple[Note, ...] = ()
    # Held back before any placement is tried (GangScheduling PreEnqueue, scheduling gates).
    waiting: bool = False
    # False when kube-scheduler would not schedule the group at all (no profile for its
    # schedulerName, GenericWorkload off).
    planned: bool = True
    # Pending pods held by spec.schedulingGates (not counted in ``pending``).
    gated: int = 0
    # Workload-aware preemption's answer when the group did not fit as the cluster is.
    preemption: PreemptionResult | None = None
    # What preemption said when it was tried (upstream's PodGroupPostFilter status), "" if
    # it was not.
    preemption_message: str = ""
    # The scheduler that planned the group (``tasplan.schedulers``: kube-scheduler, kueue,
    # ...), set by the planning run.
    scheduler: str = ""
    # The workload a queueing scheduler (Kueue) admits for the group; None for groups
    # kube-scheduler plans as PodGroups.
    workload: WorkloadView | None = None
    # A group that will not be bound although its own cycle placed it (a leaf of a tree
    # whose ancestor failed): the placement its cycle chose. ``selected`` is then None:
    # only a group that binds has a selected placement.
    closest: str | None = None
    # The resources the group's pending pods request (sorted), set by the planning run: the
    # report shows FREE columns for these (and cpu, memory) only.
    requested: tuple[str, ...] = ()

    @property
    def selected_placement(self) -> PlacementResult | None:
        return next((p for p in self.placements if p.name == self.selected), None)

    @property
    def closest_placement(self) -> PlacementResult | None:
        return next((p for p in self.placements if p.name == self.closest), None)

    @property
    def outcome(self) -> Outcome:
        if self.error:
            return Outcome.ERROR
        if not self.planned:
            return Outcome.NOT_PLANNED
        if self.schedulable:
            return Outcome.SCHEDULED
        if self.preemption is not None:
            return Outcome.SCHEDULED_AFTER_PREEMPTION
        return Outcome.WAITING if self.waiting else Outcome.UNSCHEDULABLE


@dataclass(frozen=True)
class PlanResult:
    groups: tuple[GroupResult, ...]
    nodes: int
    pods: int
    warnings: tuple[str, ...] = ()
    # CompositePodGroup results (tasplan.plan.tree_result.CompositeResult), tree by tree.
    composites: tuple = ()

    # The release planned for and its gates.
    target: Target | None = None
    # What --scheduler asked for: a scheduler's name, or "auto" (each group's own is
    # ``GroupResult.scheduler``).
    scheduler: str = "auto"
    # How PodDisruptionBudgets without a status were counted (preemption.budgets).
    pdb_allowance: str = "status"

    @property
    def schedulable(self) -> bool:
        """Every group is scheduled, now or once its preemption victims are gone (what the
        exit status reports), and every CompositePodGroup tree (now or after preemption)."""
        return all(g.outcome.fits for g in self.groups) and all(
            c.outcome.fits for c in self.composites)
