"""The lint schemas compiled into plain predicates: ``valid(obj)`` answers exactly what
``not list(validator.iter_errors(obj))`` answers, at a fraction of jsonschema's cost (its
validator builds an object per keyword and instance; most manifests have no finding).

Exact by construction: every keyword the schemas use is compiled with Draft 2020-12's
meaning (``type`` with integral floats as integers and booleans as neither, ``const`` and
``enum`` with jsonschema's own equality, ``format`` with the checks of the FormatChecker
jsonschema is given, ``pattern`` with ``re.search``); a schema holding any other keyword is
not compiled at all, and jsonschema decides. Only a valid verdict is used: an invalid
object is validated again by jsonschema, which names the violations. jsonschema itself is
imported only for a ``const`` or ``enum`` of values other than strings and null.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urljoin

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


def _every(checks: list[Check]) -> Check:
    """All of ``checks``, first to last (a loop: a generator per call costs more than the
    checks of most nodes)."""
    if len(checks) == 1:
        return checks[0]

    def every(x: Any) -> bool:
        for check in checks:  # noqa: SIM110 - a loop: all() of a generator is slower
            if not check(x):
                return False
        return True
    return every


def _some(checks: list[Check]) -> Check:
    """Any of ``checks``, first to last."""
    if len(checks) == 1:
        return checks[0]

    def some(x: Any) -> bool:
        for check in checks:  # noqa: SIM110 - a loop: all() of a generator is slower
            if check(x):
                return True
        return False
    return some


def _equal() -> Callable[[Any, Any], bool] | None:
    """jsonschema's own equality (1 != True, 1 == 1.0); private, so its absence is allowed
    (such a schema is then left to jsonschema)."""
    try:
        from jsonschema._utils import equal
    except ImportError:  # pragma: no cover - a jsonschema that moved it: jsonschema decides
        return None
    return equal


def _strings_or_null(values: list) -> bool:
    return all(v is None or isinstance(v, str) for v in values)


class Compiler:
    """``lookup(base, ref)``: what a ``$ref`` points at; ``formats``: format name -> the
    check the FormatChecker runs (a format not named passes)."""

    def __init__(self, lookup: Callable[[str, str], Any],
                 formats: Mapping[str, Check]) -> None:
        self.lookup = lookup
        self.formats = formats
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
        return _every(checks)

    # ------------------------------------------------------------------ keywords

    def _type(self, value: Any, schema: dict, base: str) -> Check:
        names = [value] if isinstance(value, str) else list(value)
        return _some([_TYPES[n] for n in names])

    def _properties(self, value: dict, schema: dict, base: str) -> Check:
        props = {name: self.compile(sub, base) for name, sub in value.items()}

        def check(x: Any) -> bool:
            if isinstance(x, dict):
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

        def check(x: Any) -> bool:
            if isinstance(x, list):
                for item in x:
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
        if value is None:  # equal to null: null itself (a string never equals it)
            return lambda x: x is None
        same = _equal()
        if same is None:
            raise Unsupported("const")
        return lambda x: same(x, value)

    def _enum(self, value: list, schema: dict, base: str) -> Check:
        if _strings_or_null(value):  # as const: == for strings, null is only null
            allowed = frozenset(v for v in value if v is not None)
            if None in value:
                return lambda x: x is None or (isinstance(x, str) and x in allowed)
            return lambda x: isinstance(x, str) and x in allowed
        same = _equal()
        if same is None:
            raise Unsupported("enum")
        return lambda x: any(same(x, v) for v in value)

    def _pattern(self, value: str, schema: dict, base: str) -> Check:
        rx = re.compile(value)
        return lambda x: not isinstance(x, str) or rx.search(x) is not None

    def _format(self, value: str, schema: dict, base: str) -> Check:
        return self.formats.get(value, lambda x: True)

    def _not(self, value: Any, schema: dict, base: str) -> Check:
        sub = self.compile(value, base)
        return lambda x: not sub(x)

    def _allOf(self, value: list, schema: dict, base: str) -> Check:
        return _every([self.compile(s, base) for s in value])

    def _anyOf(self, value: list, schema: dict, base: str) -> Check:
        return _some([self.compile(s, base) for s in value])

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
            target.append(self.compile(self.lookup(base, value), uri.split("#")[0]))
        return known
