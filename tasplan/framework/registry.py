"""Plugin name -> factory. The profile chooses which names run where."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tasplan.errors import ProfileError
from tasplan.framework.interfaces import Plugin

PluginFactory = Callable[[Mapping[str, Any]], Plugin]


class Registry:
    def __init__(self, factories: Mapping[str, PluginFactory] | None = None) -> None:
        self._factories: dict[str, PluginFactory] = {}
        for name, factory in (factories or {}).items():
            self.register(name, factory)

    def register(self, name: str, factory: PluginFactory) -> None:
        if name in self._factories:
            raise ValueError(f"a plugin named {name!r} is already registered")
        self._factories[name] = factory

    def __contains__(self, name: object) -> bool:
        return name in self._factories

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._factories))

    def create(self, name: str, args: Mapping[str, Any]) -> Plugin:
        """Factories validate their args; errors name the field relative to ``args``."""
        return self._factories[name](args)

    def build(self, name: str, args: Mapping[str, Any]) -> Plugin:
        """``create`` with argument errors naming the plugin (``NodeResourcesFit.args.x``)."""
        try:
            return self.create(name, args)
        except ProfileError as exc:
            where = f"{name}.args" + (f".{exc.field}" if exc.field else "")
            raise ProfileError(exc.source, exc.detail, field=where) from None
