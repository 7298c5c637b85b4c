"""Write a snapshot document: JSON, gzip when the name ends in .gz, through the one output
writer (regular files only, whole or not at all)."""

from __future__ import annotations

import gzip
import os
from typing import Any

import orjson

from tasplan.output_file import write_output_file


def write_snapshot(document: dict[str, Any], path: str | os.PathLike) -> int:
    """Write ``document`` as JSON to ``path`` (``-`` = stdout); returns the bytes written."""
    data = orjson.dumps(document)
    name = os.fspath(path)
    if name == "-":
        return write_output_file(name, data + b"\n")
    if name.lower().endswith(".gz"):
        data = gzip.compress(data, compresslevel=6, mtime=0)
    return write_output_file(name, data)
