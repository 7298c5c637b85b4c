"""``tasplan lint``: admission linting of Workload / PodGroup / Pod / Job manifests.

    from tasplan.lint import lint, LintOptions
    report = lint(["manifests/"], LintOptions(strict=True))
    report.findings   # Finding(rule, severity, file, line, column, path, message, ...)
"""

from tasplan.lint.engine import LintOptions, lint
from tasplan.lint.report import Finding, LintReport
from tasplan.lint.rules import RULES, Rule, Severity

__all__ = ["RULES", "Finding", "LintOptions", "LintReport", "Rule", "Severity", "lint"]
