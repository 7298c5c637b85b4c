"""RFC 3339 timestamps as ``metav1.Time`` decodes them (Go ``time.Parse(time.RFC3339)``):
what is accepted, what is refused, and the instant each denotes."""

from __future__ import annotations

import pytest

from tasplan.model import timestamp


@pytest.mark.parametrize("text", [
    "2026-03-01T10:00:00Z",  # what the API server writes
    "2024-02-29T23:59:59Z",  # a leap day
    "2026-03-01T10:00:00.123456789Z",
    "2026-03-01T10:00:00,5Z",  # Go reads a comma before the fraction too
    "2026-03-01T10:00:00+02:00",
    "2026-03-01T10:00:00-23:59",
    "2026-03-01T9:00:00Z",  # Go's hour field takes one digit
    "0000-01-01T00:00:00Z",  # year 0 exists in Go's proleptic calendar
])
def test_accepted(text: str) -> None:
    assert timestamp.valid(text)
    assert timestamp.first_invalid(["", text]) is None


@pytest.mark.parametrize("text", [
    "", "2026-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
    "2026-13-01T00:00:00Z", "2026-03-01T24:00:00Z", "2026-03-01T10:60:00Z",
    "2026-03-01T10:00:60Z", "2026-03-01t10:00:00Z", "2026-03-01 10:00:00Z",
    "2026-03-01T10:00:00z", "2026-03-01T10:00:00", "2026-03-01T10:00Z", "2026-03-01",
    "2026-W09-7T10:00:00Z",  # an ISO week date: Python's fromisoformat reads it, Go not
    "2026-03-01T10:00:00.Z", "2026-03-01T10:00:00+2:00", "2026-03-01T10:00:00+24:00",
    "２０２６-03-01T10:00:00Z",  # digits other than ASCII
])
def test_refused(text: str) -> None:
    assert not timestamp.valid(text)


def test_first_invalid_names_the_row() -> None:
    good = "2026-03-01T10:00:00Z"
    assert timestamp.first_invalid([good] * 3) is None
    assert timestamp.first_invalid([good, "", "2026-02-30T00:00:00Z", good]) == 2
    assert timestamp.first_invalid([good, "2026-03-01T10:00:00+02:00", "soon"]) == 2
    assert timestamp.first_invalid(["", "é"]) == 1


@pytest.mark.parametrize(("text", "key"), [
    ("1970-01-01T00:00:00Z", (0, 0)),
    ("1970-01-01T01:00:00+01:00", (0, 0)),
    ("1969-12-31T23:00:00-01:00", (0, 0)),
    ("1970-01-01T00:08:20.5Z", (500, 500_000_000)),
    ("1970-01-01T00:00:00.1234567891Z", (0, 123_456_789)),  # Go keeps nanoseconds
    ("0000-01-01T00:00:00Z", (-62_167_219_200, 0)),
    ("2026-03-01T10:00:00Z", (1_772_359_200, 0)),
])
def test_sort_key_is_the_instant(text: str, key: tuple[int, int]) -> None:
    assert timestamp.sort_key(text) == key
