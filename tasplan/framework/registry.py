"""Plugin name -> factory. The profile chooses which names run where."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

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
        return self._factories[name](args)
