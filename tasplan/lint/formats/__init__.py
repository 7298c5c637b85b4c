"""Renderers of a LintReport: each turns the report into one string and computes nothing."""

from __future__ import annotations

from collections.abc import Callable

from tasplan.lint.formats import github, json, junit, sarif, text
from tasplan.lint.report import LintReport

RENDERERS: dict[str, Callable[[LintReport], str]] = {
    "text": text.render,
    "json": json.render,
    "junit": junit.render,
    "sarif": sarif.render,
    "github": github.render,
}


def render(report: LintReport, fmt: str) -> str:
    return RENDERERS[fmt](report)
