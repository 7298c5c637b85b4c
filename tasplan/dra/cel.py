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

from tasplan.dra.cel_cost import CostError, check_cost
from tasplan.model.dra import Device
from tasplan.model.quantity import QuantityError, parse_exact

QUANTITY = "k8s.quantity"
SEMVER = "k8s.semver"
T = cel.Type


class CelError(Exception):
    """A selector that does not compile, or fails at runtime (upstream aborts the pod's
    scheduling attempt with it)."""


# -- Kubernetes library: quantity ----------------------------------------------------------

# A quantity travels as its exact value, "numerator/denominator" in lowest terms: then CEL's
# map equality is upstream's Quantity.Equal, by value ("80Gi" == "81920Mi", "1k" == "1000").

def _q(value: object) -> Fraction:
    if not isinstance(value, dict) or QUANTITY not in value:
        raise CelError("expected a quantity")
    num, _, den = str(value[QUANTITY]).partition("/")
    try:
        return Fraction(int(num), int(den or 1))
    except ValueError:
        raise CelError("invalid quantity") from None


def _as_quantity(value: Fraction) -> dict:
    return {QUANTITY: f"{value.numerator}/{value.denominator}"}


def quantity_value(s: str) -> dict:
    """A quantity string as the CEL value (raises QuantityError)."""
    num, den = parse_exact(s)
    return _as_quantity(Fraction(num, den))


def quantity(s: str) -> dict:
    try:
        return quantity_value(s)
    except QuantityError as exc:
        raise CelError(f"quantity: {exc}") from None


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
    """The CEL value: without build metadata, so that map equality is upstream's
    ``Version.EQ`` (which ignores it)."""
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


def _functions(quantity_type=T.MAP, semver_type=T.MAP) -> list:
    """The Kubernetes library's functions. At runtime both types are tagged maps
    (``T.MAP``); for type checking they are distinct abstract types, so that a method
    exists only on its own type, as upstream declares them (apiserver/pkg/cel/library
    quantity.go and semverlib.go)."""
    q, s = quantity_type, semver_type
    both = [[q, q]] if q == s else [[q, q], [s, s]]
    return [
        _overloads("quantity", q, [[T.STRING]], quantity, member=False),
        _overloads("isQuantity", T.BOOL, [[T.STRING]], is_quantity, member=False),
        _overloads("semver", s, [[T.STRING], [T.STRING, T.BOOL]], semver, member=False),
        _overloads("isSemver", T.BOOL, [[T.STRING], [T.STRING, T.BOOL]], is_semver,
                   member=False),
        _overloads("compareTo", T.INT, both, compare_to),
        _overloads("isGreaterThan", T.BOOL, both, lambda a, b: compare_to(a, b) > 0),
        _overloads("isLessThan", T.BOOL, both, lambda a, b: compare_to(a, b) < 0),
        _overloads("add", q, [[q, q], [q, T.INT]], lambda a, b: _as_quantity(_q(a) + _other(b))),
        _overloads("sub", q, [[q, q], [q, T.INT]], lambda a, b: _as_quantity(_q(a) - _other(b))),
        _overloads("sign", T.INT, [[q]], lambda a: (_q(a) > 0) - (_q(a) < 0)),
        _overloads("isInteger", T.BOOL, [[q]],
                   lambda a: _q(a).denominator == 1 and -(2**63) <= _q(a) < 2**63),
        _overloads("asInteger", T.INT, [[q]], _as_integer),
        _overloads("asApproximateFloat", T.DOUBLE, [[q]], lambda a: float(_q(a))),
        _overloads("major", T.INT, [[s]], _semver_part(0)),
        _overloads("minor", T.INT, [[s]], _semver_part(1)),
        _overloads("patch", T.INT, [[s]], _semver_part(2)),
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


@lru_cache(maxsize=1)
def _check_env():
    """Type checking only: quantity and semver as their own types (never evaluated)."""
    return cel.NewEnv(variables={"device": T.Map(T.STRING, T.DYN)},
                      extensions=[ext_strings.ExtStrings(), ext_bindings.ExtBindings(),
                                  ext_optional.ExtOptional()],
                      functions=_functions(T.AbstractType("kubernetes.Quantity"),
                                           T.AbstractType("kubernetes.Semver")))


# device.attributes["x"] / device.capacity['x'] with a string literal key.
_INDEX = re.compile(r"device\s*\.\s*(attributes|capacity)\s*\[\s*"
                    r"""("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')\s*\]""")


def _rewrite(expression: str) -> str:
    # dyn(): the empty map's free type parameters otherwise leak into the checked type, and
    # cel.bind(d, device.attributes["x"], d.index > 2) would not type-check.
    return _INDEX.sub(lambda m: f"dyn(device.{m.group(1)}[?{m.group(2)}].orValue({{}}))",
                      expression)


class Selector:
    """One compiled selector expression."""

    __slots__ = ("_program", "expression")

    def __init__(self, expression: str) -> None:
        self.expression = expression
        try:
            _check_env().compile(expression)
            self._program = _env().compile(_rewrite(expression))
        except RuntimeError as exc:
            raise CelError(_compile_message(str(exc))) from None
        try:  # before it ever runs: the API server refuses it at validation
            check_cost(self._program.serialize())
        except CostError as exc:
            raise CelError(str(exc)) from None
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
    """The first error, one line (the engine adds a caret picture of the expression)."""
    text = text.removeprefix("INVALID_ARGUMENT: ").replace(" [INVALID_ARGUMENT]", "").strip()
    return text.split("\n", 1)[0].strip()


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


def _version(text: str) -> dict:
    try:
        return semver(text)
    except CelError:  # upstream fails the selector when it reads it: so does _semver_key
        return {SEMVER: text}


def device_value(driver: str, device: Device) -> dict:
    """The ``device`` variable: attributes and capacity grouped by domain."""
    attributes: dict[str, dict] = {}
    for name, (kind, value) in device.attributes.items():
        domain, _, ident = name.rpartition("/")
        attributes.setdefault(domain, {})[ident] = _version(value) if kind == "version" \
            else value
    capacity: dict[str, dict] = {}
    for name, value in device.capacity.items():
        domain, _, ident = name.rpartition("/")
        try:
            capacity.setdefault(domain, {})[ident] = quantity_value(value)
        except QuantityError:  # refused when the slice was read; never compares equal
            capacity.setdefault(domain, {})[ident] = {QUANTITY: "invalid"}
    return {"driver": driver, "attributes": attributes, "capacity": capacity,
            "allowMultipleAllocations": device.allow_multiple_allocations}
