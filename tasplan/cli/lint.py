"""``tasplan lint``: lint manifests for CI; the output goes to stdout in one piece."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

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


def lint(
    paths: Annotated[list[str], typer.Argument(
        help="Manifest files or directories; '-' reads file names from stdin, one a line "
        "(git ls-files '*.yaml' | tasplan lint -).", show_default=False)],
    cluster: Annotated[list[Path], typer.Option(
        "--cluster", "-c", help="Also check against this cluster snapshot (file or directory; "
        "repeatable): topology keys, capacity, taints, selectors.", show_default=False)] = [],  # noqa: B006
    output: Annotated[LintFormat, typer.Option("--output", "-o", help="Output format.")]
    = LintFormat.text,
    strict: Annotated[bool, typer.Option(
        "--strict", help="Unknown fields are errors, and warnings fail the run.")] = False,
    summary: Annotated[bool, typer.Option(
        "--summary", help="Print counts (to stderr for the machine-readable formats).")]
    = False,
    namespace: Annotated[str, typer.Option(
        "--namespace", "-n", help="Namespace of objects that set none (as kubectl apply -n).")]
    = "default",
    kube_version: Annotated[str | None, typer.Option(
        "--kube-version", metavar="1.35|1.36|1.37|1.38", show_default=False,
        help="Accept only the scheduling.k8s.io versions this Kubernetes release serves.")]
    = None,
    traceback: Annotated[bool, typer.Option(
        "--traceback", help="On an error, show the Python traceback instead of one line (for "
        "bug reports).")] = False,
) -> None:
    """Lint Workload, PodGroup, Pod and Job manifests for CI (--cluster: also capacity).

    Schema, references and gang sizes; with --cluster also topology keys, capacity, taints
    and selectors. Other kinds are skipped.

    Exit status: 0 clean, 1 error findings (or any finding with --strict), 2 unreadable
    input or usage error.
    """
    from tasplan.cli.app import run_guarded

    run_guarded(lambda: run_lint(paths, cluster, output.value, strict, summary, namespace,
                                 kube_version), traceback=traceback)


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
    return ExitStatus.FINDINGS if report.failed or (empty and strict) else ExitStatus.OK
