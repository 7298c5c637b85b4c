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
from typing import Any

import orjson

from tasplan.load.strict import StrictError, check_json_keys
from tasplan.load.yaml_dump import UNICODE, emit_json, quiet_stderr, risky

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
    pieces = _MARKER.split(data)  # the first is implicit: no document when blank
    blank = [_BLANK.fullmatch(piece) is not None for piece in pieces]
    # One scan of all the documents: its patterns never cross a line, and every piece
    # starts a line, so this is the scan of each piece (a file of many small documents
    # would otherwise pay the scan's set-up per document).
    if risky(b"".join(p for p, b in zip(pieces, blank, strict=True) if not b)):
        return None
    tree = ryml.Tree()
    roots: list[Any] = []
    with quiet_stderr():
        for number, piece in enumerate(pieces):
            if blank[number]:
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
