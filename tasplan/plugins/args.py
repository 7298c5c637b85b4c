"""Typed access to plugin arguments (``pluginConfig[].args``), strict as upstream decodes
them (``strict`` rejects unknown fields).

Plugin factories validate their own arguments, as upstream's ``New`` functions do. They
cannot know which file or profile the arguments came from, so errors name the field
relative to ``args``; the scheduler-config loader prefixes the path and adds file:line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tasplan.errors import ProfileError
from tasplan.load.fields import ObjectFields
from tasplan.model.source import Source

_NOWHERE = Source("<profile>")
# Every args kind may carry its TypeMeta (``kind: NodeResourcesFitArgs``).
TYPE_META = frozenset({"apiVersion", "kind"})


class ArgFields(ObjectFields):
    """ObjectFields whose errors are ProfileErrors with a path relative to ``args``."""

    __slots__ = ()

    def __init__(self, args: Mapping[str, Any]) -> None:
        super().__init__(_NOWHERE, args)

    def error(self, field: str, message: str) -> ProfileError:
        return ProfileError(_NOWHERE.path, message, field=field)
