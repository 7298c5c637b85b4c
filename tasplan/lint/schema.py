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
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urljoin

from tasplan.lint.report import Violation
from tasplan.load.document import type_name
from tasplan.model.selectors import valid_label_key
from tasplan.untrusted import quote

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError
    from referencing import Registry

    from tasplan.lint.schema_check import Namer, SchemaError

# jsonschema and referencing are imported only where the compiled predicates of
# ``schema_check`` cannot decide and name (a keyword they do not compile, a nesting deeper
# than Python's recursion limit) or a schema uses a reference ``lookup`` does not resolve:
# lint pays for them on no bundled schema.

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


def _strings_only(check: Any) -> Any:
    """A format applies to strings; other types are the ``type`` keyword's finding (a
    format check must never raise on them)."""
    return lambda value: not isinstance(value, str) or check(value)


# Format name -> predicate: what the FormatChecker given to jsonschema checks (a format
# not named here passes, as it does there).
FORMAT_CHECKS: dict[str, Any] = {name: _strings_only(check)
                                 for name, (_, check) in FORMATS.items()}


class _Formats:
    """The FormatChecker the compiled predicates are given, without jsonschema: the part of
    its interface they use (``conforms``, ``checkers``), over ``FORMAT_CHECKS``."""

    def __init__(self) -> None:
        self.checkers = {name: (check, ()) for name, check in FORMAT_CHECKS.items()}

    def conforms(self, instance: Any, format: str) -> bool:
        entry = self.checkers.get(format)
        return entry is None or bool(entry[0](instance))


@dataclass(frozen=True)
class _Resolved:
    contents: Any


@dataclass(frozen=True)
class _Resolver:
    """The registry the compiled predicates are given, without referencing: the part of a
    ``referencing`` Registry they use (``resolver(base).lookup(ref).contents``), answered by
    ``lookup``."""

    base: str = ""

    def resolver(self, base: str) -> _Resolver:
        return _Resolver(base)

    def lookup(self, ref: str) -> _Resolved:
        return _Resolved(lookup(self.base, ref))


@cache
def _format_checker() -> Any:
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())
    for name, check in FORMAT_CHECKS.items():
        checker.checks(name)(check)
    return checker


@cache
def _documents() -> tuple[dict[str, dict], dict[tuple[str, str], dict]]:
    """Every schema by ``$id``, and the manifest schemas by (apiVersion, kind)."""
    by_id: dict[str, dict] = {}
    by_kind: dict[tuple[str, str], dict] = {}
    for entry in sorted(resources.files("tasplan.lint").joinpath("schemas").iterdir(),
                        key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        schema = json.loads(entry.read_text(encoding="utf-8"))
        by_id[schema["$id"]] = schema
        props = schema.get("properties", {})
        # tasplan's own output documents (PlanReport, ClusterSnapshot) are published here
        # too, but they are not manifests to lint.
        if "apiVersion" in props and not schema.get("tasplanOutput"):
            by_kind[(props["apiVersion"]["const"], props["kind"]["const"])] = schema
    return by_id, by_kind


@cache
def _registry() -> Registry:
    """The schemas as a ``referencing`` registry (jsonschema's validators resolve with it)."""
    from referencing import Registry, Resource

    registry: Registry = Registry()
    for uri, schema in _documents()[0].items():
        registry = registry.with_resource(uri, Resource.from_contents(schema))
    return registry.crawl()


def lookup(base: str, ref: str) -> Any:
    """What ``ref`` (relative to ``base``) points at: a schema of ``schemas/`` by its
    ``$id`` and a JSON Pointer fragment, as every reference there is written; any other
    form is resolved by ``referencing``, as jsonschema resolves it."""
    uri = urljoin(base, ref)
    document, _, fragment = uri.partition("#")
    node = _documents()[0].get(document)
    if node is not None and (fragment == "" or fragment.startswith("/")):
        for token in fragment.split("/")[1:]:
            token = unquote(token).replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                break
        else:
            return node
    return _registry().resolver(base).lookup(ref).contents


def _inline(node: Any, base: str, stack: tuple[str, ...] = ()) -> Any:
    """The schema with every non-recursive ``$ref`` replaced by its target (``allOf`` when
    the ref has sibling keywords). Same verdicts; it spares jsonschema a registry lookup
    per ref and instance, which was half of the validation time."""
    if isinstance(node, list):
        return [_inline(n, base, stack) for n in node]
    if not isinstance(node, dict):
        return node
    node = {k: v if k in ("const", "enum") else _inline(v, base, stack)
            for k, v in node.items()}
    ref = node.get("$ref")
    if ref is None:
        return node
    uri = urljoin(base, ref)
    if uri in stack:  # recursive (composite templates): keep it as an absolute ref
        return {**node, "$ref": uri}
    target = _inline(lookup(base, ref), uri.split("#")[0], (*stack, uri))
    rest = {k: v for k, v in node.items() if k != "$ref"}
    return {"allOf": [target], **rest} if rest else target


def kinds() -> frozenset[tuple[str, str]]:
    """The (apiVersion, kind) pairs that have a schema."""
    return frozenset(_documents()[1])


@cache
def schema_of(key: tuple[str, str]) -> dict:
    """The schema of (apiVersion, kind) with its refs inlined, made when first needed."""
    schema = _documents()[1][key]
    return _inline(schema, schema["$id"])


@cache
def validator(key: tuple[str, str]) -> Draft202012Validator:
    """The compiled validator of (apiVersion, kind), built when an invalid object of that
    kind first needs its violations named (inlining and compiling all 33 kinds' schemas
    cost a lint that meets one invalid kind a third of its run)."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema_of(key), registry=_registry(),
                                format_checker=_format_checker())


def validators() -> dict[tuple[str, str], Draft202012Validator]:
    """(apiVersion, kind) -> compiled validator, for every kind (the tests')."""
    return {key: validator(key) for key in sorted(kinds())}


@cache
def check_of(key: tuple[str, str]) -> Any:
    """The exact validity predicate of (apiVersion, kind) (``schema_check``), or None when
    it holds a keyword that module does not compile (jsonschema decides alone)."""
    from tasplan.lint.schema_check import Unsupported

    with contextlib.suppress(Unsupported):
        return _compiler().compile(schema_of(key), _documents()[1][key]["$id"])
    return None


@cache
def _compiler() -> Any:
    from tasplan.lint.schema_check import Compiler

    return Compiler(_Resolver(), _Formats())


def _schemas() -> tuple[_Resolver, dict[tuple[str, str], dict]]:
    """What the compiler resolves with, and every kind's inlined schema (the tests')."""
    return _Resolver(), {key: schema_of(key) for key in sorted(kinds())}


def _checks() -> dict[tuple[str, str], Any]:
    """Every kind's compiled predicate, for the kinds it compiles (the tests')."""
    return {key: check for key in sorted(kinds()) if (check := check_of(key)) is not None}


def known_versions(kind: str) -> list[str]:
    return sorted(v for v, k in kinds() if k == kind)


def validate(obj: dict[str, Any], api_version: str, kind: str) -> list[Violation] | None:
    """Violations of the object's schema; None when tasplan has no schema for it. A valid
    object is recognised by the compiled predicate; jsonschema names the violations."""
    key = (api_version, kind)
    if key not in _documents()[1]:
        return None
    check = check_of(key)
    try:
        if check is not None:
            if check(obj):
                return []
            errors = named(key, obj)
            if errors is not None:
                return [v for error in errors for v in _translate(error)]
    except RecursionError:
        pass
    out: list[Violation] = []
    for error in validator(key).iter_errors(obj):
        out.extend(_translate(error))
    return out


def named(key: tuple[str, str], obj: Any) -> list[SchemaError] | None:
    """The schema violations of an object of a kind ``check_of`` compiles, named as
    jsonschema names them (``schema_check.Namer``); None where a keyword is not named
    there (jsonschema names them then)."""
    from tasplan.lint.schema_check import Unsupported

    with contextlib.suppress(Unsupported):
        return _namer().errors(schema_of(key), obj, _documents()[1][key]["$id"])
    return None


@cache
def _namer() -> Namer:
    from tasplan.lint.schema_check import Namer

    return Namer(_compiler())


def _translate(error: ValidationError | SchemaError) -> Iterator[Violation]:
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


# Keywords whose verdict and message on a mapping do not depend on its values (``type`` and
# ``required``: a mapping is "a mapping", keys are keys), and annotations. Keywords whose
# messages quote the whole instance (minProperties, ...) are not here.
_VALUE_FREE = frozenset({"type", "required", "title", "description", "$comment", "$id",
                         "$schema", "$defs", "default", "examples"})
_BRANCHES = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else")
_NAME_PATH = ("metadata", "name")


def plain_name(name: object) -> bool:
    """A DNS label, which every format of ``FORMATS`` accepts (a subdomain, a label key
    and a path segment too; a test checks each): where ``name_free``, all such names get
    one verdict."""
    return isinstance(name, str) and len(name) <= 63 and _LABEL.fullmatch(name) is not None


@cache
def name_free(key: tuple[str, str]) -> bool:
    """Whether the schema of (apiVersion, kind) gives objects that differ only in a
    ``plain_name`` ``metadata.name`` the same violations (True without a schema: nothing
    reads the name then). Decided by walking the inlined schema: every subschema that
    applies to ``metadata.name`` may only ask for a type and a format of ``FORMATS``, and
    nothing above it may look at values (const, enum, ...). Any other keyword: False."""
    if key not in _documents()[1]:
        return True
    return _name_free(schema_of(key), 0)


def _name_free(node: Any, depth: int) -> bool:
    if isinstance(node, bool):
        return True
    if not isinstance(node, dict):
        return False
    if depth == len(_NAME_PATH):  # the name itself: a string, so only these may decide
        return all(k in ("type", "format", "allOf", "title", "description", "$comment")
                   for k in node) and node.get("format", "k8s-long-name") in FORMATS \
            and all(_name_free(n, depth) for n in node.get("allOf", ()))
    step = _NAME_PATH[depth]
    for keyword, value in node.items():
        if keyword in _VALUE_FREE:
            continue
        if keyword == "properties":
            if not isinstance(value, dict) or not _name_free(value.get(step, True), depth + 1):
                return False
        elif keyword == "additionalProperties":  # applies when ``step`` is not a property
            if step not in node.get("properties", {}) and not _name_free(value, depth + 1):
                return False
        elif keyword in _BRANCHES:
            branches = value if isinstance(value, list) else [value]
            if not all(_name_free(b, depth) for b in branches):
                return False
        elif keyword == "dependentSchemas":
            if not isinstance(value, dict) or not all(_name_free(b, depth)
                                                      for b in value.values()):
                return False
        else:  # const, enum, patternProperties, unevaluated*, $ref, ...: not proven
            return False
    return True
