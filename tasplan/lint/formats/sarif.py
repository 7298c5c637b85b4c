"""SARIF 2.1.0 for GitHub code scanning: every rule in the driver, one result per finding,
artifact locations relative to the working directory (``%SRCROOT%``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from tasplan.lint.report import Finding, LintReport
from tasplan.lint.rules import RULES, Severity
from tasplan.report.serialize import to_json
from tasplan.version import __version__

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning"}
_INDEX = {r.id: i for i, r in enumerate(RULES)}


def artifact(file: str) -> dict[str, str]:
    """A relative URI under %SRCROOT% when the file is below the working directory, else
    an absolute file URI."""
    path = Path(file)
    if not path.is_absolute() and ".." not in path.parts:
        return {"uri": quote(path.as_posix()), "uriBaseId": "%SRCROOT%"}
    try:
        return {"uri": quote(path.resolve().relative_to(Path.cwd()).as_posix()),
                "uriBaseId": "%SRCROOT%"}
    except ValueError:
        return {"uri": path.resolve().as_uri()}


def _result(f: Finding) -> dict[str, Any]:
    location: dict[str, Any] = {"artifactLocation": artifact(f.file)}
    if f.line is not None:
        region = {"startLine": f.line}
        if f.column is not None:
            region["startColumn"] = f.column
        location["region"] = region
    subject = ": ".join(part for part in (f.resource, f.path) if part)
    result: dict[str, Any] = {
        "ruleId": f.rule.id,
        "ruleIndex": _INDEX[f.rule.id],
        "level": _LEVEL[f.severity],
        "message": {"text": f"{subject + ': ' if subject else ''}{f.message}"},
        "locations": [{"physicalLocation": location}],
    }
    if f.path:
        result["locations"][0]["logicalLocations"] = [
            {"fullyQualifiedName": f"{f.resource}: {f.path}" if f.resource else f.path,
             "kind": "member"}]
    return result


def render(report: LintReport) -> str:
    rules = [{
        "id": r.id, "name": r.name,
        "shortDescription": {"text": r.summary},
        "help": {"text": r.hint},
        "defaultConfiguration": {"level": _LEVEL[r.severity]},
    } for r in RULES]
    document = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "tasplan", "version": __version__,
                                "semanticVersion": __version__, "rules": rules}},
            "columnKind": "unicodeCodePoints",
            "results": [_result(f) for f in report.findings],
        }],
    }
    return to_json(document)
