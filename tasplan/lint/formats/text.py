"""``file:line:col: severity rule: message``, one finding per line and its hint below."""

from __future__ import annotations

from tasplan.lint.report import Finding, LintReport


def location(f: Finding) -> str:
    if f.line is None:
        return f.file
    return f"{f.file}:{f.line}" + (f":{f.column}" if f.column is not None else "")


def render(report: LintReport) -> str:
    lines = []
    for f in report.findings:
        subject = ": ".join(part for part in (f.resource, f.path) if part)
        lines.append(f"{location(f)}: {f.severity} {f.rule.id}: "
                     f"{subject + ': ' if subject else ''}{f.message}")
        lines.append(f"    hint ({f.rule.name}): {f.hint}")
    return "".join(line + "\n" for line in lines)
