"""Renderers of a LintReport: each turns the report into one string and computes nothing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, replace
from operator import attrgetter
from typing import Any

from tasplan.lint.report import LintReport
from tasplan.untrusted import clean


def _renderer(name: str) -> Callable[[LintReport], str]:
    """The ``render`` of module ``name``, imported when a report is rendered in that format
    (a run pays for its own format: JUnit's XML library, SARIF's rule table)."""
    def render(report: LintReport) -> str:
        # __import__, not importlib.import_module: -X importtime (tests/cli/test_startup.py)
        # reports only imports made through the import statement's machinery.
        return __import__(f"{__name__}.{name}", fromlist=("render",)).render(report)
    return render


RENDERERS: dict[str, Callable[[LintReport], str]] = {
    name: _renderer(name) for name in ("text", "json", "junit", "sarif", "github")}


def render(report: LintReport, fmt: str) -> str:
    return RENDERERS[fmt](printable(report))


def printable(report: LintReport) -> LintReport:
    """The report with every string (file names, messages, names) made one printable line:
    a file name with a newline, an ANSI escape or undecodable bytes must not forge a line in
    text formats nor break JSON, JUnit XML or SARIF."""
    return replace(report, findings=tuple(map(_clean_fields, report.findings)),
                   resources=_clean_all(report.resources),
                   files=tuple(map(clean, report.files)),
                   skipped={clean(k): v for k, v in report.skipped.items()})


def _clean_fields(obj: Any) -> Any:
    changes = {f.name: clean(value) for f in fields(obj)
               if isinstance(value := getattr(obj, f.name), str) and clean(value) != value}
    return replace(obj, **changes) if changes else obj


def _clean_all(objs: tuple) -> tuple:
    """``_clean_fields`` of each object (all of one dataclass), after one search over all
    their strings: a stream of 200,000 documents has as many resources, all printable
    (0.5 s one by one)."""
    if not objs or any(type(o) is not type(objs[0]) for o in objs):
        return tuple(map(_clean_fields, objs))
    values = attrgetter(*(f.name for f in fields(objs[0])))
    text = " ".join([v for each in map(values, objs) for v in each if isinstance(v, str)])
    return objs if clean(text) is text else tuple(map(_clean_fields, objs))
