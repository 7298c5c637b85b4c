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
from tasplan.load.yaml_dump import (
    PARALLEL_BYTES,
    UNICODE,
    aside,
    emit_json,
    quiet_stderr,
    risky,
)

CHUNK_BYTES = 1 << 23
_MARKER = re.compile(rb"^---(?:\n|\Z)", re.M)
_BLANK = re.compile(rb"(?:[ ]*(?:#[^\n]*)?(?:\n|\Z))*")
_TEXT_MARKER = re.compile(_MARKER.pattern.decode(), re.M)
_TEXT_BLANK = re.compile(_BLANK.pattern.decode())


class Roots(list):
    """``documents``' answer when it read the stream by shapes: ``shapes[i]`` numbers the
    shape of document ``i`` (documents of one shape are equal but for a plain
    ``metadata.name``), None for a null document."""

    shapes: list[int | None]


def documents(data: bytes) -> list[Any] | None:
    """The file's documents as libyaml's path constructs them, or None (read it there).
    Documents of one shape share their objects but for ``metadata`` (read-only, as every
    reader's objects are)."""
    if not data.isascii() and UNICODE.search(data):  # NEL, LS, PS, BOM: libyaml's
        return None
    if data.count(b"\n---\n", 0, SHAPES_SAMPLE) >= SHAPES_MIN:
        shaped = _by_shape(data)
        if shaped is not _NOT_SHAPED:
            return shaped
    return _chunked(data)


# A stream is read by shapes when its documents repeat: most of a sample of its first
# documents share a shape with another.
SHAPES_SAMPLE = 1 << 20  # bytes
SHAPES_MIN = 64  # markers in the sample
_NOT_SHAPED = Roots()
_NAME_LINE = b"metadata:\n  name: "
_AFTER_LINE = b"\n" + _NAME_LINE
_SAFE_NAME = re.compile(rb"[a-z][-a-z0-9]{0,62}")
# Plain scalars that a YAML 1.1 or 1.2 reader (or go-yaml, or rapidyaml's JSON) may read as
# other than the string: never taken as a name to swap.
_WORDS = frozenset(b"y n yes no on off true false null nan inf".split())
PLACEHOLDER = b"tasplan-shape-name"


def split_markers(data: bytes) -> list[bytes]:
    """``_MARKER.split(data)`` by C-speed splits (the regex tries ``^`` at every offset)."""
    split = _split(data, b"\n", b"---")
    if split is None:
        return _MARKER.split(data)
    head, parts = split
    parts[:-1] = [p + b"\n" for p in parts[:-1]]
    return [b"", *parts] if head else parts


def _split(data, nl, dashes):  # bytes or str alike
    """Whether a marker starts the text, and the text after it split at ``\n---\n`` (each
    part but the last then lacks the line break before its marker); None when a marker
    ends the text or two follow each other (the regex decides)."""
    marker = dashes + nl
    head = data.startswith(marker)
    parts = (data[4:] if head else data).split(nl + marker)
    last = parts[-1]
    if (last.endswith(nl + dashes) or last == dashes or nl + marker + marker in data
            or data.startswith(marker + marker) or data == marker + dashes):
        return None
    return head, parts


def shape(piece: bytes) -> tuple[bytes, str | None]:
    """The document with its ``metadata.name`` swapped for ``PLACEHOLDER``, and the name;
    the document itself and None unless the name is a plain word on the first line of a
    column-0 ``metadata:`` mapping (what every generated stream writes)."""
    if piece.startswith(_NAME_LINE):
        start = len(_NAME_LINE)
    else:
        at = piece.find(_AFTER_LINE)
        if at < 0:
            return piece, None
        start = at + len(_AFTER_LINE)
    end = piece.find(b"\n", start)
    if end < 0:
        end = len(piece)
    name = piece[start:end]
    if name in _WORDS or _SAFE_NAME.fullmatch(name) is None:
        return piece, None
    return piece[:start] + PLACEHOLDER + piece[end:], name.decode()


def _by_shape(data: bytes) -> Roots:
    """The documents, each distinct shape read once (by ``_chunked``, as a stream of the
    shapes); ``_NOT_SHAPED`` when the documents do not repeat. A shape is used only when
    the placeholder is its ``metadata.name`` and is nowhere else in it: then a document
    is its shape with that one plain scalar swapped, which every reader reads as the
    string it is."""
    sample = split_markers(data[:SHAPES_SAMPLE])[:-1]  # whole documents of the sample
    if len({shape(p)[0] for p in sample}) * 2 > len(sample):
        return _NOT_SHAPED
    pieces = split_markers(data)
    index: dict[bytes, int] = {}
    named: list[tuple[int, str | None]] = []
    for piece in pieces:
        key, name = shape(piece)
        k = index.get(key)
        if k is None:
            k = index[key] = len(index)
        named.append((k, name))
    kinds = list(index)
    blank = [_BLANK.fullmatch(k) is not None for k in kinds]
    # Read as a stream of the distinct shapes, in the order met; the file's last document
    # (it may lack its final line break, which a ``|+`` scalar keeps) stays last.
    order = sorted((k for k in range(len(kinds)) if not blank[k]),
                   key=lambda k: k == named[-1][0])
    roots = _chunked(b"".join(b"---\n" + kinds[k] for k in order))
    if roots is None or len(roots) != len(order):
        return _NOT_SHAPED  # the chunks of the whole stream decide
    forms: list[Any] = [None] * len(kinds)
    for k, root in zip(order, roots, strict=True):
        forms[k] = root
    swappable = [k.count(PLACEHOLDER) == 1 and isinstance(f, dict)
                 and isinstance(f.get("metadata"), dict)
                 and f["metadata"].get("name") == PLACEHOLDER.decode()
                 for k, f in zip(kinds, forms, strict=True)]
    out = Roots()
    out.shapes = shapes = []
    for number, (k, name) in enumerate(named):
        if blank[k]:  # libyaml: a null document, but no document before the first marker
            if number:
                out.append(None)
                shapes.append(None)
            continue
        form = forms[k]
        if name is not None:
            if not swappable[k]:
                return _NOT_SHAPED
            form = {**form, "metadata": {**form["metadata"], "name": name}}
        out.append(form)
        shapes.append(k)
    return out


def _chunked(data: bytes) -> list[Any] | None:
    """``documents``, reading the stream in chunks."""
    try:
        import ryml
    except ImportError:
        return None
    # The stream is read in chunks of a few megabytes, each cut before a marker line:
    # rapidyaml's tree and JSON of one chunk at a time stay small.
    bounds = list(_chunks(data, CHUNK_BYTES)) or [(0, 0)]
    marks = [markers(data, a, b) for a, b in bounds]
    # One scan of all the documents: its patterns never cross a line, and every document
    # starts one, so this is the scan of each (a file of many small documents would
    # otherwise pay the scan's set-up per document). A large stream is scanned in a forked
    # child while this process parses (``yaml_dump.aside``). When the scan finds something,
    # the scan of the non-blank documents alone decides (a blank one may hold a comment
    # such as "# yes").
    scan = aside(lambda: risky_lines(data)) if len(data) >= PARALLEL_BYTES else None
    if scan is None and risky_lines(data) and _risky_documents(data):
        return None
    # libyaml's numbering: every marker starts a document; text before the first is one
    # unless it is blank (comments only). Chunks after the first start with a marker.
    leading = _BLANK.fullmatch(data, 0, marks[0][1]) is None
    single = sum(count for count, _ in marks) == 0
    tree = ryml.Tree()
    roots: list[Any] | None = []
    view = memoryview(data)
    out = bytearray(2 * max(b - a for a, b in bounds) + 64)
    try:
        with quiet_stderr():
            for k, (a, b) in enumerate(bounds):
                expected = marks[k][0] + (leading and not k)
                try:
                    chunk = _stream(ryml, tree, view[a:b], expected, single=single,
                                    out=out) if expected else []
                except StrictError:  # a duplicate key, which the reading of its piece finds
                    return None
                if chunk is None:  # rapidyaml read the stream otherwise: ask it piece by
                    # piece, on a new tree (clearing the stream's, sized for a chunk of
                    # documents, costs its whole capacity per piece)
                    roots = _one_by_one(ryml, ryml.Tree(), _MARKER.split(data))
                    break
                roots.extend(chunk)
        if scan is not None and not scan.safe() and _risky_documents(data):
            return None
    finally:
        if scan is not None:
            scan.close()
    return roots


def _risky_documents(data: bytes) -> bool:
    """The scan of the non-blank documents (the whole stream's found something)."""
    return risky(b"".join(p for p in _MARKER.split(data) if _BLANK.fullmatch(p) is None))


def markers(data: bytes, start: int, end: int) -> tuple[int, int]:
    """``without_markers(data[start:end])``'s count and first marker, by C-speed counts
    where no two marker lines follow each other (``bytes.count`` does not overlap them)."""
    if data.find(b"\n---\n---", start, end) >= 0 or data.startswith(b"---\n---", start):
        _, count, first = without_markers(data[start:end])
        return count, first
    count = data.count(b"\n---\n", start, end)
    first = data.find(b"\n---\n", start, end) + 1 - start if count else end - start
    if data.startswith(b"---\n", start, end):
        count, first = count + 1, 0
    if end == len(data) and data.endswith(b"---", start) and (
            end - start == 3 or data[end - 4] == 10):  # "---" as the last line, unended
        count, first = count + 1, min(first, end - start - 3)
    return count, first


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


def risky_lines(data: bytes) -> bool:
    """``risky(without_markers(data)[0])``, scanning each distinct line once (the scan
    never crosses a line; a marker line is left out): generated streams repeat most of
    their lines (200,000 Pods: 3.2 million lines, 600,000 distinct; a kubectl dump of
    18,000 distinct Pods: 2.5 million, 290,000 distinct)."""
    distinct = set(data.split(b"\n"))
    distinct.discard(b"---")
    return risky(b"\n".join(distinct))


def _stream(ryml, tree, data: bytes | memoryview, expected: int, *, single: bool,
            out: bytearray | None = None) -> list[Any] | None:
    """Every document from one parse, written as one JSON array (200,000 small documents:
    a third of the time of one parse per document), when rapidyaml reads exactly the
    documents libyaml numbers; else None. Raises StrictError for a duplicate key. ``out``:
    the JSON's buffer, reused (``emit_json``)."""
    def accept(root: int) -> bool:
        if single:
            return not tree.is_stream(root)
        return tree.is_stream(root) and tree.num_children(root) == expected

    json = emit_json(ryml, tree, data, accept, quiet=False, stream=True, out=out)
    if json is None:
        return None
    try:
        roots = orjson.loads(json)
        if single:
            roots = [roots]
        check_json_keys(json.obj, roots, len(json))
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


def spans(data: bytes | str) -> list[tuple[int, int]]:
    """Where each document of ``documents`` is in the file (its bytes, or its text): (start,
    end) offsets, same numbering (lint composes only the document a finding is in)."""
    found = _spans_by_find(data)
    if found is not None:
        return found
    blank, marker_re = (_BLANK, _MARKER) if isinstance(data, bytes) else \
        (_TEXT_BLANK, _TEXT_MARKER)
    out: list[tuple[int, int]] = []
    start = 0
    for number, marker in enumerate([*marker_re.finditer(data), None]):
        end = len(data) if marker is None else marker.start()
        if number or not blank.fullmatch(data, start, end):
            out.append((start, end))
        if marker is not None:
            start = marker.end()
    return out


def _spans_by_find(data: bytes | str) -> list[tuple[int, int]] | None:
    """``spans`` where every ``\\n---\\n`` ends a document (its line break kept) and the
    next starts after it, as ``_split`` splits: found one by one, no copies; None where
    ``_split`` leaves it to the regex."""
    nl, dashes, blank = (b"\n", b"---", _BLANK) if isinstance(data, bytes) else \
        ("\n", "---", _TEXT_BLANK)
    marker, after = dashes + nl, nl + dashes + nl
    if (data.endswith(nl + dashes) or data == dashes or after + marker in data
            or data.startswith(marker + marker)):
        return None
    head = data.startswith(marker)
    out: list[tuple[int, int]] = []
    start, find = (4 if head else 0), data.find
    while True:
        at = find(after, start)
        end = len(data) if at < 0 else at + 1
        if head or start or not blank.fullmatch(data, start, end):
            out.append((start, end))
        if at < 0:
            return out
        start = at + 5
