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
_ONE = re.compile(_DATE + _TIME, re.ASCII)
_PARTS = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d?):(\d\d):(\d\d)(?:[.,](\d+))?"
                    r"(?:Z|([+-])(\d\d):(\d\d))", re.ASCII)
_EPOCH = dt.date(1970, 1, 1).toordinal()
# What the API server writes (UTC, whole seconds): checked by shape and by the C parser,
# ~15x faster than the general pattern; anything else takes the general path.
_CANONICAL = b"0000-00-00T00:00:00Z"
_DIGITS = bytes.maketrans(b"0123456789", b"0000000000")
_parse = dt.datetime.fromisoformat


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _canonical(text: str) -> bool:
    """``YYYY-MM-DDTHH:MM:SSZ`` with every field in range (the shape is checked first:
    ``fromisoformat`` alone also reads ISO week dates and other forms Go refuses)."""
    if (len(text) != 20 or text[4] != "-" or text[7] != "-" or text[10] != "T"
            or text[13] != ":" or text[16] != ":" or text[19] != "Z"):
        return False
    try:
        _parse(text)
    except ValueError:
        return False
    return True


def valid(text: str) -> bool:
    if _canonical(text):
        return True
    return (_ONE.fullmatch(text) is not None
            and (text[5:10] != "02-29" or _leap(int(text[:4]))))


def first_invalid(column: Sequence[str]) -> int | None:
    """Index of the first entry that is neither "" (unset) nor a valid timestamp; the
    column must hold strings. A column of canonical timestamps is checked in bulk."""
    try:
        shapes = set("\n".join(column).encode("ascii").translate(_DIGITS).split(b"\n"))
    except UnicodeEncodeError:
        shapes = set()
    if shapes <= {b"", _CANONICAL}:
        try:
            for _ in map(_parse, filter(None, column)):
                pass
            return None
        except ValueError:
            pass
    return next((i for i, t in enumerate(column) if t and not valid(t)), None)


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
