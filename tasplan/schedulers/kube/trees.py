"""kube-scheduler's group trees: which trees to plan and at what priority, and one tree
planned as a unit (valid or not)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.statement import Statement
from tasplan.model.group import PodGroup
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.admission import Admission, ScheduleGroup
from tasplan.plan.notes import Note, NoteCode
from tasplan.plan.result import GroupResult
from tasplan.plan.tree import Member, Tree, build_trees
from tasplan.plan.tree_cycle import TreeOutcome, plan_tree
from tasplan.plan.tree_result import CompositeResult
from tasplan.schedulers.kube.admission import Entry, validate_hierarchy

GATE = "CompositePodGroup"


@dataclass(frozen=True)
class TreeUnit:
    """A tree in the planner's queue: at its root's priority (upstream queues the root),
    in the input order of its first member."""

    tree: Tree
    planned: bool
    priority: int

    @property
    def order(self) -> int:
        return self.tree.order

    @property
    def leaves(self) -> tuple[PodGroup, ...]:
        return self.tree.leaves


def units_of(snapshot: ClusterSnapshot, pods_by_group: Mapping[str, list[Pod]],
             enabled: bool, warnings: list[str]) -> list[TreeUnit]:
    """The trees of the input; none with the gate off (then a warning says the composites
    are ignored). A tree is planned when one of its groups is."""
    if not enabled:
        if snapshot.composites:
            warnings.append(f"{len(snapshot.composites)} CompositePodGroup(s) ignored: the "
                            f"{GATE} feature gate is off; their PodGroups are planned alone")
        return []
    units = []
    for tree in build_trees(snapshot.composites, snapshot.groups):
        planned = any(g.planned for g in tree.leaves) or any(
            c.source.workload for c in tree.composites)
        units.append(TreeUnit(tree, planned, _priority(tree, pods_by_group)))
    return units


def _priority(tree: Tree, pods_by_group: Mapping[str, list[Pod]]) -> int:
    if tree.root is not None and tree.root.priority is not None:
        return tree.root.priority
    values = [g.priority for g in tree.leaves if g.priority is not None]
    values += [p.priority for g in tree.leaves for p in pods_by_group.get(g.key, ())]
    return max(values, default=0)


def composite_gate_note(group: PodGroup) -> Note:
    return Note(NoteCode.COMPOSITE_GATE_OFF,
                f"the group names parent CompositePodGroup {group.parent}, but the {GATE} "
                "feature gate is off: kube-scheduler plans it alone (and the API server "
                "would reject spec.parentCompositePodGroupName)")


def plan_unit(unit: TreeUnit, framework: Callable[[str], Framework | None],
              nodes: Sequence[NodeInfo], statement: Statement,
              pods_by_group: Mapping[str, list[Pod]], admitted: Mapping[str, Admission],
              schedule: ScheduleGroup, *, all_assignments: bool = False) -> TreeOutcome:
    """``admitted``: the leaves' admissions by key; ``schedule``: the cycle of each leaf."""
    tree = unit.tree
    notes = tree_notes(tree)
    if tree.problem is not None or tree.root is None:
        return _held(tree, admitted, tree.problem or "invalid hierarchy", tree.invalid, notes)
    fw = next((a.fw for g in tree.leaves if (a := admitted[g.key]).ok), None)
    if fw is None:  # no leaf can be planned: each says why
        fw = framework("default-scheduler")
    if fw is None:
        return TreeOutcome(tuple(v for g in tree.leaves
                                 if (v := admitted[g.key].verdict) is not None), ())
    invalid = validate_hierarchy(_depth_first(tree, admitted), target=fw.target)
    if invalid is not None:
        return _held(tree, admitted, invalid, True, notes)
    outcome = plan_tree(fw, tree, nodes, statement, pods_by_group, admitted, schedule,
                        all_assignments=all_assignments)
    name = fw.profile.scheduler_name
    composites = [replace(c, scheduler_name=name) for c in outcome.composites]
    if composites:
        composites[0] = replace(composites[0], notes=composites[0].notes + notes)
    return TreeOutcome(outcome.leaves, tuple(composites))


def _held(tree: Tree, admitted: Mapping[str, Admission], message: str, error: bool,
          notes: tuple[Note, ...]) -> TreeOutcome:
    """A tree that is not scheduled at all: every group of it says ``message``. Not an
    error: the hierarchy is incomplete (a parent not yet observed) and its pods wait in the
    queue (upstream's ``validateHierarchy``), every group of it ``waiting``."""
    leaves = tuple(GroupResult(g, len(admitted[g.key].pending), len(admitted[g.key].scheduled),
                               False, message, error=error, waiting=not error)
                   for g in tree.leaves)
    composites = tuple(
        CompositeResult(c, tuple((k.kind, k.key) for k in tree.children.get(c.key, ())),
                        False, message, error=error, notes=notes, waiting=not error)
        for c in tree.composites)
    return TreeOutcome(leaves, composites)


def _depth_first(tree: Tree, admitted: Mapping[str, Admission]) -> list[Entry]:
    """The tree as ``validate_hierarchy`` reads it: each group from the root down, a
    PodGroup with the pods its admission queued and those already scheduled."""
    out: list[Entry] = []
    stack: list[Member] = [tree.root]
    while stack:  # pre-order (no recursive closure: that is a reference cycle)
        member = stack.pop()
        if isinstance(member, PodGroup):
            a = admitted[member.key]
            out.append((member, a.pending, [p for p, _ in a.scheduled]))
            continue
        out.append((member, (), ()))
        stack.extend(reversed(tree.children.get(member.key, ())))
    return out


def tree_notes(tree: Tree) -> tuple[Note, ...]:
    """What the tree's plan may get wrong: the children's order, mixed priorities."""
    notes = []
    multi = sorted(k for k, kids in tree.children.items() if len(kids) > 1)
    if multi:
        notes.append(Note(NoteCode.COMPOSITE_CHILD_ORDER,
                          "children are planned in input order; kube-scheduler plans them in "
                          "the order its queue holds them (not specified by the API), and a "
                          "different order can change which children fit (no backtracking)"))
    values = {m.priority for m in tree.members if m.priority is not None}
    if len(values) > 1:
        notes.append(Note(NoteCode.COMPOSITE_MIXED_PRIORITY,
                          f"the groups of the tree have different priorities "
                          f"({', '.join(map(str, sorted(values)))}); KEP-6012 requires one "
                          "priority per tree in alpha. Planned at the root's priority"))
    return tuple(notes)
