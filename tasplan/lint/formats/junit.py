"""JUnit XML: one testcase per resource (per file for files that cannot be parsed).

Error findings fail a testcase; warnings fail it only with --strict and are otherwise
listed in its system-out. Kinds tasplan does not check are skipped testcases.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from tasplan.lint.formats.text import location
from tasplan.lint.report import Finding, LintReport, Resource
from tasplan.lint.rules import Severity


def _case_name(r: Resource) -> str:
    if r.document is None:
        return "(file)"
    where = f"document {r.document}" + (f" item {r.item}" if r.item is not None else "")
    return f"{r.label} ({where})"


def _line(f: Finding) -> str:
    path = f"{f.path}: " if f.path else ""
    return f"{location(f)}: {f.severity} {f.rule.id}: {path}{f.message}"


def render(report: LintReport) -> str:
    by_resource = report.by_resource()
    cases = []
    failures = skipped = 0
    for r in report.resources:
        case = ET.Element("testcase", {"classname": r.file, "name": _case_name(r)})
        found = by_resource.get((r.file, r.document, r.item), [])
        failing = [f for f in found if f.severity == Severity.ERROR or report.strict]
        others = [f for f in found if f not in failing]
        if failing:
            failures += 1
            failure = ET.SubElement(case, "failure", {
                "message": f"{len(failing)} finding(s): {failing[0].message}",
                "type": failing[0].rule.id})
            failure.text = "\n".join(map(_line, failing))
        elif not r.checked:
            skipped += 1
            ET.SubElement(case, "skipped", {"message": f"kind {r.kind or '(none)'} is not "
                                                      "checked by tasplan lint"})
        if others:
            ET.SubElement(case, "system-out").text = "\n".join(map(_line, others))
        cases.append(case)
    attrs = {"name": "tasplan lint", "tests": str(len(cases)), "failures": str(failures),
             "errors": "0", "skipped": str(skipped)}
    root = ET.Element("testsuites", attrs)
    suite = ET.SubElement(root, "testsuite", attrs)
    suite.extend(cases)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"
