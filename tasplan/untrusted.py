"""Text from inputs (file names, object names, labels, server messages) shown to people.

Such text may carry terminal escapes, newlines that forge an output line, or megabytes of
payload. ``clean`` makes it printable on one line (control characters and lone surrogates
escaped, as Python's ``repr`` would); ``quote`` additionally keeps only a short prefix, for
error lines that quote an offending value.
"""

from __future__ import annotations

import re

QUOTE_CHARS = 60  # an error line quotes at most this much of an offending value

# C0/C1 controls, DEL, line/paragraph separators, bidi overrides, lone surrogates.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean(text: str, keep: str = "") -> str:
    """``text`` with every control character (but those in ``keep``) escaped: safe in a
    terminal, and one line unless ``keep`` has a newline."""
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(lambda m: m.group() if m.group() in keep else _escape(m), text)


def quote(value: object, limit: int = QUOTE_CHARS) -> str:
    """A short, quoted, printable rendering of an untrusted value for an error line."""
    text = value if isinstance(value, str) else str(value)
    length = len(text)
    return f"'{clean(text[:limit])}'" + (f"… ({length} chars)" if length > limit else "")


def short_int(value: int) -> str:
    """An integer for an error line: huge ones by their digit count (``str()`` of a
    100,000-digit integer is slow and refused by Python's int-conversion limit)."""
    if -(10**18) < value < 10**18:
        return str(value)
    digits = value.bit_length() * 30103 // 100000 + 1
    return f"{'-' if value < 0 else ''}an integer of about {digits} digits"
