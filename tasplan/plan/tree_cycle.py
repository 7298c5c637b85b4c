"""Upstream's composite pod-group algorithms (``algorithm_podgroup.go``), driving the
ordinary pod-group cycle (``schedule_group``) for every leaf.

For a composite: generate its placements inside the parent's domain (its own topology
constraint, if any); in each, plan its children one after another in order, each seeing
the ones before it, with PlacementFeasible (minGroupCount) after every child, stopping as
soon as minGroupCount can no longer be met (``compositePodGroupSchedulingDefaultAlgorithm``);
roll the placement back; score the placements where the composite succeeded by the
assignments of its successful leaves and assume the best one again
(``compositePodGroupSchedulingPlacementAlgorithm``). A leaf evaluates every placement of
its own inside its parent's domain (no nominated fast path). The root commits the whole
tree or nothing; a root that succeeds without placing a pod is unschedulable. Children are
never revisited (no backtracking), as upstream.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.statement import Statement
from tasplan.framework.status import Code, PluginError
from tasplan.framework.types import UNCONSTRAINED, GroupContext, Placement, ProposedAssignment
from tasplan.model.composite import CompositePodGroup
from tasplan.model.group import PodGroup
from tasplan.model.pod import Pod
from tasplan.model.topology import natural_key
from tasplan.plan.admission import Admission, ScheduleGroup
from tasplan.plan.group_cycle import (
    NO_PLACEMENTS,
    NO_POD_SCHEDULED,
    NotDeferred,
    Reuse,
    place_counted,
    simulated_row,
)
from tasplan.plan.placement_cycle import Count, simulate_placement
from tasplan.plan.pod_cycle import GroupCache
from tasplan.plan.result import GroupResult
from tasplan.plan.selection import rank_placements
from tasplan.plan.tree import Member, Tree
from tasplan.plan.tree_result import CompositePlacement, CompositeResult


@dataclass(frozen=True)
class _Level:
    """A composite's outcome in one placement of its parent."""

    success: bool
    message: str
    scheduled: int
    evaluated: int
    error: bool = False


class _Reuse:
    """A composite's evaluation in one placement, kept for equivalent composites:
    ``sub`` holds the results below ``composite`` (by its members' keys); ``proposals``
    what the placement scorers see, computed on first use."""

    __slots__ = ("composite", "level", "proposals", "sub")

    def __init__(self, composite: CompositePodGroup, level: _Level, sub: dict) -> None:
        self.composite, self.level, self.sub = composite, level, sub
        self.proposals: list[ProposedAssignment] | None = None


class _Error(Exception):
    """A child failed with an error: the whole tree stops (upstream returns the error)."""


def as_group(c: CompositePodGroup) -> PodGroup:
    """The composite as the placement plugins see a group: GangScheduling's minCount is the
    composite's minGroupCount (1 for basic), TopologyPlacement's key its constraint."""
    return PodGroup(c.key, c.namespace, c.policy, c.min_group_count, c.topology_key,
                    c.kind, c.api_version, c.source, c.order, c.priority,
                    c.priority_class_name, planned=True, parent=c.parent)


@dataclass(frozen=True)
class TreeOutcome:
    """``leaves``: final results in tree order; ``composites`` in tree order (root first)."""

    leaves: tuple[GroupResult, ...]
    composites: tuple[CompositeResult, ...]


def plan_tree(
    fw: Framework,
    tree: Tree,
    nodes: Sequence[NodeInfo],
    statement: Statement,
    pods_by_group: Mapping[str, list[Pod]],
    admissions: Mapping[str, Admission],
    schedule: ScheduleGroup,
    *,
    all_assignments: bool = False,
) -> TreeOutcome:
    """Plan one valid tree from the current state; commit it when the root succeeds.
    ``admissions``: the leaves' by key; ``schedule``: the group cycle each leaf goes
    through."""
    run = _Run(fw, tree, nodes, statement, pods_by_group, admissions, schedule,
               all_assignments, defer=DEFER)
    root = tree.root
    assert root is not None and tree.problem is None
    if not run.ready(root):
        return run.everywhere(False, f"waiting for composite pod group {root.name!r} tree to "
                              "meet quorum (a child group still lacks pods)", waiting=True)
    checkpoint = statement.checkpoint()
    out: dict[str, object] = {}
    everywhere = Placement(UNCONSTRAINED, tuple(range(len(nodes))))
    if run.deferring:
        try:
            level = run.composite(root, everywhere, out)
            run.choose_nodes(root, level, out, checkpoint)
        except (NotDeferred, _Error):
            # Planned again the plain way, which gives the answer (or the error) to show.
            statement.rollback(checkpoint)
            run = _Run(fw, tree, nodes, statement, pods_by_group, admissions, schedule,
                       all_assignments)
            out = {}
    try:
        if not run.deferring:
            level = run.composite(root, everywhere, out)
    except _Error as exc:
        statement.rollback(checkpoint)
        return run.everywhere(False, f"error in the tree: {exc}", error=True)
    if level.success and not run.any_scheduled(root, out):
        level = replace(level, success=False, message=NO_POD_SCHEDULED)
        out[root.key] = replace(out[root.key], schedulable=False, message=NO_POD_SCHEDULED)
    if level.success:
        statement.commit()
    else:
        statement.rollback(checkpoint)
    return run.outcome(out)


# Reuse a leaf's outcome for an equivalent leaf in the same state (see ``_Run.memo_key``);
# tests turn it off to check that it changes nothing.
MEMO = True
# Choose the leaves' nodes pod by pod only for the tree that is bound (``_Run._deferrable``);
# tests turn it off to check that it changes nothing.
DEFER = True


class _Domains:
    """The classes of the pods assumed during a tree on a domain's nodes: the part of the
    reuse keys that changes. Apart from ``_Run`` so that the leaves' ``Reuse`` objects,
    which call ``counted_key``, hold no reference back to the run (that cycle kept every
    run, its nodes and caches alive until the cyclic GC found it)."""

    __slots__ = ("base", "class_of", "known", "nodes", "shape")

    def __init__(self, nodes: Sequence[NodeInfo], base: list[int], class_of: dict[int, int],
                 shape: dict[str, tuple]) -> None:
        self.nodes, self.base, self.class_of, self.shape = nodes, base, class_of, shape
        # Node index -> (generation, classes of the pods assumed on it during this tree).
        self.known: dict[int, tuple[int, tuple[int, ...]]] = {}

    def counted_key(self, placement: Placement, ctx: GroupContext) -> tuple | None:
        """A leaf's counted outcome in one placement (its own domain, e.g. a rack) depends
        on its shape and on that placement's nodes alone (``_Run._local_only``)."""
        if ctx.scheduled:
            return None
        return self.shape[ctx.group.key], placement, self.assumed_in(placement)

    def assumed_in(self, placement: Placement) -> tuple:
        """The classes of the pods assumed during this tree on the domain's nodes."""
        nodes, base, cls, known = self.nodes, self.base, self.class_of, self.known
        out = []
        for i in placement.nodes:
            info = nodes[i]
            if info.pod_count > base[i]:
                # A node's generation grows on every change: an equal one, equal pods.
                seen = known.get(i)
                if seen is None or seen[0] != info.generation:
                    seen = known[i] = (info.generation,
                                       tuple(cls[id(p)] for p in info.pods[base[i]:]))
                out.append((i, seen[1]))
        return tuple(out)


class _Run:
    def __init__(self, fw: Framework, tree: Tree, nodes: Sequence[NodeInfo],
                 statement: Statement, pods_by_group: Mapping[str, list[Pod]],
                 admissions: Mapping[str, Admission], schedule: ScheduleGroup,
                 all_assignments: bool, *, defer: bool = False) -> None:
        self.fw, self.tree, self.nodes, self.statement = fw, tree, nodes, statement
        self.pods_by_group = pods_by_group
        self.all_assignments = all_assignments
        self.admissions = admissions
        self.schedule = schedule
        self.node_index = {info.node.name: i for i, info in enumerate(nodes)}
        self._contexts: dict[str, GroupContext] = {}
        self._memo: dict[tuple, tuple[GroupResult, list[str]]] | None = (
            {} if MEMO and self._local_only() else None)
        # Pod class ids of the tree's pending pods (the only pods a tree assumes), and each
        # leaf's classes in order.
        self._class_of: dict[int, int] = {}
        self._shape: dict[str, tuple] = {}
        self._base: list[int] = []
        # Reused evaluations of composites (see ``composite_key``) and subtree shapes.
        self._composite_memo: dict[tuple, _Reuse] = {}
        self._shapes: dict[str, tuple | None] = {}
        # Leaf key -> what its cycle shares with alike leaves (see ``_reuses``).
        self._reuse: dict[str, Reuse] = {}
        if self._memo is not None:
            # Placed pods' affinity terms may select the tree's pods by their labels: then
            # labels are part of a pod's class (as in ``pod_signatures``). The tree's own
            # pods add no terms (``_local_only``), so this holds for the whole tree.
            self._labels = any(info.affinity_pods for info in nodes)
            classes: dict[tuple, int] = {}
            for key, a in self.admissions.items():
                if a.ctx is not None and a.ok:
                    ids = tuple(self._class_of.setdefault(id(p), classes.setdefault(
                        (p.signature(), tuple(sorted(p.labels.items())) if self._labels
                         else None), len(classes)))
                        for p in a.ctx.pending)
                    g = a.group
                    self._shape[key] = (g.policy, g.min_count, g.topology_key, a.ctx.gated,
                                        ids)
            self._base = [info.pod_count for info in nodes]
        self._domains = _Domains(nodes, self._base, self._class_of, self._shape)
        # One pending pod of the tree's one class when the leaves' node choice is deferred.
        self._pod: Pod | None = (self._deferrable() if defer and self._memo is not None
                                 else None)
        self.deferring = self._pod is not None
        if self._memo is not None:
            self._reuse = self._reuses()

    # -- reuse -----------------------------------------------------------------------------
    def _local_only(self) -> bool:
        """Whether a leaf's outcome in a domain depends only on its pods and on the pods on
        that domain's nodes: no pending pod of the tree has pod (anti-)affinity, topology
        spread (explicit or by default), resource claims or a nominated node. (Existing pods'
        affinity terms and nominations are the same for every evaluation.)"""
        return all(p.pod_affinity is None and not p.spread_constraints
                   and p.default_spread_selector is None and not p.claims
                   and not p.nominated_node_name
                   for a in self.admissions.values() for p in a.pending)

    def _reuses(self) -> dict[str, Reuse]:
        """Leaves planned with the same profile whose pods of each class carry the same
        labels share filter results, cluster summaries and counted placement outcomes
        (``group_cycle.Reuse``). Made before anything of the tree is assumed: the caches'
        base is the tree's start, below which the tree never rolls back."""
        shared: dict[tuple, Reuse] = {}
        out = {}
        for key, a in self.admissions.items():
            if not a.ok:
                continue
            fw, ctx = a.fw, a.ctx
            pairs = {(p.signature(), tuple(sorted(p.labels.items()))) for p in ctx.pending}
            alike = len({sig for sig, _ in pairs}) == len(pairs)
            ident = (id(fw), frozenset(pairs)) if alike else (id(fw), key)
            reuse = shared.get(ident)
            if reuse is None:
                reuse = shared[ident] = Reuse(GroupCache(self.nodes, self.statement),
                                              self._labels, self._domains.counted_key,
                                              defer=self.deferring)
            out[key] = reuse
        return out

    def _deferrable(self) -> Pod | None:
        """Whether the leaves' winners may be counted, their nodes chosen pod by pod only
        for the tree that is bound (``choose_nodes``); then one pending pod of the tree.

        A counted winner's pods go onto its domain's nodes in node order
        (``group_cycle.place_counted``), not onto the nodes the pod-by-pod choice would
        pick. Nothing of the plan can tell while every pending pod of the tree is of one
        class and every leaf counts (each node's remaining capacity and every domain's
        totals are the same for any spread of n copies; a saturated node is the same node),
        no placement scorer reads the proposed nodes, and every leaf's domain is cut by the
        same topology keys (its own and its ancestors'): then the leaves' domains never
        partly overlap and every composite's domain is a union of them, so the number of
        copies in each names its state. Nor while a placed pod has affinity terms or a pod
        is nominated (both read nodes across domains)."""
        if self.all_assignments or self._labels or any(info.nominated for info in self.nodes):
            return None
        planned = [a for a in self.admissions.values() if a.ok and a.ctx is not None]
        if (not planned or any(a.ctx.scheduled for a in planned)
                or len(set(self._class_of.values())) != 1
                or len({id(a.fw) for a in planned}) != 1
                or planned[0].fw.placement_scores_read_nodes):
            return None
        composites = {c.key: c for c in self.tree.composites}
        chains = set()
        for a in planned:
            if not a.group.topology_key:
                return None
            keys, parent = {a.group.topology_key}, composites.get(a.group.parent or "")
            while parent is not None:
                if parent.topology_key:
                    keys.add(parent.topology_key)
                parent = composites.get(parent.parent or "")
            chains.add(frozenset(keys))
        if len(chains) != 1:
            return None
        return next(p for a in planned for p in a.ctx.pending)

    def choose_nodes(self, root: CompositePodGroup, level: _Level, out: dict,
                     checkpoint: int) -> None:
        """The bound tree's leaves get their nodes: the counted placements are undone and
        each successful leaf's winner is simulated pod by pod in tree order, the order in
        which the plain algorithm simulates them, each in the state the earlier ones leave
        (the same as the plain algorithm's: nothing else of the tree is left assumed).
        ``NotDeferred`` when a shown result outside the bound tree has a counted winner (an
        evaluation that was rolled back, e.g. of a composite that failed): its nodes are
        not known."""
        path = list(self.successful_leaves(root, out)) if level.success else []
        bound = {id(r) for r in path}
        if any(isinstance(v, GroupResult) and id(v) not in bound and _counted_winner(v)
               for v in out.values()):
            raise NotDeferred("a result outside the bound tree has a counted winner")
        if not any(_counted_winner(r) for r in path):
            return  # nothing placed: the caller rolls back
        self.statement.rollback(checkpoint)
        for result in path:
            out[result.group.key] = self._simulated(result)

    def _simulated(self, result: GroupResult) -> GroupResult:
        """A counted winner simulated pod by pod (its pods left assumed), as
        ``group_cycle`` simulates a counted winner it selects."""
        row = result.selected_placement
        if row is None or row.simulated:
            return result
        a = self.admissions[result.group.key]
        reuse = self._reuse[result.group.key]
        placement = Placement(row.name, tuple(self.node_index[n] for n in row.nodes))
        sim = simulate_placement(a.fw, a.ctx, placement, self.nodes, self.statement,
                                 reuse.cache, reuse.signatures(a.ctx.pending, self.nodes),
                                 count=Count.NEVER, keep=True)
        chosen = simulated_row(sim, self.nodes, row)
        return replace(result, placements=tuple(chosen if p is row else p
                                                for p in result.placements))

    def memo_key(self, g: PodGroup, ctx: GroupContext, placement: Placement) -> tuple | None:
        """Leaves with the same policy, minCount, constraint and pod classes (in order), in
        the same domain holding the same classes of pods assumed during this tree, get the
        same outcome: the cycle chooses nodes by pod class, never by pod name. Pods are
        then mapped by position."""
        if self._memo is None or ctx.scheduled:
            return None
        return self._shape[g.key], placement, self._domains.assumed_in(placement)

    def replay(self, hit: tuple[GroupResult, list[str]], g: PodGroup, ctx: GroupContext
               ) -> GroupResult:
        """An equivalent leaf's outcome for ``g``, its winner assumed as the cycle would."""
        template, keys = hit
        result = _renamed(template, g, keys, [p.key for p in ctx.pending])
        if result.schedulable:
            self.assume(result)
        return result

    def composite_key(self, c: CompositePodGroup, placement: Placement) -> tuple | None:
        """Composites whose subtrees have the same shape (policies, counts, constraints,
        leaves' pod classes, in order), in the same domain holding the same classes of pods
        assumed during this tree, reach the same outcome there: everything below a
        composite happens inside its domain, and with ``_local_only`` nothing there reads
        pods outside it. The root (one evaluation per domain) is not kept."""
        if self._memo is None or c.parent is None:
            return None
        shape = self.subtree_shape(c)
        if shape is None:
            return None
        return shape, placement, self._domains.assumed_in(placement)

    def subtree_shape(self, m: Member) -> tuple | None:
        """None when a leaf below cannot be reused (already scheduled pods, not planned)."""
        if m.key in self._shapes:
            return self._shapes[m.key]
        if isinstance(m, PodGroup):
            a = self.admissions[m.key]
            shape = None if not a.ok or a.scheduled else (id(a.fw), self._shape[m.key])
        else:
            kids = tuple(self.subtree_shape(k) for k in self.tree.children.get(m.key, ()))
            shape = None if None in kids else (m.policy, m.min_group_count, m.topology_key,
                                               kids)
        self._shapes[m.key] = shape
        return shape

    def sub_of(self, c: CompositePodGroup, sub: dict | _Reuse) -> dict:
        """The results below ``c`` in one placement; a reused evaluation of an equivalent
        composite is renamed member by member (the subtrees have the same shape)."""
        if isinstance(sub, dict):
            return sub
        if sub.composite is c:
            return sub.sub
        out: dict[str, object] = {}
        for t, m in zip(self.members_under(sub.composite), self.members_under(c), strict=True):
            value = sub.sub.get(t.key)
            if value is None:
                continue
            if isinstance(value, GroupResult):
                value = _renamed(value, m, [p.key for p in self.admissions[t.key].pending],
                                 [p.key for p in self.admissions[m.key].pending])
            elif isinstance(value, CompositeResult):
                value = replace(value, composite=m, children=tuple(
                    (k.kind, k.key) for k in self.tree.children.get(m.key, ())))
            out[m.key] = value
        return out

    def members_under(self, c: CompositePodGroup) -> Iterator[Member]:
        """``c`` and its subtree in pre-order."""
        yield c
        for child in self.tree.children.get(c.key, ()):
            if isinstance(child, PodGroup):
                yield child
            else:
                yield from self.members_under(child)

    def proposals(self, c: CompositePodGroup, sub: dict | _Reuse
                  ) -> Sequence[ProposedAssignment]:
        """What the placement scorers see of ``c`` in one placement. Of a reused evaluation,
        the equivalent composite's pods (the same classes on the same nodes), counted per
        class and node, computed once."""
        if self._pod is not None:
            # Deferred: the successful leaves' pods, one class, on nodes not chosen yet.
            if isinstance(sub, _Reuse) and sub.proposals is not None:
                return sub.proposals
            owner, results = (c, sub) if isinstance(sub, dict) else (sub.composite, sub.sub)
            placed = sum(r.selected_placement.placed
                         for r in self.successful_leaves(owner, results)
                         if r.selected_placement is not None)
            proposals = [ProposedAssignment(self._pod, None, placed)] if placed else []
            if isinstance(sub, _Reuse):
                sub.proposals = proposals
            return proposals
        if isinstance(sub, dict):
            return self.proposed(c, sub)
        if sub.proposals is None:
            counts: dict[tuple[int, int], list] = {}
            for a in self.proposed(sub.composite, sub.sub):
                entry = counts.setdefault((self._class_of[id(a.pod)], a.node.index),
                                          [a.pod, a.node, 0])
                entry[2] += a.count
            sub.proposals = [ProposedAssignment(pod, node, n) for pod, node, n in
                             counts.values()]
        return sub.proposals

    # -- gating -------------------------------------------------------------------------
    def ready(self, member: Member) -> bool:
        """GangScheduling PreEnqueue for a tree: a leaf is admissible when it has minCount
        pods (basic: 1); a composite when minGroupCount children are (upstream
        ``isCPGTreeReady``)."""
        if isinstance(member, PodGroup):
            pods = [p for p in self.pods_by_group.get(member.key, []) if not p.terminal]
            return len(pods) >= member.min_count
        kids = self.tree.children.get(member.key, ())
        return sum(1 for k in kids if self.ready(k)) >= member.min_group_count

    # -- the algorithms ----------------------------------------------------------------
    def context(self, c: CompositePodGroup) -> GroupContext:
        """The composite as placement plugins see it: its subtree's pods."""
        ctx = self._contexts.get(c.key)
        if ctx is None:
            pending: list[Pod] = []
            scheduled: list[tuple[Pod, str]] = []
            for leaf in self.leaves_under(c):
                a = self.admissions[leaf.key]
                pending += a.pending
                scheduled += a.scheduled
            ctx = self._contexts[c.key] = GroupContext(as_group(c), tuple(pending),
                                                       tuple(scheduled))
        return ctx

    def leaves_under(self, c: CompositePodGroup) -> Iterator[PodGroup]:
        for child in self.tree.children.get(c.key, ()):
            if isinstance(child, PodGroup):
                yield child
            else:
                yield from self.leaves_under(child)

    def composite(self, c: CompositePodGroup, parent: Placement, out: dict) -> _Level:
        """``compositePodGroupSchedulingPlacementAlgorithm``: leaves the chosen subtree
        assumed (not committed) on success, nothing on failure."""
        ctx = self.context(c)
        kids = self.tree.children.get(c.key, ())
        placements, status = self.fw.run_placement_generate(ctx, parent, self.nodes)
        if status is not None:
            raise _Error(f"{c.kind} {c.key}: {status.plugin}: {status.message}")
        if not placements:
            return self._record(c, out, _Level(
                False, f"{NO_PLACEMENTS}: no node carries the label {c.topology_key}", 0, 0))
        evaluations = [self.evaluate(c, placement) for placement in placements]
        feasible = [e for e in evaluations if e[1].success]
        if not feasible:
            first = evaluations[0]
            out.update(self.sub_of(c, first[2]))
            message = (f"0/{len(evaluations)} placements are available, first placement "
                       f"status: {first[1].message}")
            return self._record(c, out, replace(first[1], success=False, message=message),
                                placements=[_row(e, len(kids)) for e in
                                            sorted(evaluations, key=_infeasible_rank)])
        try:
            ranking = rank_placements(self.fw, ctx, [e[0] for e in feasible],
                                      lambda i: self.proposals(c, feasible[i][2]), self.nodes)
        except PluginError as exc:
            raise _Error(f"{exc.status.plugin}: {exc.status.message}") from exc
        placement, level, sub = feasible[ranking.best]
        sub = self.sub_of(c, sub)
        for leaf in self.successful_leaves(c, sub):
            self.assume(leaf)
        out.update(sub)
        ranked = [_row(feasible[i], len(kids), score=ranking.totals[i],
                       scores=ranking.parts[i], tied=ranking.is_tied(i))
                  for i in ranking.order]
        ranked += [_row(e, len(kids)) for e in sorted(evaluations, key=_infeasible_rank)
                   if not e[1].success]
        message = (f"{level.scheduled}/{len(kids)} child group(s) scheduled in placement "
                   f"{placement.name!r} ({len(feasible)}/{len(evaluations)} placements "
                   "feasible)")
        return self._record(c, out, replace(level, message=message), placements=ranked,
                            selected=placement.name, tied=ranking.tied)

    def evaluate(self, c: CompositePodGroup, placement: Placement
                 ) -> tuple[Placement, _Level, dict | _Reuse]:
        """``c``'s children planned in one placement and rolled back, or the evaluation of
        an equivalent composite in an equivalent placement."""
        key = self.composite_key(c, placement)
        reuse = self._composite_memo.get(key) if key is not None else None
        if reuse is not None:
            return placement, reuse.level, reuse
        checkpoint = self.statement.checkpoint()
        sub: dict[str, object] = {}
        level = self.default(c, placement, sub)
        self.statement.rollback(checkpoint)
        if key is None:
            return placement, level, sub
        reuse = self._composite_memo[key] = _Reuse(c, level, sub)
        return placement, reuse.level, reuse

    def default(self, c: CompositePodGroup, placement: Placement, sub: dict) -> _Level:
        """``compositePodGroupSchedulingDefaultAlgorithm`` inside one placement."""
        ctx = self.context(c)
        kids = self.tree.children.get(c.key, ())
        remaining, scheduled, evaluated = len(kids), 0, 0
        status = self.fw.run_placement_feasible(ctx, remaining, scheduled)
        checkpoint = self.statement.checkpoint()
        for child in kids:
            if status.code == Code.UNSCHEDULABLE:
                break
            if isinstance(child, CompositePodGroup):
                ok = self.composite(child, placement, sub).success
            else:
                ok = self.leaf(child, placement, sub)
            evaluated += 1
            remaining -= 1
            scheduled += ok
            status = self.fw.run_placement_feasible(ctx, remaining, scheduled)
        if status.code == Code.WAIT:
            status = replace(status, code=Code.UNSCHEDULABLE)
        if not status.success:
            self.statement.rollback(checkpoint)
        message = status.message if not status.success else (
            f"{scheduled}/{len(kids)} child group(s) scheduled")
        level = _Level(status.success, message, scheduled, evaluated)
        sub[c.key] = level
        return level

    def leaf(self, g: PodGroup, placement: Placement, sub: dict) -> bool:
        a = self.admissions[g.key]
        if a.verdict is not None:
            if a.verdict.error:
                raise _Error(f"PodGroup {g.key}: {a.verdict.message}")
            sub[g.key] = a.verdict
            return a.verdict.schedulable
        fw, ctx = a.fw, a.ctx
        key = self.memo_key(g, ctx, placement)
        hit = self._memo.get(key) if key is not None else None
        if hit is not None:
            result = self.replay(hit, g, ctx)
        else:
            result = self.schedule(fw, ctx, self.nodes, self.statement,
                                   all_assignments=self.all_assignments, parent=placement,
                                   reuse=self._reuse.get(g.key))
            if key is not None and not result.error:
                self._memo[key] = (result, [p.key for p in ctx.pending])
        if result.error:
            raise _Error(f"PodGroup {g.key}: {result.message}")
        sub[g.key] = result
        return result.schedulable

    # -- assumption -------------------------------------------------------------------
    def successful_leaves(self, c: CompositePodGroup, sub: Mapping) -> Iterator[GroupResult]:
        """Leaves that succeeded under ancestors that all succeeded (upstream
        ``successfulLeafResults``)."""
        level = sub.get(c.key)
        if level is None or not _success(level):
            return
        for child in self.tree.children.get(c.key, ()):
            if isinstance(child, CompositePodGroup):
                yield from self.successful_leaves(child, sub)
            else:
                result = sub.get(child.key)
                if isinstance(result, GroupResult) and result.schedulable:
                    yield result

    def assignments(self, result: GroupResult) -> Iterator[tuple[Pod, NodeInfo]]:
        placement = result.selected_placement
        a = self.admissions[result.group.key]
        if placement is None or a.ctx is None or a.verdict is not None:
            return
        pods = {p.key: p for p in a.ctx.pending}
        for pod_key, node in placement.assignments.items():
            yield pods[pod_key], self.nodes[self.node_index[node]]

    def assume(self, result: GroupResult) -> None:
        row = result.selected_placement
        if self.deferring and row is not None and not row.simulated:
            a = self.admissions[result.group.key]
            reuse = self._reuse[result.group.key]
            place_counted(a.fw, a.ctx.pending[:row.placed],
                          [self.nodes[self.node_index[n]] for n in row.nodes],
                          self.statement, reuse.cache,
                          reuse.signatures(a.ctx.pending, self.nodes)[0])
            return
        for pod, node in self.assignments(result):
            self.statement.assume(pod, node)

    def proposed(self, c: CompositePodGroup, sub: Mapping) -> list[ProposedAssignment]:
        return [ProposedAssignment(pod, node) for leaf in self.successful_leaves(c, sub)
                for pod, node in self.assignments(leaf)]

    def any_scheduled(self, root: CompositePodGroup, out: Mapping) -> bool:
        return any(r.selected_placement is not None and r.selected_placement.assignments
                   for r in self.successful_leaves(root, out))

    # -- results ----------------------------------------------------------------------
    def _record(self, c: CompositePodGroup, out: dict, level: _Level, *,
                placements: Sequence[CompositePlacement] = (), selected: str | None = None,
                tied: tuple[str, ...] = ()) -> _Level:
        kids = self.tree.children.get(c.key, ())
        out[c.key] = CompositeResult(
            c, tuple((k.kind, k.key) for k in kids), level.success, level.message,
            tuple(placements), selected if level.success else None, tied, level.error)
        return level

    def everywhere(self, schedulable: bool, message: str, *, error: bool = False,
                   waiting: bool = False) -> TreeOutcome:
        """Every group of the tree gets the same verdict (gating, errors); ``waiting``:
        held back before any cycle (every group of it is ``waiting``)."""
        out: dict[str, object] = {}
        for c in self.tree.composites:
            self._record(c, out, _Level(schedulable, message, 0, 0, error))
            out[c.key] = replace(out[c.key], waiting=waiting)
        for g in self.tree.leaves:
            a = self.admissions[g.key]
            out[g.key] = a.verdict if a.verdict is not None else GroupResult(
                g, len(a.pending), len(a.scheduled), schedulable, message, error=error,
                waiting=waiting)
        return self.outcome(out)

    def outcome(self, out: Mapping) -> TreeOutcome:
        """Leaves and composites in tree order; a leaf is schedulable only when every
        ancestor is too (otherwise nothing of it is bound); leaves never reached get why."""
        leaves: list[GroupResult] = []
        composites: list[CompositeResult] = []
        assert self.tree.root is not None
        self._walk(self.tree.root, None, out, leaves, composites)
        return TreeOutcome(tuple(leaves), tuple(composites))

    def _walk(self, c: CompositePodGroup, blocked: str | None, out: Mapping,
              leaves: list[GroupResult], composites: list[CompositeResult]) -> None:
        """``outcome`` from ``c`` down. (A method, not a recursive closure: a closure that
        calls itself is a reference cycle, which would keep the whole run, its nodes and
        caches, alive until the cyclic GC finds it.)"""
        result = out.get(c.key)
        if not isinstance(result, CompositeResult):
            result = CompositeResult(c, tuple((k.kind, k.key) for k in
                                              self.tree.children.get(c.key, ())),
                                     False, f"not attempted: {blocked}")
        elif blocked and result.schedulable:
            result = replace(result, schedulable=False, selected=None,
                             closest=result.selected,
                             message=f"{result.message}; not bound: {blocked}")
        composites.append(result)
        if not result.schedulable and blocked is None:
            blocked = f"{c.kind} {c.key} is unschedulable"
        for child in self.tree.children.get(c.key, ()):
            if isinstance(child, CompositePodGroup):
                self._walk(child, blocked, out, leaves, composites)
                continue
            leaf = out.get(child.key)
            if not isinstance(leaf, GroupResult):
                pending = len(self.admissions[child.key].pending)
                leaf = GroupResult(child, pending, 0, False, f"not attempted: {blocked}")
            elif blocked and leaf.schedulable:
                leaf = replace(leaf, schedulable=False, selected=None,
                               closest=leaf.selected,
                               message=f"{leaf.message}; not bound: {blocked}")
            leaves.append(leaf)


def _counted_winner(result: GroupResult) -> bool:
    """A leaf selected a placement whose nodes were not chosen (deferred)."""
    row = result.selected_placement
    return result.schedulable and row is not None and not row.simulated


def _success(level: object) -> bool:
    if isinstance(level, _Level):
        return level.success
    return isinstance(level, GroupResult | CompositeResult) and level.schedulable


def _infeasible_rank(e: tuple[Placement, _Level, dict]) -> tuple:
    return -e[1].scheduled, natural_key(e[0].name)


def _row(e: tuple[Placement, _Level, dict], children: int, *, score: int | None = None,
         scores: Mapping[str, int] | None = None, tied: bool = False) -> CompositePlacement:
    placement, level, _ = e
    return CompositePlacement(placement.name, len(placement.nodes), level.success,
                              level.message, level.scheduled, level.evaluated, children,
                              score, scores or {}, tied)


def _renamed(template: GroupResult, g: PodGroup, keys: Sequence[str], to: Sequence[str]
             ) -> GroupResult:
    """An equivalent leaf's result for ``g``: pods mapped by position."""
    rename = dict(zip(keys, to, strict=True))
    return replace(template, group=g, placements=tuple(
        replace(p, assignments={rename[k]: n for k, n in p.assignments.items()},
                unplaced={rename[k]: r for k, r in p.unplaced.items()},
                diagnoses={rename[k]: d for k, d in p.diagnoses.items()})
        for p in template.placements))
