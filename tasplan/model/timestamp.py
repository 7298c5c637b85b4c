"""RFC 3339 timestamps as the API server reads them (``metav1.Time``): a pod's
``status.startTime`` orders preemption victims of equal priority (upstream
``MoreImportantVictim``).

``metav1.Time`` decodes with Go's ``time.Parse(time.RFC3339, ...)``: four-digit year,
two-digit month, day, minute and second (each in range, the day in its month), a one- or
two-digit hour, an optional fraction after ``.`` or ``,``, and ``Z`` or ``±hh:mm``. Readers
keep the text as given (the snapshot writes it back unchanged); ``sort_key`` turns it into
(UTC seconds, nanoseconds) only for the pods preemption compares.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

_DATE = (r"\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])"
         r"|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|02-(?:0[1-9]|1\d|2[0-9]))")
_TIME = r"T(?:[01]?\d|2[0-3]):[0-5]\d:[0-5]\d(?:[.,]\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)"
_ONE = re.compile(_DATE + _TIME)
# One pattern over a whole column joined by newlines: checked in one pass (snapshot tables).
_COLUMN = re.compile(rf"(?:(?:{_DATE}{_TIME})?\n)*(?:{_DATE}{_TIME})?")
_PARTS = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d?):(\d\d):(\d\d)(?:[.,](\d+))?"
                    r"(?:Z|([+-])(\d\d):(\d\d))")
_EPOCH = dt.date(1970, 1, 1).toordinal()


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _feb29_ok(text: str) -> bool:
    """The pattern lets 02-29 through in every year; Go refuses it outside leap years."""
    return text[5:10] != "02-29" or _leap(int(text[:4]))


def valid(text: str) -> bool:
    return _ONE.fullmatch(text) is not None and _feb29_ok(text)


def first_invalid(column: Sequence[str]) -> int | None:
    """Index of the first entry that is neither "" (unset) nor a valid timestamp; the
    column must hold strings. One regular-expression pass over the joined column."""
    if _COLUMN.fullmatch("\n".join(column)) is not None:
        return next((i for i, t in enumerate(column) if "-02-29T" in t and not _feb29_ok(t)),
                    None)
    return next(i for i, t in enumerate(column) if t and not valid(t))


def from_yaml(value: object) -> str | None:
    """A timestamp PyYAML resolved from an unquoted scalar, back to RFC 3339 text (the
    API server's YAML reader keeps such scalars as strings); None if it has no zone, which
    ``time.Parse`` would refuse."""
    if isinstance(value, dt.datetime) and value.utcoffset() is not None:
        return value.isoformat().replace("+00:00", "Z")
    return None


def sort_key(text: str) -> tuple[int, int]:
    """(UTC seconds since the epoch, nanoseconds) of a valid timestamp."""
    m = _PARTS.fullmatch(text)
    if m is None:
        raise ValueError(f"not an RFC 3339 timestamp: {text!r}")
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    # Python's dates start at year 1; Go's at 0, a leap year laid out like year 4.
    days = (dt.date(year, month, day).toordinal() if year
            else dt.date(4, month, day).toordinal() - 1461) - _EPOCH
    seconds = days * 86400 + hour * 3600 + minute * 60 + second
    if m[8]:
        offset = int(m[9]) * 3600 + int(m[10]) * 60
        seconds -= offset if m[8] == "+" else -offset
    nanos = int((m[7] or "0")[:9].ljust(9, "0"))
    return seconds, nanos
