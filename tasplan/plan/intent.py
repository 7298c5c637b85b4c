"""A group's placement intent in words every scheduler reads, for ``check --compare``.

The scheduler that plans a group reads its intent in its own dialect (``Scheduler.intent``):
how many pods must run together, the topology level they must share and the one they should
share, and the topology's levels when the dialect names them. Every scheduler that can
compare (``Scheduler.translate``) writes the intents of all groups back in its own dialect
(a KEP-5732 PodGroup with a topology key, a KAI PodGroup with required and preferred levels,
Kueue's podset annotations, a Volcano networkTopology ...) as a changed copy of the
snapshot, and plans that copy on its own; a group whose intent does not translate cleanly is
left out with the reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from tasplan.model.group import PodGroup
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.model.topology import HOSTNAME, infer_levels
from tasplan.plan.result import GroupResult


@dataclass(frozen=True)
class Intent:
    """``required``/``preferred``: node label keys; ``levels``: the dialect's topology levels,
    outermost first (empty: it names none); ``source``: the scheduler whose dialect the
    intent was read in; ``untranslatable``: why no other dialect can say it."""

    group: PodGroup
    min_count: int
    required: str | None = None
    preferred: str | None = None
    levels: tuple[str, ...] = ()
    source: str = ""
    untranslatable: str = ""

    def describe(self) -> str:
        parts = [f"gang of {self.min_count}" if self.min_count > 1 else "no gang"]
        if self.required:
            parts.append(f"all in one {self.required}")
        if self.preferred:
            parts.append(f"preferably in one {self.preferred}")
        if not self.required and not self.preferred:
            parts.append("no topology")
        return " · ".join(parts)


def level_of(intent: Intent) -> str | None:
    """The level a placement is described at: the required one, else the preferred one."""
    return intent.required or intent.preferred


def levels_for(intent: Intent, snapshot: ClusterSnapshot) -> tuple[str, ...]:
    """The topology levels to translate an intent into a dialect that needs a tree: the
    source dialect's, else the cluster's well-known and named levels (``infer_levels``) that
    nest around the intent's keys (each domain of a level inside one domain of the level
    above it, as an administrator's Topology is), else just the intent's own keys; never
    the hostname level."""
    wanted = [k for k in (intent.required, intent.preferred) if k]
    if intent.levels and all(k in intent.levels for k in wanted):
        return intent.levels
    inferred = [k for k in infer_levels(n.labels for n in snapshot.nodes) if k != HOSTNAME]
    if not wanted or not all(k in inferred for k in wanted):
        return tuple(dict.fromkeys(wanted))
    finest = max(wanted, key=inferred.index)
    kept = [finest]
    for level in reversed(inferred[:inferred.index(finest)]):
        if level in wanted or nests(snapshot, kept[0], level):
            kept.insert(0, level)
    return tuple(kept)


def nests(snapshot: ClusterSnapshot, inner: str, outer: str) -> bool:
    """Every domain of ``inner`` lies inside one domain of ``outer``."""
    seen: dict[str, str] = {}
    for node in snapshot.nodes:
        labels = node.labels
        if inner in labels and outer in labels and \
                seen.setdefault(labels[inner], labels[outer]) != labels[outer]:
            return False
    return True


def with_scheduler_name(snapshot: ClusterSnapshot, groups: Iterable[str], name: str
                        ) -> ClusterSnapshot:
    """The snapshot with the pending pods of ``groups`` asking for ``name``."""
    keys = set(groups)
    pods = tuple(replace(p, scheduler_name=name)
                 if p.group in keys and not p.node_name and p.scheduler_name != name else p
                 for p in snapshot.pods)
    return replace(snapshot, pods=pods)


def left_out(snapshot: ClusterSnapshot, reasons: Mapping[str, str]) -> ClusterSnapshot:
    """The snapshot with the groups that do not translate no longer planned."""
    if not reasons:
        return snapshot
    groups = tuple(replace(g, planned=False) if g.key in reasons else g
                   for g in snapshot.groups)
    return replace(snapshot, groups=groups)


def pods_per_domain(result: GroupResult, level: str | None, nodes: Mapping[str, Mapping[str, str]]
                    ) -> dict[str, int]:
    """Pods of the selected placement per domain of ``level`` (per node without one),
    largest first, then by name."""
    chosen = result.selected_placement
    if chosen is None:
        return {}
    counts: Counter = Counter()
    for node in chosen.assignments.values():
        labels = nodes.get(node, {})
        counts[labels.get(level, f"<no {level}>") if level else node] += 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def own_pods(snapshot: ClusterSnapshot, group: PodGroup) -> Sequence[Pod]:
    return snapshot.pods_by_group.get(group.key, [])
