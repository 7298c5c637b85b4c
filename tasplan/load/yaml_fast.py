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
from tasplan.load.yaml_dump import UNICODE, emit_json, risky

_MARKER = re.compile(rb"^---(?:\n|\Z)", re.M)
_BLANK = re.compile(rb"(?:[ ]*(?:#[^\n]*)?(?:\n|\Z))*")


def documents(data: bytes) -> list[Any] | None:
    """The file's documents as libyaml's path constructs them, or None (read it there)."""
    if not data.isascii() and UNICODE.search(data):  # NEL, LS, PS, BOM: libyaml's
        return None
    try:
        import ryml
    except ImportError:
        return None
    pieces = _MARKER.split(data)  # the first is implicit: no document when blank
    tree = ryml.Tree()
    roots: list[Any] = []
    for number, piece in enumerate(pieces):
        if _BLANK.fullmatch(piece):
            if number:
                roots.append(None)
            continue
        if risky(piece):
            return None
        json = emit_json(ryml, tree, piece)
        if json is None:
            return None
        try:
            obj = orjson.loads(json)
            check_json_keys(bytes(json), obj)
        except (orjson.JSONDecodeError, StrictError):  # a too-deep one too: libyaml names it
            return None
        roots.append(obj)
    return roots
