"""A PodSet's topology request, as Kueue builds it from pod-template annotations.

Mirrors ``pkg/controller/jobframework/tas.go`` (``podSetTopologyRequestBuilder.Build``)
and ``pkg/util/tas/tas.go`` (``PodSetSliceRequiredTopologyConstraints``) of
kubernetes-sigs/kueue at ff69552e.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from tasplan.schedulers.kueue.gates import MULTI_LAYER, Gates

PREFIX = "kueue.x-k8s.io/"
REQUIRED = PREFIX + "podset-required-topology"
PREFERRED = PREFIX + "podset-preferred-topology"
UNCONSTRAINED = PREFIX + "podset-unconstrained-topology"
SLICE_REQUIRED = PREFIX + "podset-slice-required-topology"
SLICE_SIZE = PREFIX + "podset-slice-size"
SLICE_CONSTRAINTS = PREFIX + "podset-slice-required-topology-constraints"
GROUP_NAME = PREFIX + "podset-group-name"
QUEUE_NAME = PREFIX + "queue-name"
PODSET_ANNOTATIONS = (REQUIRED, PREFERRED, UNCONSTRAINED, SLICE_REQUIRED, SLICE_SIZE,
                      SLICE_CONSTRAINTS, GROUP_NAME)


class RequestError(ValueError):
    """Kueue's builder refuses the annotations (the Workload is not created)."""


@dataclass(frozen=True, slots=True)
class SliceLayer:
    topology: str
    size: int


@dataclass(frozen=True, slots=True)
class TopologyRequest:
    """``kueue.PodSetTopologyRequest``; ``layers`` is the multi-layer annotation and
    ``slice_topology``/``slice_size`` the older single-layer pair."""

    required: str | None = None
    preferred: str | None = None
    unconstrained: bool | None = None
    slice_topology: str | None = None
    slice_size: int | None = None
    layers: tuple[SliceLayer, ...] = ()
    group: str | None = None
    pod_index_label: str | None = None
    sub_group_index_label: str | None = None
    sub_group_count: int | None = None

    def slice_layers(self) -> tuple[SliceLayer, ...]:
        """Both annotation forms as one list of layers, outermost first."""
        if self.layers:
            return self.layers
        if self.slice_topology is None:
            return ()
        return (SliceLayer(self.slice_topology, self.slice_size or 0),)

    @property
    def explicit(self) -> bool:
        """``workload.IsExplicitlyRequestingTAS``: a level, unconstrained, or slices."""
        return (self.required is not None or self.preferred is not None
                or self.unconstrained is not None or bool(self.slice_layers()))


def build(annotations: Mapping[str, str], gates: Gates, *, pod_index_label: str | None = None,
          sub_group_index_label: str | None = None,
          sub_group_count: int | None = None) -> TopologyRequest | None:
    """The request Kueue derives from one pod template's annotations; None when the PodSet
    asks nothing of TAS (it may still get an implied request from a TAS-only queue)."""
    required = annotations.get(REQUIRED)
    preferred = annotations.get(PREFERRED)
    unconstrained_text = annotations.get(UNCONSTRAINED)
    slice_topology = annotations.get(SLICE_REQUIRED)
    slice_size_text = annotations.get(SLICE_SIZE)
    constraints = annotations.get(SLICE_CONSTRAINTS)
    group = annotations.get(GROUP_NAME)

    unconstrained = None
    if required is not None:
        preferred = None
    elif preferred is not None:
        pass
    elif unconstrained_text is not None:
        unconstrained = parse_go_bool(unconstrained_text)
        if unconstrained is None:
            raise RequestError(f"strconv.ParseBool: parsing {unconstrained_text!r}: invalid "
                               "syntax")
    else:
        has_layer = (slice_topology is not None and slice_size_text is not None) \
            or constraints is not None
        if not has_layer and pod_index_label is None and sub_group_index_label is None \
                and sub_group_count is None:
            return None

    layers: tuple[SliceLayer, ...] = ()
    single_topology, single_size = None, None
    if MULTI_LAYER in gates and constraints is not None:
        layers = parse_layers(constraints)
    elif slice_topology is not None and slice_size_text is not None:
        size = parse_go_int32(slice_size_text)
        if size is None:
            raise RequestError(f"strconv.ParseInt: parsing {slice_size_text!r}: invalid syntax")
        single_topology, single_size = slice_topology, size
    return TopologyRequest(
        required=required, preferred=preferred, unconstrained=unconstrained,
        slice_topology=single_topology, slice_size=single_size, layers=layers,
        group=group if group is not None and (required is not None or preferred is not None)
        else None,
        pod_index_label=pod_index_label, sub_group_index_label=sub_group_index_label,
        sub_group_count=sub_group_count)


def from_workload(topology: Mapping[str, object] | None, gates: Gates
                  ) -> TopologyRequest | None:
    """The request a Workload object stores (``spec.podSets[].topologyRequest``, what the
    job integration built from the annotations); None when it has none."""
    if not topology:
        return None
    layers: tuple[SliceLayer, ...] = ()
    raw = topology.get("podsetSliceRequiredTopologyConstraints")
    if MULTI_LAYER in gates and raw:
        items = []
        for item in raw:  # the decoder checked it is a list
            if not isinstance(item, dict) or not isinstance(item.get("topology"), str) \
                    or type(item.get("size")) is not int:
                raise RequestError("podsetSliceRequiredTopologyConstraints: expected "
                                   "{topology: <label>, size: <int>} entries")
            items.append(SliceLayer(item["topology"], item["size"]))
        layers = tuple(items)

    def text(key: str) -> str | None:
        value = topology.get(key)
        return value if isinstance(value, str) else None

    def number(key: str) -> int | None:
        value = topology.get(key)
        return value if type(value) is int else None

    unconstrained = topology.get("unconstrained")
    return TopologyRequest(
        required=text("required"), preferred=text("preferred"),
        unconstrained=unconstrained if isinstance(unconstrained, bool) else None,
        slice_topology=None if layers else text("podSetSliceRequiredTopology"),
        slice_size=None if layers else number("podSetSliceSize"), layers=layers,
        group=text("podSetGroupName"), pod_index_label=text("podIndexLabel"),
        sub_group_index_label=text("subGroupIndexLabel"),
        sub_group_count=number("subGroupCount"))


def parse_layers(text: str) -> tuple[SliceLayer, ...]:
    """The JSON array of ``{topology, size}`` (1 to 3 layers), as ``json.Unmarshal`` into
    ``[]PodsetSliceRequiredTopologyConstraint`` reads it."""
    try:
        value = json.loads(text)
    except ValueError as err:
        raise RequestError(f"failed to parse multi-layer topology constraints annotation: "
                           f"{err}") from None
    if value is None:
        value = []
    if not isinstance(value, list):
        raise RequestError("failed to parse multi-layer topology constraints annotation: "
                           "expected a JSON array")
    layers = []
    for item in value:
        if item is None:
            item = {}
        if not isinstance(item, dict):
            raise RequestError("failed to parse multi-layer topology constraints annotation: "
                               "expected objects {\"topology\": ..., \"size\": ...}")
        topology = _json_field(item, "topology", str, "")
        size = _json_field(item, "size", int, 0)
        if isinstance(size, bool) or not -2**31 <= size < 2**31:
            raise RequestError("failed to parse multi-layer topology constraints annotation: "
                               "size is not an int32")
        layers.append(SliceLayer(topology, size))
    if not 1 <= len(layers) <= 3:
        raise RequestError(f"topology constraints must contain between 1 and 3 entries: got "
                           f"{len(layers)}")
    return tuple(layers)


def _json_field(item: dict, name: str, kind: type, default):
    # encoding/json matches field names case-insensitively; the exact name wins.
    value = item.get(name, default) if name in item else next(
        (v for k, v in item.items() if k.lower() == name), default)
    if value is None:
        return default
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RequestError(f"failed to parse multi-layer topology constraints annotation: "
                           f"{name} has the wrong type")
    return value


def parse_go_bool(text: str) -> bool | None:
    """``strconv.ParseBool``."""
    if text in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if text in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    return None


def parse_go_int32(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 32)``: optional sign, decimal digits, in range."""
    body = text[1:] if text[:1] in "+-" else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    value = int(text)
    return value if -2**31 <= value < 2**31 else None
