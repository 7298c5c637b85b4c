"""Kueue's validation of the TAS annotations, mirrored case by case.

kubernetes-sigs/kueue at ff69552e79ad21652c36caa97038382e55625cf7:
``pkg/controller/jobframework/tas_validation_test.go``
(``TestValidateSliceRequiredTopologyConstraintsAnnotation``,
``TestValidateSliceSizeAnnotationUpperBound``) and the TAS cases of
``pkg/controller/jobs/job/job_webhook_test.go`` (``TestValidateCreate``), with
``ValidatePodSetGroupingTopology``'s rules.
"""

from __future__ import annotations

import pytest

from tasplan.schedulers.kueue import gates as g
from tasplan.schedulers.kueue.request import (
    GROUP_NAME,
    PREFERRED,
    REQUIRED,
    SLICE_CONSTRAINTS,
    SLICE_REQUIRED,
    SLICE_SIZE,
    UNCONSTRAINED,
)
from tasplan.schedulers.kueue.validation import (
    FieldError,
    GroupedPodSet,
    validate_grouping,
    validate_request,
    validate_slice_size_bound,
)

ANN = "spec.template.metadata.annotations"

# TestValidateSliceRequiredTopologyConstraintsAnnotation: (name, TASMultiLayerTopology,
# annotations, number of errors).
# ruff: noqa: E501 (the annotations are quoted as upstream writes them)
CONSTRAINTS_CASES = [
    ("valid: single constraint layer", True,
     {REQUIRED: "cloud.com/block", SLICE_CONSTRAINTS: '[{"topology":"cloud.com/rack","size":16}]'}, 0),
    ("valid: two constraint layers", True,
     {REQUIRED: "cloud.com/block", SLICE_CONSTRAINTS: '[{"topology":"cloud.com/rack","size":16},{"topology":"kubernetes.io/hostname","size":4}]'}, 0),
    ("valid: three constraint layers", True,
     {REQUIRED: "cloud.com/block", SLICE_CONSTRAINTS: '[{"topology":"cloud.com/rack","size":16},{"topology":"cloud.com/sub-rack","size":4},{"topology":"kubernetes.io/hostname","size":2}]'}, 0),
    ("invalid: not valid JSON", True,
     {REQUIRED: "cloud.com/block", SLICE_CONSTRAINTS: 'invalid-json'}, 1),
    ("invalid: empty array", True,
     {REQUIRED: "cloud.com/block", SLICE_CONSTRAINTS: '[]'}, 1),
    ("invalid: more than 3 entries", True,
     {REQUIRED: "cloud.com/block", SLICE_CONSTRAINTS: '[{"topology":"a","size":64},{"topology":"b","size":16},{"topology":"c","size":4},{"topology":"d","size":1}]'}, 1),
    ("invalid: size less than 1", True,
     {REQUIRED: "cloud.com/block", SLICE_CONSTRAINTS: '[{"topology":"cloud.com/rack","size":0}]'}, 1),
    ("invalid: size does not divide parent", True,
     {REQUIRED: "cloud.com/block", SLICE_CONSTRAINTS: '[{"topology":"cloud.com/rack","size":16},{"topology":"kubernetes.io/hostname","size":5}]'}, 1),
    ("invalid: mutual exclusivity with podset-slice-required-topology", True,
     {REQUIRED: "cloud.com/block", SLICE_REQUIRED: "cloud.com/rack", SLICE_SIZE: "16", SLICE_CONSTRAINTS: '[{"topology":"cloud.com/rack","size":16}]'}, 2),
    ("invalid: with podset-group-name", True,
     {REQUIRED: "cloud.com/block", SLICE_CONSTRAINTS: '[{"topology":"cloud.com/rack","size":16}]', GROUP_NAME: "group1"}, 1),
    ("invalid: feature gate disabled", False,
     {REQUIRED: "cloud.com/block", SLICE_CONSTRAINTS: '[{"topology":"cloud.com/rack","size":16}]'}, 1),
    ("invalid: duplicate topology labels", True,
     {REQUIRED: "cloud.com/block", SLICE_CONSTRAINTS: '[{"topology":"cloud.com/rack","size":16},{"topology":"cloud.com/rack","size":4}]'}, 1),
    ("invalid: duplicate topology label among three entries", True,
     {REQUIRED: "cloud.com/block", SLICE_CONSTRAINTS: '[{"topology":"cloud.com/rack","size":16},{"topology":"kubernetes.io/hostname","size":4},{"topology":"cloud.com/rack","size":2}]'}, 1),
]


@pytest.mark.parametrize("name,gate,annotations,want", CONSTRAINTS_CASES,
                         ids=[c[0] for c in CONSTRAINTS_CASES])
def test_validate_slice_required_topology_constraints(name: str, gate: bool,
                                                      annotations: dict, want: int) -> None:
    gates = g.gates_for(g.NEWEST, [(g.MULTI_LAYER, gate)])
    assert len(validate_request(annotations, gates)) == want


# TestValidateSliceSizeAnnotationUpperBound: (name, annotations, PodSet count, errors).
UPPER_BOUND_CASES = [
    ("valid: PodSetSliceSizeAnnotation within bound",
     {SLICE_SIZE: "16", SLICE_REQUIRED: "cloud.com/rack", REQUIRED: "cloud.com/block"}, 20, 0),
    ("invalid: PodSetSliceSizeAnnotation exceeds pod count",
     {SLICE_SIZE: "20", SLICE_REQUIRED: "cloud.com/rack", REQUIRED: "cloud.com/block"}, 16, 1),
    ("valid: multi-layer outermost size within bound",
     {REQUIRED: "cloud.com/block", SLICE_CONSTRAINTS:
      '[{"topology":"cloud.com/rack","size":16},{"topology":"kubernetes.io/hostname","size":4}]'},
     20, 0),
    ("invalid: multi-layer outermost size exceeds pod count",
     {REQUIRED: "cloud.com/block", SLICE_CONSTRAINTS:
      '[{"topology":"cloud.com/rack","size":16},{"topology":"kubernetes.io/hostname","size":4}]'},
     10, 1),
]


@pytest.mark.parametrize("name,annotations,count,want", UPPER_BOUND_CASES,
                         ids=[c[0] for c in UPPER_BOUND_CASES])
def test_validate_slice_size_upper_bound(name: str, annotations: dict, count: int,
                                         want: int) -> None:
    assert len(validate_slice_size_bound(annotations, count)) == want


BOTH = ('must not contain more than one topology annotation: '
        '["kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology", '
        '"kueue.x-k8s.io/podset-unconstrained-topology"]')

# job_webhook_test.go TestValidateCreate, TAS cases: (name, annotations, the errors).
WEBHOOK_CASES = [
    ("valid topology request", {REQUIRED: "cloud.com/block"}, []),
    ("invalid topology request - both annotations",
     {REQUIRED: "cloud.com/block", PREFERRED: "cloud.com/block"},
     [FieldError(ANN, "Invalid", BOTH)]),
    ("invalid topology request - invalid required", {REQUIRED: "some required value"},
     [(f"{ANN}[{REQUIRED}]", "Invalid")]),
    ("invalid topology request - invalid preferred", {PREFERRED: "some preferred value"},
     [(f"{ANN}[{PREFERRED}]", "Invalid")]),
    ("valid slice topology request",
     {REQUIRED: "cloud.com/block", SLICE_REQUIRED: "cloud.com/block", SLICE_SIZE: "1"}, []),
    ("valid topology request - slice-only topology - unconstrained with slices defined",
     {UNCONSTRAINED: "true", SLICE_REQUIRED: "cloud.com/block", SLICE_SIZE: "1"}, []),
    ("invalid topology request - slice requested without slice size",
     {REQUIRED: "cloud.com/block", SLICE_REQUIRED: "cloud.com/block"},
     [FieldError(f"{ANN}[{SLICE_SIZE}]", "Required",
                 f"must be set when '{SLICE_REQUIRED}' is specified")]),
    ("invalid topology request - slice size is not a number",
     {REQUIRED: "cloud.com/block", SLICE_REQUIRED: "cloud.com/block", SLICE_SIZE: "not a number"},
     [FieldError(f"{ANN}[{SLICE_SIZE}]", "Invalid", "must be a numeric value")]),
    ("invalid topology request - slice size is negative",
     {REQUIRED: "cloud.com/block", SLICE_REQUIRED: "cloud.com/block", SLICE_SIZE: "-1"},
     [FieldError(f"{ANN}[{SLICE_SIZE}]", "Invalid", "must be greater than or equal to 1")]),
    ("invalid topology request - slice size is zero",
     {REQUIRED: "cloud.com/block", SLICE_REQUIRED: "cloud.com/block", SLICE_SIZE: "0"},
     [FieldError(f"{ANN}[{SLICE_SIZE}]", "Invalid", "must be greater than or equal to 1")]),
    ("invalid topology request - slice size provided without slice topology",
     {REQUIRED: "cloud.com/block", SLICE_SIZE: "1"},
     [FieldError(f"{ANN}[{SLICE_SIZE}]", "Forbidden",
                 f"may not be set when '{SLICE_REQUIRED}' is not specified")]),
    ("valid topology request - slice-only topology",
     {SLICE_REQUIRED: "cloud.com/block", SLICE_SIZE: "1"}, []),
]


@pytest.mark.parametrize("name,annotations,want", WEBHOOK_CASES,
                         ids=[c[0] for c in WEBHOOK_CASES])
def test_job_webhook_tas_cases(name: str, annotations: dict, want: list) -> None:
    errs = validate_request(annotations, g.gates_for())
    got = [e if isinstance(w, FieldError) else (e.path, e.kind) for e, w in zip(errs, want,
                                                                                 strict=False)]
    assert len(errs) == len(want) and got == want


def test_job_webhook_slice_size_larger_than_podset() -> None:
    """'invalid slice topology request - slice size larger than number of podsets'."""
    annotations = {REQUIRED: "cloud.com/block", SLICE_REQUIRED: "cloud.com/block",
                   SLICE_SIZE: "20"}
    assert validate_request(annotations, g.gates_for()) == []
    assert validate_slice_size_bound(annotations, 4) == [FieldError(
        f"{ANN}[{SLICE_SIZE}]", "Invalid", "must not be greater than pod set count 4")]


def test_group_name_rules() -> None:
    assert [e.message for e in validate_request({GROUP_NAME: "123"}, g.gates_for())] == [
        "must not be a number",
        f"may not be set when neither '{PREFERRED}' nor '{REQUIRED}' is specified"]
    assert [e.message for e in validate_request(
        {UNCONSTRAINED: "maybe"}, g.gates_for())] == ["must be a boolean value"]


def _ps(name: str, count: int, **annotations: str) -> GroupedPodSet:
    keys = {"required": REQUIRED, "preferred": PREFERRED, "group": GROUP_NAME}
    return GroupedPodSet(name, count, {keys[k]: v for k, v in annotations.items()},
                         f"spec.{name}.metadata.annotations")


def test_grouping_exactly_two_one_of_them_single() -> None:
    ok = [_ps("leader", 1, required="rack", group="g"), _ps("workers", 4, required="rack",
                                                               group="g")]
    assert validate_grouping(ok) == []
    three = [*ok, _ps("extra", 2, required="rack", group="g")]
    assert [e.message for e in validate_grouping(three)] == [
        "can only define groups of exactly 2 pod sets, got: 3 pod set(s)"] * 3
    big = [_ps("a", 2, required="rack", group="g"), _ps("b", 4, required="rack", group="g")]
    assert len(validate_grouping(big)) == 2
    mixed = [_ps("a", 1, required="rack", group="g"), _ps("b", 4, preferred="rack", group="g")]
    errs = validate_grouping(mixed)
    assert [e.path for e in errs] == ["spec.a.metadata.annotations",
                                      "spec.b.metadata.annotations"]
    assert "consistent with 'spec.b.metadata.annotations' in group 'g'" in errs[0].message
