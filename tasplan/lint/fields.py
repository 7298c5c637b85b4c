"""Reading a manifest's fields whatever their shape: a missing or mistyped field reads as
nothing (the schema rules report it), so semantic rules never fail on bad input."""

from __future__ import annotations

from typing import Any


def get(obj: Any, *path: str | int) -> Any:
    for part in path:
        if isinstance(part, int):
            obj = obj[part] if isinstance(obj, list) and part < len(obj) else None
        else:
            obj = obj.get(part) if isinstance(obj, dict) else None
        if obj is None:
            return None
    return obj


def text(obj: Any, *path: str | int) -> str:
    value = get(obj, *path)
    return value if isinstance(value, str) else ""


def items(obj: Any, *path: str | int) -> list[tuple[int, dict]]:
    value = get(obj, *path)
    if not isinstance(value, list):
        return []
    return [(i, item) for i, item in enumerate(value) if isinstance(item, dict)]
