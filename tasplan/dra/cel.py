"""CEL device selectors, as ``k8s.io/dynamic-resource-allocation/cel`` evaluates them.

The engine is ``cel-expr-python`` (Google's C++ CEL runtime): it has ``cel.bind``, optional
syntax and the string extensions DRA selectors may use, and evaluates 100k-250k selectors
a second. Kubernetes' own types travel as small tagged maps (``{"k8s.quantity": "80Gi"}``,
``{"k8s.semver": "1.2.3"}``) with member functions declared on map receivers.

Upstream's ``device.attributes[d]`` / ``device.capacity[d]`` yield an empty map for an
unknown domain; CEL maps raise instead, so such index expressions are rewritten to
``[?d].orValue({})`` before compiling. An unknown id inside a known domain stays an error
(``no such key: <id>``), as upstream.

Each distinct expression is compiled once; results are cached per (expression, device) for
the whole run, since device data does not change while planning.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from cel_expr_python import cel
from cel_expr_python.ext import ext_bindings, ext_optional, ext_strings

from tasplan.model.dra import Device
from tasplan.model.quantity import QuantityError, parse_exact

QUANTITY = "k8s.quantity"
SEMVER = "k8s.semver"
T = cel.Type


class CelError(Exception):
    """A selector that does not compile, or fails at runtime (upstream aborts the pod's
    scheduling attempt with it)."""


# -- Kubernetes library: quantity ----------------------------------------------------------

def _q(value: object) -> Fraction:
    if not isinstance(value, dict) or QUANTITY not in value:
        raise CelError("expected a quantity")
    num, den = parse_exact(value[QUANTITY])
    return Fraction(num, den)


def _as_quantity(value: Fraction) -> dict:
    if value.denominator == 1:
        return {QUANTITY: str(value.numerator)}
    # Quantities carry at most nano precision: a decimal string always parses back.
    scaled = value * 10**9
    return {QUANTITY: f"{int(scaled)}n"}


def quantity(s: str) -> dict:
    try:
        parse_exact(s)
    except QuantityError as exc:
        raise CelError(f"quantity: {exc}") from None
    return {QUANTITY: s}


def is_quantity(s: str) -> bool:
    try:
        parse_exact(s)
    except QuantityError:
        return False
    return True


def _other(value: object) -> Fraction:
    return Fraction(value) if isinstance(value, int) else _q(value)


# -- Kubernetes library: semver ------------------------------------------------------------

_SEMVER = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
                     r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
                     r"(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
                     r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?")
_LOOSE = re.compile(r"v?(\d+)(?:\.(\d+))?(?:\.(\d+))?((?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)")


def _parse_semver(s: str, normalize: bool = False) -> tuple:
    text = s
    if normalize:
        m = _LOOSE.fullmatch(s)
        if m is None:
            raise CelError(f"could not parse {s!r} as semver")
        major, minor, patch, rest = m.groups()
        text = f"{int(major)}.{int(minor or 0)}.{int(patch or 0)}{rest}"
    m = _SEMVER.fullmatch(text)
    if m is None:
        raise CelError(f"could not parse {s!r} as semver")
    major, minor, patch, pre, _ = m.groups()
    return int(major), int(minor), int(patch), tuple(pre.split(".")) if pre else ()


def _semver_key(value: object) -> tuple:
    if not isinstance(value, dict) or SEMVER not in value:
        raise CelError("expected a semver")
    major, minor, patch, pre = _parse_semver(value[SEMVER])
    # Semver 2.0 precedence: a release ranks above its prereleases; numeric identifiers
    # compare numerically and below alphanumeric ones; a longer prerelease ranks higher.
    ids = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre)
    return major, minor, patch, (1,) if not pre else (0, ids)


def semver(s: str, normalize: bool = False) -> dict:
    major, minor, patch, pre = _parse_semver(s, normalize)
    text = f"{major}.{minor}.{patch}" + ("-" + ".".join(pre) if pre else "")
    return {SEMVER: text}


def is_semver(s: str, normalize: bool = False) -> bool:
    try:
        _parse_semver(s, normalize)
    except CelError:
        return False
    return True


# -- member functions shared by both tagged types ------------------------------------------

def _key(value: object):
    if isinstance(value, dict) and SEMVER in value:
        return _semver_key(value)
    return _q(value)


def compare_to(a: object, b: object) -> int:
    x, y = _key(a), _key(b)
    return (x > y) - (x < y)


def _semver_part(index: int):
    def part(value: object) -> int:
        if not isinstance(value, dict) or SEMVER not in value:
            raise CelError("expected a semver")
        return _parse_semver(value[SEMVER])[index]
    return part


def _overloads(name: str, ret, params, impl, member: bool = True) -> cel.FunctionDecl:
    return cel.FunctionDecl(name, [cel.Overload(f"k8s_{name}_{i}", ret, p, is_member=member,
                                                impl=impl) for i, p in enumerate(params)])


def _functions() -> list:
    m = T.MAP
    return [
        _overloads("quantity", m, [[T.STRING]], quantity, member=False),
        _overloads("isQuantity", T.BOOL, [[T.STRING]], is_quantity, member=False),
        _overloads("semver", m, [[T.STRING], [T.STRING, T.BOOL]], semver, member=False),
        _overloads("isSemver", T.BOOL, [[T.STRING], [T.STRING, T.BOOL]], is_semver,
                   member=False),
        _overloads("compareTo", T.INT, [[m, m]], compare_to),
        _overloads("isGreaterThan", T.BOOL, [[m, m]], lambda a, b: compare_to(a, b) > 0),
        _overloads("isLessThan", T.BOOL, [[m, m]], lambda a, b: compare_to(a, b) < 0),
        _overloads("add", m, [[m, m], [m, T.INT]], lambda a, b: _as_quantity(_q(a) + _other(b))),
        _overloads("sub", m, [[m, m], [m, T.INT]], lambda a, b: _as_quantity(_q(a) - _other(b))),
        _overloads("sign", T.INT, [[m]], lambda a: (_q(a) > 0) - (_q(a) < 0)),
        _overloads("isInteger", T.BOOL, [[m]],
                   lambda a: _q(a).denominator == 1 and -(2**63) <= _q(a) < 2**63),
        _overloads("asInteger", T.INT, [[m]], _as_integer),
        _overloads("asApproximateFloat", T.DOUBLE, [[m]], lambda a: float(_q(a))),
        _overloads("major", T.INT, [[m]], _semver_part(0)),
        _overloads("minor", T.INT, [[m]], _semver_part(1)),
        _overloads("patch", T.INT, [[m]], _semver_part(2)),
    ]


def _as_integer(value: object) -> int:
    q = _q(value)
    if q.denominator != 1 or not -(2**63) <= q < 2**63:
        raise CelError("cannot convert value to integer")
    return q.numerator


@lru_cache(maxsize=1)
def _env():
    return cel.NewEnv(variables={"device": T.Map(T.STRING, T.DYN)},
                      extensions=[ext_strings.ExtStrings(), ext_bindings.ExtBindings(),
                                  ext_optional.ExtOptional()],
                      functions=_functions())


# device.attributes["x"] / device.capacity['x'] with a string literal key.
_INDEX = re.compile(r"device\s*\.\s*(attributes|capacity)\s*\[\s*"
                    r"""("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')\s*\]""")


def _rewrite(expression: str) -> str:
    return _INDEX.sub(lambda m: f"device.{m.group(1)}[?{m.group(2)}].orValue({{}})", expression)


class Selector:
    """One compiled selector expression."""

    __slots__ = ("_program", "expression")

    def __init__(self, expression: str) -> None:
        self.expression = expression
        try:
            self._program = _env().compile(_rewrite(expression))
        except RuntimeError as exc:
            raise CelError(_compile_message(str(exc))) from None
        result = self._program.return_type()
        if result not in (T.BOOL, T.DYN):
            raise CelError(f"must evaluate to bool or the unknown type, not "
                           f"{result.name().lower()}")

    def matches(self, device: dict) -> bool:
        try:
            value = self._program.eval(data={"device": device})
        except (RuntimeError, CelError) as exc:
            raise CelError(_runtime_message(str(exc))) from None
        kind = value.type()
        if kind == T.BOOL:
            return value.value()
        if kind == T.ERROR:
            raise CelError(_runtime_message(str(value.value())))
        raise CelError(f"CEL result of type {kind.name().lower()} could not be converted "
                       "to bool")


def _compile_message(text: str) -> str:
    return text.removeprefix("INVALID_ARGUMENT: ").replace(" [INVALID_ARGUMENT]", "").strip()


_NO_KEY = re.compile(r'Key not found in map ?: ?"?([^"]*)"?')


def _runtime_message(text: str) -> str:
    m = _NO_KEY.search(text)
    if m:
        return f"no such key: {m.group(1)}"
    return re.sub(r"^[A-Z_]+: ", "", text).strip()


@lru_cache(maxsize=4096)
def compile_selector(expression: str) -> Selector:
    """Compiled once per distinct expression for the process (raises CelError)."""
    return Selector(expression)


def compile_error(expression: str) -> str | None:
    """The compile error of ``expression``, or None (lint)."""
    try:
        compile_selector(expression)
    except CelError as exc:
        return str(exc)
    return None


def device_value(driver: str, device: Device) -> dict:
    """The ``device`` variable: attributes and capacity grouped by domain."""
    attributes: dict[str, dict] = {}
    for name, (kind, value) in device.attributes.items():
        domain, _, ident = name.rpartition("/")
        attributes.setdefault(domain, {})[ident] = {SEMVER: value} if kind == "version" else value
    capacity: dict[str, dict] = {}
    for name, value in device.capacity.items():
        domain, _, ident = name.rpartition("/")
        capacity.setdefault(domain, {})[ident] = {QUANTITY: value}
    return {"driver": driver, "attributes": attributes, "capacity": capacity,
            "allowMultipleAllocations": device.allow_multiple_allocations}
