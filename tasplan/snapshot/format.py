"""The snapshot document, ``tasplan/v1`` ``ClusterSnapshot``.

Nodes, PriorityClasses, Workloads, PodGroups, CompositePodGroups and PodDisruptionBudgets are
ordinary (pruned) Kubernetes objects under ``items``. Pods are a column table under ``pods``:
pods of one controller share their metadata and, usually, their spec, so each distinct ``metadata``
(namespace, labels, owners) and ``spec`` (without ``nodeName``) is stored once and a pod is
a row of ``name``, ``meta`` (index), ``spec`` (index), ``nodeName`` and ``phase``, plus its
``uid`` and ``startTime`` ("" when unset; columns added within v1, so a reader treats a
table without them as all unset).
Per-pod fields that are not shared (``deletionTimestamp``, ``status.nominatedNodeName``,
the ``PodScheduled`` condition) go to ``extra``, keyed by row number, as a partial Pod.
``expand_pod`` turns a row back into a Pod object; ``to_list`` the whole document into a
``v1`` ``List`` for tools that read plain Kubernetes objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import orjson

API_VERSION = "tasplan/v1"
KIND = "ClusterSnapshot"
COLUMNS = ("name", "meta", "spec", "nodeName", "phase")
# Per-pod identity and age (preemption orders victims by them); optional in a table.
OPTIONAL_COLUMNS = ("uid", "startTime")


@dataclass(frozen=True)
class Origin:
    """Where and when a snapshot was taken. Never holds credentials: ``server`` is the API
    server URL without user info, ``context`` and ``cluster`` are kubeconfig names."""

    taken_at: str  # RFC 3339, UTC
    duration_seconds: float
    tasplan_version: str
    server: str = ""
    server_version: str = ""
    context: str = ""
    cluster: str = ""
    namespace: str = ""  # "" = all namespaces
    scheduling_version: str = ""  # the scheduling.k8s.io version Workloads were read through
    inputs: tuple[str, ...] = ()  # the files a snapshot was made from, if not a live cluster

    def to_metadata(self) -> dict[str, Any]:
        camel = {"taken_at": "takenAt", "duration_seconds": "durationSeconds",
                 "tasplan_version": "tasplanVersion", "server_version": "serverVersion",
                 "scheduling_version": "schedulingVersion"}
        out = {camel.get(k, k): v for k, v in asdict(self).items()}
        out["inputs"] = list(self.inputs)
        return out


def is_snapshot(obj: Mapping[str, Any]) -> bool:
    # Any case: "TASPLAN/V1" is a snapshot of an unsupported version (an error), not an
    # unknown kind to skip.
    return obj.get("kind") == KIND and str(obj.get("apiVersion", "")).lower().startswith(
        "tasplan/")


def encode(objects: Iterable[dict[str, Any]], origin: Origin) -> dict[str, Any]:
    """Pruned objects -> the snapshot document; pods go to the table, in input order."""
    items: list[dict[str, Any]] = []
    metas: dict[bytes, int] = {}
    specs: dict[bytes, int] = {}
    columns: dict[str, list] = {c: [] for c in (*COLUMNS, *OPTIONAL_COLUMNS)}
    extra: dict[str, Any] = {}
    for obj in objects:
        if obj.get("kind") != "Pod" or obj.get("apiVersion") != "v1":
            items.append(obj)
            continue
        meta = dict(obj.get("metadata") or {})
        spec = dict(obj.get("spec") or {})
        status = dict(obj.get("status") or {})
        row = len(columns["name"])
        columns["name"].append(meta.pop("name", ""))
        columns["nodeName"].append(spec.pop("nodeName", ""))
        columns["phase"].append(status.pop("phase", ""))
        columns["uid"].append(meta.pop("uid", ""))
        columns["startTime"].append(status.pop("startTime", ""))
        own = {k: meta.pop(k) for k in ("deletionTimestamp",) if k in meta}
        part = {k: v for k, v in (("metadata", own), ("status", status)) if v}
        if part:
            extra[str(row)] = part
        columns["meta"].append(_intern(metas, meta))
        columns["spec"].append(_intern(specs, spec))
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": origin.to_metadata(),
        "items": items,
        "pods": {
            "metadata": [orjson.loads(k) for k in metas],
            "specs": [orjson.loads(k) for k in specs],
            **columns,
            "extra": extra,
        },
    }


def _intern(table: dict[bytes, int], value: dict[str, Any]) -> int:
    key = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    index = table.get(key)
    if index is None:
        index = table[key] = len(table)
    return index


def expand_pod(table: Mapping[str, Any], row: int) -> dict[str, Any]:
    """Row ``row`` of a pod table as the Pod object it was encoded from (pruned).

    Raises IndexError, KeyError or TypeError on a malformed table; callers say where."""
    meta = {"name": table["name"][row], **table["metadata"][table["meta"][row]]}
    spec = dict(table["specs"][table["spec"][row]])
    if table["nodeName"][row]:
        spec["nodeName"] = table["nodeName"][row]
    status = {"phase": table["phase"][row]} if table["phase"][row] else {}
    for column, part in (("uid", meta), ("startTime", status)):
        value = table[column][row] if column in table else ""
        if value:
            part[column] = value
    part = (table.get("extra") or {}).get(str(row))
    if part:
        meta.update(part.get("metadata") or {})
        status.update(part.get("status") or {})
    pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if status:
        pod["status"] = status
    return pod


def to_list(document: Mapping[str, Any]) -> dict[str, Any]:
    """The snapshot as a ``v1`` ``List`` of plain objects (pods expanded), for kubectl-style
    readers. ``--cluster`` reads it too, only slower. The origin goes to a top-level
    ``tasplan`` key that Kubernetes readers ignore."""
    table = document.get("pods") or {}
    pods = [expand_pod(table, k) for k in range(len(table.get("name") or ()))]
    return {"apiVersion": "v1", "kind": "List", "metadata": {},
            "tasplan": {"apiVersion": document.get("apiVersion"),
                        "kind": document.get("kind"),
                        "metadata": document.get("metadata")},
            "items": [*document.get("items", ()), *pods]}
