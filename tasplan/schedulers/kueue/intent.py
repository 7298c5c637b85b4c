"""Kueue's dialect for ``check --compare``: a workload admitted all at once (every pending
pod of its PodSets), placed by TAS at the PodSet's ``podset-required-topology`` or
``podset-preferred-topology`` level (``podset-unconstrained-topology``: anywhere). Kueue
places each PodSet on its own; two PodSets share a domain only through
``podset-group-name`` (one of a single pod). Slices and groups of PodSets beyond that have
no counterpart elsewhere.

Writing an intent: the level as the PodSet's annotation (a group of plain pods gets one
PodSet ``main``, as Kueue's pod-group integration makes it), on a TAS ResourceFlavor of the
inputs whose Topology has the levels, else on a Topology and flavor made from the cluster's
level labels (hostname last, as administrators write them). A group with no queue is tried
on every TAS flavor by name, as the Kueue scheduler here does without a ClusterQueue.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tasplan.model import kueue as k
from tasplan.model.group import Expansion, PodGroup, PodSet, pairs
from tasplan.model.pod import DEFAULT_SCHEDULER, Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.model.topology import HOSTNAME
from tasplan.plan.intent import Intent, left_out, levels_for, with_scheduler_name
from tasplan.schedulers.kueue import gates as g
from tasplan.schedulers.kueue import request as r
from tasplan.schedulers.kueue.workload import KueuePodSet, pod_sets

KUEUE = "kueue"
COMPARE_NAME = "tasplan-compare-{n}"


def read_intent(group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot,
                gates: g.Gates) -> Intent:
    sets = pod_sets(group, pods)
    count = sum(len(ps.pods) for ps in sets)
    requests: list[r.TopologyRequest | None] = []
    why = ""
    for ps in sets:
        try:
            requests.append(r.build(ps.annotations, gates))
        except r.RequestError as err:
            why = f"Kueue refuses PodSet {ps.name}: {err}"
    if not why and any(tr is not None and tr.slice_layers() for tr in requests):
        why = "Kueue slices (podset-slice-required-topology)"
    if not why and len(sets) > 1 and not _one_group(sets, requests):
        why = f"Kueue places each of its {len(sets)} PodSets in a domain of its own"
    first = next((tr for tr in requests if tr is not None), None)
    required = first.required if first is not None else None
    preferred = first.preferred if first is not None and not required else None
    topology = _topology_with(snapshot.kueue, [lv for lv in (required, preferred) if lv])
    levels = tuple(lv for lv in topology.levels if lv != HOSTNAME) if topology else ()
    return Intent(group, max(count, 1), required=required, preferred=preferred,
                  levels=levels, source=KUEUE, untranslatable=why)


def _one_group(sets: Sequence[KueuePodSet], requests: Sequence[r.TopologyRequest | None]
               ) -> bool:
    """Two PodSets joined by ``podset-group-name`` at one level are placed together."""
    if len(sets) != 2 or any(tr is None or tr.group is None for tr in requests):
        return False
    a, b = requests
    return a.group == b.group and (a.required, a.preferred) == (b.required, b.preferred)


def _topology_with(kueue: k.KueueInputs, wanted: Sequence[str]) -> k.Topology | None:
    """The Topology of the first TAS flavor (by name) that has every wanted level."""
    for flavor in kueue.tas_flavors():
        topology = kueue.topologies.get(flavor.topology_name or "")
        if topology is not None and all(w in topology.levels for w in wanted):
            return topology
    return None


def translate(snapshot: ClusterSnapshot, intents: Sequence[Intent]
              ) -> tuple[ClusterSnapshot, dict[str, str]]:
    """Every intent as a Kueue workload with its level in the PodSets' annotations, its
    pods left to the default scheduler (Kueue's topology ungater pins them); groups read
    in Kueue's dialect stay as they are."""
    reasons: dict[str, str] = {}
    groups = {gr.key: gr for gr in snapshot.groups}
    topologies = dict(snapshot.kueue.topologies)
    flavors = dict(snapshot.kueue.flavors)
    moved = []
    for intent in intents:
        group = intent.group
        if intent.source == KUEUE:
            continue
        pods = snapshot.pods_by_group.get(group.key, [])
        sets = pod_sets(group, pods)
        pending = sum(len(ps.pods) for ps in sets)
        why = intent.untranslatable or _why_not(intent, sets, pending)
        if why:
            reasons[group.key] = f"does not translate: {why}"
            continue
        wanted = [lv for lv in (intent.required, intent.preferred) if lv]
        inputs = replace(snapshot.kueue, topologies=topologies, flavors=flavors)
        if wanted and _topology_with(inputs, wanted) is None:
            levels = (*levels_for(intent, snapshot), HOSTNAME)
            if not all(HOSTNAME in n.labels for n in snapshot.nodes):
                levels = levels[:-1]
            name = COMPARE_NAME.format(n=sum(1 for t in topologies
                                             if t.startswith("tasplan-compare-")) + 1)
            topologies[name] = k.Topology(name, tuple(dict.fromkeys(levels)), group.source)
            flavors[name] = k.ResourceFlavor(name, {}, (), (), name, group.source)
        annotation = {r.REQUIRED: intent.required} if intent.required else \
            {r.PREFERRED: intent.preferred} if intent.preferred else {r.UNCONSTRAINED: "true"}
        groups[group.key] = _annotated(group, sets, annotation)
        moved.append(group.key)
    kueue = replace(snapshot.kueue, topologies=topologies, flavors=flavors)
    translated = replace(snapshot, kueue=kueue,
                         groups=tuple(groups[gr.key] for gr in snapshot.groups))
    translated = with_scheduler_name(translated, moved, DEFAULT_SCHEDULER)
    return left_out(translated, reasons), reasons


def _why_not(intent: Intent, sets: Sequence[KueuePodSet], pending: int) -> str:
    if intent.required and intent.preferred and intent.required != intent.preferred:
        return (f"Kueue takes a required or a preferred level per PodSet, not both "
                f"({intent.required}, {intent.preferred})")
    if pending > 1 and intent.min_count < pending:
        return (f"Kueue admits a workload's {pending} pods at once: a gang of "
                f"{intent.min_count} does not translate")
    if len(sets) > 2 or (len(sets) == 2 and min(len(ps.pods) for ps in sets) != 1):
        return f"Kueue places each of its {len(sets)} PodSets in a domain of its own"
    return ""


def _annotated(group: PodGroup, sets: Sequence[KueuePodSet], annotation: dict[str, str]
               ) -> PodGroup:
    """The group with ``annotation`` on each of its pending PodSets (``podset-group-name``
    joining two); plain pods become one PodSet ``main``."""
    if len(sets) == 2:
        annotation = {**annotation, r.GROUP_NAME: "compare"}
    names = {ps.name for ps in sets}
    expansions = []
    covered: set[str] = set()
    for expansion in group.expansions:
        sets_of = []
        for ps in expansion.pod_sets:
            covered.update(ps.pods)
            if ps.name in names:
                ps = replace(ps, annotations=pairs({**dict(ps.annotations), **annotation}))
            sets_of.append(ps)
        expansions.append(replace(expansion, pod_sets=tuple(sets_of)))
    rest = tuple(p.name for ps in sets for p in ps.pods if p.name not in covered)
    if rest:
        expansions.append(Expansion("Pod", group.key, 0, len(rest), pod_sets=(
            PodSet("main", len(rest), rest, annotations=pairs(annotation)),)))
    return replace(group, expansions=tuple(expansions))
