"""Kubernetes ``resource.Quantity`` parsing into canonical integers.

Behaviour follows ``k8s.io/apimachinery/pkg/api/resource`` (``ParseQuantity``,
``Quantity.Value`` and ``Quantity.MilliValue``):

* grammar: optional sign, digits with an optional decimal point, then one suffix:
  binary ``Ki Mi Gi Ti Pi Ei``, decimal ``n u m "" k M G T P E`` or a decimal
  exponent ``e<int>`` / ``E<int>``;
* results are exact (integer arithmetic only) and rounded *up*, away from zero,
  like ``Value()`` (units) and ``MilliValue()`` (thousandths);
* binary-suffixed values are capped at 2^63-1 in magnitude, as the parser does.

Upstream quirks reproduced on purpose (they are what the API server accepts):

* a number without digits means zero: ``"-"``, ``"+"``, ``"."``, ``"m"``, ``"Gi"``
  and ``"e3"`` all parse as 0. Upstream only takes that path when the suffix
  keeps the value on its int64 fast path, so ``"Pi"``, ``"Ei"``, ``"e-10"`` and
  ``".Pi"`` are still errors;
* ``"1."`` and ``"1.G"`` are accepted.

Where we differ on purpose:

* upstream returns garbage (int64 overflow) for values past 2^63 in ``Value()``;
  here the result is the exact Python int. Magnitudes of 10^60 or more are rejected
  instead of being computed (``"1e999999999"`` would otherwise hang);
* negative non-integers always round away from zero. Upstream does this on its int64
  path but not on its big-decimal path (e.g. ``Value()`` of ``"-1.0000000001"`` is 0
  upstream and -2 here). Negative requests fail API validation anyway;
* leading and trailing whitespace is rejected, as ``ParseQuantity`` does. Upstream's
  JSON decoder trims it before parsing.

The parse functions are memoised on the input string. A cache hit costs one dict
lookup.
"""

from __future__ import annotations

import math
import re

__all__ = [
    "QuantityError",
    "format_quantity",
    "parse_milli",
    "parse_value",
]


class QuantityError(ValueError):
    """A value is not a valid Kubernetes quantity."""

    def __init__(self, value: object, reason: str = "") -> None:
        shown = f'"{value}"' if isinstance(value, str) else f"{type(value).__name__} {value!r}"
        msg = f'expected a Kubernetes quantity such as "500m", "2", "1Gi", got {shown}'
        if reason:
            msg += f" ({reason})"
        super().__init__(msg)
        self.value = value
        self.reason = reason


# Largest magnitude of a binary-suffixed quantity (upstream ``maxAllowed``).
_MAX_INT64 = (1 << 63) - 1

# Mirrors the upstream scanner: sign, integer digits, optional "." and fraction
# digits, then a run of suffix letters, an optional sign and digits. Possessive
# quantifiers stop backtracking, so the split matches the upstream scanner.
_QUANTITY_RE = re.compile(r"([+-]?)([0-9]*+)(?:\.([0-9]*+))?+([eEinumkKMGTP]*+[+-]?[0-9]*+)")

# suffix -> (base, exponent)
_SUFFIXES: dict[str, tuple[int, int]] = {
    "": (10, 0),
    "n": (10, -9),
    "u": (10, -6),
    "m": (10, -3),
    "k": (10, 3),
    "M": (10, 6),
    "G": (10, 9),
    "T": (10, 12),
    "P": (10, 15),
    "E": (10, 18),
    "Ki": (2, 10),
    "Mi": (2, 20),
    "Gi": (2, 30),
    "Ti": (2, 40),
    "Pi": (2, 50),
    "Ei": (2, 60),
}
_EXP_DIGITS_RE = re.compile(r"[+-]?[0-9]+")

# Magnitude guards, in powers of ten of |value|.
_TOO_LARGE_DIGITS = 60
_MAX_DIGITS = 4300  # the number length limit of every reader (load/strict.py MAX_DIGITS)
_TINY_DIGITS = -30

# Memo caches, keyed by the input string only. Ints and floats are never cached,
# because 1 == 1.0 == True would let a bool hit the cache.
_VALUE_CACHE: dict[str, int] = {}
_MILLI_CACHE: dict[str, int] = {}
_CACHE_LIMIT = 1 << 20


def _ceil_div_away(num: int, den: int) -> int:
    """num/den (den > 0) rounded up in magnitude, away from zero."""
    if num >= 0:
        return -(-num // den)
    return -((-num + den - 1) // den)


def _parse_exact(s: str) -> tuple[int, int]:
    """Parse a quantity string to the exact fraction (numerator, denominator>0)."""
    if not s:
        raise QuantityError(s, "empty string")
    m = _QUANTITY_RE.fullmatch(s)
    if m is None:
        raise QuantityError(s, "not a number followed by a unit suffix")
    sign, int_digits, frac_digits, suffix = m.groups()
    frac_digits = frac_digits or ""
    if len(int_digits) + len(frac_digits) + len(suffix) > _MAX_DIGITS:
        # int() refuses longer digit strings; no quantity the API server stores is near it
        raise QuantityError(s[:20] + "…", f"more than {_MAX_DIGITS:,} digits")

    pair = _SUFFIXES.get(suffix)
    if pair is None:
        if len(suffix) > 1 and suffix[0] in "eE" and _EXP_DIGITS_RE.fullmatch(suffix[1:]):
            exponent = int(suffix[1:]) if len(suffix) < 25 else 1 << 63
            if not -(1 << 63) <= exponent < (1 << 63):
                raise QuantityError(s, "exponent out of range")
            base = 10
        else:
            raise QuantityError(s, f'unknown unit suffix "{suffix}"')
    else:
        base, exponent = pair

    if not int_digits and not frac_digits:
        # No digits at all ("Gi", "-", ".", "m"): upstream reads the number as 0
        # when its int64 fast path applies, and fails otherwise.
        if (base == 2 and exponent <= 40) or (base == 10 and exponent >= -9):
            return 0, 1
        raise QuantityError(s, "no digits")

    digits = (int_digits + frac_digits).lstrip("0")
    if not digits:
        return 0, 1
    mantissa = int(digits)
    if sign == "-":
        mantissa = -mantissa

    if base == 2:
        num = mantissa << exponent
        den = 10 ** len(frac_digits)
        # ParseQuantity caps binary-suffixed quantities at 2^63-1 in magnitude.
        if abs(num) > _MAX_INT64 * den:
            return (_MAX_INT64 if num > 0 else -_MAX_INT64), 1
        return num, den

    e10 = exponent - len(frac_digits)
    magnitude = len(digits) + e10  # 10^(magnitude-1) <= |value| < 10^magnitude
    if magnitude > _TOO_LARGE_DIGITS:
        raise QuantityError(s, "value too large")
    if magnitude < _TINY_DIGITS:
        # Far below a nano unit: rounds up to the smallest unit either way.
        return (1 if mantissa > 0 else -1), 10**40
    if e10 >= 0:
        return mantissa * 10**e10, 1
    return mantissa, 10**-e10


def _exact(value: object) -> tuple[int, int]:
    if isinstance(value, str):
        return _parse_exact(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise QuantityError(value, "unsupported type")
    if isinstance(value, int):
        return int(value), 1
    if not math.isfinite(value):
        raise QuantityError(value, "not a finite number")
    # YAML/JSON numbers reach the API server as their shortest decimal text.
    return _parse_exact(repr(float(value)))


def _slow_value(value: str | int | float) -> int:
    num, den = _exact(value)
    result = _ceil_div_away(num, den)
    if type(value) is str and len(_VALUE_CACHE) < _CACHE_LIMIT:
        _VALUE_CACHE[value] = result
    return result


def _slow_milli(value: str | int | float) -> int:
    num, den = _exact(value)
    result = _ceil_div_away(num * 1000, den)
    if type(value) is str and len(_MILLI_CACHE) < _CACHE_LIMIT:
        _MILLI_CACHE[value] = result
    return result


def parse_value(value: str | int | float) -> int:
    """The quantity rounded up (away from zero) to an integer: ``Quantity.Value()``.

    Use for memory, ephemeral-storage, hugepages-*, extended resources and pods.
    Raises :class:`QuantityError` for anything ``ParseQuantity`` rejects, and for bools.
    """
    try:
        return _VALUE_CACHE[value]  # type: ignore[index]
    except (KeyError, TypeError):
        return _slow_value(value)


def parse_milli(value: str | int | float) -> int:
    """The quantity x1000 rounded up (away from zero): ``Quantity.MilliValue()``.

    Use for cpu (millicores). Raises :class:`QuantityError` for invalid input.
    """
    try:
        return _MILLI_CACHE[value]  # type: ignore[index]
    except (KeyError, TypeError):
        return _slow_milli(value)


_BINARY_UNITS = (("Ei", 60), ("Pi", 50), ("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10))
_BYTE_RESOURCES = frozenset({"memory", "ephemeral-storage", "storage"})


def _is_bytes_resource(resource: str) -> bool:
    return resource in _BYTE_RESOURCES or resource.startswith("hugepages-")


def format_quantity(resource: str, value: int) -> str:
    """Human-friendly text for a canonical integer, for reports.

    * ``cpu`` (millicores): whole cores as ``"2"``, otherwise ``"1500m"``;
    * byte resources (memory, ephemeral-storage, storage, hugepages-*): the largest
      binary suffix that divides exactly (``"16Gi"``, ``"512Mi"``), else plain bytes;
    * anything else: the integer.
    """
    value = int(value)
    if resource == "cpu":
        if value % 1000 == 0:
            return str(value // 1000)
        return f"{value}m"
    if _is_bytes_resource(resource) and value != 0:
        sign = "-" if value < 0 else ""
        magnitude = abs(value)
        for unit, shift in _BINARY_UNITS:
            if magnitude & ((1 << shift) - 1) == 0:
                return f"{sign}{magnitude >> shift}{unit}"
        return f"{sign}{magnitude}"
    return str(value)


def parse_exact(value: str | int | float) -> tuple[int, int]:
    """The exact value of a quantity as (numerator, denominator > 0): for comparisons
    that must not round (DRA's CEL ``quantity`` values)."""
    return _exact(value)
