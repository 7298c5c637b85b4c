"""A working copy of a cluster snapshot that the edits change, one after another."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property

from tasplan.errors import UsageError
from tasplan.model.dra import ResourceSlice
from tasplan.model.group import PodGroup
from tasplan.model.node import Node
from tasplan.model.pod import Pod
from tasplan.model.pod_affinity import LabelSelector
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.model.topology import infer_levels
from tasplan.preemption.budgets import DisruptionBudget, disruption_budgets
from tasplan.untrusted import quote
from tasplan.whatif.edits import Edit
from tasplan.whatif.selectors import is_selector, label_selector


@dataclass
class Draft:
    """Nodes by name, pods in input order (with the ones gone marked), groups in order,
    DRA ResourceSlices.
    ``disrupted`` counts, per PodDisruptionBudget, the covered pods earlier edits evicted."""

    base: ClusterSnapshot
    nodes: dict[str, Node]
    pods: list[Pod]
    groups: list[PodGroup]
    slices: list[ResourceSlice]
    gone: set[int] = field(default_factory=set)  # id() of pods removed
    disrupted: Counter = field(default_factory=Counter)
    # Edits that had nothing to do (an --evict that matches no pod): the commands' warnings.
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, snapshot: ClusterSnapshot) -> Draft:
        return cls(snapshot, {n.name: n for n in snapshot.nodes}, list(snapshot.pods),
                   list(snapshot.groups), list(snapshot.dra.slices))

    def live_pods(self) -> Iterator[Pod]:
        gone = self.gone
        return (p for p in self.pods if id(p) not in gone)

    def bound_pods(self) -> Iterator[Pod]:
        """Pods that hold a node now (bound, not finished)."""
        return (p for p in self.live_pods() if p.node_name and not p.terminal)

    def levels(self) -> tuple[str, ...]:
        """Topology keys of the current nodes, plus the planned groups' topology keys."""
        keys = list(infer_levels(n.labels for n in self.nodes.values()))
        for group in self.groups:
            if group.topology_key and group.topology_key not in keys:
                keys.append(group.topology_key)
        return tuple(keys)

    @cached_property
    def budgets(self) -> tuple[DisruptionBudget, ...]:
        """Every PodDisruptionBudget with the disruptions it allows in the real cluster."""
        return disruption_budgets(self.base)

    # -- node targets ----------------------------------------------------------------------

    def select_nodes(self, edit: Edit) -> list[Node]:
        """The nodes a cordon/drain/remove target names: a comma list of node names, or a
        label selector. Matching nothing is an error, as is an unknown name."""
        text = edit.target.strip()
        if not text:
            raise UsageError(f"{edit.where}: give node names or a label selector")
        if is_selector(text):
            selector = self.node_selector(text, edit)
            chosen = [n for n in self.nodes.values() if selector.matches(n.labels)]
            if not chosen:
                raise UsageError(f"{edit.where} {quote(text)}: the selector matches no node")
            return sorted(chosen, key=lambda n: n.name)
        names = [n.strip() for n in text.split(",")]
        unknown = [n for n in names if n not in self.nodes]
        if "" in names:
            raise UsageError(f"{edit.where} {quote(text)}: empty node name (a stray comma?)")
        if unknown:
            raise UsageError(f"{edit.where}: no node named "
                             f"{', '.join(map(quote, unknown[:5]))}"
                             + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""))
        return [self.nodes[n] for n in dict.fromkeys(names)]

    def node_selector(self, text: str, edit: Edit) -> LabelSelector:
        keys: set[str] = set()
        for node in self.nodes.values():
            keys.update(node.labels)
        return label_selector(text, keys, f"{edit.where} {quote(text)}")

    # -- changes ---------------------------------------------------------------------------

    def evict(self, pods: list[Pod]) -> list[str]:
        """Take ``pods`` away; the PodDisruptionBudgets this takes past what they allow now
        (counting earlier edits), one message each."""
        self.gone.update(id(p) for p in pods)
        hits: Counter = Counter()
        for budget in self.budgets:
            hits[budget.key] = sum(1 for p in pods if budget.covers(p))
        violated = []
        for budget in self.budgets:
            if not hits[budget.key]:
                continue
            before = self.disrupted[budget.key]
            self.disrupted[budget.key] += hits[budget.key]
            if self.disrupted[budget.key] > budget.allowed:
                violated.append(
                    f"PodDisruptionBudget {budget.key} allows {budget.allowed} disruption(s), "
                    f"this evicts {hits[budget.key]} of its pods"
                    + (f" ({before} evicted by earlier edits)" if before else ""))
        return violated

    def snapshot(self) -> ClusterSnapshot:
        """The edited cluster; usage is indexed again from the remaining pods."""
        gone = self.gone
        return replace(
            self.base,
            nodes=tuple(sorted(self.nodes.values(), key=lambda n: n.name)),
            pods=tuple(p for p in self.pods if id(p) not in gone),
            groups=tuple(self.groups), usage=None, unknown_nodes={}, nominated=(),
            warnings=(*self.base.warnings, *self.warnings),
            dra=replace(self.base.dra, slices=tuple(self.slices))
            if len(self.slices) != len(self.base.dra.slices) else self.base.dra)
