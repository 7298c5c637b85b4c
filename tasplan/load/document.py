"""One input object and where it came from: what every reader yields and every decoder
takes."""

from __future__ import annotations

from typing import Any, NamedTuple

from tasplan.model.source import Source


class Document(NamedTuple):
    """One input object and where it came from (a tuple: one is made per object).

    ``model`` is the Node or Pod already decoded by the typed reader (``load/typed.py``);
    its ``obj`` then holds only ``apiVersion`` and ``kind``."""

    source: Source
    obj: dict[str, Any]
    model: Any = None


def type_name(value: object) -> str:
    if value is None:
        return "null"
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)
