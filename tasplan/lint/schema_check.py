"""The lint schemas compiled into plain predicates: ``valid(obj)`` answers exactly what
``not list(validator.iter_errors(obj))`` answers, at a fraction of jsonschema's cost (its
validator builds an object per keyword and instance; most manifests have no finding).

Exact by construction: every keyword the schemas use is compiled with Draft 2020-12's
meaning (``type`` with integral floats as integers and booleans as neither, ``const`` and
``enum`` with jsonschema's own equality (imported only for values other than strings
and null), ``format`` with the same FormatChecker, ``pattern``
with ``re.search``); a schema holding any other keyword is not compiled at all, and
jsonschema decides. Only a valid verdict is used: an invalid object is validated again by
jsonschema, which names the violations.
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
        if not checks:
            return lambda x: True
        if len(checks) == 1:
            return checks[0]
        return lambda x: all(check(x) for check in checks)

    # ------------------------------------------------------------------ keywords

    def _type(self, value: Any, schema: dict, base: str) -> Check:
        names = [value] if isinstance(value, str) else list(value)
        tests = [_TYPES[n] for n in names]
        return lambda x: any(t(x) for t in tests)

    def _properties(self, value: dict, schema: dict, base: str) -> Check:
        props = {name: self.compile(sub, base) for name, sub in value.items()}

        def check(x: Any) -> bool:
            if not isinstance(x, dict):
                return True
            return all(props[k](v) for k, v in x.items() if k in props)
        return check

    def _additionalProperties(self, value: Any, schema: dict, base: str) -> Check:
        if "patternProperties" in schema:
            raise Unsupported("patternProperties")
        known = frozenset(schema.get("properties", ()))
        sub = self.compile(value, base)
        if value is False:
            return lambda x: not isinstance(x, dict) or known.issuperset(x)
        return lambda x: not isinstance(x, dict) or all(
            sub(v) for k, v in x.items() if k not in known)

    def _propertyNames(self, value: Any, schema: dict, base: str) -> Check:
        sub = self.compile(value, base)
        return lambda x: not isinstance(x, dict) or all(sub(k) for k in x)

    def _required(self, value: list, schema: dict, base: str) -> Check:
        names = tuple(value)
        return lambda x: not isinstance(x, dict) or all(n in x for n in names)

    def _items(self, value: Any, schema: dict, base: str) -> Check:
        if "prefixItems" in schema or not isinstance(value, dict | bool):
            raise Unsupported("prefixItems")
        sub = self.compile(value, base)
        return lambda x: not isinstance(x, list) or all(sub(i) for i in x)

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
        formats = self.formats
        return lambda x: formats.conforms(x, value)

    def _not(self, value: Any, schema: dict, base: str) -> Check:
        sub = self.compile(value, base)
        return lambda x: not sub(x)

    def _allOf(self, value: list, schema: dict, base: str) -> Check:
        subs = [self.compile(s, base) for s in value]
        return lambda x: all(s(x) for s in subs)

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
