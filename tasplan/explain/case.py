"""One group to explain, in the cluster state the planner gave it, and the what-if runs on it.

Every counterfactual is verified with the real planner (``schedule_group``) on a changed copy
of that state. Copies are cheap: only the NodeInfos that change are rebuilt, the others are
shared, and a trial's assumptions are undone afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cached_property

from tasplan.dra.copies import copied_slices
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.statement import Statement
from tasplan.framework.types import GroupContext, Placement
from tasplan.model.dra import ResourceSlice
from tasplan.model.group import PodGroup
from tasplan.model.node import Node
from tasplan.model.pod import Pod
from tasplan.model.topology import natural_key
from tasplan.plan.group_cycle import counting_mode, pod_signatures, schedule_group
from tasplan.plan.placement_cycle import Count, Simulation, simulate_placement
from tasplan.plan.pod_cycle import ClassCursor, GroupCache
from tasplan.plan.result import GroupResult, PlacementResult
from tasplan.plugins import names
from tasplan.preemption.budgets import DisruptionBudget
from tasplan.preemption.victims import Hierarchy

HOSTNAME = "kubernetes.io/hostname"


# Empty copies of nodes with equal devices share one capacity (``Case._device_shape``);
# tests compare it with keying each such node by name (tests/explain/test_device_shapes.py).
DEVICE_SHAPES = True


@dataclass
class Case:
    """``needed``: pending pods that must get a node in one placement for the group to count
    as fixed (minCount minus running members; every pending pod for a group that fit only in
    part). ``priority`` is the group's, as the planner orders groups."""

    fw: Framework
    ctx: GroupContext
    infos: Sequence[NodeInfo]
    result: GroupResult
    needed: int
    priority: int
    budgets: tuple[DisruptionBudget, ...] = ()
    node_index: Mapping[str, int] = field(default_factory=dict)
    # Whether verified suggestions carry pod -> node assignments (JSON shows them; the table
    # does not, and skipping them spares a pod-by-pod run of each suggestion's placement).
    assignments: bool = True
    # Shared by every group of one explain run: facts about the (unchanging) nodes.
    memo: dict = field(default_factory=dict)
    # The input's pod groups as preemption sees them (victims' units and priorities).
    hierarchy: Hierarchy = field(default_factory=lambda: Hierarchy({}))

    @property
    def group(self) -> PodGroup:
        return self.ctx.group

    @property
    def partial(self) -> bool:
        """The group is schedulable but some pending pods found no node."""
        return self.result.schedulable

    @cached_property
    def signatures(self) -> list[tuple]:
        return pod_signatures(self.ctx.pending, self.infos)

    @cached_property
    def domains(self) -> list[PlacementResult]:
        """The group's placements, closest first: most pods placed, then by name."""
        return sorted(self.result.placements, key=lambda p: (-p.placed, natural_key(p.name)))

    def placement(self, domain: PlacementResult) -> Placement:
        return Placement(domain.name, tuple(self.node_index[n] for n in domain.nodes))

    def met(self, result: GroupResult) -> bool:
        chosen = result.selected_placement
        return result.schedulable and chosen is not None and chosen.placed >= self.needed

    # -- what-if runs ---------------------------------------------------------------------

    def replan(self, *, group: PodGroup | None = None, pending: Sequence[Pod] | None = None,
               infos: Sequence[NodeInfo] | None = None) -> GroupResult:
        """The planner's verdict for this group with the given changes, leaving no trace."""
        ctx = self.ctx
        if group is not None or pending is not None:
            ctx = GroupContext(group or ctx.group, tuple(ctx.pending if pending is None
                                                         else pending), ctx.scheduled)
        statement = Statement(self.fw.reservers)
        with statement.trial():
            return schedule_group(self.fw, ctx, self.infos if infos is None else infos,
                                  statement, assign=self.assignments)

    @cached_property
    def count(self) -> Count:
        """How the planner decides this group's placements (see ``schedule_group``)."""
        return counting_mode(self.fw, self.signatures)

    def simulate(self, placement: Placement, infos: Sequence[NodeInfo]) -> Simulation:
        """One placement only, as the planner simulates it: the cheap inner check of a
        search, always followed by a full ``replan`` of the answer."""
        statement = Statement(self.fw.reservers)
        return simulate_placement(self.fw, self.ctx, placement, infos, statement,
                                  GroupCache(infos, statement), self.signatures,
                                  count=self.count)

    def fits(self, sim: Simulation) -> bool:
        return sim.feasible and sim.placed >= self.needed

    @contextmanager
    def copies_of(self, like: Node, copies: Sequence[Node]) -> Iterator[None]:
        """While open, the what-if's new ``copies`` of node ``like`` publish its node-local
        devices (ResourceSlices), as ``check --add-nodes --like`` copies them."""
        dra = self.fw.plugin(names.DYNAMIC_RESOURCES)
        if dra is None:
            yield
            return
        slices = [s for c in copies for s in copied_slices(dra.published_by(like.name), like.name,
                                                             c.name)]
        with dra.more_slices(slices):
            yield

    @contextmanager
    def evicted(self, victims: Sequence[Pod]) -> Iterator[None]:
        """While open, the DRA devices that only ``victims`` hold (their input-allocated
        claims) are free, as they are once the evicted pods' claims are deallocated."""
        dra = self.fw.plugin(names.DYNAMIC_RESOURCES)
        if dra is None or not any(p.claims for p in victims):
            yield
            return
        with dra.released(victims, self._claim_holders):
            yield

    @cached_property
    def _claim_holders(self) -> dict[str, int]:
        """Users of each input-allocated claim: the bound pods and the group's own."""
        dra = self.fw.plugin(names.DYNAMIC_RESOURCES)
        return dra.holders([*(p for info in self.infos for p in info.pods), *self.ctx.pending])

    def has_devices(self, node: Node) -> bool:
        """The node publishes node-local DRA devices."""
        dra = self.fw.plugin(names.DYNAMIC_RESOURCES)
        return dra is not None and node.name in dra.world.local

    def empty_capacity(self, node: Node) -> int | None:
        """How many pending pods of the group's first pod class an empty copy of ``node``
        takes, per the planner's filters; 0 when a filter rejects it; None when unknown.

        Memoised for the run per pod class and node shape: nodes that differ only in name
        give the same answer unless the pods can tell them apart by name."""
        memo = self.memo.setdefault(("capacity", self.signatures[0]), {})
        if self._reads_node_name:
            who: object = node.name
        elif self.has_devices(node):
            who = self._device_shape(node) if DEVICE_SHAPES else None
            who = node.name if who is None else who
        else:
            who = None
        key = (who, frozenset((k, v) for k, v in node.labels.items() if k != HOSTNAME),
               node.taints, node.unschedulable, frozenset(node.allocatable.items()))
        if key not in memo:
            memo[key] = self._capacity_of(node)
        return memo[key]

    def _device_shape(self, node: Node) -> tuple | None:
        """The devices an empty copy of ``node`` publishes, names of the node, its slices
        and pools aside, when nothing else can tell two such copies apart: no devices but
        node-local ones (no network-attached or selected slices), no DeviceTaintRule (it
        may name pools or devices), one slice per pool and one pool per driver (upstream's
        device order then follows the content), and the pod's claims are its own and
        unallocated. Else None (the copy is keyed by its node's name)."""
        dra = self.fw.plugin(names.DYNAMIC_RESOURCES)
        world = dra.world
        if world.network or world.rules or not dra.own_claims(self.ctx.pending[0]):
            return None
        # What the node publishes is the input's: its shape is worked out once per run.
        shapes = self.memo.setdefault("device shapes", {})
        if node.name not in shapes:
            shapes[node.name] = _published_shape(dra.published_by(node.name), node.name)
        return shapes[node.name]

    @cached_property
    def _reads_node_name(self) -> bool:
        pod = self.ctx.pending[0]
        terms = [*(pod.required_terms or ()), *(p.term for p in pod.preferred_terms)]
        return (HOSTNAME in pod.node_selector or bool(pod.spread_constraints)
                or pod.pod_affinity is not None
                or any(t.match_fields or any(r.key == HOSTNAME for r in t.match_expressions)
                       for t in terms))

    def _capacity_of(self, node: Node) -> int | None:
        # A node's own devices may be taken: an empty copy gets fresh ones.
        copy = [renamed(node, f"{node.name}-new-0")] if self.has_devices(node) else []
        nodes, statement = [NodeInfo(copy[0] if copy else node, 0)], Statement(self.fw.reservers)
        group = GroupCache(nodes, statement)
        with self.copies_of(node, copy):
            cursor = ClassCursor(self.fw, self.ctx.pending[0], nodes, statement, group,
                                 group.of(self.signatures[0]))
            chosen, _ = cursor.next()
            capacity = cursor.capacity() if chosen is not None else None
        if chosen is None:
            return 0
        return None if capacity is None else capacity[0]


def _published_shape(published: Sequence[ResourceSlice], node: str) -> tuple | None:
    """The slices an empty copy of ``node`` publishes, names of the node, its slices and
    pools aside; None unless there is one slice per pool and one pool per driver."""
    copies = copied_slices(published, node, "")
    if len({s.pool for s in copies}) != len(copies) or \
            len({s.driver for s in copies}) != len(copies):
        return None
    return tuple(sorted(repr(replace(s, name="", pool="", node_name="", source=None))
                        for s in copies))


def without(info: NodeInfo, victims: Iterable[Pod]) -> NodeInfo:
    """A detached copy of ``info`` with ``victims`` gone (an eviction what-if)."""
    gone = {id(p) for p in victims}
    clone = NodeInfo(info.node, info.index)
    for pod in info.pods:
        if id(pod) not in gone:
            clone.add_pod(pod)
    clone.nominated = list(info.nominated)
    clone.generation = 0
    return clone


def with_pods(infos: Sequence[NodeInfo], pods: Iterable[Pod]) -> list[NodeInfo]:
    """Empty copies of ``infos`` holding only ``pods`` (by ``node_name``)."""
    fresh = [NodeInfo(info.node, info.index) for info in infos]
    by_name = {info.node.name: info for info in fresh}
    for pod in pods:
        if pod.node_name in by_name:
            by_name[pod.node_name].add_pod(pod)
    return fresh


def renamed(node: Node, name: str) -> Node:
    """A copy of ``node`` under a new name (its hostname label follows)."""
    labels = dict(node.labels)
    if HOSTNAME in labels:
        labels[HOSTNAME] = name
    return replace(node, name=name, labels=labels)
