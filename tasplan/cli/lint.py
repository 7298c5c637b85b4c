"""``tasplan lint``: lint manifests for CI; the output goes to stdout in one piece."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path

from tasplan.cli import teardown
from tasplan.cli.exit_status import ExitStatus
from tasplan.errors import UsageError
from tasplan.stdio import write_stdout


class LintFormat(StrEnum):
    text = "text"
    json = "json"
    junit = "junit"
    sarif = "sarif"
    github = "github"


def _stdin_paths() -> list[str]:
    return [line.strip() for line in sys.stdin.read().splitlines() if line.strip()]


def run_lint(paths: list[str], clusters: list[Path], output: str, strict: bool,
             summary: bool, namespace: str, kube_version: str | None = None) -> int:
    from tasplan.lint.engine import LintOptions
    from tasplan.lint.engine import lint as lint_paths
    from tasplan.lint.formats import render

    if not paths:
        raise UsageError("give at least one manifest file or directory, or '-'")
    expanded = [p for path in paths for p in (_stdin_paths() if path == "-" else [path])]
    if not expanded:
        raise UsageError("no file names on stdin")
    if kube_version is not None:
        from tasplan.target import parse_version

        parse_version(kube_version)  # a usage error before anything is read
    report = lint_paths(expanded, LintOptions(strict, tuple(clusters), namespace,
                                              kube_version))
    empty = not any(r.checked for r in report.resources)
    if empty:
        # Nothing tasplan lints (an empty directory, a wrong path, only other kinds): say
        # so instead of passing silently; with --strict, as any warning, it fails the run.
        where = ", ".join(expanded)
        message = (f"nothing to lint: the {len(report.files)} file(s) under {where} hold no "
                   "Workload, PodGroup, Pod or Job manifests" if report.files else
                   f"nothing to lint: no YAML or JSON files under {where}")
        sys.stderr.write(f"{'error' if strict else 'warning'}: {message}\n")
    text = render(report, output)
    if summary and output == "text":
        text += report.summary_line() + "\n"
    write_stdout(text)
    teardown.keep(report)
    if summary and output != "text":
        sys.stderr.write(report.summary_line() + "\n")
    elif not summary and output == "text" and not report.findings and not empty:
        # Silence is not an answer a user can tell from a lint that read nothing.
        sys.stderr.write(report.clean_line() + "\n")
    return ExitStatus.FINDINGS if report.failed or (empty and strict) else ExitStatus.OK
