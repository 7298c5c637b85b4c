"""Small constructors for DRA objects, in the spirit of upstream's allocator test helpers
(``sliceWithOneDevice``, ``claimWithRequest``, ``class``)."""

from __future__ import annotations

from tasplan.model.dra import (
    ClaimSpec,
    Constraint,
    Device,
    DeviceClass,
    DeviceRequest,
    DraInputs,
    ResourceSlice,
)
from tasplan.model.selectors import NodeSelectorTerm, Requirement
from tasplan.model.source import Source

SRC = Source("test.yaml")
DRIVER_A, DRIVER_B = "driver-a", "driver-b"
CLASS_A, CLASS_B = "class-a", "class-b"


def device_class(name: str = CLASS_A, driver: str = DRIVER_A, *extra: str) -> DeviceClass:
    return DeviceClass(name, (f'device.driver == "{driver}"', *extra), SRC)


def device(name: str, **attrs) -> Device:
    """``device("d", memory=("cap", "1Gi"), numa=("int", 1))``."""
    attributes = {}
    capacity = {}
    for key, (kind, value) in attrs.items():
        if kind == "cap":
            capacity[key] = value
        else:
            attributes[key] = (kind, value)
    return Device(name, attributes, capacity)


def qualify(driver: str, d: Device) -> Device:
    from dataclasses import replace
    return replace(d, attributes={f"{driver}/{k}" if "/" not in k else k: v
                                  for k, v in d.attributes.items()},
                   capacity={f"{driver}/{k}" if "/" not in k else k: v
                             for k, v in d.capacity.items()})


def local_slice(name: str, node: str, pool: str, driver: str = DRIVER_A, *devices: Device,
                generation: int = 1, count: int = 1) -> ResourceSlice:
    return ResourceSlice(name, driver, pool, generation, count, SRC, node_name=node,
                         devices=tuple(qualify(driver, d) for d in devices))


def selector_slice(name: str, term: NodeSelectorTerm, pool: str, driver: str = DRIVER_A,
                   *devices: Device) -> ResourceSlice:
    return ResourceSlice(name, driver, pool, 1, 1, SRC, node_selector=term,
                         devices=tuple(qualify(driver, d) for d in devices))


def all_nodes_slice(name: str, pool: str, driver: str = DRIVER_A,
                    *devices: Device) -> ResourceSlice:
    return ResourceSlice(name, driver, pool, 1, 1, SRC, all_nodes=True,
                         devices=tuple(qualify(driver, d) for d in devices))


def label_term(key: str, *values: str) -> NodeSelectorTerm:
    return NodeSelectorTerm((Requirement(key, "In", values),))


def request(name: str = "req-0", class_name: str = CLASS_A, count: int = 1, *selectors: str,
            **kw) -> DeviceRequest:
    return DeviceRequest(name, class_name, tuple(selectors), count=count, **kw)


def claim(*requests: DeviceRequest, constraints: tuple[Constraint, ...] = ()) -> ClaimSpec:
    return ClaimSpec(tuple(requests) or (request(),), constraints)


def inputs(classes=(), slices=(), claims=None, templates=None, rules=()) -> DraInputs:
    return DraInputs({c.name: c for c in classes}, tuple(slices), claims or {}, templates or {},
                     tuple(rules))
