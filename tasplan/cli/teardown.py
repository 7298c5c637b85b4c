"""Skipping interpreter teardown: a command's large objects are never freed one by one.

Freeing a multi-GB snapshot object by object takes seconds (1 s at 5,000 nodes), all after
the output is written. A real process (``tasplan.cli.app.main``) ends with ``os._exit``
once its output is flushed; commands hand what they built to ``keep`` so it is still
referenced then, instead of being freed when the command function returns. In-process
callers (tests, library users) never enable this and keep normal lifetimes.
"""

from __future__ import annotations

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
