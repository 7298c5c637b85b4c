"""GitHub Actions workflow commands: ``::error file=…,line=…,col=…,title=…::message``.

Escaping follows the runner's rules: ``%``, CR and LF in the message; additionally ``:``
and ``,`` in property values.
"""

from __future__ import annotations

from tasplan.lint.report import LintReport


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: LintReport) -> str:
    out = []
    for f in report.findings:
        props = [f"file={_prop(f.file)}"]
        if f.line is not None:
            props.append(f"line={f.line}")
        if f.column is not None:
            props.append(f"col={f.column}")
        props.append(f"title={_prop(f'{f.rule.id} {f.rule.name}')}")
        subject = ": ".join(part for part in (f.resource, f.path) if part)
        message = f"{subject + ': ' if subject else ''}{f.message}\nhint: {f.hint}"
        out.append(f"::{f.severity} {','.join(props)}::{_data(message)}\n")
    return "".join(out)
