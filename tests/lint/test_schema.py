"""The k8s string formats, mirroring apimachinery's validation tables
(``TestIsDNS1123Label``, ``TestIsDNS1123Subdomain``, ``TestIsQualifiedName`` in
``k8s.io/apimachinery/pkg/util/validation``), and the schema files themselves."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from tasplan.lint import schema

LABEL = schema.FORMATS["k8s-short-name"][1]
SUBDOMAIN = schema.FORMATS["k8s-long-name"][1]
LABEL_KEY = schema.FORMATS["k8s-label-key"][1]
PATH_SEGMENT = schema.FORMATS["k8s-path-segment-name"][1]


@pytest.mark.parametrize("value", ["a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01",
                                   "1-2", "a" * 63])
def test_dns_label_valid(value: str) -> None:
    assert LABEL(value)


@pytest.mark.parametrize("value", ["", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a",
                                   "1-", "-1", "_", "a_", "_a", "a_b", "1_", "_1", "1_2", ".",
                                   "a.", ".a", "a.b", "1.", ".1", "1.2", " ", "a ", " a",
                                   "a b", "1 ", " 1", "1 2", "a" * 64])
def test_dns_label_invalid(value: str) -> None:
    assert not LABEL(value)


@pytest.mark.parametrize("value", ["a", "ab", "a.a", "a1.a2.a3", "1.2.3", "a-1.b-2",
                                   "a--1--2--b.c", "0.0", ("a" * 63 + ".") * 3 + "a" * 61])
def test_dns_subdomain_valid(value: str) -> None:
    assert SUBDOMAIN(value)


@pytest.mark.parametrize("value", ["", "A", "a..b", ".a", "a.", "a_b", "a.-b", "a-.b",
                                   "A.a", ("a" * 63 + ".") * 3 + "a" * 62, "a b"])
def test_dns_subdomain_invalid(value: str) -> None:
    assert not SUBDOMAIN(value)


@pytest.mark.parametrize("value", ["simple", "now-with-dashes", "1-starts-with-num",
                                   "1234", "simple/simple", "now-with-dashes/simple",
                                   "now-with-dashes/now-with-dashes", "now.with.dots/simple",
                                   "now-with.dashes-and.dots/simple", "1-num.2-num/3-num",
                                   "1234/5678", "1.2.3.4/5678", "Uppercase_Is_OK_123",
                                   "example.com/Uppercase_Is_OK_123",
                                   "requests.storage-foo", "a" * 63, "a" * 253 + "/" + "b" * 63])
def test_label_key_valid(value: str) -> None:
    assert LABEL_KEY(value)


@pytest.mark.parametrize("value", ["nospecialchars%^=@", "cantendwithadash-",
                                   "-cantstartwithadash-", "only/one/slash",
                                   "Example.com/abc", "example_com/abc", "example.com/",
                                   "/simple", "a" * 64, "a" * 254 + "/abc", ""])
def test_label_key_invalid(value: str) -> None:
    assert not LABEL_KEY(value)


@pytest.mark.parametrize(("value", "ok"), [("Job", True), ("my%job", False), ("a/b", False),
                                           (".", False), ("..", False), ("...", True)])
def test_path_segment_name(value: str, ok: bool) -> None:
    assert PATH_SEGMENT(value) is ok


def test_schema_files_are_valid_draft_2020_12() -> None:
    for entry in (schema.resources.files("tasplan.lint") / "schemas").iterdir():
        Draft202012Validator.check_schema(json.loads(entry.read_text()))


def test_a_schema_for_every_supported_kind_and_version() -> None:
    assert sorted(schema.validators()) == [
        ("apps/v1", "Deployment"),
        ("apps/v1", "ReplicaSet"),
        ("apps/v1", "StatefulSet"),
        ("batch/v1", "Job"),
        ("grove.io/v1alpha1", "PodCliqueSet"),
        ("jobset.x-k8s.io/v1alpha2", "JobSet"),
        ("kubeflow.org/v1", "JAXJob"),
        ("kubeflow.org/v1", "MPIJob"),
        ("kubeflow.org/v1", "PaddleJob"),
        ("kubeflow.org/v1", "PyTorchJob"),
        ("kubeflow.org/v1", "TFJob"),
        ("kubeflow.org/v1", "XGBoostJob"),
        ("kubeflow.org/v2beta1", "MPIJob"),
        ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"),
        ("ray.io/v1", "RayCluster"),
        ("ray.io/v1", "RayJob"),
        ("ray.io/v1", "RayService"),
        ("scheduling.k8s.io/v1alpha1", "Workload"),
        ("scheduling.k8s.io/v1alpha2", "PodGroup"),
        ("scheduling.k8s.io/v1alpha2", "Workload"),
        ("scheduling.k8s.io/v1alpha3", "CompositePodGroup"),
        ("scheduling.k8s.io/v1alpha3", "PodGroup"),
        ("scheduling.k8s.io/v1alpha3", "Workload"),
        ("scheduling.k8s.io/v1beta1", "CompositePodGroup"),
        ("scheduling.k8s.io/v1beta1", "PodGroup"),
        ("scheduling.k8s.io/v1beta1", "Workload"),
        ("tasplan/v1", "CapacityReport"),
        ("tasplan/v1", "WhatIf"),
        ("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime"),
        ("trainer.kubeflow.org/v1alpha1", "TrainJob"),
        ("trainer.kubeflow.org/v1alpha1", "TrainingRuntime"),
        ("v1", "Pod"),
        ("workload.codeflare.dev/v1beta2", "AppWrapper"),
    ]


def test_top_level_schemas_directory_is_the_package_one() -> None:
    """``schemas/`` at the repository root is a link to the files the package ships."""
    from tests.lint.helpers import REPO

    root = REPO / "schemas"
    assert root.resolve() == (REPO / "tasplan" / "lint" / "schemas").resolve()
