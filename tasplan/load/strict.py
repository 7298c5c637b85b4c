"""Decoding as strictly as the API server: the rules a hand-edited manifest can break.

* Duplicate mapping keys (YAML or JSON) are errors, as with kubectl's strict decoding.
* YAML scalars resolve as Kubernetes' YAML (go-yaml v2 through sigs.k8s.io/yaml) resolves
  them, not as YAML 1.1 in PyYAML: no base-60 numbers (``2:30`` stays a string), integers
  as Go's ``ParseInt`` reads them (``0x``, ``0o``, ``0b``, a leading ``0`` for octal,
  ``_`` ignored), and ``1e3`` is a number (PyYAML's part: ``kube_yaml``, imported only
  when libyaml reads a file).
* Integers outside int64, and numbers of more than ``MAX_DIGITS`` digits, are refused
  (Python would otherwise stop at its int-conversion limit with an internal error).
* NUL characters and lone surrogates (reachable through escapes) are refused.
* UTF-16/32 input is named as such instead of failing as "not UTF-8".

The checks cost little: duplicate YAML keys are seen by comparing sizes as each mapping is
built; JSON by comparing key counts of the input and of the decoded document re-encoded;
strings are only walked when the input holds an escape that can produce NUL or a surrogate.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import orjson

from tasplan.errors import StrictError
from tasplan.limits import INT64_MAX, INT64_MIN
from tasplan.load.nesting import too_deep

MAX_DIGITS = 4300  # Python's default int-conversion limit; no Kubernetes number comes close


# ---------------------------------------------------------------------------- encodings

_BOMS = ((b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"), (b"\xff\xfe\x00\x00", "UTF-32 "
         "(little-endian)"), (b"\xfe\xff", "UTF-16 (big-endian)"),
         (b"\xff\xfe", "UTF-16 (little-endian)"))


def encoding_problem(data: bytes) -> str | None:
    """Why ``data`` is not UTF-8 text when it is UTF-16 or UTF-32 (with or without a BOM):
    the first characters of a manifest are ASCII, so their zero bytes give it away."""
    head = data[:4]
    name = next((n for bom, n in _BOMS if head.startswith(bom)), None)
    if name is None and len(head) == 4:
        name = {(0, 0, 0, 1): "UTF-32 (big-endian)", (1, 0, 0, 0): "UTF-32 (little-endian)",
                (0, 1, 0, 1): "UTF-16 (big-endian)", (1, 0, 1, 0): "UTF-16 (little-endian)",
                }.get(tuple(int(b != 0) for b in head))
    if name is None:
        return None
    return f"the file is {name} text; Kubernetes reads UTF-8: convert it (e.g. iconv -t UTF-8)"


# ------------------------------------------------------------------------------ strings

# Escapes that can yield NUL or a lone surrogate; only then are the strings walked.
_RISKY_ESCAPE = re.compile(rb"\\(?:0|x00|u0000|U00000000|u[dD][89a-fA-F]|U0000[dD][89a-fA-F])")
_BAD_CHAR = re.compile("[\x00\ud800-\udfff]")


def risky_escape(data: bytes | bytearray) -> bool:
    """Whether ``data`` holds an escape that can produce NUL or a lone surrogate. Jumps
    from backslash to backslash (``find`` of one byte is memchr: a 4 GB dump in 0.4 s
    where the regex's own scan takes 2 s); a text dense with backslashes is left to the
    regex, whose answer is the same."""
    limit = len(data) >> 12
    pos = data.find(b"\\")
    seen = 0
    while pos >= 0:
        if _RISKY_ESCAPE.match(data, pos):
            return True
        seen += 1
        if seen > limit:
            return _RISKY_ESCAPE.search(data, pos) is not None
        pos = data.find(b"\\", pos + 1)
    return False


def check_strings(data: bytes, obj: Any) -> None:
    """Refuse NUL characters and lone surrogates anywhere in ``obj`` (keys included)."""
    if not _RISKY_ESCAPE.search(data):
        return
    stack = [obj]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str):
            bad = _BAD_CHAR.search(value)
            if bad:
                what = "a NUL character" if bad.group() == "\x00" else "a lone surrogate"
                raise StrictError(f"a string holds {what} (\\u{ord(bad.group()):04x}), which "
                                  "Kubernetes refuses")


# ---------------------------------------------------------------------------- JSON keys

def check_json_keys(data: bytes | bytearray, obj: Any, end: int | None = None) -> None:
    """Refuse duplicate keys in a JSON document ``obj`` was decoded from.

    orjson keeps the last of duplicate keys silently. Every key is followed by exactly one
    colon, and re-encoding writes every colon of a string literally, so the input has as
    many colons as the decoded document re-encoded -- unless a key was dropped (with it, its
    colon and any in its value) or the input escapes a colon (``\\u003a``). Only then is the
    input decoded again, slowly, to name the key and its line. Two C-speed byte counts and
    one re-encoding: a fraction of the parse. ``end``: the document is ``data[:end]``."""
    end = len(data) if end is None else end
    try:
        encoded = orjson.dumps(obj)
    except TypeError:  # "Recursion limit reached": deeper than orjson encodes
        raise too_deep(bytes(data[:end])) from None
    if data.count(b":", 0, end) == encoded.count(b":") and (
            data.find(b"\\u003", 0, end) < 0
            or (data.find(b"\\u003a", 0, end) < 0 and data.find(b"\\u003A", 0, end) < 0)):
        return
    _find_duplicate(bytes(data[:end]))


# An integer literal of 19 or more digits (not a fraction or exponent part): orjson reads
# one beyond int64 as a uint64 or silently as a float.
# A JSON number follows ":", "[", "," or white space (in a string, one rarely does: then the
# exact reader below only costs time).
_LONG_INT = re.compile(rb"(?<=[:\[,\s])-?[0-9]{19,}(?![0-9.eE])")


def long_int(data: bytes) -> bool:
    """Whether ``data`` may hold an integer literal beyond int64 (a cheap scan)."""
    return _LONG_INT.search(data) is not None


def check_json_ints(data: bytes) -> None:
    """Refuse JSON integers outside int64, as the API server (and the YAML path) does.
    A long digit run that may be a number sends the file through Python's JSON reader,
    which sees every integer literal exactly. One that follows a colon not preceded by a
    quote is inside a string (a structural colon always ends a key): image digests such as
    ``sha256:3220264326175167845...`` no longer cost a second, slow parse."""
    if not any(not _in_string(data, m.start()) for m in _long_ints(data)):
        return

    def integer(text: str) -> int:
        if len(text.lstrip("-")) > MAX_DIGITS:
            raise StrictError(f"number with {len(text)} digits is out of range (int64)")
        value = int(text)
        if not INT64_MIN <= value <= INT64_MAX:
            raise StrictError(f"integer {text[:30]}{'…' if len(text) > 30 else ''} is out of "
                              "range (int64)", _line_of(data, text.encode()))
        return value

    try:
        json.loads(data.decode("utf-8-sig"), parse_int=integer)
    except (ValueError, RecursionError) as exc:
        if isinstance(exc, StrictError):
            raise


_DIGIT_RUNS = bytes.maketrans(bytes(range(256)), bytes(
    ord("9") if chr(b).isdigit() and b < 128 else ord(" ") for b in range(256)))
_RUN = b"9" * 19


def _long_ints(data: bytes) -> Iterator[re.Match]:
    """``_LONG_INT``'s matches, found from the digit runs of 19 or more (a translation and
    a substring search at C speed) instead of trying the pattern at every byte."""
    runs = data.translate(_DIGIT_RUNS)
    at = runs.find(_RUN)
    while at >= 0:
        found = _LONG_INT.match(data, at - 1 if data[at - 1:at] == b"-" else at)
        if found:
            yield found
        end = runs.find(b" ", at)
        if end < 0:
            return
        at = runs.find(_RUN, end)


def _in_string(data: bytes, start: int) -> bool:
    """Whether the digit run at ``start`` is surely inside a JSON string: it follows a
    colon, and the colon does not end a key (a quote, perhaps then spaces, before it)."""
    if data[start - 1:start] != b":":
        return False
    before = data[max(0, start - 65):start - 1].rstrip()
    return bool(before) and before[-1:] != b'"'


def _line_of(data: bytes, needle: bytes) -> int | None:
    at = data.find(needle)
    return data.count(b"\n", 0, at) + 1 if at >= 0 else None


def _find_duplicate(data: bytes) -> None:
    def pairs(items: list[tuple[str, Any]]) -> dict:
        out = dict(items)
        if len(out) < len(items):
            seen: set[str] = set()
            for key, _ in items:
                if key in seen:
                    raise StrictError(f"duplicate key {key[:60]!r} in an object (Kubernetes "
                                      "refuses duplicate fields)", _line_of_key(data, key))
                seen.add(key)
        return out

    try:
        json.loads(data.decode("utf-8-sig"), object_pairs_hook=pairs)
    except (ValueError, RecursionError) as exc:
        if isinstance(exc, StrictError):
            raise


def _line_of_key(data: bytes, key: str) -> int | None:
    needle = orjson.dumps(key)
    first = data.find(needle)
    second = data.find(needle, first + 1) if first >= 0 else -1
    return data.count(b"\n", 0, second) + 1 if second >= 0 else None
