"""What ``tasplan capacity`` produces: the only thing its renderers read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class ShapeFit:
    """Pods of one shape that fit in a domain now and with every pod gone but DaemonSet and
    mirror pods (cordons and taints stay); ``stranded`` is free capacity no further whole
    pod of the shape can use (free - now x request, per requested resource)."""

    now: int
    empty: int
    stranded: Mapping[str, int]


@dataclass(frozen=True)
class Domain:
    """One value of one topology key: ``parent`` is ``key=value`` of the enclosing domain
    (the nearest outer level whose domain holds all its nodes), None at the top."""

    level: str
    name: str
    parent: str | None
    nodes: int
    allocatable: Mapping[str, int]
    free: Mapping[str, int]
    fit: Mapping[str, ShapeFit]

    @property
    def key(self) -> str:
        return f"{self.level}={self.name}"


@dataclass(frozen=True)
class Largest:
    """The most pods of a shape one domain of a level holds now (a gang of that size fits
    there), and the domains that hold that many."""

    level: str
    shape: str
    now: int
    domains: tuple[str, ...]


@dataclass(frozen=True)
class CapacityReport:
    levels: tuple[str, ...]
    shapes: tuple[tuple[str, Mapping[str, int]], ...]  # (name, requests)
    total: Domain  # the whole cluster (level "", name "cluster")
    domains: tuple[Domain, ...]
    largest: tuple[Largest, ...]
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
