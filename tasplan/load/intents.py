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
    stack: list[tuple[Any, str, str]] = [(obj, "", "")]  # node, path, path without indexes
    seen = 0
    while stack and seen < limit:
        node, path, bare = stack.pop()
        seen += 1
        if isinstance(node, dict):
            meta = node.get("metadata")
            if isinstance(meta, dict) and not fields_only:
                prefix = f"{path}.metadata" if path else "metadata"
                for where, section in ((Where.LABEL, "labels"),
                                       (Where.ANNOTATION, "annotations")):
                    values = meta.get(section)
                    if not isinstance(values, dict):
                        continue
                    for k, v in values.items():
                        key = BY_KEY.get((where, k)) if isinstance(k, str) else None
                        if key is not None:
                            found.append(Intent(key, what, f"{prefix}.{section}[{k}]",
                                                _shown(v)))
            for k, v in node.items():
                nested = isinstance(v, dict | list)
                if not isinstance(k, str) or (k == "metadata" and isinstance(v, dict)):
                    continue
                field = k.endswith(ends)  # no registered field can match otherwise
                if not (field or nested):
                    continue
                child, child_bare = (f"{path}.{k}" if path else k,
                                     f"{bare}.{k}" if bare else k)
                if field:
                    for key, match in fields:
                        if match(child_bare) is not None and (
                                key.when is None or key.when(v if isinstance(v, str) else "")):
                            found.append(Intent(key, what, child, _shown(v)))
                if nested:
                    stack.append((v, child, child_bare))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                if isinstance(v, dict | list):
                    stack.append((v, f"{path}[{i}]", bare))
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


def _shown(value: object) -> str:
    if isinstance(value, str):
        text = value
    elif isinstance(value, dict | list):
        text = "{…}" if isinstance(value, dict) else "[…]"
    else:
        text = str(value)
    return clean(text[:QUOTE_CHARS]) + ("…" if len(text) > QUOTE_CHARS else "")


