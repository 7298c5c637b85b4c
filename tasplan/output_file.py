"""The one writer of every output file (``snapshot -f``, ``capacity --svg/--html``, ``--html``
reports): regular files only, written whole or not at all.

Renaming a temporary file over the target is what makes a write atomic, and it is also what
would destroy a device node, a FIFO or a directory the user pointed at by mistake (run as
root, ``--svg /dev/full`` once replaced the machine's ``/dev/full``). So the target must be
a regular file or not exist; a symbolic link is refused too (renaming over it replaces the
link, not the file it points to). ``-`` is standard output where the option allows it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile

from tasplan.errors import InputError
from tasplan.stdio import write_stdout
from tasplan.untrusted import quote


def write_output_file(path: str | os.PathLike, data: bytes | str, *, option: str = "",
                      stdout: bool = True) -> int:
    """Write ``data`` (str is UTF-8) to ``path``; returns the bytes written.

    ``option`` names the flag in errors (``--svg``); ``stdout`` says whether ``-`` means
    standard output (else it is refused, as is every target that is not a regular file).
    The file is written next to the target, fsynced and renamed over it, keeping the mode
    of the file it replaces."""
    raw = data.encode() if isinstance(data, str) else data
    name = os.fspath(path)
    label = _label(name, option)
    mode = check_output_file(name, option=option, stdout=stdout)
    if name == "-":
        write_stdout(raw)
        return len(raw)
    directory = os.path.dirname(name) or "."
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(name)[:64]}.", suffix=".tmp",
                                   dir=directory)
    except OSError as exc:
        raise InputError(label, f"cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(raw)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode if mode is not None else 0o666 & ~_umask())
        os.replace(tmp, name)
    except OSError as exc:
        _unlink(tmp)
        raise InputError(label, f"cannot write: {exc.strerror or exc}") from None
    except BaseException:
        _unlink(tmp)
        raise
    return len(raw)


def check_output_file(path: str | os.PathLike, *, option: str = "",
                      stdout: bool = True) -> int | None:
    """Refuse a target ``write_output_file`` would refuse, before any work is done; returns
    the mode of the regular file it would replace (None: none yet, or standard output)."""
    name = os.fspath(path)
    label = _label(name, option)
    if name == "-":
        if not stdout:
            raise InputError(label, "expected a file name (this option does not write to "
                             "standard output)")
        return None
    if not name or name.endswith(os.sep) or not os.path.basename(name):
        raise InputError(label, "expected a file name, got "
                         f"{quote(name) if name else 'an empty one'}")
    if "\0" in name:
        raise InputError(label, "expected a file name, got one with a NUL character")
    try:
        info = os.lstat(name)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputError(label, f"cannot write: {exc.strerror or exc}") from None
    if stat.S_ISLNK(info.st_mode):
        raise InputError(label, "is a symbolic link; output is written to regular files only "
                         "(give the file it points to)")
    if stat.S_ISDIR(info.st_mode):
        raise InputError(label, "is a directory; expected a file name")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(label, "is not a regular file (a FIFO, socket or device); output is "
                         "written to regular files only")
    return stat.S_IMODE(info.st_mode)


def _label(name: str, option: str) -> str:
    shown = name or "''"
    return f"{option} {shown}" if option else shown


def _unlink(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
