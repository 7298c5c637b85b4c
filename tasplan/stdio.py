"""Standard output that may be closed, a broken pipe or a full disk: one clear error."""

from __future__ import annotations

import atexit
import contextlib
import sys
from collections.abc import Callable

from tasplan.errors import TasplanError


class OutputError(TasplanError):
    """Standard output cannot be written: exit 2 with one line, never a traceback."""


def write_stdout(data: str | bytes) -> None:
    """Write ``data`` to standard output and flush it."""
    stream = sys.stdout
    try:
        if stream is None:
            raise OSError("standard output is closed")
        if isinstance(data, bytes):
            stream.buffer.write(data) if hasattr(stream, "buffer") else stream.write(
                data.decode())
        else:
            stream.write(data)
        stream.flush()
    except BrokenPipeError:
        raise OutputError("cannot write to standard output: the reader closed the pipe") \
            from None
    except (OSError, ValueError) as exc:  # ValueError: I/O operation on closed file
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise OutputError(f"cannot write to standard output: {reason}") from None


_EXIT_HOOKS: list[Callable[[], None]] = []


def on_exit(hook: Callable[[], None]) -> None:
    """Run ``hook`` when the process ends, also through ``os._exit`` (which skips atexit):
    temporary credential files must not outlive a run."""
    _EXIT_HOOKS.append(hook)


def run_exit_hooks() -> None:
    while _EXIT_HOOKS:
        hook = _EXIT_HOOKS.pop()
        with contextlib.suppress(Exception):  # best effort at exit
            hook()


atexit.register(run_exit_hooks)
