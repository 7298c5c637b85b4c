"""A strategic merge patch over plain objects, for the fields a Kubeflow TrainJob's
``runtimePatches`` can reach (JobSet spec -> Job template -> pod spec).

Kubernetes' ``strategicpatch.StrategicMergePatch`` merges maps key by key, replaces lists
unless the Go type gives them a merge key (``patchStrategy:"merge"``), and deletes a key
patched to ``null``. The merge keys below are those of the types a runtime patch reaches
(jobset.x-k8s.io ReplicatedJob by ``name``, core/v1 containers, env, volumes,
volumeMounts, imagePullSecrets, schedulingGates, ports); ``tolerations``,
``nodeSelectorTerms`` and the other lists have no merge strategy and are replaced, as
upstream. ``$patch`` directives are not read (they are refused by the caller).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# field name -> merge key of its list items
MERGE_KEYS: Mapping[str, str] = {
    "replicatedJobs": "name",
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "env": "name",
    "volumes": "name",
    "volumeMounts": "mountPath",
    "imagePullSecrets": "name",
    "schedulingGates": "name",
    "ports": "containerPort",
    "resourceClaims": "name",
}


def merge(original: Any, patch: Any, field: str = "") -> Any:
    """``original`` with ``patch`` applied; neither is changed. ``field`` is the name the
    value sits under (it decides how a list merges)."""
    if isinstance(original, dict) and isinstance(patch, dict):
        out = dict(original)
        for key, value in patch.items():
            if value is None:
                out.pop(key, None)
            elif key in out:
                out[key] = merge(out[key], value, key)
            else:
                out[key] = value
        return out
    key = MERGE_KEYS.get(field)
    if key and isinstance(original, list) and isinstance(patch, list):
        out = list(original)
        for item in patch:
            at = _index(out, key, item.get(key)) if isinstance(item, dict) else None
            if at is None:
                out.append(item)
            else:
                out[at] = merge(out[at], item, field)
        return out
    return patch


def _index(items: list, key: str, value: object) -> int | None:
    if value is None:
        return None
    for i, item in enumerate(items):
        if isinstance(item, dict) and item.get(key) == value:
            return i
    return None
