"""The lint schemas compiled into plain predicates: ``valid(obj)`` answers exactly what
``not list(validator.iter_errors(obj))`` answers, at a fraction of jsonschema's cost (its
validator builds an object per keyword and instance; most manifests have no finding).

Exact by construction: every keyword the schemas use is compiled with Draft 2020-12's
meaning (``type`` with integral floats as integers and booleans as neither, ``const`` and
``enum`` with jsonschema's own equality (imported only for values other than strings
and null), ``format`` with the same FormatChecker, ``pattern``
with ``re.search``); a schema holding any other keyword is not compiled at all, and
jsonschema decides. An invalid object's violations are named by ``Namer`` as jsonschema
names them (the same errors, in the same order), so lint imports jsonschema only for a
schema these predicates do not compile.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

if TYPE_CHECKING:
    from referencing import Registry


def _equal() -> Callable[[Any, Any], bool] | None:
    """jsonschema's own equality (1 != True, 1 == 1.0), imported by a schema that compares
    values other than strings and null; private, so its absence is allowed (jsonschema then
    validates such a schema alone)."""
    try:
        from jsonschema._utils import equal
    except ImportError:  # pragma: no cover - a jsonschema that moved it: jsonschema decides
        return None
    return equal


def _strings_or_null(values: list) -> bool:
    return all(v is None or isinstance(v, str) for v in values)


Check = Callable[[Any], bool]

# Annotations: no effect on validity.
_IGNORED = frozenset({"$schema", "$id", "$comment", "$defs", "description", "title",
                      "tasplanOutput", "else", "then"})


class Unsupported(Exception):
    """A keyword this module does not compile; jsonschema validates such a schema."""


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


_TYPES: dict[str, Check] = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
    "number": _is_number,
    "integer": lambda x: (isinstance(x, int) and not isinstance(x, bool))
    or (isinstance(x, float) and x.is_integer()),
}


def _all(checks: list[Check]) -> Check:
    """All of ``checks``, in order, stopping at the first false one. Here and below: plain
    loops and ``and`` chains, since a generator per object was most of the predicates'
    cost (200,000 Pods: 8.7 s -> 2.7 s)."""
    if not checks:
        return lambda x: True
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda x: first(x) and second(x)
    if len(checks) == 3:
        first, second, third = checks
        return lambda x: first(x) and second(x) and third(x)

    def check(x: Any) -> bool:
        for c in checks:  # noqa: SIM110
            if not c(x):
                return False
        return True
    return check


_CLASSES = {"object": dict, "array": list, "string": str, "boolean": bool,
            "null": type(None)}


class Compiler:
    def __init__(self, registry: Registry, format_checker: Any) -> None:
        self.registry = registry
        self.formats = format_checker
        self.refs: dict[str, Check] = {}

    def compile(self, schema: Any, base: str) -> Check:
        if schema is True:
            return lambda x: True
        if schema is False:
            return lambda x: False
        if not isinstance(schema, dict):
            raise Unsupported(repr(schema))
        base = schema.get("$id", base)
        checks: list[Check] = []
        for keyword, value in schema.items():
            if keyword in _IGNORED:
                continue
            make = getattr(self, "_" + keyword.replace("$", "dollar_"), None)
            if make is None:
                raise Unsupported(keyword)
            checks.append(make(value, schema, base))
        return _all(checks)

    # ------------------------------------------------------------------ keywords

    def _type(self, value: Any, schema: dict, base: str) -> Check:
        names = [value] if isinstance(value, str) else list(value)
        if all(n in _CLASSES for n in names):  # one isinstance (bool is a class of its own)
            classes = tuple(_CLASSES[n] for n in names)
            return lambda x: isinstance(x, classes)
        tests = [_TYPES[n] for n in names]
        return lambda x: any(t(x) for t in tests)

    def _properties(self, value: dict, schema: dict, base: str) -> Check:
        props = {name: self.compile(sub, base) for name, sub in value.items()}

        def check(x: Any) -> bool:
            if not isinstance(x, dict):
                return True
            for k, v in x.items():
                sub = props.get(k)
                if sub is not None and not sub(v):
                    return False
            return True
        return check

    def _additionalProperties(self, value: Any, schema: dict, base: str) -> Check:
        if "patternProperties" in schema:
            raise Unsupported("patternProperties")
        known = frozenset(schema.get("properties", ()))
        sub = self.compile(value, base)
        if value is False:
            return lambda x: not isinstance(x, dict) or known.issuperset(x)

        def check(x: Any) -> bool:
            if not isinstance(x, dict):
                return True
            for k, v in x.items():  # noqa: SIM110
                if k not in known and not sub(v):
                    return False
            return True
        return check

    def _propertyNames(self, value: Any, schema: dict, base: str) -> Check:
        sub = self.compile(value, base)
        return lambda x: not isinstance(x, dict) or all(sub(k) for k in x)

    def _required(self, value: list, schema: dict, base: str) -> Check:
        names = tuple(value)
        if len(names) == 1:
            name = names[0]
            return lambda x: not isinstance(x, dict) or name in x

        def check(x: Any) -> bool:
            if not isinstance(x, dict):
                return True
            for n in names:  # noqa: SIM110
                if n not in x:
                    return False
            return True
        return check

    def _items(self, value: Any, schema: dict, base: str) -> Check:
        if "prefixItems" in schema or not isinstance(value, dict | bool):
            raise Unsupported("prefixItems")
        sub = self.compile(value, base)

        def check(x: Any) -> bool:
            if not isinstance(x, list):
                return True
            for item in x:  # noqa: SIM110
                if not sub(item):
                    return False
            return True
        return check

    def _minItems(self, value: int, schema: dict, base: str) -> Check:
        return lambda x: not isinstance(x, list) or len(x) >= value

    def _maxItems(self, value: int, schema: dict, base: str) -> Check:
        return lambda x: not isinstance(x, list) or len(x) <= value

    def _minLength(self, value: int, schema: dict, base: str) -> Check:
        return lambda x: not isinstance(x, str) or len(x) >= value

    def _minimum(self, value: Any, schema: dict, base: str) -> Check:
        return lambda x: not _is_number(x) or x >= value

    def _maximum(self, value: Any, schema: dict, base: str) -> Check:
        return lambda x: not _is_number(x) or x <= value

    def _const(self, value: Any, schema: dict, base: str) -> Check:
        if isinstance(value, str):  # jsonschema compares with == when either is a string
            return lambda x: x == value
        if value is None:  # null equals only null (a string never equals it)
            return lambda x: x is None
        equal = _equal()
        if equal is None:
            raise Unsupported("const")
        return lambda x: equal(x, value)

    def _enum(self, value: list, schema: dict, base: str) -> Check:
        if _strings_or_null(value):  # as const: == for strings, null only for null
            allowed = frozenset(v for v in value if v is not None)
            if None in value:
                return lambda x: x is None or (isinstance(x, str) and x in allowed)
            return lambda x: isinstance(x, str) and x in allowed
        equal = _equal()
        if equal is None:
            raise Unsupported("enum")
        return lambda x: any(equal(x, v) for v in value)

    def _pattern(self, value: str, schema: dict, base: str) -> Check:
        rx = re.compile(value)
        return lambda x: not isinstance(x, str) or rx.search(x) is not None

    def _format(self, value: str, schema: dict, base: str) -> Check:
        # FormatChecker.conforms without its two layers of calls: an unknown format
        # conforms; a checker's listed exceptions and a false result do not
        if value not in self.formats.checkers:
            return lambda x: True
        func, raises = self.formats.checkers[value]

        def check(x: Any) -> bool:
            try:
                return bool(func(x))
            except raises:
                return False
        return check

    def _not(self, value: Any, schema: dict, base: str) -> Check:
        sub = self.compile(value, base)
        return lambda x: not sub(x)

    def _allOf(self, value: list, schema: dict, base: str) -> Check:
        return _all([self.compile(s, base) for s in value])

    def _anyOf(self, value: list, schema: dict, base: str) -> Check:
        subs = [self.compile(s, base) for s in value]
        return lambda x: any(s(x) for s in subs)

    def _oneOf(self, value: list, schema: dict, base: str) -> Check:
        subs = [self.compile(s, base) for s in value]
        return lambda x: sum(1 for s in subs if s(x)) == 1

    def _if(self, value: Any, schema: dict, base: str) -> Check:
        test = self.compile(value, base)
        then = self.compile(schema.get("then", True), base)
        other = self.compile(schema.get("else", True), base)
        return lambda x: then(x) if test(x) else other(x)

    def _dollar_ref(self, value: str, schema: dict, base: str) -> Check:
        uri = urljoin(base, value)
        known = self.refs.get(uri)
        if known is None:
            target: list[Check] = []
            self.refs[uri] = known = lambda x: target[0](x)  # recursion: filled in below
            resolved = self.registry.resolver(base).lookup(value)
            target.append(self.compile(resolved.contents, uri.split("#")[0]))
        return known


# ---------------------------------------------------------------------- naming violations


class SchemaError:
    """One violation as jsonschema's ``ValidationError`` reports it, with the attributes
    lint's translation reads (``validator`` is the keyword, None for a false schema;
    ``message`` is jsonschema's text for the keywords lint shows it for)."""

    __slots__ = ("absolute_path", "instance", "message", "schema", "validator",
                 "validator_value")

    def __init__(self, validator: str | None, value: Any, instance: Any, schema: Any,
                 path: tuple, message: str = "") -> None:
        self.validator = validator
        self.validator_value = value
        self.instance = instance
        self.schema = schema
        self.absolute_path = path
        self.message = message


class Namer:
    """The violations of an object, named as jsonschema's ``iter_errors`` names them: the
    same errors (keyword, value, instance, schema, path), in the same order, for every
    keyword ``Compiler`` compiles, walking the schema as jsonschema's ``descend`` does and
    asking the compiled predicates where jsonschema asks ``is_valid`` (``not``, ``if``,
    ``anyOf``, ``oneOf``). A keyword outside that set raises ``Unsupported``: jsonschema
    names such an object. Mirrors jsonschema 4.26's ``_keywords.py`` and ``descend``."""

    def __init__(self, compiler: Compiler) -> None:
        self.compiler = compiler
        # (id of a schema, keyword or "") -> (the schema, its or its keyword's predicate)
        self.checks: dict[tuple[int, str], tuple[Any, Check]] = {}

    def errors(self, schema: Any, x: Any, base: str) -> list[SchemaError]:
        out: list[SchemaError] = []
        self._descend(schema, x, base, (), out, ())
        return out

    def _valid(self, schema: Any, x: Any, base: str, keyword: str = "") -> bool:
        """The compiled verdict of ``schema`` (of its ``keyword`` alone, if given)."""
        known = self.checks.get((id(schema), keyword))
        if known is None or known[0] is not schema:
            check = self.compiler.compile(schema, base) if not keyword else getattr(
                self.compiler, "_" + keyword)(schema[keyword], schema, base)
            known = self.checks[(id(schema), keyword)] = (schema, check)
        return known[1](x)

    def _descend(self, schema: Any, x: Any, base: str, path: tuple, out: list[SchemaError],
                 parent: tuple) -> None:
        """``schema``'s errors on ``x`` at ``path`` (``parent``: the path before the step
        to ``x``, where jsonschema places a false schema's error)."""
        if schema is True:
            return
        if schema is False:
            out.append(SchemaError(None, None, x, schema, parent,
                                   f"False schema does not allow {x!r}"))
            return
        if not isinstance(schema, dict):
            raise Unsupported(repr(schema))
        base = schema.get("$id", base)
        for keyword, value in schema.items():
            if keyword in _IGNORED:
                continue
            name = _NAMED.get(keyword)
            if name is None:
                raise Unsupported(keyword)
            getattr(self, name)(keyword, value, schema, x, base, path, out)

    # ------------------------------------------------------------------ keywords

    def _error(self, keyword: str, value: Any, schema: dict, x: Any, base: str, path: tuple,
               out: list[SchemaError]) -> None:
        """A keyword that is one error or none: its compiled predicate decides."""
        if not self._valid(schema, x, base, keyword):
            out.append(SchemaError(keyword, value, x, schema, path, _message(keyword, value, x)))

    def _required(self, keyword: str, value: list, schema: dict, x: Any, base: str,
                  path: tuple, out: list[SchemaError]) -> None:
        if isinstance(x, dict):
            out.extend(SchemaError(keyword, value, x, schema, path,
                                   f"{name!r} is a required property")
                       for name in value if name not in x)

    def _properties(self, keyword: str, value: dict, schema: dict, x: Any, base: str,
                    path: tuple, out: list[SchemaError]) -> None:
        if isinstance(x, dict):
            for name, sub in value.items():
                if name in x:
                    self._descend(sub, x[name], base, (*path, name), out, path)

    def _additionalProperties(self, keyword: str, value: Any, schema: dict, x: Any,
                              base: str, path: tuple, out: list[SchemaError]) -> None:
        if "patternProperties" in schema:
            raise Unsupported("patternProperties")
        if not isinstance(x, dict):
            return
        known = schema.get("properties", {})
        extras = {k for k in x if k not in known}  # a set, iterated as jsonschema does
        if isinstance(value, dict):
            for extra in extras:
                self._descend(value, x[extra], base, (*path, extra), out, path)
        elif not value and extras:
            out.append(SchemaError(keyword, value, x, schema, path))

    def _propertyNames(self, keyword: str, value: Any, schema: dict, x: Any, base: str,
                       path: tuple, out: list[SchemaError]) -> None:
        if isinstance(x, dict):
            for name in x:
                self._descend(value, name, base, path, out, path)

    def _items(self, keyword: str, value: Any, schema: dict, x: Any, base: str, path: tuple,
               out: list[SchemaError]) -> None:
        if "prefixItems" in schema or (not isinstance(value, dict) and value is not True):
            raise Unsupported("items")
        if isinstance(x, list):
            for i, item in enumerate(x):
                self._descend(value, item, base, (*path, i), out, path)

    def _allOf(self, keyword: str, value: list, schema: dict, x: Any, base: str, path: tuple,
               out: list[SchemaError]) -> None:
        for sub in value:
            self._descend(sub, x, base, path, out, path)

    def _anyOf(self, keyword: str, value: list, schema: dict, x: Any, base: str, path: tuple,
               out: list[SchemaError]) -> None:
        if not any(self._valid(sub, x, base) for sub in value):
            out.append(SchemaError(keyword, value, x, schema, path))

    def _oneOf(self, keyword: str, value: list, schema: dict, x: Any, base: str, path: tuple,
               out: list[SchemaError]) -> None:
        if sum(1 for sub in value if self._valid(sub, x, base)) != 1:
            out.append(SchemaError(keyword, value, x, schema, path))

    def _not(self, keyword: str, value: Any, schema: dict, x: Any, base: str, path: tuple,
             out: list[SchemaError]) -> None:
        if self._valid(value, x, base):
            out.append(SchemaError(keyword, value, x, schema, path,
                                   f"{x!r} should not be valid under {value!r}"))

    def _if(self, keyword: str, value: Any, schema: dict, x: Any, base: str, path: tuple,
            out: list[SchemaError]) -> None:
        if self._valid(value, x, base):
            if "then" in schema:
                self._descend(schema["then"], x, base, path, out, path)
        elif "else" in schema:
            self._descend(schema["else"], x, base, path, out, path)

    def _ref(self, keyword: str, value: str, schema: dict, x: Any, base: str, path: tuple,
             out: list[SchemaError]) -> None:
        target = self.compiler.registry.resolver(base).lookup(value).contents
        self._descend(target, x, urljoin(base, value).split("#")[0], path, out, path)


# keyword -> the Namer method that names its violations
_NAMED = {"required": "_required", "properties": "_properties",
          "additionalProperties": "_additionalProperties", "propertyNames": "_propertyNames",
          "items": "_items", "allOf": "_allOf", "anyOf": "_anyOf", "oneOf": "_oneOf",
          "not": "_not", "if": "_if", "$ref": "_ref",
          **{k: "_error" for k in ("type", "format", "minItems", "maxItems", "minLength",
                                   "minimum", "maximum", "const", "enum", "pattern")}}


def _message(keyword: str, value: Any, x: Any) -> str:
    """jsonschema's message, for the keywords whose message lint shows (the others are
    worded by lint from the keyword and value)."""
    if keyword == "minLength":
        return f"{x!r} {'should be non-empty' if value == 1 else 'is too short'}"
    if keyword == "pattern":
        return f"{x!r} does not match {value!r}"
    return ""
