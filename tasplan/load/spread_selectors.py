"""Services, ReplicationControllers, ReplicaSets and StatefulSets -> their selectors, and a
pod's controller reference: what default topology spreading needs (upstream
``helper.DefaultSelector``). Nothing else of these objects is read."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tasplan.load.document import Document
from tasplan.load.fields import ObjectFields
from tasplan.load.pod_affinity import label_selector
from tasplan.model.spread_selectors import (
    REPLICA_SET,
    REPLICATION_CONTROLLER,
    STATEFUL_SET,
    ControllerRef,
    SpreadSelectors,
)

KINDS = {("v1", "Service"): "Service",
         **{kind: kind[1] for kind in (REPLICATION_CONTROLLER, REPLICA_SET, STATEFUL_SET)}}


def _identity(f: ObjectFields) -> tuple[str, str, str, Mapping[str, Any]]:
    meta = f.mapping(f.obj.get("metadata"), "metadata")
    name = f.string(meta.get("name"), "metadata.name", required=True)
    namespace = f.string(meta.get("namespace"), "metadata.namespace") or "default"
    return f.obj["apiVersion"], name, namespace, f.mapping(f.obj.get("spec"), "spec")


def decode_spread_selectors(docs: Iterable[Document]) -> SpreadSelectors:
    services: dict[str, list[Mapping[str, str]]] = {}
    controllers: dict = {}
    for d in docs:
        f = ObjectFields(d.source, d.obj)
        api_version, name, namespace, spec = _identity(f)
        kind = d.obj["kind"]
        if kind == "Service":
            # A Service without a selector selects nothing; an empty one adds nothing.
            selector = f.string_map(spec.get("selector"), "spec.selector")
            if selector:
                services.setdefault(namespace, []).append(selector)
        elif kind == REPLICATION_CONTROLLER[1]:
            selector, path = spec.get("selector"), "spec.selector"
            if selector is None:  # the API server defaults it to the template's labels
                template = f.mapping(spec.get("template"), "spec.template")
                path = "spec.template.metadata.labels"
                selector = f.mapping(template.get("metadata"), "spec.template.metadata").get(
                    "labels")
            controllers[(api_version, kind, namespace, name)] = f.string_map(selector, path)
        else:
            controllers[(api_version, kind, namespace, name)] = label_selector(
                f, spec.get("selector"), "spec.selector")
    return SpreadSelectors({ns: tuple(s) for ns, s in services.items()}, controllers)


def controller_ref(f: ObjectFields) -> ControllerRef | None:
    """The first ``ownerReferences`` entry with ``controller: true`` (upstream
    ``GetControllerOf``)."""
    meta = f.mapping(f.obj.get("metadata"), "metadata")
    refs = f.sequence(meta.get("ownerReferences"), "metadata.ownerReferences")
    for i, ref in enumerate(refs):
        path = f"metadata.ownerReferences[{i}]"
        ref = f.mapping(ref, path)
        if ref.get("controller") is True:
            return ControllerRef(
                f.string(ref.get("apiVersion"), f"{path}.apiVersion", required=True),
                f.string(ref.get("kind"), f"{path}.kind", required=True),
                f.string(ref.get("name"), f"{path}.name", required=True))
    return None
