"""``lint``: files -> LintReport. Parses each file once, validates each object against its
schema, runs the semantic rules on the objects that passed, and the cluster rules when a
cluster is given. Prints nothing; the CLI renders the report."""

from __future__ import annotations

import gc
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import orjson

from tasplan.errors import InputError
from tasplan.lint import dra, expansion, kai, kueue, schema, semantic, volcano
from tasplan.lint.reader import Manifest, parse, read_bytes
from tasplan.lint.report import Finding, LintReport, Resource, Violation, format_path
from tasplan.lint.rules import Severity, rule
from tasplan.load.document import type_name
from tasplan.load.documents import expand_paths
from tasplan.target import RELEASES, parse_version, serving_releases

CHECKED_GROUP_KINDS = ("Workload", "PodGroup")
_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")  # spec.containers[0].name


@dataclass(frozen=True)
class LintOptions:
    strict: bool = False  # unknown fields are errors; warnings fail the run
    clusters: tuple[str | os.PathLike, ...] = ()
    namespace: str = "default"  # for objects without metadata.namespace
    # --kube-version: Workloads and PodGroups must use a version that release serves.
    kube_version: str | None = None


def lint_files(paths: Iterable[str | os.PathLike]) -> list[Path]:
    """Files as given, directories expanded to their YAML/JSON files (recursively, sorted);
    each file once. A missing path raises InputError."""
    seen: dict[Path, None] = {}
    for path in paths:
        for file in expand_paths(path):
            seen.setdefault(file)
    return list(seen)


def lint(paths: Iterable[str | os.PathLike], options: LintOptions | None = None) -> LintReport:
    # Parsing allocates many small containers that all live to the report: the cyclic GC
    # would scan them again and again for nothing (a 200,000-document file: 1.7x slower).
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _lint(paths, options or LintOptions())
    finally:
        if enabled:
            gc.enable()


def _lint(paths: Iterable[str | os.PathLike], options: LintOptions) -> LintReport:
    files = lint_files(paths)
    cluster_docs = None
    if options.clusters:  # read first: a bad cluster dump is a usage problem (exit 2)
        from tasplan.lint.cluster import read_cluster

        cluster_docs = read_cluster(options.clusters)
    run = _Run(options)
    for file in files:
        run.read(str(file), read_bytes(file))
    run.semantic(cluster_docs)
    if cluster_docs is not None:
        run.cluster(cluster_docs)
    return run.report([str(f) for f in files])


class _Run:
    def __init__(self, options: LintOptions) -> None:
        self.options = options
        self.manifests: list[Manifest] = []
        self.violations: dict[int, list[Violation]] = {}  # id(manifest) -> violations
        self.findings: list[Finding] = []
        self.resources: list[Resource] = []
        self.skipped: Counter = Counter()
        self.checked: set[int] = set()

    def read(self, label: str, data: bytes) -> None:
        manifests, problem = parse(label, data)
        if problem is not None:
            self.resources.append(Resource(label, None, None, "", "", "", True))
            self.findings.append(Finding(rule("TP001"), Severity.ERROR, label, problem.line,
                                         problem.column, None, None, "", problem.message))
        # Documents equal up to a plain name are validated once per class (a generated
        # stream repeats a few shapes thousands of times): each member gets the
        # representative's violations, placed later at its own lines.
        classes: dict[tuple, tuple[tuple[Violation, ...], bool]] | None = \
            {} if manifests and manifests[0].file.split else None
        shapes: dict[int, bool | None] = {}  # shape -> _shared(its first document)
        # shape -> its class's verdict for plain names, once known (the usual member of a
        # repeated shape: no key to build)
        plain: dict[int, tuple[tuple[Violation, ...], bool]] = {}
        self.manifests.extend(manifests)
        violations, resources, checked_ids = self.violations, self.resources, self.checked
        for m in manifests:
            known = plain.get(m.shape) if m.shape is not None else None
            if known is not None and schema.plain_name(m.name):
                key = None
            else:
                key = None if classes is None else _class_key(m, shapes)
                known = None if key is None else classes.get(key)
            if known is None:
                violations[id(m)] = found = self._validate(m)
                checked = id(m) in checked_ids
                if key is not None:
                    classes[key] = known = (tuple(found), checked)
                    if len(key) == 2 and key[0] == "shape":
                        plain[key[1]] = known
            else:
                violations[id(m)] = found = list(known[0])
                checked = known[1]
                if checked:
                    checked_ids.add(id(m))
            if not checked and not found:
                self.skipped[m.kind or "(none)"] += 1
            resources.append(Resource(label, m.document, m.item, m.kind, _name(m),
                                      m.api_version, checked or bool(found)))

    def _validate(self, m: Manifest) -> list[Violation]:
        if not isinstance(m.obj, dict):
            return [Violation("TP002", (), "expected a Kubernetes object (a mapping with "
                              f"apiVersion and kind), got {type_name(m.obj)}")]
        missing = [f for f, v in (("apiVersion", m.api_version), ("kind", m.kind)) if not v]
        if missing:
            return [Violation("TP002", (f,), "required field is missing (every object needs "
                              "apiVersion and kind)") for f in missing]
        served = self._served(m)
        if served is not None:
            return [served]
        handler = _handler(m)
        if handler is not None:
            self.checked.add(id(m))
            return handler(m)
        found = schema.validate(m.obj, m.api_version, m.kind)
        tas = kueue.check(m)
        if found is not None or tas:
            self.checked.add(id(m))
            return [*(found or ()), *tas]
        group = m.api_version.rpartition("/")[0]
        if group == schema.SCHEMA_GROUP and m.kind in CHECKED_GROUP_KINDS:
            versions = ", ".join(schema.known_versions(m.kind))
            return [Violation("TP003", ("apiVersion",), f"{m.kind} is not served as "
                              f"{m.api_version!r} (known: {versions})")]
        return []

    def _served(self, m: Manifest) -> Violation | None:
        """TP003 for a scheduling.k8s.io version the --kube-version release does not serve."""
        version = self.options.kube_version
        if version is None or m.kind not in CHECKED_GROUP_KINDS \
                or m.api_version.rpartition("/")[0] != schema.SCHEMA_GROUP:
            return None
        release = RELEASES[parse_version(version)]
        if m.api_version in release.api_versions:
            return None
        others = serving_releases(m.api_version)
        hint = f"; served by Kubernetes {', '.join(others)}" if others else ""
        return Violation("TP003", ("apiVersion",), f"{m.kind} {m.api_version!r} is not served "
                         f"by Kubernetes {release.version} (it serves "
                         f"{', '.join(release.api_versions)}){hint}")

    def _clean(self) -> list[Manifest]:
        """Objects without error-level violations (unknown fields do not count, nor do
        warnings such as a reference to a Workload that is not in the inputs)."""
        return [m for m in self.manifests if isinstance(m.obj, dict) and m.kind
                and all(v.rule == "TP108" or rule(v.rule).severity != Severity.ERROR
                        for v in self.violations[id(m)])]

    def semantic(self, cluster_docs: list | None = None) -> None:
        checked = [m for m in self.manifests if id(m) in self.checked]
        for m, v in semantic.check(checked, self.options.namespace):
            self.violations[id(m)].append(v)
        for m, v in expansion.check(checked, self.options.namespace):
            self.violations[id(m)].append(v)
        known = None if cluster_docs is None else dra.known_in(d.obj for d in cluster_docs)
        for m, v in dra.check(checked, self.options.namespace, known):
            self.violations[id(m)].append(v)
        for m, v in kai.check(checked, self.options.namespace):
            self.violations[id(m)].append(v)

    def cluster(self, docs: list) -> None:
        from tasplan.lint.cluster import NotPlannable, check

        excluded: set[int] = set()
        # An object the loader rejects is reported and left out, then the rest is tried
        # again: bounded, as each try reads everything once more.
        for _ in range(MAX_REJECTED + 1):
            try:
                found = check([m for m in self._clean() if id(m) not in excluded], docs,
                              self.options.namespace)
                break
            except NotPlannable as exc:
                culprit = self._not_plannable(exc.error)
                if culprit is None:
                    return
                excluded.add(id(culprit))
        else:
            self.findings.append(Finding(
                rule("TP306"), Severity.ERROR, culprit.file.label, None, None, None, None, "",
                f"{MAX_REJECTED} objects cannot be planned with the cluster; the cluster "
                "checks stop here (fix these and run lint again)", ""))
            return
        for m, v in found:
            self.violations[id(m)].append(v)

    def _not_plannable(self, err: InputError) -> Manifest | None:
        """The loader's error as a TP306 finding, placed on the object it names (returned)."""
        match = next((m for m in self.manifests if m.file.label == err.source
                      and f"{m.kind} {_name(m)}" == err.obj), None)
        if match is None:
            self.findings.append(Finding(rule("TP306"), Severity.ERROR, err.source, err.line,
                                         None, None, None, err.field, err.detail, err.obj))
            return None
        parts = tuple(int(n) if n else name for name, n in _TOKEN.findall(err.field))
        self.violations[id(match)].append(Violation("TP306", parts, err.detail))
        return match

    def report(self, files: list[str]) -> LintReport:
        for m in self.manifests:
            found = self.violations[id(m)]
            if not found:
                continue
            # One finding per field: a specific rule replaces the generic unknown-field one,
            # and a field that breaks its schema gets no semantic follow-up findings.
            specific = {v.path for v in found if v.rule == "TP207"}
            broken = {v.path for v in found if v.rule.startswith("TP1") and v.rule != "TP108"}
            for v in found:
                if (v.rule == "TP108" and v.path in specific) or (
                        v.rule[:3] in ("TP2", "TP3") and v.path in broken):
                    continue
                self.findings.append(self._finding(m, v))
        self.findings.sort(key=Finding.sort_key)
        # A finding about a whole file (too large, unreadable) is anchored at its first line,
        # so that every format (SARIF regions, GitHub annotations, file:line) points at it.
        self.findings = [replace(f, line=1, column=1) if f.document is None and f.line is None
                         else f for f in self.findings]
        places = {(r.file, r.document, r.item) for r in self.resources}
        for f in self.findings:  # a finding no resource holds is about its file
            if (f.file, f.document, f.item) not in places:
                places.add((f.file, f.document, f.item))
                self.resources.append(Resource(f.file, f.document, f.item, "", "", "", True))
        return LintReport(tuple(self.findings), tuple(self.resources), tuple(files),
                          dict(sorted(self.skipped.items())), self.options.strict)

    def _finding(self, m: Manifest, v: Violation) -> Finding:
        r = rule(v.rule)
        severity = Severity.ERROR if self.options.strict and v.rule == "TP108" else r.severity
        line, column = m.locate(v.path, key=v.key)
        label = f"{m.kind} {_name(m)}".strip() if isinstance(m.obj, dict) else ""
        return Finding(r, severity, m.file.label, line, column, m.document, m.item,
                       format_path(v.path), v.message, label)


def _volcano(m: Manifest) -> list[Violation]:
    return [*volcano.validate(m), *kueue.check(m)]


_HANDLERS: dict[tuple[str, str], Callable[[Manifest], list[Violation]] | None] = {}


def _handler(m: Manifest) -> Callable[[Manifest], list[Violation]] | None:
    """The validator of the kinds read by their decoders (DRA, KAI, Volcano, Kueue's own
    objects), by (apiVersion, kind): each is_* test answers from those two alone."""
    key = (m.api_version, m.kind)
    if key not in _HANDLERS:
        _HANDLERS[key] = (dra.validate if dra.is_dra(m) else kai.validate if kai.is_kai(m)
                          else _volcano if volcano.is_volcano(m)
                          else kueue.validate_object if kueue.is_kueue_object(m) else None)
    return _HANDLERS[key]


def _shared(m: Manifest) -> bool | None:
    """None: the object is validated alone (not a mapping, or a handler's kind: their
    checks read names); else whether every ``plain_name`` gets one verdict."""
    if not isinstance(m.obj, dict) or _handler(m) is not None:
        return None
    return schema.name_free((m.api_version, m.kind))


def _class_key(m: Manifest, shapes: dict[int, bool | None]) -> tuple | None:
    """What ``_Run._validate`` reads of the object: its shape (documents of one shape
    differ in their name alone; ``shapes`` remembers ``_shared`` of each) or its JSON,
    with a ``plain_name`` name left out where the schema gives every such name one
    verdict; None when the object is validated alone (``_shared``; or it is not JSON).
    Only for objects read from JSON values (rapidyaml's path), whose JSON is exact."""
    if m.shape is not None:
        state = shapes[m.shape] if m.shape in shapes else \
            shapes.setdefault(m.shape, _shared(m))
        return None if state is None else ("shape", m.shape) \
            if state and schema.plain_name(m.name) else ("shape", m.shape, m.name)
    state = _shared(m)
    if state is None:
        return None
    obj = m.obj
    meta = obj.get("metadata")
    masked = state and isinstance(meta, dict) and "name" in meta \
        and schema.plain_name(meta["name"])
    if masked:
        obj = {**obj, "metadata": {**meta, "name": ""}}
    try:
        return masked, orjson.dumps(obj)
    except (TypeError, orjson.JSONEncodeError):
        return None


MAX_REJECTED = 50  # objects the loader rejects before lint --cluster stops re-trying


def _name(m: Manifest) -> str:
    return f"{m.namespace}/{m.name}" if m.namespace and m.name else m.name
