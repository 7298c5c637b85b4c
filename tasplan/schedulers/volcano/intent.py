"""Volcano's dialect for ``check --compare``: a PodGroup's ``minMember`` and its
``networkTopology``. HyperNodes are not node labels, so a tier is read as the node label
whose domains are exactly that tier's HyperNodes (the rack label for a tier of one HyperNode
per rack). Hard mode with ``highestTierAllowed`` T is "all in one domain of tier T"; soft
mode (a hard walk up to the cluster at session open, newest code) is "preferably in one
domain of the lowest tier". Writing an intent: a PodGroup with ``networkTopology`` over the
inputs' HyperNodes, or over HyperNodes made from the cluster's level labels (one per label
value, tier 1 the finest level the intents name) when the inputs hold none.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from tasplan.model.group import PodGroup
from tasplan.model.pod import Pod
from tasplan.model.pod_affinity import LabelSelector
from tasplan.model.selectors import Requirement
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.model.topology import infer_levels, last_segment
from tasplan.model.volcano import (
    HARD,
    MEMBER_HYPERNODE,
    MEMBER_NODE,
    SOFT,
    TASK_SPEC_KEY,
    HyperNode,
    Member,
    NetworkTopology,
    VolcanoInputs,
    VolcanoPodGroup,
)
from tasplan.plan.intent import Intent, left_out, levels_for, nests, with_scheduler_name
from tasplan.schedulers.volcano import VOLCANO
from tasplan.schedulers.volcano.hypernodes import ROOT, HyperNodeTree, build_tree


def _tree(hypernodes: Iterable[HyperNode], snapshot: ClusterSnapshot) -> HyperNodeTree:
    return build_tree(hypernodes, [(n.name, n.labels) for n in snapshot.nodes])


def tier_labels(tree: HyperNodeTree, snapshot: ClusterSnapshot) -> dict[int, str]:
    """Real tier -> the node label whose domains (nodes per value) are exactly that tier's
    non-empty HyperNodes; tiers no label matches are left out. Several matching labels: the
    outermost-ranked (``infer_levels`` order)."""
    by_tier: dict[int, set[frozenset[str]]] = {}
    for name, tier in tree.tiers.items():
        nodes = tree.real_nodes.get(name, frozenset())
        if name != ROOT and nodes:
            by_tier.setdefault(tier, set()).add(nodes)
    domains: dict[str, set[frozenset[str]]] = {}
    for key in infer_levels(n.labels for n in snapshot.nodes):
        values: dict[str, set[str]] = {}
        for node in snapshot.nodes:
            if key in node.labels:
                values.setdefault(node.labels[key], set()).add(node.name)
        domains[key] = {frozenset(v) for v in values.values()}
    out: dict[int, str] = {}
    for tier, hypernodes in sorted(by_tier.items()):
        key = next((k for k, d in domains.items() if d == hypernodes), None)
        if key is not None:
            out[tier] = key
    return out


def _spec(group: PodGroup, snapshot: ClusterSnapshot) -> VolcanoPodGroup:
    spec = snapshot.volcano.podgroups.get(group.key)
    return spec if spec is not None else VolcanoPodGroup(group.key, group.min_count)


def _task_minimums_implied(spec: VolcanoPodGroup, pods: Sequence[Pod]) -> bool:
    """Every choice of ``minMember`` pods holds each task's ``minTaskMember``: then the
    per-task minimums add nothing another dialect would have to say."""
    live = [p for p in pods if not p.terminal]
    per_task = Counter(p.labels.get(TASK_SPEC_KEY, "") for p in live)
    return all(minimum <= max(0, spec.min_member - (len(live) - per_task[task]))
               for task, minimum in spec.min_task_member.items())


def read_intent(group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot) -> Intent:
    spec = _spec(group, snapshot)
    why = ""
    if spec.sub_group_policies:
        why = "Volcano subGroupPolicy (partitions with gangs and topologies of their own)"
    elif not _task_minimums_implied(spec, pods):
        why = "Volcano per-task minimums (minTaskMember)"
    required = preferred = None
    levels: tuple[str, ...] = ()
    nt = spec.network_topology
    if nt is not None and snapshot.volcano.hypernodes:
        tree = _tree(snapshot.volcano.hypernodes.values(), snapshot)
        labels = tier_labels(tree, snapshot)
        levels = tuple(labels[t] for t in sorted(labels, reverse=True))
        real = sorted({t for n, t in tree.tiers.items() if n != ROOT})
        if nt.mode == SOFT:
            preferred = labels.get(real[0]) if real else None
            if preferred is None and real and not why:
                why = f"its lowest HyperNode tier ({real[0]}) matches no node label"
        else:
            allowed = nt.highest_tier_allowed if nt.highest_tier_allowed is not None \
                else tree.tier_names.get(nt.highest_tier_name)
            below = [t for t in real if allowed is not None and t <= allowed]
            if allowed is None or allowed >= tree.tiers[ROOT]:
                pass  # no hard bound, or the whole cluster: no constraint to state
            elif not below:
                why = why or f"highestTierAllowed {allowed} is below every HyperNode tier"
            else:
                required = labels.get(below[-1])
                if required is None:
                    why = why or f"its HyperNodes of tier {below[-1]} match no node label"
    return Intent(group, max(spec.min_member, 1), required=required, preferred=preferred,
                  levels=levels, source=VOLCANO, untranslatable=why)


def _made_hypernodes(snapshot: ClusterSnapshot, intents: Sequence[Intent]
                     ) -> dict[str, HyperNode]:
    """One HyperNode per value of each level the intents need, tier 1 the finest, each
    level kept only where it nests around the one below (a tree, as Volcano requires)."""
    inferred = infer_levels(n.labels for n in snapshot.nodes)
    wanted: dict[str, None] = {}
    for intent in intents:
        if intent.required or intent.preferred:
            wanted.update(dict.fromkeys(levels_for(intent, snapshot)))
    chain = sorted(wanted, key=lambda k: (inferred.index(k) if k in inferred else len(inferred)))
    kept: list[str] = []  # finest first
    for key in reversed(chain):
        if not kept or nests(snapshot, kept[-1], key):
            kept.append(key)
    names: dict[tuple[str, str], str] = {}
    values = [(key, v) for key in kept for v in sorted({n.labels[key] for n in snapshot.nodes
                                                         if key in n.labels})]
    clash = len({v for _, v in values}) < len(values)
    for key, value in values:
        names[(key, value)] = f"{last_segment(key)}-{value}" if clash else value
    made: dict[str, HyperNode] = {}
    for tier, key in enumerate(kept, start=1):
        members: dict[str, list[Member]] = {}
        if tier == 1:
            for (k, value), name in names.items():
                if k == key:
                    members[name] = [Member(MEMBER_NODE, labels=LabelSelector(
                        (Requirement(key, "In", (value,)),)))]
        else:
            below = kept[tier - 2]
            for node in snapshot.nodes:
                if key in node.labels and below in node.labels:
                    child = names[(below, node.labels[below])]
                    parent = members.setdefault(names[(key, node.labels[key])], [])
                    if all(m.exact != child for m in parent):
                        parent.append(Member(MEMBER_HYPERNODE, exact=child))
        for name, member_list in members.items():
            made[name] = HyperNode(name, tier, tuple(sorted(
                member_list, key=lambda m: m.exact or "")), tier_name=last_segment(key))
    return made


def translate(snapshot: ClusterSnapshot, intents: Sequence[Intent]
              ) -> tuple[ClusterSnapshot, dict[str, str]]:
    """Every intent as a Volcano PodGroup of the group's key, its pods asking for
    ``volcano``; groups read in Volcano's dialect stay as they are."""
    reasons: dict[str, str] = {}
    todo = []
    for intent in intents:
        if intent.source == VOLCANO:
            continue
        if intent.untranslatable:
            reasons[intent.group.key] = f"does not translate: {intent.untranslatable}"
        else:
            todo.append(intent)
    hypernodes: Mapping[str, HyperNode] = snapshot.volcano.hypernodes or \
        _made_hypernodes(snapshot, todo)
    labels = tier_labels(_tree(hypernodes.values(), snapshot), snapshot) if hypernodes else {}
    tier_of = {key: tier for tier, key in labels.items()}
    lowest = labels[min(labels)] if labels else None
    podgroups = dict(snapshot.volcano.podgroups)
    groups = {g.key: g for g in snapshot.groups}
    for intent in todo:
        key = intent.group.key
        why = _untranslatable_levels(intent, tier_of, lowest)
        if why:
            reasons[key] = f"does not translate: {why}"
            continue
        nt = None
        if intent.required:
            nt = NetworkTopology(HARD, tier_of[intent.required])
        elif intent.preferred:
            nt = NetworkTopology(SOFT)
        podgroups[key] = VolcanoPodGroup(key, intent.min_count, network_topology=nt)
        group = groups[key]
        if group.priority is None:  # Volcano orders jobs by their pods' priority then
            groups[key] = replace(group, priority=max(
                (p.priority for p in snapshot.pods_by_group.get(key, [])), default=0))
    moved = [i.group.key for i in todo if i.group.key not in reasons]
    translated = replace(snapshot, volcano=VolcanoInputs(hypernodes, podgroups),
                         groups=tuple(groups[g.key] for g in snapshot.groups))
    translated = with_scheduler_name(translated, moved, VOLCANO)
    return left_out(translated, reasons), reasons


def _untranslatable_levels(intent: Intent, tier_of: Mapping[str, int], lowest: str | None
                           ) -> str:
    for key in (intent.required, intent.preferred):
        if key and key not in tier_of:
            return f"no HyperNode tier has the {key} domains"
    preferred = intent.preferred if intent.preferred != intent.required else None
    if preferred and preferred != lowest:
        return (f"Volcano's tier walk starts at its lowest tier ({lowest}), not at the "
                f"preferred {preferred}")
    return ""
