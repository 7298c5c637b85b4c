"""Quantities for people: short and rounded (JSON keeps exact Kubernetes quantities)."""

from __future__ import annotations

_BYTES = (("Ti", 1024**4), ("Gi", 1024**3), ("Mi", 1024**2), ("Ki", 1024))


def human(resource: str, value: int) -> str:
    if resource == "cpu":
        cores = value / 1000
        return f"{cores:.0f}" if value % 1000 == 0 else f"{cores:.1f}"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        for unit, size in _BYTES:
            if abs(value) >= size:
                amount = value / size
                return f"{amount:.0f}{unit}" if value % size == 0 else f"{amount:.1f}{unit}"
        return str(value)
    return str(value)


def short_resource(resource: str) -> str:
    """``nvidia.com/gpu`` -> ``gpu``: tables have little room."""
    return resource.rsplit("/", 1)[-1]
