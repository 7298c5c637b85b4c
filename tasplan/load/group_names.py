"""The labels and annotations by which pods name a pod group of another scheduler's
(Kueue plain-pod groups, scheduler-plugins coscheduling, Volcano, KAI): read by the pod
grouping (``pod_groups``) and by expansion, whose templates may carry them too."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

KUEUE_GROUP = "kueue.x-k8s.io/pod-group-name"
COSCHEDULING = "scheduling.x-k8s.io/pod-group"
VOLCANO = ("scheduling.k8s.io/group-name", "scheduling.volcano.sh/group-name")
KAI = "pod-group-name"


def named_group(labels: Mapping[str, Any], annotations: Mapping[str, Any]
                ) -> tuple[str, str, str] | None:
    """(owner, key, group name) a pod names by label or annotation, if any."""
    if isinstance(labels.get(KUEUE_GROUP), str):
        return "Kueue", KUEUE_GROUP, labels[KUEUE_GROUP]
    if isinstance(labels.get(COSCHEDULING), str):
        return "scheduler-plugins", COSCHEDULING, labels[COSCHEDULING]
    for key in VOLCANO:
        if isinstance(annotations.get(key), str):
            return "Volcano", key, annotations[key]
    if isinstance(annotations.get(KAI), str):
        return "KAI", KAI, annotations[KAI]
    return None
