"""The rule table is the documented contract: ids are stable and docs/lint.md lists them."""

from __future__ import annotations

import re

import yaml

from tasplan.lint.rules import RULES
from tests.lint.helpers import REPO


def test_rule_ids_are_unique_and_well_formed() -> None:
    ids = [r.id for r in RULES]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"TP[0-3]\d\d", i) for i in ids)
    assert len({r.name for r in RULES}) == len(RULES)


def test_readme_table_lists_every_rule_as_defined() -> None:
    readme = (REPO / "docs" / "lint.md").read_text()
    rows = re.findall(r"^\| `(TP\d+)` \| (\S+) \| (\w+) \| (.+) \|$", readme, re.M)
    assert rows == [(r.id, r.name, str(r.severity), r.summary) for r in RULES]


def test_pre_commit_hook_runs_tasplan_lint() -> None:
    [hook] = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "tasplan-lint"
    assert hook["entry"] == "tasplan lint"
    assert hook["language"] == "python"
