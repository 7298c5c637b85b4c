"""Write a snapshot document: JSON or binary (``.tsnap``), gzip when the name ends in .gz,
through the one output writer (regular files only, whole or not at all)."""

from __future__ import annotations

import gzip
import os
from typing import Any

import orjson

from tasplan.output_file import write_output_file
from tasplan.snapshot.signature import SUFFIX

JSON, BINARY = "json", "binary"


def format_for(path: str | os.PathLike) -> str:
    """The format a file name asks for: binary for ``.tsnap`` (``.tsnap.gz``), else JSON."""
    name = os.fspath(path).lower().removesuffix(".gz")
    return BINARY if name.endswith(SUFFIX) else JSON


def write_snapshot(document: dict[str, Any], path: str | os.PathLike,
                   fmt: str | None = None) -> int:
    """Write ``document`` to ``path`` (``-`` = stdout) as JSON or binary (``fmt``; by
    default what the name asks for); returns the bytes written."""
    name = os.fspath(path)
    if (fmt or format_for(name)) == BINARY:
        from tasplan.snapshot import binary  # msgspec: for binary snapshots only

        data = binary.encode(document)
    else:
        data = orjson.dumps(document)
        if name == "-":
            return write_output_file(name, data + b"\n")
    if name == "-":
        return write_output_file(name, data)
    if name.lower().endswith(".gz"):
        data = gzip.compress(data, compresslevel=6, mtime=0)
    return write_output_file(name, data)
