"""kube-scheduler's dialect for ``check --compare``: a KEP-5732 PodGroup is a gang of
minCount pods, all in one domain of one topology key. A preferred level has no KEP-5732
counterpart, so an intent with one does not translate."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tasplan.model.group import PodGroup, Policy
from tasplan.model.pod import DEFAULT_SCHEDULER, Pod
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.intent import Intent, left_out, with_scheduler_name

KUBE_SCHEDULER = "kube-scheduler"


def read_intent(group: PodGroup, pods: Sequence[Pod], snapshot: ClusterSnapshot) -> Intent:
    why = f"a group of CompositePodGroup {group.parent}" if group.parent else ""
    return Intent(group, group.min_count if group.policy == Policy.GANG else 1,
                  required=group.topology_key, source=KUBE_SCHEDULER, untranslatable=why)


def translate(snapshot: ClusterSnapshot, intents: Sequence[Intent]
              ) -> tuple[ClusterSnapshot, dict[str, str]]:
    """Every intent as a PodGroup with a topology key, its pods asking for the default
    scheduler; groups read in kube-scheduler's dialect stay as they are."""
    reasons: dict[str, str] = {}
    changed: dict[str, PodGroup] = {}
    for intent in intents:
        group = intent.group
        if intent.source == KUBE_SCHEDULER:
            continue
        if intent.untranslatable:
            reasons[group.key] = f"does not translate: {intent.untranslatable}"
        elif intent.preferred and intent.preferred != intent.required:
            reasons[group.key] = ("does not translate: kube-scheduler (KEP-5732) has no "
                                  f"preferred topology level ({intent.preferred})")
        else:
            # The pods' priority: a PodGroup of another dialect states none of its own.
            priority = max((p.priority for p in snapshot.pods_by_group.get(group.key, [])),
                           default=0)
            changed[group.key] = replace(
                group, policy=Policy.GANG if intent.min_count > 1 else Policy.BASIC,
                min_count=max(intent.min_count, 1), topology_key=intent.required,
                priority=group.priority if group.priority is not None else priority)
    groups = tuple(changed.get(g.key, g) for g in snapshot.groups)
    moved = [k for k in changed]
    translated = with_scheduler_name(replace(snapshot, groups=groups), moved, DEFAULT_SCHEDULER)
    return left_out(translated, reasons), reasons
