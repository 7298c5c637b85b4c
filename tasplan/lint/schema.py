"""Schema rules: the JSON Schemas in ``schemas/`` (Draft 2020-12), compiled once, and the
translation of jsonschema's errors into rule violations with readable messages.

The schemas carry the API server's rules that OpenAPI does not express (DNS names, label
keys, list bounds, unions, minCount >= 1, priority bounds); the formats are named after
upstream's ``k8s-*`` string formats and implemented here.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import urljoin

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource

from tasplan.lint.report import Violation
from tasplan.load.document import type_name
from tasplan.model.selectors import valid_label_key
from tasplan.untrusted import quote

SCHEMA_GROUP = "scheduling.k8s.io"
_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")

FORMATS: dict[str, tuple[str, Any]] = {
    "k8s-short-name": (
        "a DNS label (at most 63 lowercase letters, digits and '-', starting and ending "
        "with a letter or digit)",
        lambda s: len(s) <= 63 and _LABEL.fullmatch(s) is not None),
    "k8s-long-name": (
        "a DNS subdomain (at most 253 characters: DNS labels joined by '.')",
        lambda s: len(s) <= 253 and _SUBDOMAIN.fullmatch(s) is not None),
    "k8s-label-key": (
        "a label key ([prefix/]name: an optional DNS subdomain prefix, and a name of at "
        "most 63 letters, digits, '-', '_' and '.' that starts and ends alphanumeric)",
        valid_label_key),
    "k8s-path-segment-name": (
        "a path segment name (not '.' or '..', no '/' or '%')",
        lambda s: s not in ("", ".", "..") and "/" not in s and "%" not in s),
}

_FORMAT_CHECKER = FormatChecker(formats=())
def _strings_only(check: Any) -> Any:
    """A format applies to strings; other types are the ``type`` keyword's finding (a
    format check must never raise on them)."""
    return lambda value: not isinstance(value, str) or check(value)


for _name, (_, _check) in FORMATS.items():
    _FORMAT_CHECKER.checks(_name)(_strings_only(_check))


def _load() -> tuple[Registry, dict[tuple[str, str], dict]]:
    registry: Registry = Registry()
    by_kind: dict[tuple[str, str], dict] = {}
    for entry in sorted(resources.files("tasplan.lint").joinpath("schemas").iterdir(),
                        key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        schema = json.loads(entry.read_text(encoding="utf-8"))
        registry = registry.with_resource(schema["$id"], Resource.from_contents(schema))
        props = schema.get("properties", {})
        # tasplan's own output documents (PlanReport, ClusterSnapshot) are published here
        # too, but they are not manifests to lint.
        if "apiVersion" in props and not schema.get("tasplanOutput"):
            by_kind[(props["apiVersion"]["const"], props["kind"]["const"])] = schema
    return registry.crawl(), by_kind


def _inline(node: Any, base: str, registry: Registry, stack: tuple[str, ...] = ()) -> Any:
    """The schema with every non-recursive ``$ref`` replaced by its target (``allOf`` when
    the ref has sibling keywords). Same verdicts; it spares jsonschema a registry lookup
    per ref and instance, which was half of the validation time."""
    if isinstance(node, list):
        return [_inline(n, base, registry, stack) for n in node]
    if not isinstance(node, dict):
        return node
    node = {k: v if k in ("const", "enum") else _inline(v, base, registry, stack)
            for k, v in node.items()}
    ref = node.get("$ref")
    if ref is None:
        return node
    uri = urljoin(base, ref)
    if uri in stack:  # recursive (composite templates): keep it as an absolute ref
        return {**node, "$ref": uri}
    resolved = registry.resolver(base).lookup(ref)
    target = _inline(resolved.contents, uri.split("#")[0], registry, (*stack, uri))
    rest = {k: v for k, v in node.items() if k != "$ref"}
    return {"allOf": [target], **rest} if rest else target


@cache
def _schemas() -> tuple[Registry, dict[tuple[str, str], dict]]:
    """The registry and each (apiVersion, kind)'s schema with its refs inlined."""
    registry, by_kind = _load()
    return registry, {key: _inline(schema, schema["$id"], registry)
                      for key, schema in by_kind.items()}


@cache
def validators() -> dict[tuple[str, str], Draft202012Validator]:
    """(apiVersion, kind) -> compiled validator; built once per process."""
    registry, schemas = _schemas()
    return {key: Draft202012Validator(schema, registry=registry,
                                      format_checker=_FORMAT_CHECKER)
            for key, schema in schemas.items()}


@cache
def _checks() -> dict[tuple[str, str], Any]:
    """(apiVersion, kind) -> exact validity predicate (``schema_check``), for the schemas
    it compiles."""
    from tasplan.lint.schema_check import Compiler, Unsupported

    registry, schemas = _schemas()
    compiler = Compiler(registry, _FORMAT_CHECKER)
    out = {}
    for key, schema in schemas.items():
        with contextlib.suppress(Unsupported):  # jsonschema alone then
            out[key] = compiler.compile(schema, schema["$id"])
    return out


def known_versions(kind: str) -> list[str]:
    return sorted(v for v, k in _schemas()[1] if k == kind)


def validate(obj: dict[str, Any], api_version: str, kind: str) -> list[Violation] | None:
    """Violations of the object's schema; None when tasplan has no schema for it. A valid
    object is recognised by the compiled predicate; jsonschema names the violations."""
    key = (api_version, kind)
    if key not in _schemas()[1]:
        return None
    check = _checks().get(key)
    try:
        if check is not None and check(obj):
            return []
    except RecursionError:
        pass
    out: list[Violation] = []
    for error in validators()[key].iter_errors(obj):
        out.extend(_translate(error))
    return out


def _translate(error: ValidationError) -> Iterator[Violation]:
    path = tuple(error.absolute_path)
    keyword, value, instance = error.validator, error.validator_value, error.instance
    if keyword == "required":
        for name in value:
            if isinstance(instance, dict) and name not in instance:
                yield Violation("TP102", (*path, name), "required field is missing")
    elif keyword == "additionalProperties":
        known = error.schema.get("properties", {})
        for name in instance:
            if name not in known:
                yield Violation("TP108", (*path, name), f"unknown field {name!r}", key=True)
    elif keyword == "type":
        wanted = [t for t in ([value] if isinstance(value, str) else value) if t != "null"]
        names = " or ".join(_TYPE_NAMES.get(t, t) for t in wanted)
        yield Violation("TP101", path, f"expected {names}, got {_shown(instance)}")
    elif keyword == "format":
        yield Violation("TP103", path, f"expected {FORMATS[value][0]}, got {quote(instance)}")
    elif keyword in ("maxItems", "minItems"):
        bound = "at most" if keyword == "maxItems" else "at least"
        yield Violation("TP104", path, f"expected {bound} {value} item(s), got {len(instance)}")
    elif keyword in ("oneOf", "anyOf"):
        members = [branch["required"][0] for branch in value]
        present = [m for m in members if instance.get(m) is not None]
        which = "exactly one" if keyword == "oneOf" else "at least one"
        got = " and ".join(present) if present else "none"
        yield Violation("TP105", path, f"expected {which} of {', '.join(members)}; got {got}")
    elif keyword in ("minimum", "maximum"):
        op = ">=" if keyword == "minimum" else "<="
        # check's words for the same fault (ObjectFields.integer)
        what = "an integer" if type(instance) is int else "a value"
        yield Violation("TP106", path, f"expected {what} {op} {value}, got {instance}")
    elif keyword in ("enum", "const"):
        allowed = [v for v in (value if keyword == "enum" else [value]) if v not in (None, "")]
        yield Violation("TP107", path, f"expected one of {', '.join(map(str, allowed))}, "
                        f"got {_shown(instance)}")
    else:  # a keyword the schemas do not use: still report it, never drop it
        yield Violation("TP101", path, error.message)


_TYPE_NAMES = {"object": "a mapping", "array": "a list", "string": "a string",
               "integer": "an integer", "number": "a number", "boolean": "true or false"}


def _shown(value: object) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool | int | float):
        return f"{type_name(value)} ({json.dumps(value)})"
    return type_name(value)
