"""Skipping interpreter teardown: a command's large objects are never freed one by one.

Freeing a multi-GB snapshot object by object takes seconds (1 s at 5,000 nodes), all after
the output is written. A real process (``tasplan.cli.app.main``) ends with ``os._exit``
once its output is flushed; commands hand what they built to ``keep`` so it is still
referenced then, instead of being freed when the command function returns. In-process
callers (tests, library users) never enable this and keep normal lifetimes.
"""

from __future__ import annotations

import contextlib
import os
import sys

from tasplan.stdio import run_exit_hooks

_kept: list[object] = []
_enabled = False


def enable() -> None:
    global _enabled
    _enabled = True


def enabled() -> bool:
    return _enabled


def keep(*objects: object) -> None:
    """Keep ``objects`` alive until the process exits (only when teardown is skipped)."""
    if _enabled:
        _kept.extend(objects)


def exit_now(code: int) -> None:
    """Flush, run the exit hooks and end the process without freeing what it built."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # closed or broken: the code says enough
            if stream is not None:
                stream.flush()
    run_exit_hooks()
    os._exit(code)
