"""What a lint run produced: findings and the resources they belong to. Renderers in
``tasplan.lint.formats`` read only this."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tasplan.lint.rules import Rule, Severity

Path = tuple[str | int, ...]
_PLAIN = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*")


def format_path(parts: Iterable[str | int]) -> str:
    """``spec.podGroupTemplates[0].name``; keys that are not plain words (label keys) are
    quoted: ``spec.nodeSelector["topology.kubernetes.io/zone"]``."""
    out = []
    for part in parts:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif _PLAIN.fullmatch(part):
            out.append(f".{part}" if out else part)
        else:
            out.append('["' + part.replace("\\", "\\\\").replace('"', '\\"') + '"]')
    return "".join(out)


@dataclass(frozen=True, slots=True)
class Violation:
    """A rule broken at a field of one object, before it is placed in its file."""

    rule: str
    path: Path
    message: str
    key: bool = False  # point at the field's key (unknown fields) rather than its value


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem. ``document`` is the 0-based index of the YAML document in the file,
    ``item`` the index inside a ``kind: List``; ``line``/``column`` are 1-based and None
    when unknown. ``resource`` names the object (``Workload ml/train``), empty for
    findings about a whole file."""

    rule: Rule
    severity: Severity
    file: str
    line: int | None
    column: int | None
    document: int | None
    item: int | None
    path: str
    message: str
    resource: str = ""

    @property
    def hint(self) -> str:
        return self.rule.hint

    def sort_key(self) -> tuple:
        return (self.file, self.document if self.document is not None else -1,
                self.item if self.item is not None else -1, self.line or 0, self.column or 0,
                self.rule.id, self.path, self.message)


@dataclass(frozen=True, slots=True)
class Resource:
    """One object of the inputs, as JUnit and the summary list them. ``checked`` is False
    for kinds tasplan does not lint (Services, ...)."""

    file: str
    document: int | None
    item: int | None
    kind: str
    name: str  # namespace/name, or the name alone
    api_version: str
    checked: bool

    @property
    def label(self) -> str:
        return f"{self.kind} {self.name}".strip() if self.kind else "(file)"


@dataclass(frozen=True)
class LintReport:
    findings: tuple[Finding, ...]
    resources: tuple[Resource, ...]
    files: tuple[str, ...]
    skipped: Mapping[str, int] = field(default_factory=dict)  # kind -> count
    strict: bool = False

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def failed(self) -> bool:
        """Errors fail a run; with --strict warnings do too."""
        return any(f.severity == Severity.ERROR or self.strict for f in self.findings)

    def by_resource(self) -> dict[tuple, list[Finding]]:
        """(file, document, item) -> its findings, in report order."""
        out: dict[tuple, list[Finding]] = {}
        for f in self.findings:
            out.setdefault((f.file, f.document, f.item), []).append(f)
        return out

    def summary(self) -> dict[str, object]:
        return {
            "files": len(self.files),
            "resources": sum(1 for r in self.resources if r.checked),
            "skipped": sum(self.skipped.values()),
            "skippedKinds": dict(self.skipped),
            "errors": self.count(Severity.ERROR),
            "warnings": self.count(Severity.WARNING),
        }

    def clean_line(self) -> str:
        """"7 files, 18 resources, no findings": what a clean run read."""
        s = self.summary()
        files, resources = s["files"], s["resources"]
        return (f"{files:,} file{'' if files == 1 else 's'}, {resources:,} "
                f"resource{'' if resources == 1 else 's'}, no findings")

    def summary_line(self) -> str:
        s = self.summary()
        skipped = ""
        if self.skipped:
            kinds = ", ".join(f"{k} {n}" for k, n in self.skipped.items())
            skipped = f", {s['skipped']} skipped ({kinds})"
        return (f"{s['files']} file(s), {s['resources']} resource(s) checked{skipped}: "
                f"{s['errors']} error(s), {s['warnings']} warning(s)")
