"""The methods ``dataclasses`` writes, compiled once per interpreter and kept like bytecode.

For every class ``@dataclass`` writes the source text of ``__init__``, ``__repr__``,
``__eq__``, ``__hash__``, ``__setattr__``, ... and compiles it with ``exec``: a ``check`` of
the samples creates ~125 classes (the model's records, the planner's, Rich's), ~700
compilations, a third of its instructions. The text depends only on the class statement,
so its compiled code can be kept as a module's bytecode is: the CLI gives ``dataclasses`` an
``exec`` that looks the text up in a table ``text -> code object`` before compiling it, and
keeps the table where tasplan's own bytecode is kept (its ``__pycache__``, or under
``PYTHONPYCACHEPREFIX``), named with the interpreter's cache tag, headed by its bytecode
magic number, written atomically and only when a run compiled something new, never under
``PYTHONDONTWRITEBYTECODE``.

The key is the whole text, so an entry is exactly what ``compile`` returns for it (flags
not inherited, as ``dataclasses`` has no ``__future__`` import) or is never used; a missing,
unreadable, foreign or oversized file is a cold start. Installed by the console script
only: library users' processes keep the plain ``exec``.
"""

from __future__ import annotations

import builtins
import contextlib
import marshal
import os
import sys
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from types import CodeType

_MAX_BYTES = 8 << 20  # a full table is ~1 MB: anything larger is not ours
_MAX_ENTRIES = 20_000
_table: dict[str, CodeType] = {}
_compiled = 0  # texts compiled by this process (not found in the table)
_used: set[str] = set()  # texts this process looked up
_path: Path | None = None


def cache_path() -> Path | None:
    """Where the table is kept: beside ``tasplan/__init__.py``'s bytecode, as
    ``importlib.util.cache_from_source`` places it; None for an interpreter that keeps none."""
    tag = sys.implementation.cache_tag
    if tag is None:
        return None
    package = Path(__file__).resolve().parents[1]
    name = f"dataclass-code.{tag}.marshal"
    if sys.pycache_prefix is not None:
        return Path(sys.pycache_prefix, *package.parts[1:], name)
    return package / "__pycache__" / name


def read(path: Path) -> dict[str, CodeType]:
    """The table kept at ``path``; empty when it is missing, foreign or damaged."""
    try:
        with path.open("rb") as f:
            data = f.read(_MAX_BYTES + 1)
    except OSError:
        return {}
    if len(data) > _MAX_BYTES or not data.startswith(MAGIC_NUMBER):
        return {}
    try:
        table = marshal.loads(data[len(MAGIC_NUMBER):])
    except (EOFError, ValueError, TypeError):
        return {}
    if type(table) is not dict or not all(
            type(k) is str and type(v) is CodeType for k, v in table.items()):
        return {}
    return table


def write(path: Path, table: dict[str, CodeType]) -> None:
    """Merge ``table`` (a run's texts) into the file at ``path``: other commands' texts are
    kept, unless the file would grow past its bounds (texts of older tasplan releases pile
    up there): then it holds ``table`` alone."""
    for kept in ({**read(path), **table}, table):
        data = MAGIC_NUMBER + marshal.dumps(kept)
        if len(kept) <= _MAX_ENTRIES and len(data) <= _MAX_BYTES:
            break
    else:
        return
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:  # a read-only install: every run compiles, as without the table
        with contextlib.suppress(OSError):
            tmp.unlink()


def cached_exec(source: object, *args: object, **kwargs: object) -> None:
    """``exec`` for ``dataclasses``: source text is compiled once per table."""
    global _compiled
    if type(source) is str:
        _used.add(source)
        code = _table.get(source)
        if code is None:
            code = compile(source, "<string>", "exec", dont_inherit=True)
            _table[source] = code
            _compiled += 1
        source = code
    builtins.exec(source, *args, **kwargs)


def install(path: Path | None) -> None:
    """Give ``dataclasses`` the cached ``exec``, with the table kept at ``path`` (once per
    process)."""
    global _path
    import dataclasses

    if getattr(dataclasses, "exec", None) is cached_exec:
        return
    _path = path
    if path is not None:
        _table.update(read(path))
    dataclasses.exec = cached_exec  # type: ignore[attr-defined]


def save() -> None:
    """Keep what this run compiled (an exit hook of the console script)."""
    if _path is not None and _compiled and not sys.dont_write_bytecode:
        write(_path, {text: _table[text] for text in _used})
