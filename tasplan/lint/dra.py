"""Lint rules for DRA objects: their structure (through the loader's own decoders, so lint
accepts exactly what check reads), CEL selectors that do not compile, DeviceClasses and
ResourceClaimTemplates that requests and pods name but the inputs lack."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from tasplan.errors import InputError
from tasplan.lint.reader import Manifest
from tasplan.lint.report import Path, Violation
from tasplan.load.kinds import DRA_KINDS as KINDS
from tasplan.load.kinds import DRA_VERSIONS as VERSIONS
from tasplan.model.source import Source

Found = tuple[Manifest, Violation]
_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def is_dra(m: Manifest) -> bool:
    return m.api_version in VERSIONS and m.kind in KINDS


def validate(m: Manifest) -> list[Violation]:
    """The decoder's complaint as a schema finding (at most one per object)."""
    from tasplan.load.dra import DECODERS  # DRA's decoders: only for a DRA object

    try:
        DECODERS[m.kind](Source(m.file.label), m.obj)
    except InputError as exc:
        path = tuple(int(n) if n else name for name, n in _TOKEN.findall(exc.field))
        detail = exc.detail
        rule = ("TP102" if "required field is missing" in detail
                else "TP105" if "exactly one" in detail or "exactly 1" in detail
                else "TP101")
        return [Violation(rule, path, detail)]
    return []


def _requests(m: Manifest) -> Iterator[tuple[Path, dict]]:
    """(path, exact request) of a claim or template, subrequests included."""
    spec = m.obj.get("spec") if isinstance(m.obj, dict) else None
    base: Path = ("spec",)
    if m.kind == "ResourceClaimTemplate":
        spec = spec.get("spec") if isinstance(spec, dict) else None
        base = ("spec", "spec")
    devices = spec.get("devices") if isinstance(spec, dict) else None
    requests = devices.get("requests") if isinstance(devices, dict) else None
    for i, r in enumerate(requests if isinstance(requests, list) else ()):
        if not isinstance(r, dict):
            continue
        path = (*base, "devices", "requests", i)
        if isinstance(r.get("exactly"), dict):
            yield (*path, "exactly"), r["exactly"]
        elif "deviceClassName" in r:
            yield path, r
        for k, s in enumerate(r.get("firstAvailable") or ()):
            if isinstance(s, dict):
                yield (*path, "firstAvailable", k), s


def _selectors(holder: dict, path: Path) -> Iterator[tuple[Path, str]]:
    for i, sel in enumerate(holder.get("selectors") or ()):
        cel = sel.get("cel") if isinstance(sel, dict) else None
        expr = cel.get("expression") if isinstance(cel, dict) else None
        if isinstance(expr, str):
            yield (*path, "selectors", i, "cel", "expression"), expr


def _claim_refs(m: Manifest) -> Iterator[tuple[Path, str]]:
    """(path of resourceClaimTemplateName, template) in pods, PodGroups, Workloads, Jobs."""
    obj = m.obj if isinstance(m.obj, dict) else {}
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    lists: list[tuple[Path, object]] = []
    if m.kind in ("Pod", "PodGroup"):
        lists.append((("spec", "resourceClaims"), spec.get("resourceClaims")))
    elif m.kind == "Workload":
        for i, t in enumerate(spec.get("podGroupTemplates") or ()):
            if isinstance(t, dict):
                lists.append((("spec", "podGroupTemplates", i, "resourceClaims"),
                              t.get("resourceClaims")))
    elif m.kind == "Job":
        scheduling = spec.get("scheduling")
        if isinstance(scheduling, dict):
            lists.append((("spec", "scheduling", "resourceClaims"),
                          scheduling.get("resourceClaims")))
        template = spec.get("template")
        pod_spec = template.get("spec") if isinstance(template, dict) else None
        if isinstance(pod_spec, dict):
            lists.append((("spec", "template", "spec", "resourceClaims"),
                          pod_spec.get("resourceClaims")))
    for path, items in lists:
        for i, c in enumerate(items if isinstance(items, list) else ()):
            name = c.get("resourceClaimTemplateName") if isinstance(c, dict) else None
            if isinstance(name, str) and name:
                yield (*path, i, "resourceClaimTemplateName"), name


def known_in(objects: Iterable[object]) -> tuple[set[str], set[tuple[str, str]]]:
    """DeviceClass names and (namespace, name) of ResourceClaimTemplates in cluster objects."""
    classes: set[str] = set()
    templates: set[tuple[str, str]] = set()
    for obj in objects:
        if not isinstance(obj, dict) or obj.get("apiVersion") not in VERSIONS:
            continue
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        name = meta.get("name")
        if obj.get("kind") == "DeviceClass" and isinstance(name, str):
            classes.add(name)
        elif obj.get("kind") == "ResourceClaimTemplate" and isinstance(name, str):
            templates.add((meta.get("namespace") or "default", name))
    return classes, templates


def check(manifests: Iterable[Manifest], namespace: str,
          known: tuple[set[str], set[tuple[str, str]]] | None = None) -> Iterator[Found]:
    """``known``: DeviceClasses and templates of the --cluster inputs; references are
    checked only with a cluster (classes and templates usually live there)."""
    references = known is not None
    known = known or (set(), set())
    manifests = list(manifests)
    own = [m for m in manifests if is_dra(m)]
    classes = {m.name for m in own if m.kind == "DeviceClass"} | known[0]
    templates = {(m.namespace or namespace, m.name) for m in own
                 if m.kind == "ResourceClaimTemplate"} | known[1]
    for m in manifests:
        dra = is_dra(m)
        if dra and m.kind == "DeviceClass":
            spec = m.obj.get("spec")
            for path, expr in _selectors(spec if isinstance(spec, dict) else {}, ("spec",)):
                yield from _compiled(m, path, expr)
        elif dra and m.kind in ("ResourceClaim", "ResourceClaimTemplate"):
            for path, request in _requests(m):
                for spath, expr in _selectors(request, path):
                    yield from _compiled(m, spath, expr)
                name = request.get("deviceClassName")
                if references and isinstance(name, str) and name and name not in classes:
                    yield m, Violation("TP308", (*path, "deviceClassName"), (
                        f"DeviceClass {name} is neither in the inputs nor in the cluster"))
        for path, name in _claim_refs(m) if references else ():
            if (m.namespace or namespace, name) not in templates:
                yield m, Violation("TP307", path, (
                    f"ResourceClaimTemplate {m.namespace or namespace}/{name} is neither in "
                    "the inputs nor in the cluster"))


def _compiled(m: Manifest, path: Path, expression: str) -> Iterator[Found]:
    from tasplan.dra.cel import compile_error  # the CEL engine: for DRA selectors only

    problem = compile_error(expression)
    if problem:
        yield m, Violation("TP211", path, f"CEL selector does not compile: "
                           f"{' '.join(problem.split())}")
