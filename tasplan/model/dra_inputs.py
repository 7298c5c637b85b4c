"""A pod's (or pod group's) DRA claim references and the snapshot's container of DRA
objects. The objects themselves (``model/dra.py``) are imported only by what reads them
(the DRA decoders, the DynamicResources plugin, explain): every run imports this module
(every Pod has ``claims``), few need those."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True, slots=True)
class PodClaim:
    """One entry of a pod's (or a pod group's) ``resourceClaims``: exactly one of
    ``claim_name`` / ``template_name``."""

    name: str
    claim_name: str = ""
    template_name: str = ""


@dataclass(frozen=True)
class DraInputs:
    """Every DRA object of the input. Claims and templates are keyed ``(namespace, name)``."""

    # Values: model/dra.py's DeviceClass, ResourceSlice, ResourceClaim,
    # ResourceClaimTemplate and DeviceTaintRule (not imported here).
    classes: Mapping[str, Any] = field(default_factory=dict)
    slices: tuple[Any, ...] = ()
    claims: Mapping[tuple[str, str], Any] = field(default_factory=dict)
    templates: Mapping[tuple[str, str], Any] = field(default_factory=dict)
    taint_rules: tuple[Any, ...] = ()

    def unallocated(self) -> DraInputs:
        """The same objects with every claim's allocation dropped: an empty cluster."""
        return replace(self, claims={k: replace(c, allocation=None)
                                     for k, c in self.claims.items()})


NO_DRA = DraInputs()
