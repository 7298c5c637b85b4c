"""``-n NS`` for workload inputs, as ``kubectl apply -n NS -f FILE`` reads it: namespaced
objects that set no namespace get NS; one that sets another is an error."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tasplan.errors import InputError
from tasplan.load.document import Document
from tasplan.load.yaml_loader import locate

# Cluster-scoped kinds that may appear among workload inputs (they keep no namespace).
CLUSTER_SCOPED = frozenset({
    "Node", "Namespace", "PriorityClass", "DeviceClass", "ResourceSlice", "Topology",
    "ResourceFlavor", "ClusterQueue", "Cohort", "HyperNode", "Queue", "StorageClass",
    "PersistentVolume", "RuntimeClass", "CustomResourceDefinition", "ClusterRole",
    "ClusterRoleBinding", "PodSecurityPolicy", "ClusterSnapshot", "List",
})


def with_namespace(documents: Iterable[Document], namespace: str) -> Iterator[Document]:
    for doc in documents:
        obj = doc.obj
        if doc.model is not None or not isinstance(obj, dict) \
                or obj.get("kind") in CLUSTER_SCOPED:
            yield doc
            continue
        meta = obj.get("metadata")
        if not isinstance(meta, dict):
            yield doc  # the decoder names the missing or malformed metadata
            continue
        given = meta.get("namespace")
        if given in (None, ""):
            yield Document(doc.source, {**obj, "metadata": {**meta, "namespace": namespace}})
            continue
        if given != namespace:
            prefix = doc.source.field_prefix()
            field = f"{prefix}.metadata.namespace" if prefix else "metadata.namespace"
            raise InputError(doc.source.path, f"{given!r} is not the namespace -n gives "
                             f"({namespace!r}); as with kubectl apply -n, an object that sets "
                             "its namespace must set that one", field=field,
                             obj=f"{obj.get('kind')} {meta.get('name')}",
                             line=locate(doc.source.path, doc.source.document, field))
        yield doc
