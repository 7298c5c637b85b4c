"""Find the recognised scheduling keys (``tasplan.model.scheduling_keys``) in an input
object: a bounded walk over its metadata at any depth (pod templates) and the registered
fields of its kind."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from tasplan.model.scheduling_keys import BY_KEY, FIELDS, Intent, SchedulingKey, Where
from tasplan.untrusted import QUOTE_CHARS, clean


def find_intents(obj: Mapping[str, Any], what: str, kind_id: str, *,
                 fields_only: bool = False, limit: int = 100_000) -> list[Intent]:
    """Every recognised key in ``obj`` (``what`` names it, ``kind_id`` is its
    ``group/Kind``): labels and annotations of its own and of every nested metadata (pod
    templates at any depth; not with ``fields_only``), and the registered fields of its
    kind. A bounded walk: at most ``limit`` nodes."""
    found: list[Intent] = []
    fields, ends = _fields(kind_id, fields_only)
    # (node, its parent's entry, its key or index): paths are spelt out only for a find.
    stack: list[tuple[Any, Any, str | int]] = [(obj, None, "")]
    seen = 0
    while stack and seen < limit:
        entry = stack.pop()
        node = entry[0]
        seen += 1
        if isinstance(node, dict):
            meta = node.get("metadata")
            if isinstance(meta, dict) and not fields_only:
                for where, section in ((Where.LABEL, "labels"),
                                       (Where.ANNOTATION, "annotations")):
                    values = meta.get(section)
                    if not isinstance(values, dict):
                        continue
                    for k, v in values.items():
                        key = BY_KEY.get((where, k)) if isinstance(k, str) else None
                        if key is not None:
                            path = _paths(entry)[0]
                            prefix = f"{path}.metadata" if path else "metadata"
                            found.append(Intent(key, what, f"{prefix}.{section}[{k}]",
                                                _shown(v)))
            for k, v in node.items():
                if not isinstance(k, str) or (k == "metadata" and isinstance(v, dict)):
                    continue
                if k.endswith(ends):  # else no registered field can match its path
                    path, bare = _paths(entry)
                    child, child_bare = (f"{path}.{k}" if path else k,
                                         f"{bare}.{k}" if bare else k)
                    for key, match in fields:
                        if match(child_bare) is not None and (
                                key.when is None or key.when(v if isinstance(v, str) else "")):
                            found.append(Intent(key, what, child, _shown(v)))
                if isinstance(v, _NESTED):
                    stack.append((v, entry, k))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                if isinstance(v, _NESTED):
                    stack.append((v, entry, i))
    found.sort(key=lambda i: i.path)
    return found


@cache
def _fields(kind_id: str, fields_only: bool
            ) -> tuple[list[tuple[SchedulingKey, Callable]], tuple[str, ...]]:
    """The registered fields to look for in an object of kind ``kind_id``, each with its
    pattern compiled as ``fnmatch.fnmatchcase`` compiles it (per kind, when first seen), and
    the endings a mapping key must have for any of them to match the path it ends: the
    pattern's last segment after its last wildcard (the whole pattern's last segment when
    it has none), or "" (every key) when that part holds ``?`` or ``[``."""
    fields = [(key, re.compile(fnmatch.translate(key.key)).match) for key in FIELDS
              if kind_id in key.kinds or not (key.kinds or fields_only)]
    return fields, tuple(_ending(key.key) for key, _ in fields)


def _ending(pattern: str) -> str:
    """What every path ``fnmatchcase(path, pattern)`` accepts ends with, within its last
    segment: a path ends with the literal text after the pattern's last ``*``, and a key
    ends its path after a dot (so with that text's part after its last dot)."""
    tail = pattern.rsplit("*", 1)[-1]
    return "" if "?" in tail or "[" in tail else tail.rsplit(".", 1)[-1]


_NESTED = (dict, list)


def _paths(entry: tuple[Any, Any, str | int]) -> tuple[str, str]:
    """The path of a node of the walk (``spec.containers[0]``) and the same without list
    indexes (``spec.containers``): keys joined by dots (none before the first), indexes in
    brackets."""
    keys = []
    while entry[1] is not None:
        keys.append(entry[2])
        entry = entry[1]
    path = bare = ""
    for key in reversed(keys):
        if isinstance(key, int):
            path = f"{path}[{key}]"
        else:
            path = f"{path}.{key}" if path else key
            bare = f"{bare}.{key}" if bare else key
    return path, bare


def _shown(value: object) -> str:
    if isinstance(value, str):
        text = value
    elif isinstance(value, dict | list):
        text = "{…}" if isinstance(value, dict) else "[…]"
    else:
        text = str(value)
    return clean(text[:QUOTE_CHARS]) + ("…" if len(text) > QUOTE_CHARS else "")


