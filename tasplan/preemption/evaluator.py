"""One pod group's workload-aware preemption (upstream ``PodGroupEvaluator``).

1. A group whose preemption policy is Never may not preempt.
2. Every unit of strictly lower priority is a candidate; none: nothing to do.
3. All candidates are removed and the group's cycle (placements included) re-runs on the
   cluster without them. If the group still does not fit, preemption cannot help.
4. The pods it placed keep their nodes. Each candidate is put back in turn (PDB-violating
   units first, then the others, most important first) and kept if every placed pod still
   passes the filters: node-local filters on the nodes the unit occupies, in placement
   order with the earlier pods of that node assumed (phase 1), then the cross-node filters
   (PodTopologySpread, InterPodAffinity) over all placed pods in order (phase 2).
   1.36 instead re-runs the group's whole cycle with the candidate back and keeps it if
   the group still fits (``Rules.rerun_each``, PR kubernetes#137606 as released).
5. The units that could not be put back are the victims; every placed pod is nominated
   to its node.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.statement import Statement
from tasplan.framework.status import PluginError
from tasplan.framework.types import CycleState, GroupContext, Scope
from tasplan.gc_pause import gc_paused
from tasplan.model.pod import Pod
from tasplan.plan.notes import NoteCode
from tasplan.plan.preemption_result import PreemptionResult, Victim
from tasplan.plan.result import GroupResult
from tasplan.preemption.budgets import DisruptionBudget
from tasplan.preemption.victims import Unit, ranked, reprieve_order
from tasplan.target import Target

NEVER = "not eligible due to preemptionPolicy=Never."
NO_VICTIMS = "No preemption victims found for incoming preemptor"
NOT_ENOUGH = "the group does not fit even with every lower-priority pod evicted"

Schedule = Callable[..., GroupResult]
_PODS, _UID = attrgetter("pods"), attrgetter("uid")
_NAMESPACE, _NAME = attrgetter("namespace"), attrgetter("name")


@dataclass(frozen=True)
class Rules:
    """What differs between releases in choosing victims (kubernetes/kubernetes
    ``pkg/scheduler/framework/preemption``):

    - ``uid_tiebreak``: victims equal in priority, rank, size and start are ordered by
      UID (PR #140999, 1.38); before, arbitrarily.
    - ``legacy_selectors``: unlabelled pods and budgets with an empty selector are skipped
      when budgets are spent (fixed by PR #141785, 1.38).
    - ``rerun_each``: each candidate is reprieved by re-running the group's cycle (1.36)
      rather than by checking the placed pods against the filters once (1.37+)."""

    uid_tiebreak: bool = True
    legacy_selectors: bool = False
    rerun_each: bool = False

    @classmethod
    def of(cls, target: Target | None) -> Rules:
        if target is None:
            return cls()
        release = target.release
        return cls(release.victim_uid_tiebreak, release.pdb_legacy_selectors,
                   release.reprieve_by_rerun)


@dataclass(frozen=True)
class Attempt:
    """``result`` when the group fits once the victims are gone, else None and
    ``reason`` (upstream's status text)."""

    result: PreemptionResult | None
    reason: str


def preempt(fw: Framework, ctx: GroupContext, nodes: Sequence[NodeInfo],
            statement: Statement, candidates: Sequence[Unit], priority: int,
            budgets: Sequence[DisruptionBudget], *, never: bool, schedule: Schedule
            ) -> Attempt:
    """``priority``: the group's; ``never``: its preemption policy is Never; ``schedule``:
    the group cycle (the caller's ``schedule_group``)."""
    def rerun(nodes: Sequence[NodeInfo], statement: Statement) -> Placed | None:
        result = schedule(fw, ctx, nodes, statement, assign=True)
        chosen = result.selected_placement
        if not result.schedulable or chosen is None:
            return None
        by_key = {p.key: p for p in ctx.pending}
        index = {info.node.name: i for i, info in enumerate(nodes)}
        return chosen.name, [(by_key[k], index[name]) for k, name in chosen.assignments.items()]

    return select_victims(fw, nodes, statement, candidates, priority, budgets, never=never,
                          rerun=rerun, rules=Rules.of(fw.target))


# rerun(nodes without the candidates, statement) -> (placement name, [(pod, node index)] in
# placement order) when the preemptor fits there, else None
Placed = tuple[str, list[tuple[Pod, int]]]
Rerun = Callable[[Sequence[NodeInfo], Statement], "Placed | None"]


def select_victims(fw: Framework, nodes: Sequence[NodeInfo], statement: Statement,
                   candidates: Sequence[Unit], priority: int,
                   budgets: Sequence[DisruptionBudget], *, never: bool,
                   rerun: Rerun, rules: Rules = Rules()) -> Attempt:
    """Steps 1-5 for any preemptor (a group, a group tree): ``rerun`` is its own cycle. It
    all happens in a trial of ``statement``: candidates evicted, the re-run, victims put
    back are undone at the end (preemption only looks)."""
    if never:
        return Attempt(None, NEVER)
    potential = [u for u in candidates if u.priority < priority]
    if not potential:
        return Attempt(None, NO_VICTIMS)
    # a log entry per candidate pod made and dropped, no cycle among them: no GC rescans
    with gc_paused(), statement.trial():
        leaving: dict[int, list[Pod]] = {}
        for pod, i in chain.from_iterable(map(_PODS, potential)):
            pods = leaving.get(i)
            if pods is None:
                leaving[i] = [pod]
            else:
                pods.append(pod)
        for i, pods in leaving.items():
            statement.evict_all(pods, nodes[i])
        without = statement.checkpoint()
        placed = rerun(nodes, statement)
        statement.rollback(without)
        if placed is None:
            return Attempt(None, NOT_ENOUGH)
        reprieve = None if rules.rerun_each else _Reprieve(fw, nodes, statement, placed[1])
        if FAST and reprieve is not None and not reprieve.cross_checks:
            evicted, violations, notes = _reprieve_touching(reprieve, potential, budgets,
                                                            rules)
        else:
            evicted, violations, notes, placed = _reprieve_each(
                reprieve, nodes, statement, potential, budgets, rules, rerun, placed)
    name, assignments = placed
    victims = sorted((Victim(p.key, nodes[i].node.name, unit.priority, p.group, unit.key,
                             unit.kind if unit.key else None, len(unit.pods))
                      for unit in evicted for p, i in unit.pods), key=lambda v: v.pod)
    message = f"found a placement for podgroup, preempting {len(victims)} victims"
    notes += _budget_notes(budgets, potential)
    return Attempt(PreemptionResult(name, tuple(victims),
                                    {p.key: nodes[i].node.name for p, i in assignments},
                                    message, violations, notes), message)


def _reprieve_each(reprieve: _Reprieve | None, nodes: Sequence[NodeInfo],
                   statement: Statement, potential: Sequence[Unit],
                   budgets: Sequence[DisruptionBudget], rules: Rules, rerun: Rerun,
                   placed: Placed) -> tuple[list[Unit], int, tuple, Placed]:
    """Step 4 as upstream runs it: every candidate in reprieve order. Returns the evicted
    units, the budget violations among them, the order note, and what is placed."""
    evicted: list[Unit] = []
    violations = 0
    order = reprieve_order(potential, budgets, legacy_selectors=rules.legacy_selectors)
    for unit, broken in order:
        if reprieve is not None:
            kept = reprieve.try_back(unit)
        else:  # 1.36: the unit back, the whole cycle again
            mark = statement.checkpoint()
            for pod, i in unit.pods:
                statement.restore(pod, nodes[i])
            again = statement.checkpoint()
            rerun_placed = rerun(nodes, statement)
            statement.rollback(again)
            kept = rerun_placed is not None
            if kept:
                placed = rerun_placed
            else:
                statement.rollback(mark)
        if not kept:
            violations += broken
            evicted.append(unit)
    notes = _order_notes([u for u, _ in order], {id(u) for u in evicted}, rules)
    return evicted, violations, notes, placed


# The equivalent of _reprieve_each without the work that cannot change the answer (tests
# compare both: tests/preemption/test_fast_reprieve.py).
FAST = True
# Phase 1 of a node decided by counts where they decide it (``_Reprieve.counted``; tested
# against the pod-by-pod check the same way).
COUNTED = True


def _reprieve_touching(reprieve: _Reprieve, potential: Sequence[Unit],
                       budgets: Sequence[DisruptionBudget], rules: Rules
                       ) -> tuple[list[Unit], int, tuple]:
    """Step 4 without cross-node filters: a unit on none of the placed pods' nodes is put
    back without a check and changes nothing a later check reads, so only the units on
    those nodes are tried, in their reprieve order (budgets are spent over the units that
    a budget covers, in the same order as upstream's whole list). The order note is
    looked up among the units equal to an evicted one."""
    broken = _violations(potential, budgets, rules.legacy_selectors)
    by_node = reprieve.by_node
    touching = [u for u in potential if (u.pods[0][1] in by_node if len(u.pods) == 1
                                         else any(i in by_node for _, i in u.pods))]
    evicted: list[Unit] = []
    violations = 0
    for unit in sorted(touching, key=lambda u: (id(u) not in broken, u.importance)):
        if not reprieve.try_back(unit):
            violations += broken.get(id(unit), 0)
            evicted.append(unit)
    return evicted, violations, _order_notes_among(potential, evicted, broken, rules)


def _violations(potential: Sequence[Unit], budgets: Sequence[DisruptionBudget],
                legacy: bool) -> dict[int, int]:
    """id(unit) -> its pods that break a budget, for the units that break one: budgets are
    spent only by the pods they cover, so the covered units alone, in order, decide."""
    if not budgets:
        return {}
    covered = [u for u in potential
               if any(b.covers(p) for p, _ in u.pods for b in budgets)]
    return {id(u): n for u, n in reprieve_order(covered, budgets, legacy_selectors=legacy)
            if n}


def _order_notes_among(potential: Sequence[Unit], evicted: Sequence[Unit],
                       broken: dict[int, int], rules: Rules) -> tuple[tuple[str, str], ...]:
    """``_order_notes`` over the reprieve order of ``potential`` (violating units first,
    then by importance), computed from the classes of the evicted units only.

    A class of equals is ordered by (not violating, importance); the mixed class that comes
    first is the one whose first member comes first. Units of one pod (a whole cluster of
    them, often all in one class when the inputs keep no UIDs or start times) are grouped by
    the raw fields their class is made of and compared within a class by (UID, pod key)
    only, the rest of their importance being the class itself."""
    if not evicted:
        return ()
    tiebreak = rules.uid_tiebreak
    gone = {id(u) for u in evicted}
    out_of: dict[tuple, list[Unit]] = {}  # decided key -> the evicted units of it
    for unit in evicted:
        out_of.setdefault(unit.decided(tiebreak), []).append(unit)
    # one-pod units by the raw fields their class is made of, the others alone
    by_raw: dict[tuple, list[Unit]] = {}
    groups: list[list[Unit]] = []
    for unit in potential:
        pods = unit.pods
        if len(pods) != 1:
            groups.append([unit])
            continue
        pod = pods[0][0]
        raw = (unit.priority, unit.kind, pod.start_time, pod.uid if tiebreak else "")
        group = by_raw.get(raw)
        if group is None:
            by_raw[raw] = [unit]
        else:
            group.append(unit)
    classes: dict[tuple, list[list[Unit]]] = {}  # decided key -> its groups
    for group in (*by_raw.values(), *groups):
        key = ranked(group[0], tiebreak)[0]
        if key in out_of:
            classes.setdefault(key, []).append(group)
    firsts = []  # (first member's order, first evicted, first kept) of the mixed classes
    for key, members in classes.items():
        kept = [u for group in members for u in group if id(u) not in gone]
        if not kept:
            continue
        first_out, first_kept = _first(out_of[key], broken), _first(kept, broken)
        firsts.append((min(_order(first_out, broken), _order(first_kept, broken)),
                       first_out, first_kept))
    if not firsts:
        return ()
    _, first_out, first_kept = min(firsts, key=lambda f: f[0])
    return _order_note(first_out, first_kept, rules)


def _order(unit: Unit, broken: dict[int, int]) -> tuple:
    """A unit's place in the reprieve order: violating units first, then by importance."""
    return (id(unit) not in broken, unit.importance)


def _first(units: list[Unit], broken: dict[int, int]) -> Unit:
    """The first in the reprieve order of units of one class. One-pod units of one class
    differ only in their UID and pod key (their class holds the rest of their importance):
    compared by those without building their importance."""
    if broken:
        violating = [u for u in units if id(u) in broken]
        units = violating or units
    if len(units[0].pods) != 1:
        return min(units, key=lambda u: u.importance)
    pods = [u.pods[0][0] for u in units]
    # (uid, Pod.key, position), made in C
    keys = map("/".join, zip(map(_NAMESPACE, pods), map(_NAME, pods), strict=True))
    return units[min(zip(map(_UID, pods), keys, range(len(pods)), strict=True))[2]]


def _order_notes(ordered: Sequence[Unit], evicted: set[int], rules: Rules
                 ) -> tuple[tuple[str, str], ...]:
    """Units upstream orders arbitrarily among themselves (``Unit.decided``) of which some
    were evicted and some kept: upstream may have evicted others of them."""
    classes: dict[tuple, list[Unit]] = {}
    for unit in ordered:
        classes.setdefault(unit.decided(rules.uid_tiebreak), []).append(unit)
    mixed = [units for units in classes.values()
             if len({id(u) in evicted for u in units}) == 2]
    if not mixed:
        return ()
    units = mixed[0]
    return _order_note(next(u for u in units if id(u) in evicted),
                       next(u for u in units if id(u) not in evicted), rules)


def _order_note(gone: Unit, kept: Unit, rules: Rules) -> tuple[tuple[str, str], ...]:
    return ((NoteCode.VICTIM_ORDER, f"{_name(gone)} and {_name(kept)} are equally important as "
             "victims (priority, rank, pods, start time"
             + (", UID" if rules.uid_tiebreak else "") + "): upstream orders them "
             "arbitrarily, so it may evict the other; tasplan takes the smaller UID (then "
             "name) as more important"),)


def _name(unit: Unit) -> str:
    return f"{unit.kind} {unit.key}" if unit.key else f"pod {unit.pods[0][0].key}"


def _budget_notes(budgets: Sequence[DisruptionBudget], candidates: Sequence[Unit]
                  ) -> tuple[tuple[str, str], ...]:
    """Budgets without a status that cover a candidate: say what was assumed."""
    blind = [b for b in budgets if not b.status
             and any(b.covers(p) for u in candidates for p, _ in u.pods)]
    if not blind:
        return ()
    names = ", ".join(b.key for b in blind[:3]) + (f" and {len(blind) - 3} more"
                                                   if len(blind) > 3 else "")
    if any(b.computed for b in blind):
        return ((NoteCode.PDB_STATUS, f"PodDisruptionBudget {names} has no status: its allowance "
                 "was computed from its spec (--pdb-allowance computed), as the disruption "
                 "controller will; until it does, kube-scheduler reads 0"),)
    return ((NoteCode.PDB_STATUS, f"PodDisruptionBudget {names} has no status: kube-scheduler "
             "reads it as allowing no disruption until the disruption controller computes "
             "it, and so does the plan (--pdb-allowance computed: from its spec)"),)


class _Reprieve:
    """Puts candidate units back while the placed pods still pass the filters."""

    def __init__(self, fw: Framework, nodes: Sequence[NodeInfo], statement: Statement,
                 assignments: list[tuple[Pod, int]]) -> None:
        self.work, self.statement, self.assignments = nodes, statement, assignments
        self.node_filters = [f for f in fw.filters if f.scope != Scope.CLUSTER]
        cluster_filters = {f.name for f in fw.filters if f.scope == Scope.CLUSTER}
        self.by_node: dict[int, list[Pod]] = {}
        for pod, i in assignments:
            self.by_node.setdefault(i, []).append(pod)
        # Phase-2 summaries per pod class, as of "every candidate gone, no pod placed";
        # only plugins with something to check for the class (not Skip) take part.
        self.summaries: dict[int, dict] = {}
        self.classes: dict[int, Pod] = {}
        first: dict[tuple, int] = {}
        self.class_of: list[int] = []
        for pod, _ in assignments:
            k = first.setdefault(pod.signature(), len(first))
            self.class_of.append(k)
            if k not in self.classes:
                self.classes[k] = pod
                self.summaries[k] = {
                    p.name: s for p in fw.cluster_state if p.name in cluster_filters
                    and (s := p.prepare(pod, nodes)) is not None}
        self.plugins = {p.name: p for p in fw.cluster_state}
        self.cross_node = [f for f in fw.filters if f.scope == Scope.CLUSTER]
        self.cross_checks = any(self.summaries.values())
        # Nodes whose phase 1 counts decide (``COUNTED``): their placed pods are of one
        # class, none is nominated there, and every node-local filter either reads no other
        # pod (static) or says how many more copies of a pod pass one after another
        # (``CapacityPlugin``): all n placed pods pass in turn iff that count is >= n.
        self.static = [f for f in self.node_filters if f.scope == Scope.STATIC]
        self.counters = [f for f in self.node_filters if f.scope != Scope.STATIC]
        self.counted: set[int] = set()
        if COUNTED and all(id(f) in fw.counting and id(f) not in fw.pod_scoped
                           for f in self.counters):
            kinds: dict[int, set[int]] = {}
            for n, (_, i) in enumerate(assignments):
                kinds.setdefault(i, set()).add(self.class_of[n])
            self.counted = {i for i, k in kinds.items() if len(k) == 1 and not nodes[i].nominated}

    def try_back(self, unit: Unit) -> bool:
        if not self.cross_checks and all(i not in self.by_node for _, i in unit.pods):
            # No placed pod on its nodes and no cross-node filter to ask: nothing can
            # object, and no later check reads those nodes (they stay as they are).
            return True
        mark = self.statement.checkpoint()
        for pod, i in unit.pods:
            self.statement.restore(pod, self.work[i])
        if all(self._node_local(i) for i in {i for _, i in unit.pods}) and self._cross(unit):
            return True
        self.statement.rollback(mark)
        return False

    def _node_local(self, i: int) -> bool:
        """Phase 1: the pods placed on node ``i``, in order, each with the earlier ones
        assumed, against the node-local filters (with nominated pods, as upstream)."""
        info = self.work[i]
        if i in self.counted:
            pods = self.by_node[i]
            return not self._fails(pods[0], info, self.static) and min(
                (f.capacity(pods[0], info) for f in self.counters), default=len(pods)
            ) >= len(pods)
        view = info  # the node with the earlier placed pods: one copy, grown pod by pod
        for pod in self.by_node.get(i, ()):
            reserved = [p for p in info.nominated if p.priority >= pod.priority
                        and p is not pod and (p.group is None or p.group != pod.group)]
            if reserved and self._fails(pod, view.with_pods(reserved)):
                return False
            if self._fails(pod, view):
                return False
            if view is info:
                view = info.with_pods([pod])
            else:
                view.add_pod(pod)
        return True

    def _fails(self, pod: Pod, info: NodeInfo, filters: Sequence | None = None) -> bool:
        state = CycleState()
        for plugin in self.node_filters if filters is None else filters:
            status = plugin.filter(state, pod, info)
            if status is not None:
                if not status.rejected:
                    raise PluginError(status.with_plugin(plugin.name))
                return True
        return False

    def _cross(self, unit: Unit) -> bool:
        """Phase 2: every placed pod in order against the cross-node filters, the unit's
        pods counted and the earlier placed pods assumed. Kept summaries absorb the unit."""
        if not self.cross_checks:
            return True
        trial = {k: {name: s.copy() for name, s in sums.items()}
                 for k, sums in self.summaries.items()}
        for k, sums in trial.items():
            for name, summary in sums.items():
                for pod, i in unit.pods:
                    self.plugins[name].add_pod(summary, self.classes[k], pod, self.work[i])
        for n, (pod, i) in enumerate(self.assignments):
            sums = trial[self.class_of[n]]
            if sums:
                state = CycleState(sums)
                for plugin in self.cross_node:
                    if plugin.name in sums:
                        status = plugin.filter(state, pod, self.work[i])
                        if status is not None:
                            if not status.rejected:
                                raise PluginError(status.with_plugin(plugin.name))
                            return False
            for k, other in trial.items():
                for name, summary in other.items():
                    self.plugins[name].add_pod(summary, self.classes[k], pod, self.work[i])
        for k, sums in self.summaries.items():
            for name, summary in sums.items():
                for pod, i in unit.pods:
                    self.plugins[name].add_pod(summary, self.classes[k], pod, self.work[i])
        return True
