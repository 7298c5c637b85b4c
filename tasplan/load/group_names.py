"""The labels and annotations by which pods name a pod group of another scheduler's
(Kueue plain-pod groups, scheduler-plugins coscheduling, Volcano, KAI): read by the pod
grouping (``pod_groups``), by expansion, whose templates may carry them too, and by the pod
decoder (``annotated_group``: KAI's, which gives a pod its group)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tasplan.load.fields import ObjectFields

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


def annotated_group(f: ObjectFields, namespace: str, meta: Mapping[str, Any]) -> str | None:
    """The group key ``<ns>/<name>`` of a pod that names a KAI PodGroup in its
    ``pod-group-name`` annotation (KAI's pod grouper writes it), else None."""
    annotations = meta.get("annotations")
    if not annotations:
        return None
    if type(annotations) is not dict:
        annotations = f.mapping(annotations, "metadata.annotations")
    value = annotations.get(KAI)
    if value is None:
        return None
    if type(value) is not str or not value:
        raise f.expected(f"metadata.annotations.{KAI}", "a PodGroup name", value)
    return f"{namespace}/{value}"

