"""Write a snapshot document: atomically (temp file + rename), gzip when the name ends in .gz."""

from __future__ import annotations

import gzip
import os
import tempfile
from pathlib import Path
from typing import Any

import orjson

from tasplan.errors import InputError


def write_snapshot(document: dict[str, Any], path: str | os.PathLike) -> int:
    """Write ``document`` as JSON to ``path`` (``-`` = stdout); returns the bytes written.

    The file appears complete or not at all: it is written next to the target and renamed
    over it, so an interrupted run never leaves half a snapshot."""
    data = orjson.dumps(document)
    target = Path(path)
    if str(target) == "-":
        import sys

        sys.stdout.buffer.write(data + b"\n")
        sys.stdout.flush()
        return len(data) + 1
    if target.suffix.lower() == ".gz":
        data = gzip.compress(data, compresslevel=6, mtime=0)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise InputError(str(target), f"cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o644 & ~_umask())
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(str(target), f"cannot write: {exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(data)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
