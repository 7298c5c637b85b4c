"""Small helpers shared by the loader tests: write inputs, find line numbers."""

from __future__ import annotations

import textwrap
from pathlib import Path


def write(directory: Path, name: str, text: str) -> Path:
    """Write dedented ``text`` to ``directory/name`` (creating parents) and return the path."""
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def line_of(path: Path, needle: str, occurrence: int = 1) -> int:
    """1-based number of the line holding the ``occurrence``-th match of ``needle``."""
    seen = 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{needle!r} (occurrence {occurrence}) not in {path}")
