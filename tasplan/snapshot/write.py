"""Write a snapshot document: atomically (temp file + rename), gzip when the name ends in .gz."""

from __future__ import annotations

import gzip
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

import orjson

from tasplan.errors import InputError
from tasplan.stdio import write_stdout


def write_snapshot(document: dict[str, Any], path: str | os.PathLike) -> int:
    """Write ``document`` as JSON to ``path`` (``-`` = stdout); returns the bytes written.

    The file appears complete or not at all: it is written next to the target and renamed
    over it, so an interrupted run never leaves half a snapshot."""
    data = orjson.dumps(document)
    target = Path(path)
    if str(target) == "-":
        write_stdout(data + b"\n")
        return len(data) + 1
    mode = _replaceable(target)
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
        os.chmod(tmp, mode if mode is not None else 0o644 & ~_umask())
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(str(target), f"cannot write: {exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(data)


def _replaceable(target: Path) -> int | None:
    """The mode of the regular file ``target`` replaces (None when there is none yet).
    Anything else -- a FIFO, a device, a directory, a symbolic link -- is refused: renaming
    over it would destroy what the user pointed at, or write where they did not mean."""
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputError(str(target), f"cannot write: {exc.strerror or exc}") from None
    if stat.S_ISLNK(info.st_mode):
        raise InputError(str(target), "is a symbolic link; snapshots are written to regular "
                         "files only (give the file it points to, or - for stdout)")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(str(target), "is not a regular file (a FIFO, device or directory); "
                         "snapshots are written to regular files only (- for stdout)")
    return stat.S_IMODE(info.st_mode)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
