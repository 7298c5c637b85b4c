"""lint on DRA objects: structure through the loader's decoders, CEL compile errors at the
expression's line, classes and templates resolved against --cluster."""

from __future__ import annotations

from pathlib import Path

from tasplan.lint import LintOptions, lint

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "dra"


def _found(report):
    return [(f.rule.id, f.line, f.path) for f in report.findings]


def test_slice_without_node_access_is_an_exactly_one_of_finding(tmp_path):
    path = tmp_path / "slice.yaml"
    path.write_text("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
                    "spec:\n  driver: d\n  pool: {name: p}\n")
    assert _found(lint([path])) == [("TP105", 5, "spec")]


def test_samples_are_clean_with_their_cluster_and_classes_resolve_there():
    report = lint([SAMPLES / "workloads"], LintOptions(clusters=(SAMPLES / "cluster",)))
    assert report.findings == ()
    # Without the cluster the class references are not checked (they live in clusters).
    assert lint([SAMPLES / "workloads"]).findings == ()


def test_template_missing_from_inputs_and_cluster(tmp_path):
    path = tmp_path / "pod.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\nspec:\n"
                    "  containers: [{name: c, image: i}]\n  resourceClaims:\n"
                    "  - {name: gpu, resourceClaimTemplateName: eight-h100}\n"
                    "  - {name: nic, resourceClaimTemplateName: nope}\n")
    found = _found(lint([path, SAMPLES / "workloads"],
                        LintOptions(clusters=(SAMPLES / "cluster",))))
    assert found == [("TP307", 8, "spec.resourceClaims[1].resourceClaimTemplateName")]
