"""Shared by the lint tests: the fixture corpus and its ``# expect:`` annotations."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path("tests/lint/fixtures")  # relative to REPO: findings name files as given
CLUSTER = "samples/cluster"
_EXPECT = re.compile(r"^# expect: (TP\d{3}) (\d+(?::\d+)?)(?: (\S+))?\s*$", re.M)


def expectations(path: Path) -> set[tuple[str, str, str]]:
    """(rule, "line[:column]", field path) from the fixture's ``# expect:`` lines."""
    return {(rule, where, field or "")
            for rule, where, field in _EXPECT.findall((REPO / path).read_text())}


def found(report) -> set[tuple[str, str, str]]:
    return {(f.rule.id, f"{f.line}" + (f":{f.column}" if f.column else ""), f.path)
            for f in report.findings}


def fixtures(directory: str) -> list[Path]:
    return sorted(p.relative_to(REPO) for p in (REPO / FIXTURES / directory).iterdir()
                  if p.suffix in (".yaml", ".json"))
