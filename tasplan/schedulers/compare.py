"""``check --compare``: every group planned by every scheduler that can say its intent.

The run as ``check`` makes it gives each group its own scheduler; that scheduler reads the
group's intent (``interface.Comparing.intent``, ``tasplan.plan.intent``). Then each scheduler
that can compare (``Comparing.translate``) gets the whole input with every group written in
its dialect and plans it on its own, so its groups see each other as they would if that
scheduler placed them all. A scheduler that lands later takes part once it has ``intent``
and ``translate``; nothing here names one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.intent import Intent, level_of, own_pods, pods_per_domain
from tasplan.plan.result import GroupResult, PlanResult
from tasplan.schedulers.interface import Scheduler
from tasplan.schedulers.registry import in_tree_schedulers
from tasplan.target import Target

Planner = Callable[..., PlanResult]


@dataclass(frozen=True)
class Row:
    """One scheduler's answer for one group. ``result`` None: the intent does not
    translate into the scheduler's dialect (``reason`` says why)."""

    scheduler: str
    native: bool
    result: GroupResult | None
    per_domain: Mapping[str, int]
    reason: str = ""

    @property
    def outcome(self) -> str:
        return "not-translated" if self.result is None else self.result.outcome


@dataclass(frozen=True)
class Comparison:
    """``stated``: False when the group's own scheduler cannot read intents (it has no
    ``intent``): its own row only, no translation. ``level``: the label key domains are
    values of in ``per_domain`` (None: node names)."""

    group: str
    intent: Intent
    rows: tuple[Row, ...]
    stated: bool = True
    level: str | None = None


def comparers(schedulers: Mapping[str, Scheduler]) -> dict[str, Scheduler]:
    """The schedulers that read and write intents, in registry order."""
    return {name: s for name, s in schedulers.items()
            if callable(getattr(s, "intent", None)) and callable(getattr(s, "translate", None))}


def compare(snapshot: ClusterSnapshot, native: PlanResult, planner: Planner,
            target_of: Callable[[ClusterSnapshot], Target | None],
            schedulers: Mapping[str, Scheduler] | None = None) -> tuple[Comparison, ...]:
    """``native``: the run ``check`` made (which scheduler planned each group);
    ``planner(snapshot, scheduler=NAME, target=...)`` plans a translated copy;
    ``target_of``: the release to plan a copy for (the user's choice, its gates)."""
    schedulers = schedulers if schedulers is not None else in_tree_schedulers()
    able = comparers(schedulers)
    planned = {g.key: g for g in snapshot.groups if g.planned}
    labels = {n.name: n.labels for n in snapshot.nodes}
    intents: dict[str, Intent] = {}
    rows: dict[str, list[Row]] = {}
    for result in native.groups:
        group = planned.get(result.group.key)
        owner = able.get(result.scheduler)
        if group is None:
            continue
        if owner is None:  # its own verdict only
            intents[group.key] = Intent(group, group.min_count, source=result.scheduler,
                                        untranslatable=f"{result.scheduler} states no intent")
            rows[group.key] = [Row(result.scheduler, True, result, pods_per_domain(
                result, result.group.topology_key, labels))]
        else:
            intents[group.key] = owner.intent(group, own_pods(snapshot, group), snapshot)
            rows[group.key] = []
    for name, scheduler in able.items():
        translated, reasons = scheduler.translate(snapshot, list(intents.values()))
        run = planner(translated, scheduler=name, target=target_of(translated))
        results = {r.group.key: r for r in run.groups}
        for key, intent in intents.items():
            result = results.get(key)
            if key in reasons or result is None:
                rows[key].append(Row(name, intent.source == name, None, {},
                                     reasons.get(key, "not planned")))
                continue
            rows[key].append(Row(name, intent.source == name, result,
                                 pods_per_domain(result, level_of(intent), labels)))
    return tuple(_comparison(key, intents[key], rows[key], able) for key in intents)


def _comparison(key: str, intent: Intent, rows: list[Row], able: Mapping[str, Scheduler]
                ) -> Comparison:
    if intent.source in able:
        return Comparison(key, intent, tuple(rows), True, level_of(intent))
    own = rows[0].result
    return Comparison(key, intent, tuple(rows), False,
                      own.group.topology_key if own is not None else None)
