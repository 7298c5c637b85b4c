"""``tasplan lint`` on group trees beyond the fixture corpus (tests/lint/fixtures/bad/TP21x,
cluster/TP309): the composite sample is clean, and a tree's verdict "now" is reported once,
on its root."""

from __future__ import annotations

from pathlib import Path

import pytest

from tasplan.lint import LintOptions, lint

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _at_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def test_composite_sample_is_clean() -> None:
    report = lint(["samples/composite"], LintOptions(clusters=("samples/cluster",)))
    assert report.findings == ()


def test_tree_that_does_not_fit_now_is_reported_on_its_root(tmp_path: Path) -> None:
    """The sample tree with 6 replicas of 2 whole nodes (minGroupCount 6): no block has 12
    free nodes now (block-b has 10), an empty block-a holds them (3 racks of 4 nodes)."""
    sample = (REPO / "samples" / "composite" / "train-2level.yaml").read_text()
    extra = sample.split("---\napiVersion: scheduling.k8s.io/v1alpha3\nkind: PodGroup\n")[1]
    replica = "apiVersion: scheduling.k8s.io/v1alpha3\nkind: PodGroup\n" + extra.split("---")[0]
    pods = [d for d in sample.split("---\n") if "llm-replica-0-" in d and "kind: Pod\n" in d]
    text = sample.replace("minGroupCount: 4", "minGroupCount: 6")
    for new in ("llm-replica-4", "llm-replica-5"):
        text += "---\n" + replica.replace("llm-replica-0", new)
        text += "".join("---\n" + p.replace("llm-replica-0", new) for p in pods)
    path = tmp_path / "five.yaml"
    path.write_text(text)
    report = lint([str(path)], LintOptions(clusters=("samples/cluster",)))
    assert [(f.rule.id, f.resource) for f in report.findings] == [
        ("TP303", "CompositePodGroup ml/llm")]
    assert "does not fit the cluster now" in report.findings[0].message
