"""The ``tasplan/v1`` ``LintReport`` document; keys may be added, never renamed."""

from __future__ import annotations

from typing import Any

from tasplan.lint.report import LintReport
from tasplan.report.serialize import to_json


def document(report: LintReport) -> dict[str, Any]:
    return {
        "apiVersion": "tasplan/v1",
        "kind": "LintReport",
        "summary": report.summary(),
        "findings": [
            {"rule": f.rule.id, "name": f.rule.name, "severity": str(f.severity),
             "file": f.file, "line": f.line, "column": f.column, "document": f.document,
             "item": f.item, "resource": f.resource, "path": f.path, "message": f.message,
             "hint": f.hint}
            for f in report.findings
        ],
    }


def render(report: LintReport) -> str:
    return to_json(document(report))
