"""The fixture corpus drives the rules: each bad fixture lists, in ``# expect:`` lines,
every finding it must produce (rule, line:column, field path), worked out by hand from
the file; good fixtures must produce none."""

from __future__ import annotations

import pytest

from tasplan.lint import RULES, LintOptions, Severity, lint
from tests.lint.helpers import CLUSTER, FIXTURES, REPO, expectations, fixtures, found


@pytest.fixture(autouse=True)
def _at_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


@pytest.mark.parametrize("path", fixtures("bad"), ids=lambda p: p.name)
def test_bad_fixture(path) -> None:
    report = lint([path])
    assert found(report) == expectations(path)
    assert path.name.split("-")[0] in {f.rule.id for f in report.findings}


@pytest.mark.parametrize("path", fixtures("cluster"), ids=lambda p: p.name)
def test_cluster_fixture(path) -> None:
    report = lint([path], LintOptions(clusters=(CLUSTER,)))
    assert found(report) == expectations(path)


def test_cluster_fixtures_are_clean_without_a_cluster() -> None:
    """The --cluster rules run only with --cluster; without it the files are valid,
    except that TP306's missing PriorityClass is a cluster fact."""
    report = lint([FIXTURES / "cluster"])
    assert report.findings == ()


def test_every_rule_has_a_failing_fixture() -> None:
    covered = {rule for d in ("bad", "cluster") for p in fixtures(d)
               for rule, _, _ in expectations(p)}
    assert covered == {r.id for r in RULES}


@pytest.mark.parametrize("strict", [False, True])
def test_good_fixtures_are_clean(strict: bool) -> None:
    report = lint([FIXTURES / "good"], LintOptions(strict=strict, clusters=(CLUSTER,)))
    assert report.findings == ()
    assert not report.failed
    assert report.skipped == {"Service": 1}


def test_samples_are_clean_except_the_one_meant_not_to_fit() -> None:
    """samples/README.md: train-too-big.yaml needs 5 whole nodes in a 4-node rack."""
    report = lint(["samples/workloads"], LintOptions(clusters=(CLUSTER,)))
    assert [(f.rule.id, f.file, f.resource) for f in report.findings] == [
        ("TP302", "samples/workloads/train-too-big.yaml", "PodGroup ml/big-workers")]


def test_unknown_field_is_an_error_only_with_strict() -> None:
    path = FIXTURES / "bad" / "TP108-unknown-field.yaml"
    loose, strict = lint([path]), lint([path], LintOptions(strict=True))
    assert [f.severity for f in loose.findings] == [Severity.WARNING]
    assert not loose.failed
    assert [f.severity for f in strict.findings] == [Severity.ERROR]
    assert strict.failed


def test_warnings_fail_only_with_strict() -> None:
    path = FIXTURES / "bad" / "TP204-gang-too-few-pods.yaml"
    assert not lint([path]).failed
    assert lint([path], LintOptions(strict=True)).failed


def test_namespace_option_stands_in_for_a_missing_namespace() -> None:
    """kubectl apply -n ml puts the namespace-less pod next to its PodGroup."""
    path = FIXTURES / "bad" / "TP203-reference-other-namespace.yaml"
    assert lint([path], LintOptions(namespace="ml")).findings == ()


def test_a_broken_object_gets_no_follow_up_findings() -> None:
    """A pod whose podGroupName breaks the DNS rule is not also 'unresolved' (TP201)."""
    report = lint([FIXTURES / "bad" / "TP103-invalid-format.yaml"])
    assert {f.rule.id for f in report.findings} == {"TP103"}


def test_references_resolve_to_objects_that_have_schema_errors(tmp_path) -> None:
    """The PodGroup breaks a rule (minCount 0), yet its pod is no orphan (TP201)."""
    path = tmp_path / "pg.yaml"
    path.write_text(
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
        "metadata: {name: pg, namespace: ml}\nspec: {schedulingPolicy: {gang: {minCount: 0}}}\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\n"
        "spec: {schedulingGroup: {podGroupName: pg}, containers: [{name: c}]}\n")
    report = lint([path])
    assert {f.rule.id for f in report.findings} == {"TP106"}
