"""apps/v1 Deployment, ReplicaSet, StatefulSet -> their replicas' pods (see ``producers``).

Each object is one group ``<ns>/<name>``: basic, or a gang with ``--gang``, unless its
template names a group. ReplicaSet and Deployment pods are named ``<name>-<i>`` (upstream
adds a hash and a random suffix) and found by ``spec.selector.matchLabels`` (else the
template's labels); StatefulSet pods keep their ordinal names ``<name>-<i>`` and labels
(``statefulset.kubernetes.io/pod-name``, ``apps.kubernetes.io/pod-index``).
Objects another controller owns (a Deployment's ReplicaSets) are expanded through their
owner, not on their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from tasplan.load.fields import ObjectFields
from tasplan.load.producers import (
    Overrides,
    PodBatch,
    Producer,
    check_expansion,
    identity,
    pod_template,
    replicas,
)
from tasplan.model.source import Source
from tasplan.model.spread_selectors import ControllerRef

API_VERSION = "apps/v1"
KINDS = ("Deployment", "ReplicaSet", "StatefulSet")


def owned(obj: Mapping[str, Any]) -> bool:
    """Whether another controller owns the object (it then creates no pods on its own)."""
    meta = obj.get("metadata")
    refs = meta.get("ownerReferences") if isinstance(meta, dict) else None
    return isinstance(refs, list) and any(isinstance(r, dict) and r.get("controller") is True
                                          for r in refs)


def _ordinal(name: str, i: int) -> tuple[str, Mapping[str, str]]:
    return f"{name}-{i}", {"statefulset.kubernetes.io/pod-name": f"{name}-{i}",
                           "apps.kubernetes.io/pod-index": str(i)}


def _replica(name: str, i: int) -> tuple[str, Mapping[str, str]]:
    return f"{name}-{i}", {}


def decode_apps(source: Source, obj: Mapping[str, Any], overrides: Overrides) -> Producer:
    f = ObjectFields(source, obj)
    kind = obj["kind"]
    namespace, name, spec = identity(f)
    count = replicas(f, spec, "spec.replicas")
    check_expansion(f, "spec.replicas", count)  # before listing them
    template = pod_template(f, spec.get("template"), "spec.template")
    if kind == "StatefulSet":
        selectors: tuple = ()
        pod = partial(_ordinal, name)
    else:
        selector = f.mapping(spec.get("selector"), "spec.selector").get("matchLabels")
        selector = f.string_map(selector, "spec.selector.matchLabels") or \
            (template.get("metadata") or {}).get("labels") or {}
        selectors = (selector,) if selector else ()
        pod = partial(_replica, name)
    controller = ControllerRef(API_VERSION, kind, name) if kind != "Deployment" else None
    batch = PodBatch(template, "spec.template", count, pod, selectors, name, controller)
    return Producer(kind, API_VERSION, namespace, name, source, obj, (batch,),
                    overrides.group_spec(), False)
