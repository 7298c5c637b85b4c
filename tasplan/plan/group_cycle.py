"""One pod group: generate placements, simulate each, score the feasible ones, select
(upstream ``podGroupSchedulingPlacementAlgorithm``), then assume the winner."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence

from tasplan.errors import InternalError
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.statement import Statement
from tasplan.framework.status import PluginError, Status
from tasplan.framework.types import UNCONSTRAINED, GroupContext, Placement, ProposedAssignment
from tasplan.model.group import Policy
from tasplan.model.pod import Pod
from tasplan.model.topology import natural_key
from tasplan.plan.placement_cycle import Count, Simulation, simulate_placement
from tasplan.plan.pod_cycle import ClassCursor, GroupCache
from tasplan.plan.result import GroupResult, PlacementResult
from tasplan.plan.selection import rank_placements
from tasplan.plugins.names import GANG_SCHEDULING
from tasplan.plugins.topology_placement import TopologyPlacementGenerator

NO_PLACEMENTS = "no feasible placements found"
NO_POD_SCHEDULED = "no pods were schedulable"
NOMINATED_NOTHING = "nominated placement is feasible but no pending pod was scheduled"


def schedule_group(
    fw: Framework,
    ctx: GroupContext,
    nodes: Sequence[NodeInfo],
    statement: Statement,
    *,
    all_assignments: bool = False,
    assign: bool = True,
    parent: Placement | None = None,
    reuse: Reuse | None = None,
) -> GroupResult:
    """``parent``: the domain of the CompositePodGroup this group is a leaf of
    (``tree_cycle`` drives the cycle for each leaf inside its parent's placement). Then, as
    upstream does for a leaf of a tree, the nominated fast path is skipped, tree-wide gating
    replaces the group's own, a feasible winner counts even with no new pod, and the winner
    is assumed but not committed (the tree commits or rolls back as a whole).
``all_assignments``: choose nodes pod by pod in every feasible placement, not only in
    the selected one (what ``--all`` and JSON output show). ``assign=False`` (what-if runs
    that show no assignments): the verdict and the selected placement are the same, but a
    counted winner gets no pod-by-pod node choice and nothing is assumed.
``reuse``: what the caller lets equivalent groups share (see ``Reuse``)."""
    cycle = _Cycle(fw, ctx, nodes, statement, reuse, in_tree=parent is not None,
                   assign=assign)
    held = cycle.held_back()
    if held is not None:
        return held
    if parent is None:
        parent = Placement(UNCONSTRAINED, tuple(range(len(nodes))))
    if reuse is not None:
        placements, status = reuse.placements(fw, ctx, parent, nodes)
    else:
        placements, status = fw.run_placement_generate(ctx, parent, nodes)
    if status is not None:
        return cycle.result(False, f"{status.plugin}: {status.message}", error=True)
    if not placements:
        return cycle.result(False, f"{NO_PLACEMENTS}: no node carries the label "
                            f"{ctx.group.topology_key}")
    try:
        return cycle.run(placements, all_assignments)
    except PluginError as exc:
        return cycle.result(False, f"{exc.status.plugin}: {exc.status.message}", error=True)


class _Cycle:
    """One group's cycle over its placements: what the steps of one ``schedule_group``
    share."""

    def __init__(self, fw: Framework, ctx: GroupContext, nodes: Sequence[NodeInfo],
                 statement: Statement, reuse: Reuse | None, *, in_tree: bool,
                 assign: bool) -> None:
        self.fw, self.ctx, self.nodes, self.statement = fw, ctx, nodes, statement
        self.reuse, self.in_tree, self.assign = reuse, in_tree, assign
        self.dra = any(p.claims for p in ctx.pending)

    def result(self, schedulable: bool, message: str, **kw) -> GroupResult:
        ctx = self.ctx
        return GroupResult(ctx.group, len(ctx.pending), len(ctx.scheduled), schedulable,
                           message, **kw)

    def held_back(self) -> GroupResult | None:
        """No cycle: nothing pending, or a gang short of pods (GangScheduling PreEnqueue
        keeps it out of the queue until minCount pods exist; pods held by scheduling gates
        count: they exist)."""
        ctx, group = self.ctx, self.ctx.group
        pending, scheduled = len(ctx.pending), len(ctx.scheduled)
        if not pending and ctx.gated:
            return self.result(False, f"all {ctx.gated} pending pod(s) are held by scheduling "
                               "gates (spec.schedulingGates): they do not enter a scheduling "
                               "cycle", waiting=True)
        if not pending:
            done = scheduled >= group.min_count
            return self.result(done, f"all {scheduled} pod(s) of the group are already "
                               "scheduled" if done else "the group has no pods")
        exist = pending + scheduled + ctx.gated
        if (not self.in_tree and group.policy == Policy.GANG and gang_gated(self.fw)
                and exist < group.min_count):
            return self.result(False, f"waiting for pods: {exist} of minCount "
                               f"{group.min_count} pods of the gang exist", waiting=True)
        return None

    def run(self, placements: list[Placement], all_assignments: bool) -> GroupResult:
        ctx, reuse, nodes = self.ctx, self.reuse, self.nodes
        if reuse is None:
            self.signatures = pod_signatures(ctx.pending, nodes)
            self.cache = GroupCache(nodes, self.statement)
        else:
            self.signatures = reuse.signatures(ctx.pending, nodes)
            self.cache = reuse.cache
        count = counting_mode(self.fw, self.signatures)
        nominated = (None if self.in_tree
                     or not self.fw.target.release.nominated_placement_fast_path
                     else nominated_placement(ctx, placements, nodes))
        sims = []
        if nominated is not None:
            # The nominated-placement fast path (1.38): the one placement holding the pods'
            # nominated nodes goes first and is taken at once if it schedules anything.
            sim = self.simulate(placements[nominated], Count.NEVER)
            if sim.feasible and sim.proposed:
                return self.take_nominated(sim)
            sims.append(sim)
        sims += [self.simulate(p, count) for k, p in enumerate(placements) if k != nominated]
        # A nominated placement that got here scheduled nothing: it is not a candidate.
        feasible = [s for s in sims[1 if nominated is not None else 0:] if s.feasible]
        if not feasible:
            ranked = tuple(self.row(s) for s in sorted(sims, key=_infeasible_rank))
            first = NOMINATED_NOTHING if sims[0].feasible else sims[0].status.message
            return self.result(False, f"0/{len(sims)} placements are available, first "
                               f"placement status: {first}", placements=ranked)
        return self.select(sims, feasible, all_assignments)

    def simulate(self, placement: Placement, mode: Count, keep: bool = False) -> Simulation:
        fw, ctx, nodes, statement = self.fw, self.ctx, self.nodes, self.statement
        if self.reuse is not None and mode != Count.NEVER:
            sim = self.reuse.counted(placement, ctx, lambda: simulate_placement(
                fw, ctx, placement, nodes, statement, self.cache, self.signatures,
                count=mode))
            if sim.simulated and self.reuse.defer:
                raise NotDeferred(f"placement {placement.name!r} cannot be counted")
            return sim
        return simulate_placement(fw, ctx, placement, nodes, statement, self.cache,
                                  self.signatures, count=mode, keep=keep)

    def take_nominated(self, sim: Simulation) -> GroupResult:
        _assume(sim, self.statement, self.assign)
        name = sim.placement.name
        return self.result(True, f"{sim.placed}/{len(self.ctx.pending)} pending pod(s) "
                           f"scheduled in placement {name!r}; the placement of the pods' "
                           "nominated nodes was evaluated first and is feasible; other "
                           "placements were not evaluated", placements=(self.row(sim),),
                           selected=name)

    def select(self, sims: list[Simulation], feasible: list[Simulation],
               all_assignments: bool) -> GroupResult:
        """The best feasible placement (``selection``), its nodes chosen pod by pod where
        they are shown, assumed."""
        ranking = rank_placements(self.fw, self.ctx, [s.placement for s in feasible],
                                  lambda i: feasible[i].proposed, self.nodes)
        # Counted placements get their nodes chosen pod by pod only where they are shown.
        # When that run is the winner's alone, its pods stay assumed (``kept``).
        kept = False
        defer = self.reuse is not None and self.reuse.defer
        for i in (ranking.order if all_assignments else
                  [ranking.best] if self.assign and not defer else []):
            if not feasible[i].simulated:
                kept = not all_assignments
                feasible[i] = _simulated(self.simulate(feasible[i].placement, Count.NEVER,
                                                       keep=kept), feasible[i])
        # ``score`` stays None for a placement chosen without scoring.
        ranked = [self.row(feasible[i], score=ranking.totals[i], scores=ranking.parts[i],
                           tied=ranking.is_tied(i)) for i in ranking.order]
        ranked += [self.row(s) for s in sorted(sims, key=_infeasible_rank) if not s.feasible]
        winner = feasible[ranking.best]
        name = winner.placement.name
        if not winner.proposed and not self.in_tree:
            # Success without a new pod is not progress.
            return self.result(False, NO_POD_SCHEDULED, placements=tuple(ranked))
        if not defer:
            _assume(winner, self.statement, self.assign, commit=not self.in_tree,
                    assumed=kept)
        elif self.assign:
            place_counted(self.fw, self.ctx.pending[:winner.placed],
                          [self.nodes[i] for i in winner.placement.nodes], self.statement,
                          self.cache, self.signatures[0], winner.capacity)
        message = (f"{winner.placed}/{len(self.ctx.pending)} pending pod(s) scheduled in "
                   f"placement {name!r} ({len(feasible)}/{len(sims)} placements feasible)")
        return self.result(True, message, placements=tuple(ranked), selected=name,
                           tied_with=ranking.tied)

    def row(self, sim: Simulation, *, score: int | None = None,
            scores: Mapping[str, int] | None = None, tied: bool = False) -> PlacementResult:
        return _result(sim, self.nodes, dra=self.dra, score=score, scores=scores, tied=tied)


class Reuse:
    """What a caller planning many equivalent groups from related states lets their cycles
    share (tasplan.plan.tree_cycle: the leaves of a tree, whose pods have no pod affinity, spread,
    claims or nominations, so a placement's outcome depends only on its own nodes).

    ``cache``: static filter results and cluster-state summaries; the caller shares one
    only between groups whose pods are alike (equal signatures and labels) and never rolls
    the Statement back below its base. ``labels``: whether placed pods carry affinity
    terms (fixed while the groups' own pods have none; see ``pod_signatures``).
    ``key(placement, ctx)``: names everything a counted outcome in that placement depends
    on (the group's shape, the placement's nodes and their state), or None; a counted
    outcome is reused for an equal key, its pods mapped by position.
    ``defer``: every placement must be counted (``NotDeferred`` otherwise), and the winner's
    nodes are not chosen pod by pod: its pods go onto the placement's nodes in node order
    (``place_counted``), which leaves every per-domain sum and count as the pod-by-pod choice
    would; the caller chooses the nodes later, in the same order (``tree_cycle``)."""

    __slots__ = ("_classes", "_counted", "_domains", "_renames", "_signatures", "cache",
                 "defer", "key", "labels")

    def __init__(self, cache: GroupCache, labels: bool,
                 key: Callable[[Placement, GroupContext], Hashable | None], *,
                 defer: bool = False) -> None:
        self.cache, self.labels, self.key, self.defer = cache, labels, key, defer
        self._counted: dict[Hashable, tuple[Simulation, tuple[Pod, ...]]] = {}
        self._renames: dict[tuple[int, int], dict[str, str]] = {}
        self._signatures: dict[int, tuple[tuple[Pod, ...], list]] = {}
        self._classes: dict[tuple, int] = {}
        self._domains: dict[tuple, list[Placement]] = {}

    def placements(self, fw: Framework, ctx: GroupContext, parent: Placement,
                   nodes: Sequence[NodeInfo]) -> tuple[list[Placement], Status | None]:
        """``fw.run_placement_generate``, once per (topology key, parent domain) for groups
        with no pod scheduled yet when TopologyPlacementGenerator is the only generator: its
        domains then depend on nothing else (the nodes' labels are fixed)."""
        if ctx.scheduled or not all(type(p) is TopologyPlacementGenerator
                                    for p in fw.placement_generators):
            return fw.run_placement_generate(ctx, parent, nodes)
        key = (id(fw), ctx.group.topology_key, parent)
        hit = self._domains.get(key)
        if hit is None:
            placements, status = fw.run_placement_generate(ctx, parent, nodes)
            if status is not None:
                return placements, status
            hit = self._domains[key] = placements
        return list(hit), None

    def signatures(self, pending: tuple[Pod, ...], nodes: Sequence[NodeInfo]) -> list:
        """The classes of a group's pods, once per group: ``pod_signatures`` numbered in
        order of appearance across the groups sharing this object (equal signatures, equal
        numbers), so the cycle's per-pod lookups hash small ints."""
        hit = self._signatures.get(id(pending))
        if hit is None or hit[0] is not pending:
            classes = self._classes
            hit = self._signatures[id(pending)] = (pending, [
                classes.setdefault(s, len(classes))
                for s in pod_signatures(pending, nodes, labels=self.labels)])
        return hit[1]

    def counted(self, placement: Placement, ctx: GroupContext,
                simulate: Callable[[], Simulation]) -> Simulation:
        key = self.key(placement, ctx)
        hit = self._counted.get(key) if key is not None else None
        if hit is None:
            sim = simulate()
            if key is not None and not sim.simulated:
                self._counted[key] = (sim, ctx.pending)
            return sim
        sim, pods = hit
        if pods is ctx.pending:
            return _copy(sim, placement=placement)
        rename = self._renames.get((id(pods), id(ctx.pending)))
        if rename is None:  # both tuples live as long as this object (kept in _counted)
            rename = self._renames[id(pods), id(ctx.pending)] = {
                p.key: q.key for p, q in zip(pods, ctx.pending, strict=True)}
        first = ctx.pending[0]
        return _copy(sim, placement=placement,
                     proposed=tuple(ProposedAssignment(first, a.node, a.count)
                                    for a in sim.proposed),
                     unplaced={rename[k]: v for k, v in sim.unplaced.items()},
                     diagnoses={rename[k]: v for k, v in sim.diagnoses.items()})


def _copy(sim: Simulation, **changes) -> Simulation:
    """``dataclasses.replace`` of a Simulation (which has no ``__post_init__``) without
    its per-call introspection: a reused outcome is copied for every alike leaf."""
    copy = object.__new__(Simulation)
    copy.__dict__.update(sim.__dict__, **changes)
    return copy


class NotDeferred(Exception):
    """A deferring cycle (``Reuse.defer``) met a placement it could not count."""


def place_counted(fw: Framework, pods: Sequence[Pod], members: Sequence[NodeInfo],
                  statement: Statement, cache: GroupCache, signature: Hashable,
                  capacity: Sequence[int] | None = None) -> None:
    """Assume ``pods`` (copies of one class, as many as counting said fit) onto ``members``
    in node order, each node filled to its capacity for the class: the domain's totals
    and every node's remaining capacity summed are what the pod-by-pod choice leaves.
    ``capacity``: the nodes' capacities in the current state, when counting gave them."""
    if not pods:
        return
    if capacity is None:
        capacity = ClassCursor(fw, pods[0], members, statement, cache, cache.of(signature),
                               scoring=False).capacity()
    if capacity is None:
        raise NotDeferred("a filter cannot state its capacity")
    start = 0
    for info, room in zip(members, capacity, strict=True):
        take = min(room, len(pods) - start)
        if take > 0:
            statement.assume_many(pods[start:start + take], info)
            start += take
    if start < len(pods):
        raise InternalError(f"{len(pods)} pods were counted to fit but {start} do")


def pod_signatures(pending: Sequence[Pod], nodes: Sequence[NodeInfo], *,
                   labels: bool | None = None) -> list[tuple]:
    """Equivalence-class keys of the pending pods (``Pod.signature``), plus their labels when
    affinity terms may select pending pods by them. ``labels``: whether placed pods carry
    affinity terms, when the caller knows (otherwise every node is looked at)."""
    signatures = [pod.signature() for pod in pending]
    if labels is None:
        labels = any(info.affinity_pods for info in nodes)
    if labels or any(p.pod_affinity for p in pending):
        # Placed pods' affinity terms, and those of group pods placed earlier in the cycle,
        # may select pending pods by their labels.
        signatures = [(*s, tuple(sorted(p.labels.items())))
                      for s, p in zip(signatures, pending, strict=True)]
    return signatures


def counting_mode(fw: Framework, signatures: Sequence[Hashable]) -> Count:
    """How placements of a group may be decided from capacity counts: only when all its
    pending pods are one class, and fully only when no placement scorer reads nodes."""
    if len(set(signatures)) != 1:
        return Count.NEVER
    return Count.INFEASIBLE if fw.placement_scores_read_nodes else Count.ALWAYS


def _assume(winner: Simulation, statement: Statement, assign: bool, *,
            commit: bool = True, assumed: bool = False) -> None:
    """The chosen placement's pods become part of the world for the next group
    (``assumed``: its simulation left them assumed)."""
    if assign:
        if not assumed:
            for assignment in winner.proposed:
                statement.assume(assignment.pod, assignment.node)
        if commit:
            statement.commit()


def gang_gated(fw: Framework) -> bool:
    """GangScheduling is in the profile: its PreEnqueue gate and PlacementFeasible run."""
    return GANG_SCHEDULING in fw.profile.placement_feasible


def nominated_placement(ctx: GroupContext, placements: Sequence[Placement],
                        nodes: Sequence[NodeInfo]) -> int | None:
    """Index of the only placement that holds a pending pod's nominated node; None when no
    placement or more than one does (placements may overlap: then every placement is
    scored, as upstream ``nominatedPlacement`` decides)."""
    wanted = {p.nominated_node_name for p in ctx.pending if p.nominated_node_name}
    if not wanted:
        return None
    matched = None
    for k, placement in enumerate(placements):
        if any(nodes[i].node.name in wanted for i in placement.nodes):
            if matched is not None:
                return None
            matched = k
    return matched


def _simulated(sim: Simulation, counted: Simulation) -> Simulation:
    """The pod-by-pod run must agree with the count it replaces, or the count is wrong."""
    if (sim.placed, sim.feasible) != (counted.placed, counted.feasible):
        raise InternalError(
            f"placement {sim.placement.name!r}: simulation placed {sim.placed} pods "
            f"(feasible={sim.feasible}) but capacity counting said {counted.placed} "
            f"(feasible={counted.feasible})")
    return sim


def simulated_row(sim: Simulation, nodes: Sequence[NodeInfo], counted: PlacementResult
                  ) -> PlacementResult:
    """The row of a counted winner whose nodes were then chosen pod by pod (``sim``), with
    the counted row's scores: what ``select`` shows for a winner it simulates."""
    if (sim.placed, sim.feasible) != (counted.placed, counted.feasible):
        raise InternalError(
            f"placement {sim.placement.name!r}: simulation placed {sim.placed} pods "
            f"(feasible={sim.feasible}) but capacity counting said {counted.placed} "
            f"(feasible={counted.feasible})")
    return _result(sim, nodes, score=counted.score, scores=counted.scores, tied=counted.tied)


def _infeasible_rank(sim: Simulation) -> tuple:
    return -sim.placed, natural_key(sim.placement.name)


def _result(sim: Simulation, nodes: Sequence[NodeInfo], *, dra: bool = False,
            score: int | None = None, scores: Mapping[str, int] | None = None,
            tied: bool = False) -> PlacementResult:
    return PlacementResult(
        name=sim.placement.name,
        nodes=tuple(nodes[i].node.name for i in sim.placement.nodes),
        feasible=sim.feasible,
        status=sim.status.message,
        placed=sim.placed,
        assignments={a.pod.key: a.node.node.name for a in sim.proposed if a.node is not None},
        unplaced=sim.unplaced,
        diagnoses=sim.diagnoses,
        score=score,
        scores=scores or {},
        free=sim.free,
        tied=tied,
        simulated=sim.simulated,
        allocations=sim.allocations if dra else None,
        devices=sim.devices,
    )
