"""What explain produces: per group, per domain, and the verified suggestions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tasplan.explain.cause import Cause
from tasplan.plan.result import GroupResult, PlanResult


@dataclass(frozen=True)
class Consumer:
    """Pods of one namespace and priority on a domain's nodes, and what they request."""

    namespace: str
    priority: int
    pods: int
    requests: Mapping[str, int]


@dataclass(frozen=True)
class DomainExplanation:
    """One candidate placement of the group, read from the planner's own result.

    ``fit`` pods got a node of ``needed``; ``shortfall`` is what the missing pods request of
    the resources that stopped them (``per_pod`` when every missing pod requests the same);
    ``excluded`` counts the domain's nodes no pod of the group may use, by reason."""

    name: str
    nodes: int
    fit: int
    needed: int
    shortfall: Mapping[str, int]
    per_pod: Mapping[str, int]
    excluded: Mapping[str, int]
    consumers: tuple[Consumer, ...] = ()

    @property
    def short(self) -> int:
        return max(self.needed - self.fit, 0)


@dataclass(frozen=True)
class Suggestion:
    """A change that makes the group schedulable, proven by re-planning the group on the
    changed cluster. ``result`` is that plan; ``cost`` counts what the change takes
    (``podsEvicted``, ``nodesAdded``); ``minimal`` is False when a smaller change may exist."""

    kind: str
    change: str
    result: GroupResult
    cost: Mapping[str, int] = field(default_factory=dict)
    details: Mapping[str, object] = field(default_factory=dict)
    minimal: bool = True


@dataclass(frozen=True)
class Explanation:
    """``failures`` groups the pods that failed in the closest domain by upstream message.
    ``fits_empty_cluster`` says whether the group fits once every other pod is gone (a
    capacity problem if not, contention if so); ``unlabelled`` counts nodes without the
    group's topology key (they belong to no placement). ``cause`` is the one cause the
    headline names (tasplan.explain.cause); the suggestions that fix it come first."""

    result: GroupResult
    needed: int
    domains: tuple[DomainExplanation, ...]
    failures: tuple[tuple[str, tuple[str, ...]], ...]
    fits_empty_cluster: bool
    suggestions: tuple[Suggestion, ...]
    unlabelled: int = 0
    cause: Cause | None = None

    @property
    def fits_at(self) -> Suggestion | None:
        """The finest coarser topology level under which the group fits now, if any."""
        return next((s for s in self.suggestions
                     if s.kind == "topologyKey" and s.details.get("coarser")), None)


@dataclass(frozen=True)
class ExplainResult:
    """The plan of the selected groups, and an explanation for each group that did not fit
    (or fit only in part), keyed by group key."""

    plan: PlanResult
    explanations: Mapping[str, Explanation]
    # Unschedulable CompositePodGroup trees, keyed by root key
    # (tasplan.explain.composite.TreeExplanation).
    trees: Mapping[str, object] = field(default_factory=dict)

    @property
    def schedulable(self) -> bool:
        return self.plan.schedulable
