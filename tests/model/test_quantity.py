"""Tests for tasplan.model.quantity.

The parse tables copy the cases of apimachinery
``pkg/api/resource/quantity_test.go`` (TestQuantityParse, TestParseQuantityString,
TestQuantityRoundUp, TestScaledValue, TestParseQuantity). Upstream states its expected
values as ``decQuantity(mantissa, exponent)``. We keep that form and derive
``Value()`` / ``MilliValue()`` with exact Fraction arithmetic, independently of the
code under test.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest

from tasplan.model import quantity as qmod
from tasplan.model.quantity import QuantityError, format_quantity, parse_milli, parse_value

MAX_INT64 = (1 << 63) - 1
Ki, Mi, Gi, Ti, Pi, Ei = (1 << (10 * n) for n in range(1, 7))


def ceil_away(x: Fraction) -> int:
    """Round up in magnitude, away from zero (Quantity.Value semantics)."""
    return math.ceil(x) if x >= 0 else -math.ceil(-x)


def dec(mantissa: int, exponent: int) -> Fraction:
    """Upstream test helper decQuantity(mantissa, exponent) as an exact value."""
    return Fraction(mantissa) * Fraction(10) ** exponent


# TestQuantityParse: (input, exact value upstream expects)
QUANTITY_PARSE_TABLE = [
    ("0", dec(0, 0)),
    ("0n", dec(0, 0)),
    ("0u", dec(0, 0)),
    ("0m", dec(0, 0)),
    ("0Ki", dec(0, 0)),
    ("0k", dec(0, 0)),
    ("0Mi", dec(0, 0)),
    ("0M", dec(0, 0)),
    ("0Gi", dec(0, 0)),
    ("0G", dec(0, 0)),
    ("0Ti", dec(0, 0)),
    ("0T", dec(0, 0)),
    # Quantity less numbers are allowed
    ("1", dec(1, 0)),
    # Binary suffixes
    ("1Ki", dec(1024, 0)),
    ("8Ki", dec(8 * 1024, 0)),
    ("7Mi", dec(7 * 1024 * 1024, 0)),
    ("6Gi", dec(6 * 1024 * 1024 * 1024, 0)),
    ("5Ti", dec(5 * 1024 * 1024 * 1024 * 1024, 0)),
    ("4Pi", dec(4 * 1024 * 1024 * 1024 * 1024 * 1024, 0)),
    ("3Ei", dec(3 * 1024 * 1024 * 1024 * 1024 * 1024 * 1024, 0)),
    ("10Ti", dec(10 * 1024 * 1024 * 1024 * 1024, 0)),
    ("100Ti", dec(100 * 1024 * 1024 * 1024 * 1024, 0)),
    # Decimal suffixes
    ("5n", dec(5, -9)),
    ("4u", dec(4, -6)),
    ("3m", dec(3, -3)),
    ("9", dec(9, 0)),
    ("8k", dec(8, 3)),
    ("50k", dec(5, 4)),
    ("7M", dec(7, 6)),
    ("6G", dec(6, 9)),
    ("5T", dec(5, 12)),
    ("40T", dec(4, 13)),
    ("300T", dec(3, 14)),
    ("2P", dec(2, 15)),
    ("1E", dec(1, 18)),
    # Decimal exponents
    ("1E-3", dec(1, -3)),
    ("1e3", dec(1, 3)),
    ("1E6", dec(1, 6)),
    ("1e9", dec(1, 9)),
    ("1E12", dec(1, 12)),
    ("1e15", dec(1, 15)),
    ("1E18", dec(1, 18)),
    # Nonstandard but still parsable
    ("1e14", dec(1, 14)),
    ("1e13", dec(1, 13)),
    ("100.035k", dec(100035, 0)),
    # Things that look like floating point
    ("0.001", dec(1, -3)),
    ("0.0005k", dec(5, -1)),
    ("0.005", dec(5, -3)),
    ("0.05", dec(5, -2)),
    ("0.5", dec(5, -1)),
    ("0.00050k", dec(5, -1)),
    ("0.00500", dec(5, -3)),
    ("0.05000", dec(5, -2)),
    ("0.50000", dec(5, -1)),
    ("0.5e0", dec(5, -1)),
    ("0.5e-1", dec(5, -2)),
    ("0.5e-2", dec(5, -3)),
    ("10.035M", dec(10035, 3)),
    ("1.2e3", dec(12, 2)),
    ("1.3E+6", dec(13, 5)),
    ("1.40e9", dec(14, 8)),
    ("1.53E12", dec(153, 10)),
    ("1.6e15", dec(16, 14)),
    ("1.7E18", dec(17, 17)),
    ("9.01", dec(901, -2)),
    ("8.1k", dec(81, 2)),
    ("7.123456M", dec(7123456, 0)),
    ("6.987654321G", dec(6987654321, 0)),
    ("5.444T", dec(5444, 9)),
    ("40.1T", dec(401, 11)),
    ("300.2T", dec(3002, 11)),
    ("2.5P", dec(25, 14)),
    ("1.01E", dec(101, 16)),
    # Things that saturate/round (upstream rounds up to a nano unit at parse time)
    ("3.001n", dec(4, -9)),
    ("1.1E-9", dec(2, -9)),
    ("0.0000000001", dec(1, -9)),
    ("0.0000000005", dec(1, -9)),
    ("0.00000000050", dec(1, -9)),
    ("0.5e-9", dec(1, -9)),
    ("0.9n", dec(1, -9)),
    ("0.00000012345", dec(124, -9)),
    ("0.00000012354", dec(124, -9)),
    ("9Ei", Fraction(MAX_INT64)),  # capped at maxAllowed
    ("9223372036854775807Ki", Fraction(MAX_INT64)),  # capped at maxAllowed
    ("12E", dec(12, 18)),  # decimal is not capped
    # We'll accept fractional binary stuff, too.
    ("100.035Ki", dec(10243584, -2)),
    ("0.5Mi", dec(int(0.5 * 1024 * 1024), 0)),
    ("0.05Gi", dec(536870912, -1)),
    ("0.025Ti", dec(274877906944, -1)),
    # Things written by trolls
    ("0.000000000001Ki", dec(2, -9)),
    (".001", dec(1, -3)),
    (".0001k", dec(100, -3)),
    ("1.", dec(1, 0)),
    ("1.G", dec(1, 9)),
]


@pytest.mark.parametrize(
    ("text", "exact"), QUANTITY_PARSE_TABLE, ids=[t for t, _ in QUANTITY_PARSE_TABLE]
)
def test_quantity_parse_table(text: str, exact: Fraction) -> None:
    """TestQuantityParse: Value()/MilliValue() of every valid upstream table entry."""
    assert parse_value(text) == ceil_away(exact)
    assert parse_milli(text) == ceil_away(exact * 1000)


@pytest.mark.parametrize(
    ("text", "exact"), QUANTITY_PARSE_TABLE, ids=[t for t, _ in QUANTITY_PARSE_TABLE]
)
def test_quantity_parse_table_signed(text: str, exact: Fraction) -> None:
    """TestQuantityParse: "Try the negative version of everything" and the explicit "+"."""
    assert parse_value("-" + text) == ceil_away(-exact)
    assert parse_milli("-" + text) == ceil_away(-exact * 1000)
    assert parse_value("+" + text) == ceil_away(exact)
    assert parse_milli("+" + text) == ceil_away(exact * 1000)


@pytest.mark.parametrize(
    ("text", "value", "milli"),
    [
        # spot checks written out in full
        ("500m", 1, 500),
        ("2", 2, 2000),
        ("1.5", 2, 1500),
        ("1Gi", Gi, Gi * 1000),
        ("1.5Gi", 3 * Gi // 2, 3 * Gi // 2 * 1000),
        ("100.035Ki", 102436, 102435840),
        ("1e3", 1000, 1_000_000),
        ("1E-3", 1, 1),
        ("0.1m", 1, 1),  # MilliValue rounds up: 0.1m -> 1m
        ("1.5m", 1, 2),
        ("999m", 1, 999),
        ("1001m", 2, 1001),
        ("1n", 1, 1),
        ("-1.5", -2, -1500),
        ("-1.5m", -1, -2),
        ("9Ei", MAX_INT64, MAX_INT64 * 1000),
        ("0e99999999", 0, 0),
    ],
)
def test_value_and_milli_rounding(text: str, value: int, milli: int) -> None:
    """Value()/MilliValue() round up, away from zero; binary suffixes are capped."""
    assert parse_value(text) == value
    assert parse_milli(text) == milli


@pytest.mark.parametrize(
    ("text", "value", "milli"),
    [
        ("9.01", 10, 9010),
        ("-9.01", -10, -9010),
    ],
)
def test_quantity_round_up(text: str, value: int, milli: int) -> None:
    """TestQuantityRoundUp: 9.01 rounded at scale 0 is 10 and at scale -3 is 9010m."""
    assert parse_value(text) == value
    assert parse_milli(text) == milli


@pytest.mark.parametrize(
    ("text", "value", "milli"),
    [("1n", 1, 1), ("1u", 1, 1), ("1m", 1, 1), ("1", 1, 1000), ("1k", 1000, 1_000_000)],
)
def test_scaled_value(text: str, value: int, milli: int) -> None:
    """TestScaledValue: 1 at nano/micro/milli/unit scale read back at scale 0 and milli."""
    assert parse_value(text) == value
    assert parse_milli(text) == milli


# TestParseQuantity: (input, exact decimal upstream's AsDec() returns)
PARSE_QUANTITY_BIG_TABLE = [
    ("-999999999999999999", "-999999999999999999"),
    ("999999999999999999", "999999999999999999"),
    ("-999999999999999999.0", "-999999999999999999"),
    ("999999999999999999.1", "999999999999999999.1"),
    ("-9999999999999999999", "-9999999999999999999"),
    ("9999999999999999999", "9999999999999999999"),
    ("-1E", "-1000000000000000000"),
    ("1E", "1000000000000000000"),
    ("1.0E", "1000000000000000000"),
    ("9999999999999999999000m", "9999999999999999999"),
    ("-9999999999999999999.1", "-9999999999999999999.1"),
    ("1.0000000000000000001E", "1000000000000000000.1"),
    ("1.000000000000000001E", "1000000000000000001"),
    ("-10E", "-10000000000000000000"),
    ("10E", "10000000000000000000"),
    ("10000000000000000000000m", "10000000000000000000"),
    ("10.0000000000000000001E", "10000000000000000000.1"),
    ("-10.000000000000000001E", "-10000000000000000001"),
    ("-9223372036854775809", "-9223372036854775809"),
    ("9223372036854775806.1", "9223372036854775806.1"),
    ("-9223372036854775808", "-9223372036854775808"),
    ("9223372036854775807", "9223372036854775807"),
    ("9223372036854775807.1", "9223372036854775807.1"),
    ("9223372036854775808", "9223372036854775808"),
    ("9223372036854775808000m", "9223372036854775808"),
    ("-9223372036854775807.1", "-9223372036854775807.1"),
]


@pytest.mark.parametrize(
    ("text", "exact"), PARSE_QUANTITY_BIG_TABLE, ids=[t for t, _ in PARSE_QUANTITY_BIG_TABLE]
)
def test_parse_quantity_int64_boundaries(text: str, exact: str) -> None:
    """TestParseQuantity: 18-20 digit values around the int64 range stay exact."""
    value = Fraction(Decimal(exact))
    assert parse_value(text) == ceil_away(value)
    assert parse_milli(text) == ceil_away(value * 1000)


@pytest.mark.parametrize(
    "text",
    [
        # upstream TestQuantityParse invalid list
        "1.1.M",
        "1+1.0M",
        "0.1mi",
        "0.1am",
        "aoeu",
        ".5i",
        "1i",
        "-3.01i",
        "-3.01e-",
        " 1",
        "1 ",
        # TestQuantityParseNonNumericPanic / TestQuantityParse empty string
        "Non-Numeric",
        "",
        # more shapes ParseQuantity rejects
        "1.5.5",
        "1KiB",
        "1 Gi",
        "1K",
        "1e",
        "1E+",
        "1ee3",
        "1e3.5",
        "1m3",
        "1Mi3",
        "abc",
        "0x10",
        "1_000",
        # digit-less forms that fall off upstream's int64 fast path
        "Pi",
        "Ei",
        ".Pi",
        "e-10",
    ],
)
def test_invalid_strings(text: str) -> None:
    """TestQuantityParse invalid table (plus extras): QuantityError, a ValueError."""
    with pytest.raises(QuantityError) as err:
        parse_value(text)
    assert isinstance(err.value, ValueError)
    assert "expected a Kubernetes quantity" in str(err.value)
    with pytest.raises(QuantityError):
        parse_milli(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Gi", 0),
        ("Ti", 0),
        ("m", 0),
        ("-", 0),
        ("+", 0),
        (".", 0),  # TestParseQuantityString: "." scans as num "0"
        ("-.", 0),  # TestParseQuantityString
        ("e3", 0),
        ("e-9", 0),
    ],
)
def test_digitless_forms_parse_as_zero_like_upstream(text: str, value: int) -> None:
    """Upstream ParseQuantity reads a missing number as 0 on its int64 fast path."""
    assert parse_value(text) == value
    assert parse_milli(text) == value


def test_error_message_is_clear() -> None:
    with pytest.raises(QuantityError) as err:
        parse_milli("abc")
    msg = str(err.value)
    assert msg.startswith('expected a Kubernetes quantity such as "500m", "2", "1Gi", got "abc"')
    assert err.value.value == "abc"


@pytest.mark.parametrize(
    "value", [True, False, None, [1], {"a": 1}, b"1", float("nan"), float("inf")]
)
def test_invalid_types(value: object) -> None:
    """YAML scalars other than str/int/float (and non-finite floats) are rejected."""
    with pytest.raises(QuantityError):
        parse_value(value)  # type: ignore[arg-type]
    with pytest.raises(QuantityError):
        parse_milli(value)  # type: ignore[arg-type]


def test_bool_is_not_served_from_cache() -> None:
    assert parse_milli("1") == 1000
    assert parse_value("1") == 1
    with pytest.raises(QuantityError):
        parse_milli(True)  # type: ignore[arg-type]
    with pytest.raises(QuantityError):
        parse_value(True)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "expected_value", "expected_milli"),
    [
        (0, 0, 0),
        (1, 1, 1000),
        (7, 7, 7000),
        (-1, -1, -1000),
        (110, 110, 110_000),
        (10**30, 10**30, 10**33),
        (0.5, 1, 500),
        (2.5, 3, 2500),
        (0.1, 1, 100),
        (1e-7, 1, 1),
        (1e20, 10**20, 10**23),
        (-0.0, 0, 0),
    ],
)
def test_yaml_numbers(value: float, expected_value: int, expected_milli: int) -> None:
    """TestJSONWhitespace-style bare numbers: YAML/JSON ints and floats are quantities."""
    assert parse_value(value) == expected_value
    assert parse_milli(value) == expected_milli


def test_extreme_exponents() -> None:
    assert parse_value("1e59") == 10**59
    assert parse_value("1e-999999") == 1
    assert parse_milli("-1e-999999") == -1
    with pytest.raises(QuantityError, match="too large"):
        parse_value("1e61")
    with pytest.raises(QuantityError, match="too large"):
        parse_milli("1e999999999999")


def test_cache_hit_returns_same_result() -> None:
    text = "123.456Mi"
    first = parse_value(text)
    assert qmod._VALUE_CACHE[text] == first
    assert parse_value(text) == first == math.ceil(Fraction("123.456") * Mi)
    milli = parse_milli(text)
    assert qmod._MILLI_CACHE[text] == milli
    assert parse_milli(text) == milli
    # errors are not cached
    with pytest.raises(QuantityError):
        parse_value("bogus")
    assert "bogus" not in qmod._VALUE_CACHE


@pytest.mark.parametrize(
    ("resource", "value", "text"),
    [
        ("cpu", 500, "500m"),
        ("cpu", 2000, "2"),
        ("cpu", 1500, "1500m"),
        ("cpu", 0, "0"),
        ("memory", 16 * Gi, "16Gi"),
        ("memory", 512 * Mi, "512Mi"),
        ("memory", 1536 * Mi, "1536Mi"),
        ("memory", 2 * Ki, "2Ki"),
        ("memory", 1000, "1000"),
        ("memory", 0, "0"),
        ("memory", -Gi, "-1Gi"),
        ("ephemeral-storage", 3 * Ti, "3Ti"),
        ("hugepages-2Mi", 4 * Mi, "4Mi"),
        ("hugepages-1Gi", 2 * Gi, "2Gi"),
        ("memory", 5 * Ei, "5Ei"),
        ("memory", 3 * Pi, "3Pi"),
        ("nvidia.com/gpu", 4, "4"),
        ("pods", 110, "110"),
    ],
)
def test_format_quantity(resource: str, value: int, text: str) -> None:
    assert format_quantity(resource, value) == text


@pytest.mark.parametrize(("resource", "value"), [("cpu", 1500), ("memory", 3 * Gi + 5)])
def test_format_quantity_round_trips(resource: str, value: int) -> None:
    text = format_quantity(resource, value)
    parsed = parse_milli(text) if resource == "cpu" else parse_value(text)
    assert parsed == value
