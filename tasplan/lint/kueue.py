"""Kueue's admission rules on the manifests alone: the TAS annotations of every pod template
(the webhooks' ``ValidateTASPodSetRequest``, the slice-size bound and PodSet groups) and
the Topology and ResourceFlavor objects as the API server validates them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tasplan.lint.reader import Manifest
from tasplan.lint.report import Violation, format_path
from tasplan.model.kueue_inputs import GROUP
from tasplan.schedulers.kueue.gates import Gates, gates_for
from tasplan.schedulers.kueue.request import PODSET_ANNOTATIONS
from tasplan.schedulers.kueue.validation import (
    FieldError,
    GroupedPodSet,
    validate_grouping,
    validate_request,
    validate_slice_size_bound,
)

Path = tuple[str | int, ...]
MAX_DEPTH = 12  # pod templates sit at most this deep in any workload kind


def is_kueue_object(m: Manifest) -> bool:
    return m.api_version.rpartition("/")[0] == GROUP and m.kind in ("Topology",
                                                                   "ResourceFlavor",
                                                                   "Workload")


def validate_object(m: Manifest) -> list[Violation]:
    """TP231 for a Topology, ResourceFlavor or Workload the API server refuses."""
    obj = m.obj
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    if m.kind == "Workload":
        return _workload_slice_sizes(spec)
    if m.kind == "Topology":
        from tasplan.load.kueue import topology_problems  # Kueue's decoder: a Topology only

        levels = spec.get("levels")
        levels = levels if isinstance(levels, list) else []
        return [Violation("TP231", _path(field), message)
                for field, message in topology_problems(levels)]
    if spec.get("topologyName") is not None and not spec.get("nodeLabels"):
        return [Violation("TP231", ("spec", "nodeLabels"), "at least one nodeLabel is "
                          "required when topologyName is set")]
    return []


def _workload_slice_sizes(spec: dict) -> list[Violation]:
    """``validateTASSliceSize`` (pkg/webhooks/workload_webhook.go, kubernetes-sigs/kueue
    ff69552e; TASValidateWorkloadSliceSize, on from 0.20): a PodSet's slice size set
    exactly when its slice topology is, and every size above 0."""
    out = []
    pod_sets = spec.get("podSets")
    for i, ps in enumerate(pod_sets if isinstance(pod_sets, list) else []):
        tr = ps.get("topologyRequest") if isinstance(ps, dict) else None
        if not isinstance(tr, dict):
            continue
        path: Path = ("spec", "podSets", i, "topologyRequest")
        size = tr.get("podSetSliceSize")
        if tr.get("podSetSliceRequiredTopology") is not None:
            if size is None:
                out.append(Violation("TP231", (*path, "podSetSliceSize"), "must be set when "
                                     "podSetSliceRequiredTopology is specified"))
            elif isinstance(size, int) and size <= 0:
                out.append(Violation("TP231", (*path, "podSetSliceSize"),
                                     f"must be greater than 0 (got {size})"))
        elif size is not None:
            out.append(Violation("TP231", (*path, "podSetSliceSize"), "may not be set when "
                                 "podSetSliceRequiredTopology is not specified"))
        layers = tr.get("podsetSliceRequiredTopologyConstraints")
        for j, layer in enumerate(layers if isinstance(layers, list) else []):
            size = layer.get("size") if isinstance(layer, dict) else None
            if isinstance(size, int) and size <= 0:
                out.append(Violation("TP231", (*path, "podsetSliceRequiredTopologyConstraints",
                                               j, "size"), f"must be greater than 0 (got {size})"))
    return out


def _path(field: str) -> Path:
    out: list[str | int] = []
    for part in field.split("."):
        name, _, index = part.partition("[")
        out.append(name)
        if index:
            out.append(int(index.rstrip("]")))
    return tuple(out)


def templates(obj: Any, path: Path = (), count: int = 1, depth: int = 0
              ) -> Iterator[tuple[Path, dict, int]]:
    """(path to the template's metadata, its annotations, pods it makes) for every pod
    template: a mapping with ``spec.containers``. The count multiplies the ``replicas`` and
    ``parallelism`` on the way down (a JobSet's replicas times its Job's parallelism)."""
    if depth > MAX_DEPTH or not isinstance(obj, dict):
        return
    spec = obj.get("spec")
    if isinstance(spec, dict) and isinstance(spec.get("containers"), list):
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        annotations = meta.get("annotations")
        annotations = {k: v for k, v in annotations.items() if isinstance(v, str)} \
            if isinstance(annotations, dict) else {}
        yield (*path, "metadata"), annotations, count
        return
    for key in ("replicas", "parallelism"):
        value = obj.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            count *= value
    for key, value in obj.items():
        if isinstance(value, dict):
            yield from templates(value, (*path, key), count, depth + 1)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                yield from templates(item, (*path, key, i), count, depth + 1)


def check(m: Manifest, gates: Gates | None = None) -> list[Violation]:
    """TP230 for every annotation Kueue's webhook refuses on the object's templates."""
    if not isinstance(m.obj, dict):
        return []
    found = []
    grouped = []
    where: dict[str, Path] = {}
    if m.kind == "Pod":
        meta = m.obj.get("metadata")
        if not isinstance(meta, dict) or not meta.get("annotations"):
            return []  # most pods: no annotation to validate
        found_templates = [(("metadata",), _annotations(m.obj), 1)]
    else:
        found_templates = list(templates(m.obj.get("spec"), ("spec",)))
    for meta_path, asked, count in found_templates:
        if not any(k in PODSET_ANNOTATIONS for k in asked):
            continue
        gates = gates or gates_for()
        errors = validate_request(asked, gates, "")
        if not errors:
            errors = validate_slice_size_bound(asked, count, "")
        found += [Violation("TP230", _error_path(meta_path, e), e.message) for e in errors]
        label = format_path((*meta_path, "annotations"))
        where[label] = meta_path
        grouped.append(GroupedPodSet(label, count, asked, label))
    for e in validate_grouping(grouped):
        label = e.path.split("[kueue.x-k8s.io/", 1)[0]
        found.append(Violation("TP230", _error_path(where[label], e), e.message))
    return found


def _annotations(obj: dict) -> dict:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    annotations = meta.get("annotations")
    return {k: v for k, v in annotations.items() if isinstance(v, str)} \
        if isinstance(annotations, dict) else {}


def _error_path(meta: Path, e: FieldError) -> Path:
    """``metadata.annotations[key]`` under the template (a field inside the constraints'
    JSON has no position of its own: the annotation stands for it)."""
    rest = e.path.rpartition("annotations")[2]
    if rest.startswith("[kueue.x-k8s.io/"):
        return (*meta, "annotations", rest[1:].split("]", 1)[0])
    return (*meta, "annotations")
