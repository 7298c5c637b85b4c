"""What ``tasplan capacity`` produces: the only thing its renderers read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ShapeFit:
    """Pods of one shape that fit in a domain now and with every pod gone but DaemonSet and
    mirror pods (cordons and taints stay); ``stranded`` is free capacity no further whole
    pod of the shape can use (free - now x request, per requested resource)."""

    now: int
    empty: int
    stranded: Mapping[str, int]
    # Whether a gang of the shape's size (``CapacityReport.gangs``) fits here now; None
    # when the shape has no gang size.
    holds: bool | None = None


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
class Box:
    """The topology as nested boxes, for the map: a domain of a ``nested`` level and the
    boxes of the next nested level inside it. A box whose domain has the name "" holds the
    nodes of its parent box that lack that level's label (``CapacityReport.outside``)."""

    domain: Domain
    children: tuple[Box, ...] = ()


@dataclass(frozen=True)
class Largest:
    """The most pods of a shape one domain of a level holds now (a gang of that size fits
    there), and the domains that hold that many; ``strict`` when one domain alone holds the
    most and the level has others to compare with (the ★ of the tree and the map)."""

    level: str
    shape: str
    now: int
    domains: tuple[str, ...]
    strict: bool = False


@dataclass(frozen=True)
class CapacityReport:
    levels: tuple[str, ...]
    shapes: tuple[tuple[str, Mapping[str, int]], ...]  # (name, requests)
    total: Domain  # the whole cluster (level "", name "cluster")
    domains: tuple[Domain, ...]
    largest: tuple[Largest, ...]
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    # Shape name -> gang size (the group's minCount for --for shapes, --gang for --shape).
    gangs: Mapping[str, int] = field(default_factory=dict)
    # The longest chain of levels, outermost first, in which every domain lies within one
    # domain of the level before; the other levels cut across them.
    nested: tuple[str, ...] = ()
    # Per nested level, the nodes of one enclosing box (or of the cluster) that lack the
    # level's label, as a domain named "" whose parent is that box's domain key.
    outside: tuple[Domain, ...] = ()
    # The whole cluster as nested boxes (root: ``total``).
    tree: Box | None = None
