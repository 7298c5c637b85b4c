"""Realistic scenarios: cluster and workload manifests as users write them, run through the
real loader and planner. Every ``expected.yaml`` was derived by hand from upstream
semantics (its comments show the arithmetic), never by running tasplan.

A scenario directory holds ``cluster.yaml``, one or more workload files and
``expected.yaml``: workload file -> group -> the fields to check. Each workload file is
planned on its own against the cluster.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tasplan import load_inputs, plan

HERE = Path(__file__).parent
CASES = [(d.name, file) for d in sorted(HERE.iterdir()) if (d / "expected.yaml").is_file()
         for file in yaml.safe_load((d / "expected.yaml").read_text())]


@pytest.mark.parametrize(("scenario", "workload"), CASES)
def test_scenario(scenario: str, workload: str) -> None:
    root = HERE / scenario
    expected = yaml.safe_load((root / "expected.yaml").read_text())[workload]
    result = plan(load_inputs([root / workload], [root / "cluster.yaml"]), all_assignments=True)
    groups = {g.group.key: g for g in result.groups}
    assert set(groups) == set(expected)
    for key, want in expected.items():
        g = groups[key]
        assert g.schedulable is want["schedulable"], g.message
        if "selected" in want:
            assert g.selected == want["selected"]
        if "message" in want:
            assert g.message == want["message"]
        if "assignments" in want:
            assert dict(g.selected_placement.assignments) == want["assignments"]
        if "notes" in want:
            assert [n.code for n in g.notes] == want["notes"]
        placements = {p.name: p for p in g.placements}
        for name, fields in want.get("placements", {}).items():
            p = placements[name]
            for field, value in fields.items():
                got = getattr(p, field)
                assert (dict(got) if field in ("assignments", "unplaced") else got) == value, \
                    f"{name}.{field}"
