"""Kueue's webhook validation of the TAS pod-template annotations.

Mirrors ``pkg/controller/jobframework/tas_validation.go`` of kubernetes-sigs/kueue at
ff69552e (``ValidateTASPodSetRequest``, ``ValidateSliceSizeAnnotationUpperBound``,
``ValidatePodSetGroupingTopology``): the errors Kueue's webhooks return when a Job,
JobSet, LeaderWorkerSet, Kubeflow job, RayCluster or Pod group is created, with the field
paths under the template's ``metadata.annotations``. ``tasplan lint`` reports them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tasplan.model.selectors import valid_label_key
from tasplan.schedulers.kueue.gates import MULTI_LAYER, Gates
from tasplan.schedulers.kueue.request import (
    GROUP_NAME,
    PREFERRED,
    REQUIRED,
    SLICE_CONSTRAINTS,
    SLICE_REQUIRED,
    SLICE_SIZE,
    UNCONSTRAINED,
    parse_go_bool,
    parse_go_int32,
)

LABEL_KEY_MESSAGE = ("name part must consist of alphanumeric characters, '-', '_' or '.', and "
                     "must start and end with an alphanumeric character (e.g. 'MyName',  or "
                     "'my.name',  or '123-abc', regex used for validation is "
                     "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


@dataclass(frozen=True, slots=True)
class FieldError:
    """``field.Error``: ``kind`` is Invalid, Required, Forbidden or Duplicate."""

    path: str
    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.kind}: {self.message}"


def _key(path: str, key: str) -> str:
    return f"{path}[{key}]"


def _label_key_errors(value: str, path: str) -> list[FieldError]:
    """``ValidateLabelName`` (a qualified name)."""
    if valid_label_key(value):
        return []
    return [FieldError(path, "Invalid", f"{value!r}: {LABEL_KEY_MESSAGE}")]


def validate_request(annotations: Mapping[str, str], gates: Gates,
                     meta_path: str = "spec.template.metadata") -> list[FieldError]:
    """``ValidateTASPodSetRequest`` for one pod template's annotations."""
    errs: list[FieldError] = []
    path = f"{meta_path}.annotations"
    required = annotations.get(REQUIRED)
    preferred = annotations.get(PREFERRED)
    unconstrained = annotations.get(UNCONSTRAINED)
    slice_required = annotations.get(SLICE_REQUIRED)
    slice_size = annotations.get(SLICE_SIZE)
    group = annotations.get(GROUP_NAME)
    if sum(v is not None for v in (required, preferred, unconstrained)) > 1:
        errs.append(FieldError(path, "Invalid", "must not contain more than one topology "
                               f'annotation: ["{REQUIRED}", "{PREFERRED}", "{UNCONSTRAINED}"]'))
    if required is not None:
        errs += _label_key_errors(required, _key(path, REQUIRED))
    if preferred is not None:
        errs += _label_key_errors(preferred, _key(path, PREFERRED))
    if slice_required is not None:
        errs += _label_key_errors(slice_required, _key(path, SLICE_REQUIRED))
    if group is not None:
        if group.isascii() and group.isdigit() and int(group) < 2**64:
            errs.append(FieldError(_key(path, GROUP_NAME), "Invalid", "must not be a number"))
        if slice_size is not None:
            errs.append(FieldError(_key(path, GROUP_NAME), "Forbidden",
                                   f"may not be set when '{SLICE_SIZE}' is specified"))
        if slice_required is not None:
            errs.append(FieldError(_key(path, GROUP_NAME), "Forbidden",
                                   f"may not be set when '{SLICE_REQUIRED}' is specified"))
        if preferred is None and required is None:
            errs.append(FieldError(_key(path, GROUP_NAME), "Forbidden",
                                   f"may not be set when neither '{PREFERRED}' nor "
                                   f"'{REQUIRED}' is specified"))
    if unconstrained is not None and parse_go_bool(unconstrained) is None:
        errs.append(FieldError(_key(path, UNCONSTRAINED), "Invalid", "must be a boolean value"))
    if slice_size is not None:
        size = parse_go_int32(slice_size)
        if size is None:
            errs.append(FieldError(_key(path, SLICE_SIZE), "Invalid", "must be a numeric value"))
        elif size < 1:
            errs.append(FieldError(_key(path, SLICE_SIZE), "Invalid",
                                   "must be greater than or equal to 1"))
    if slice_required is not None and slice_size is None:
        errs.append(FieldError(_key(path, SLICE_SIZE), "Required",
                               f"must be set when '{SLICE_REQUIRED}' is specified"))
    if slice_required is None and slice_size is not None:
        errs.append(FieldError(_key(path, SLICE_SIZE), "Forbidden",
                               f"may not be set when '{SLICE_REQUIRED}' is not specified"))
    errs += _validate_constraints(annotations, gates, path, slice_required is not None,
                                  slice_size is not None, group is not None)
    return errs


def _validate_constraints(annotations: Mapping[str, str], gates: Gates, path: str,
                          slice_required: bool, slice_size: bool, group: bool
                          ) -> list[FieldError]:
    text = annotations.get(SLICE_CONSTRAINTS)
    if text is None:
        return []
    fld = _key(path, SLICE_CONSTRAINTS)
    if MULTI_LAYER not in gates:
        return [FieldError(fld, "Forbidden", f"the {MULTI_LAYER} feature gate must be enabled "
                                             "to use this annotation")]
    errs = []
    if slice_required:
        errs.append(FieldError(fld, "Forbidden", f"may not be set when '{SLICE_REQUIRED}' is "
                                                 "specified"))
    if slice_size:
        errs.append(FieldError(fld, "Forbidden", f"may not be set when '{SLICE_SIZE}' is "
                                                 "specified"))
    if group:
        errs.append(FieldError(_key(path, GROUP_NAME), "Forbidden",
                               f"may not be set when '{SLICE_CONSTRAINTS}' is specified"))
    layers = _decode_layers(text)
    if isinstance(layers, str):
        errs.append(FieldError(fld, "Invalid", f"must be a valid JSON array: {layers}"))
        return errs
    if not 1 <= len(layers) <= 3:
        errs.append(FieldError(fld, "Invalid", "topology constraints must contain between 1 "
                                               "and 3 entries"))
        return errs
    for i, (topology, size) in enumerate(layers):
        errs += _label_key_errors(topology, f"{fld}[{i}].topology")
        if size < 1:
            errs.append(FieldError(f"{fld}[{i}].size", "Invalid",
                                   "must be greater than or equal to 1"))
    seen: dict[str, int] = {}
    for i, (topology, _) in enumerate(layers):
        if topology in seen:
            errs.append(FieldError(f"{fld}[{i}].topology", "Duplicate",
                                   f"{topology} (also at index {seen[topology]})"))
        else:
            seen[topology] = i
    for i in range(len(layers) - 1):
        inner = layers[i + 1][1]
        if inner > 0 and layers[i][1] % inner != 0:
            errs.append(FieldError(f"{fld}[{i + 1}].size", "Invalid",
                                   f"must evenly divide the parent layer size {layers[i][1]}"))
    return errs


def _decode_layers(text: str) -> list[tuple[str, int]] | str:
    """The annotation as ``json.Unmarshal`` reads it, or why it cannot."""
    try:
        value = json.loads(text)
    except ValueError as err:
        return str(err)
    if value is None:
        return []
    if not isinstance(value, list):
        return "cannot unmarshal into a list of constraints"
    out = []
    for item in value:
        item = item if item is not None else {}
        if not isinstance(item, dict):
            return "cannot unmarshal a constraint that is not an object"
        topology = item.get("topology", "")
        size = item.get("size", 0)
        topology = "" if topology is None else topology
        size = 0 if size is None else size
        if not isinstance(topology, str) or isinstance(size, bool) or not isinstance(size, int):
            return "cannot unmarshal a constraint's topology or size"
        out.append((topology, size))
    return out


def validate_slice_size_bound(annotations: Mapping[str, str], count: int,
                              meta_path: str = "spec.template.metadata") -> list[FieldError]:
    """``ValidateSliceSizeAnnotationUpperBound``: a slice may not hold more pods than the
    PodSet has."""
    path = f"{meta_path}.annotations"
    errs = []
    text = annotations.get(SLICE_SIZE)
    if text is not None:
        size = parse_go_int32(text)
        if size is None:
            return [FieldError(_key(path, SLICE_SIZE), "Invalid", "must be a numeric value")]
        if size > count:
            errs.append(FieldError(_key(path, SLICE_SIZE), "Invalid",
                                   f"must not be greater than pod set count {count}"))
    constraints = annotations.get(SLICE_CONSTRAINTS)
    if constraints is not None:
        layers = _decode_layers(constraints)
        if not isinstance(layers, str) and layers and layers[0][1] > count:
            errs.append(FieldError(_key(path, SLICE_CONSTRAINTS), "Invalid",
                                   f"must not be greater than pod set count {count}"))
    return errs


@dataclass(frozen=True, slots=True)
class GroupedPodSet:
    """What ``ValidatePodSetGroupingTopology`` reads of a PodSet."""

    name: str
    count: int
    annotations: Mapping[str, str]
    annotations_path: str


def validate_grouping(pod_sets: Sequence[GroupedPodSet]) -> list[FieldError]:
    """``ValidatePodSetGroupingTopology``: a ``podset-group-name`` joins exactly two
    PodSets, one of them of a single pod, with the same required or preferred level."""
    groups: dict[str, list[GroupedPodSet]] = {}
    for ps in pod_sets:
        a = ps.annotations
        name = a.get(GROUP_NAME)
        if name is None or (a.get(REQUIRED) is None and a.get(PREFERRED) is None):
            continue  # Kueue's builder keeps the group name only with a level
        groups.setdefault(name, []).append(ps)
    errs = []
    for name, members in groups.items():
        if len(members) != 2:
            errs += [FieldError(_key(ps.annotations_path, GROUP_NAME), "Invalid",
                                f"can only define groups of exactly 2 pod sets, got: "
                                f"{len(members)} pod set(s)") for ps in members]
            continue
        a, b = members
        if a.count != 1 and b.count != 1:
            message = ("can only define groups where at least one pod set has only 1 replica, "
                       f"got: {a.count} replica(s) and {b.count} replica(s) in the group")
            errs += [FieldError(_key(ps.annotations_path, GROUP_NAME), "Invalid", message)
                     for ps in (a, b)]
        ra, pa = a.annotations.get(REQUIRED), a.annotations.get(PREFERRED)
        rb, pb = b.annotations.get(REQUIRED), b.annotations.get(PREFERRED)
        if ra is not None:
            pa = None
        if rb is not None:
            pb = None
        if (ra, pa) != (rb, pb):
            template = (f"must specify '{REQUIRED}' or '{PREFERRED}' topology consistent with "
                        "'{}' in group '" + name + "'")
            errs.append(FieldError(a.annotations_path, "Invalid",
                                   template.format(b.annotations_path)))
            errs.append(FieldError(b.annotations_path, "Invalid",
                                   template.format(a.annotations_path)))
    return errs
