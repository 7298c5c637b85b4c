"""One small interface per extension point, as kube-scheduler's ``framework/interface.go``.

A plugin implements only the points it needs; the runtime finds them with ``isinstance``.
Optional extras (score normalisation, PreScore skip, capacity) are plain methods the
runtime looks up once when it builds the framework.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.status import Status
from tasplan.framework.types import CycleState, GroupContext, Placement, ProposedAssignment, Scope
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot


@runtime_checkable
class Plugin(Protocol):
    name: str


@runtime_checkable
class FilterPlugin(Plugin, Protocol):
    """Runs per pod and node. Returns ``None`` when the node fits, else an UNSCHEDULABLE or
    UNSCHEDULABLE_AND_UNRESOLVABLE status with upstream's reason text. Any other code is
    turned into an ERROR for the whole group by the runtime. ``scope`` says what it reads."""

    scope: Scope

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None: ...


@runtime_checkable
class ScorePlugin(Plugin, Protocol):
    """Scores a feasible node in [0, 100], after normalisation over all feasible nodes when
    the plugin is a ``NormalizeScorePlugin``; a ``PreScorePlugin`` may skip a pod."""

    scope: Scope

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int: ...


# Abilities a plugin may add to its extension points; the framework looks them up once, by
# these interfaces.


@runtime_checkable
class PreScorePlugin(Protocol):
    """``pre_score`` False: the plugin has nothing to score for the pod (upstream's PreScore
    Skip); it is then not asked for the pod at all."""

    def pre_score(self, state: CycleState, pod: Pod) -> bool: ...


@runtime_checkable
class NormalizeScorePlugin(Protocol):
    """Rewrites the scores of all feasible nodes in place (upstream's ScoreExtensions);
    ``nodes[i]`` is the node ``scores[i]`` belongs to."""

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[int],
                        nodes: list[NodeInfo]) -> None: ...


@runtime_checkable
class PodScopedPlugin(Protocol):
    """A filter or score whose ``scope`` depends on the pod (DynamicResources reads only the
    node when the pod's devices can only be node-local)."""

    def scope_for(self, pod: Pod) -> Scope: ...


@runtime_checkable
class CapacityPlugin(Protocol):
    """A node-scope filter that can say how many more pods like ``pod`` pass on ``node``:
    placements of identical pods are then decided from counts.

    A class attribute ``capacity_exact = True`` promises that ``capacity`` is 0 exactly
    where ``filter`` rejects and that ``filter`` returns no error status: counting then
    asks only for the capacity (``tasplan.plan.pod_cycle.ClassCursor.capacity``)."""

    def capacity(self, pod: Pod, node: NodeInfo) -> int: ...


@runtime_checkable
class DeviceReportPlugin(Protocol):
    """A reserver that knows devices (DRA): what a placement's report says of them."""

    def free_devices(self, pods: Sequence[Pod], nodes: Sequence[NodeInfo],
                     unassumed: tuple[Pod, int] | None = None) -> dict[str, int]: ...

    def devices_by_pod(self, pods: Sequence[Pod], allocations: dict[str, list[dict[str, str]]]
                       ) -> dict[str, dict[str, int]]: ...


class Summary(Protocol):
    """What a ClusterStatePlugin knows about the cluster for one pod class."""

    def copy(self) -> Summary: ...


@runtime_checkable
class ClusterStatePlugin(Plugin, Protocol):
    """A filter or score that reads pods on every node, not only the candidate
    (PodTopologySpread, InterPodAffinity).

    Upstream recomputes such a summary in PreFilter for every pod. Here ``prepare`` computes
    it once per pod class and group from the whole cluster (also the nodes outside the
    placement, as upstream's snapshot ``List()``), and ``add_pod`` / ``remove_pod`` keep it
    current as pods are assumed or taken away (upstream's PreFilterExtensions). ``prepare``
    returns None when the plugin has nothing to check or score for this pod (upstream's
    Skip); the plugin is then not called for the class at all. ``filter`` and ``score``
    find the summary in ``state[self.name]``.

    ``add_pod`` may return the topology pairs (label key, value) whose counts it changed:
    filter and score results of nodes carrying none of them (and not the added pod's node)
    are then kept. None means the change may affect any node."""

    def prepare(self, pod: Pod, cluster: Sequence[NodeInfo]) -> Summary | None: ...

    def add_pod(self, summary: Summary, pod: Pod, added: Pod,
                node: NodeInfo) -> set[tuple[str, str]] | None: ...

    def remove_pod(self, summary: Summary, pod: Pod, removed: Pod, node: NodeInfo) -> None: ...


@runtime_checkable
class SnapshotPlugin(Plugin, Protocol):
    """A plugin that reads input-wide data besides node state (namespace labels, pods not
    yet placed). Plugins are built from their arguments alone; the planner calls
    ``bind_snapshot`` once, before the first group is planned."""

    def bind_snapshot(self, snapshot: ClusterSnapshot) -> None: ...


@runtime_checkable
class ReservePlugin(Plugin, Protocol):
    """Keeps state beyond node usage (DRA devices): ``reserve`` runs after every pod the
    Statement assumes and returns an undo token (None: nothing to undo) that ``unreserve``
    gets back when the assumption is rolled back (upstream's Reserve / Unreserve).
    ``allocation_mark`` and ``allocations_since`` report what was reserved in between, for
    the placement's report."""

    def reserve(self, pod: Pod, node: NodeInfo) -> object | None: ...

    def unreserve(self, token: object) -> None: ...

    def allocation_mark(self) -> int: ...

    def allocations_since(self, mark: int) -> dict[str, list[dict[str, str]]]: ...


@runtime_checkable
class PlacementGeneratePlugin(Plugin, Protocol):
    """Splits the parent placement into candidates. Returning ``[parent]`` means "no
    constraint"; an empty list means nothing can be generated. A status with code ERROR is
    a problem of this group's input (e.g. its running pods span two domains)."""

    def generate_placements(
        self, ctx: GroupContext, parent: Placement, nodes: Sequence[NodeInfo]
    ) -> tuple[list[Placement], Status | None]: ...


@runtime_checkable
class PlacementFeasiblePlugin(Plugin, Protocol):
    """SUCCESS, WAIT (not yet) or UNSCHEDULABLE (the placement can no longer succeed - stop
    simulating it), from the number of pods still to try and already scheduled.

    Contract (upstream's GangScheduling keeps it): the answer depends only on ``remaining``
    and ``scheduled``, and a pod that fits never turns it into UNSCHEDULABLE. So the planner
    asks before the first pod, after every pod that does not fit, and once at the end,
    instead of after every pod."""

    def placement_feasible(self, ctx: GroupContext, remaining: int, scheduled: int) -> Status: ...


@runtime_checkable
class PlacementScorePlugin(Plugin, Protocol):
    """Scores a feasible placement from its proposed assignments; the node state passed in
    is the state before the proposals. A ``NormalizePlacementScorePlugin`` maps the raw
    scores of all feasible placements into [0, 100]; a ``NodeReadingDeclared`` one may say
    it never reads the proposed pods' nodes."""

    def score_placement(
        self,
        ctx: GroupContext,
        placement: Placement,
        nodes: Sequence[NodeInfo],
        proposed: Sequence[ProposedAssignment],
    ) -> int: ...


@runtime_checkable
class NormalizePlacementScorePlugin(Protocol):
    def normalize_placement_scores(self, scores: list[int]) -> list[int] | Status: ...


@runtime_checkable
class NodeReadingDeclared(Protocol):
    """A placement scorer that says whether its score reads the proposed pods' nodes
    (one that does not say, does). When no scorer does, the planner may score placements
    of identical pods from exact counts, without choosing their nodes one by one."""

    reads_assigned_nodes: bool
