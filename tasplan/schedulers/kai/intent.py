"""KAI's dialect for ``check --compare``: a PodGroup's minMember (with subgroups, the fewest
pods that satisfy them) and its topology
constraint's required and preferred levels. Subgroups with gangs and constraints of their own
have no counterpart elsewhere, so a PodGroup with subgroups does not translate; any other
intent becomes a KAI PodGroup over the cluster's Topology that has its levels (or one made
from the cluster's level labels)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tasplan.model.group import PodGroup
from tasplan.model.kai import (
    SCHEDULER_NAME,
    Constraint,
    KaiInputs,
    KaiPodGroup,
    KaiTopology,
    TopologyLevel,
)
from tasplan.model.pod import Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.intent import Intent, left_out, levels_for, with_scheduler_name
from tasplan.schedulers.kai import KAI
from tasplan.schedulers.kai.grouper import GrouperError, pod_group_for
from tasplan.schedulers.kai.jobs import build_job, fewest_pods

COMPARE_TOPOLOGY = "tasplan-compare-{n}"


def read_intent(group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot) -> Intent:
    try:
        spec, _ = pod_group_for(group, pods, snapshot)
    except GrouperError as err:
        return Intent(group, max(group.min_count, 1), source=KAI,
                      untranslatable=f"KAI's pod grouper makes no PodGroup: {err}")
    minimum = fewest_pods(build_job(spec, (), snapshot.kai.topologies).root)
    c = spec.constraint
    topology = snapshot.kai.topologies.get(c.topology) if c.active else None
    resolve = topology.resolve if topology is not None else (lambda level: level)
    return Intent(
        group, max(minimum, 1),
        required=resolve(c.required) or None if c.active else None,
        preferred=resolve(c.preferred) or None if c.active else None,
        levels=topology.labels if topology is not None else (), source=KAI,
        untranslatable="KAI subgroups (spec.subGroups)" if spec.subgroups else "")


def _topology(intent: Intent, snapshot: ClusterSnapshot, made: dict[tuple, KaiTopology]
              ) -> KaiTopology:
    """A Topology of the inputs with the intent's levels, else one over the cluster's."""
    wanted = [k for k in (intent.required, intent.preferred) if k]
    for name in sorted(snapshot.kai.topologies):
        topology = snapshot.kai.topologies[name]
        if all(k in topology.labels for k in wanted):
            return topology
    levels = _distinct(levels_for(intent, snapshot), snapshot, wanted)
    if levels not in made:
        made[levels] = KaiTopology(COMPARE_TOPOLOGY.format(n=len(made) + 1),
                                   tuple(TopologyLevel(k) for k in levels), intent.group.source)
    return made[levels]


def _distinct(levels: tuple[str, ...], snapshot: ClusterSnapshot, wanted: Sequence[str]
              ) -> tuple[str, ...]:
    """Outer levels with one value on every node add nothing to the tree but length to its
    domain IDs: a Topology tasplan makes leaves them out."""
    keep = list(levels)
    while len(keep) > 1 and keep[0] not in wanted and \
            len({n.labels.get(keep[0]) for n in snapshot.nodes}) == 1:
        keep.pop(0)
    return tuple(keep)


def translate(snapshot: ClusterSnapshot, intents: Sequence[Intent]
              ) -> tuple[ClusterSnapshot, dict[str, str]]:
    """Every intent as a KAI PodGroup of the group's name, its pods asking for
    kai-scheduler; groups read in KAI's dialect stay as they are."""
    reasons: dict[str, str] = {}
    specs = dict(snapshot.kai.pod_groups)
    made: dict[tuple, KaiTopology] = {}
    moved = []
    for intent in intents:
        group = intent.group
        if intent.source == KAI:
            continue
        if intent.untranslatable:
            reasons[group.key] = f"does not translate: {intent.untranslatable}"
            continue
        constraint = Constraint()
        if intent.required or intent.preferred:
            topology = _topology(intent, snapshot, made)
            constraint = Constraint(topology.name, intent.required or "",
                                    intent.preferred or "")
        name = group.key.rsplit("/", 1)[-1]
        specs[group.key] = KaiPodGroup(group.namespace, name, intent.min_count, None, "", "",
                                       constraint, (), group.source)
        moved.append(group.key)
    topologies = {**snapshot.kai.topologies, **{t.name: t for t in made.values()}}
    kai = KaiInputs(topologies, specs, snapshot.kai.problems)
    translated = with_scheduler_name(replace(snapshot, kai=kai), moved, SCHEDULER_NAME)
    return left_out(translated, reasons), reasons
