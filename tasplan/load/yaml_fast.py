"""Manifest files read through rapidyaml, without positions, when the scan of
``load/yaml_dump.py`` proves that rapidyaml's JSON reads every scalar as Kubernetes does.

libyaml is 3x slower on manifests (a 1,024-pod workload file: 0.15 s against 0.05 s), and
positions are needed only for errors and findings: ``parse_bytes`` (check, explain, ...)
finds lines afterwards, lint composes libyaml's node tree only when a finding needs a line.
Documents are split at column-0 ``---`` lines and read one by one, with libyaml's numbering
(an empty explicit document is a null one; comments before the first ``---`` are no
document). Anything else -- a risky piece, a rapidyaml error, a
duplicate key -- and the file is read by libyaml as before, which reports the problem.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson

from tasplan.load.nesting import TooDeep
from tasplan.load.strict import StrictError, check_json_keys
from tasplan.load.yaml_dump import UNICODE, emit_json, quiet_stderr, risky

CHUNK_BYTES = 1 << 23
_MARKER = re.compile(rb"^---(?:\n|\Z)", re.M)
_BLANK = re.compile(rb"(?:[ ]*(?:#[^\n]*)?(?:\n|\Z))*")
_TEXT_MARKER = re.compile(_MARKER.pattern.decode(), re.M)
_TEXT_BLANK = re.compile(_BLANK.pattern.decode())


def documents(data: bytes) -> list[Any] | None:
    """The file's documents as libyaml's path constructs them, or None (read it there)."""
    if not data.isascii() and UNICODE.search(data):  # NEL, LS, PS, BOM: libyaml's
        return None
    try:
        import ryml
    except ImportError:
        return None
    # The stream is read in chunks of a few megabytes, each cut before a marker line:
    # rapidyaml's tree and JSON of one chunk at a time stay small.
    bounds = list(_chunks(data, CHUNK_BYTES)) or [(0, 0)]
    parts = [without_markers(data[a:b]) for a, b in bounds]
    # One scan of all the documents: its patterns never cross a line, and every document
    # starts one, so this is the scan of each (a file of many small documents would
    # otherwise pay the scan's set-up per document). The marker lines are left out; when
    # this finds something, the scan of the non-blank documents alone decides (a blank one
    # may hold a comment such as "# yes").
    pieces = None
    if risky_lines(b"".join(body for body, _, _ in parts)):
        pieces = _MARKER.split(data)
        if risky(b"".join(p for p in pieces if _BLANK.fullmatch(p) is None)):
            return None
    # libyaml's numbering: every marker starts a document; text before the first is one
    # unless it is blank (comments only). Chunks after the first start with a marker.
    leading = _BLANK.fullmatch(data, 0, parts[0][2]) is None
    single = sum(count for _, count, _ in parts) == 0
    tree = ryml.Tree()
    roots: list[Any] | None = []
    with quiet_stderr():
        for k, (a, b) in enumerate(bounds):
            expected = parts[k][1] + (leading and not k)
            try:
                chunk = _stream(ryml, tree, data[a:b], expected, single=single) \
                    if expected else []
            except StrictError:  # a duplicate key, which the reading of its piece finds too
                return None
            if chunk is None:  # rapidyaml read the stream otherwise: ask it piece by piece,
                # on a new tree (clearing the stream's, sized for a chunk of documents,
                # costs its whole capacity per piece)
                roots = _one_by_one(ryml, ryml.Tree(), pieces or _MARKER.split(data))
                break
            roots.extend(chunk)
    return roots


def _chunks(data: bytes, size: int) -> Iterator[tuple[int, int]]:
    """(start, end) of pieces of about ``size`` bytes, each but the first starting at a
    column-0 ``---`` line."""
    start = 0
    while start < len(data):
        cut = data.find(b"\n---\n", start + size) if start + size < len(data) else -1
        end = len(data) if cut < 0 else cut + 1
        yield start, end
        start = end


def without_markers(data: bytes) -> tuple[bytes, int, int]:
    """``_MARKER.subn(b"", data)`` and where the first marker starts (``len(data)`` when
    there is none), by C-speed replaces (the regex tries ``^`` at every offset: 1 s on
    60 MB). Every line that is exactly ``---`` goes, however many follow each other."""
    starts = [i + 1 for i in (data.find(b"\n---\n"),) if i >= 0]
    body, count = data, 0
    while body.startswith(b"---\n"):
        starts.append(0)
        body, count = body[4:], count + 1
    while True:
        shorter = body.replace(b"\n---\n", b"\n")
        if len(shorter) == len(body):
            break
        body, count = shorter, count + (len(body) - len(shorter)) // 4
    if body == b"---" or body.endswith(b"\n---"):
        starts.append(len(data) - 3)
        body, count = body[:-3], count + 1
    return body, count, min(starts, default=len(data))


def risky_lines(body: bytes) -> bool:
    """``risky(body)``, scanning each distinct line once (the scan never crosses a line):
    generated streams repeat most of their lines (200,000 Pods: 3.2 million lines, 200,000
    distinct)."""
    lines = body.split(b"\n")
    distinct = set(lines)  # any order: the answer is whether one line is risky
    if len(distinct) * 2 > len(lines):
        return risky(body)
    return risky(b"\n".join(distinct))


def _stream(ryml, tree, data: bytes, expected: int, *, single: bool) -> list[Any] | None:
    """Every document from one parse, written as one JSON array (200,000 small documents:
    a third of the time of one parse per document), when rapidyaml reads exactly the
    documents libyaml numbers; else None. Raises StrictError for a duplicate key."""
    def accept(root: int) -> bool:
        if single:
            return not tree.is_stream(root)
        return tree.is_stream(root) and tree.num_children(root) == expected

    json = emit_json(ryml, tree, data, accept, quiet=False, stream=True)
    if json is None:
        return None
    try:
        roots = orjson.loads(json)
        if single:
            roots = [roots]
        check_json_keys(bytes(json), roots)
    except (TooDeep, orjson.JSONDecodeError):  # the array is one level deeper
        return None
    return roots


def _one_by_one(ryml, tree, pieces: list[bytes]) -> list[Any] | None:
    """The documents parsed one by one (the split at column-0 ``---`` lines)."""
    roots: list[Any] = []
    for number, piece in enumerate(pieces):
        if _BLANK.fullmatch(piece) is not None:
            if number:
                roots.append(None)
            continue
        json = emit_json(ryml, tree, piece, quiet=False)
        if json is None:
            return None
        try:
            obj = orjson.loads(json)
            check_json_keys(bytes(json), obj)
        except (orjson.JSONDecodeError, StrictError):  # too deep too: libyaml names it
            return None
        roots.append(obj)
    return roots


def spans(text: str) -> list[tuple[int, int]]:
    """Where each document of ``documents`` is in the file's text: (start, end) offsets,
    same numbering (lint composes only the document a finding is in)."""
    out: list[tuple[int, int]] = []
    start = 0
    for number, marker in enumerate([*_TEXT_MARKER.finditer(text), None]):
        end = len(text) if marker is None else marker.start()
        if number or not _TEXT_BLANK.fullmatch(text, start, end):
            out.append((start, end))
        if marker is not None:
            start = marker.end()
    return out
