"""Typed access to fields of a raw object, with errors that say where and what."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tasplan.errors import InputError
from tasplan.limits import INT32_MAX, INT64_MAX, INT64_MIN
from tasplan.load.document import type_name
from tasplan.load.yaml_loader import locate
from tasplan.model.source import Source
from tasplan.untrusted import quote, short_int


class ObjectFields:
    """Wraps one raw object so decoders can ask for typed fields and fail precisely."""

    __slots__ = ("obj", "source")

    def __init__(self, source: Source, obj: Mapping[str, Any]) -> None:
        # Cheap on purpose: one is made per object on the load path; names are derived
        # only when an error needs them.
        self.source = source
        self.obj = obj

    @property
    def kind(self) -> str:
        kind = self.obj.get("kind")
        return kind if isinstance(kind, str) and kind else "object"

    @property
    def name(self) -> str:
        meta = self.obj.get("metadata")
        if not isinstance(meta, dict):
            return ""
        name, ns = meta.get("name"), meta.get("namespace")
        if not isinstance(name, str):
            return ""
        return f"{ns}/{name}" if isinstance(ns, str) and ns else name

    def error(self, field: str, message: str) -> InputError:
        prefix = self.source.field_prefix()
        full = f"{prefix}.{field}" if prefix and field else (prefix or field)
        line = locate(self.source.path, self.source.document, full)
        what = f"{self.kind} {self.name}".strip()
        return InputError(str(self.source.path), message, line=line, field=full, obj=what)

    def expected(self, field: str, what: str, got: object) -> InputError:
        shown = type_name(got) if not isinstance(got, str) else quote(got)
        return self.error(field, f"expected {what}, got {shown}")

    def mapping(self, value: object, field: str) -> Mapping[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.expected(field, "a mapping", value)
        return value

    def strict(self, value: object, field: str, known: Iterable[str]) -> Mapping[str, Any]:
        """A mapping with only ``known`` keys (decoders that reject unknown fields, as
        kube-scheduler's configuration decoding does)."""
        m = self.mapping(value, field)
        allowed = frozenset(known)
        for key in m:
            if key not in allowed:
                raise self.error(f"{field}.{key}" if field else key, "unknown field")
        return m

    def sequence(self, value: object, field: str) -> list:
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.expected(field, "a list", value)
        return value

    def string(self, value: object, field: str, *, required: bool = False) -> str:
        if value is None or value == "":
            if required:
                raise self.error(field, "required field is missing")
            return ""
        if not isinstance(value, str):
            raise self.expected(field, "a string", value)
        return value

    def integer(self, value: object, field: str, *, minimum: int | None = None,
                maximum: int = INT64_MAX) -> int:
        """An integer within the API server's bounds (int64, or ``maximum`` for its int32
        fields); the value is quoted short, as any untrusted text."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.expected(field, "an integer", value)
        if minimum is not None and value < minimum:
            raise self.error(field, f"expected an integer >= {minimum}, got {short_int(value)}")
        if value > maximum or value < INT64_MIN:
            raise self.error(field, f"expected an integer <= {maximum}, got {short_int(value)}")
        return value

    def int32(self, value: object, field: str, *, minimum: int | None = None) -> int:
        return self.integer(value, field, minimum=minimum, maximum=INT32_MAX)

    def string_map(self, value: object, field: str) -> dict[str, str]:
        m = self.mapping(value, field)
        for k, v in m.items():
            if not isinstance(v, str):
                raise self.expected(f"{field}.{k}", "a string", v)
        return m  # type: ignore[return-value]
