"""Standard output that may be closed, a broken pipe or a full disk: one clear error."""

from __future__ import annotations

import atexit
import contextlib
import io
import sys
from collections.abc import Callable, Iterable

from rich.console import Console, RenderableType

from tasplan.errors import TasplanError


class OutputError(TasplanError):
    """Standard output cannot be written: exit 2 with one line, never a traceback."""


def render_text(renderables: Iterable[RenderableType]) -> str:
    """Renderables as the text standard output would show (its width and colours),
    rendered to memory: the output is written in one piece, or not at all."""
    probe = Console(highlight=False)
    out = Console(highlight=False, file=io.StringIO(), width=probe.width,
                  force_terminal=probe.is_terminal, color_system=probe.color_system,
                  soft_wrap=False)
    for renderable in renderables:
        out.print(renderable)
    return out.file.getvalue()


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
