"""``resource.k8s.io`` objects -> the DRA model.

v1 is the reference. v1beta2 has the same field names. v1beta1 differs in two places,
both read here: a device's fields sit under ``basic``, and a request carries its class,
selectors, mode and count itself instead of under ``exactly``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from tasplan.load.core_v1 import node_selector_term
from tasplan.load.fields import ObjectFields
from tasplan.load.kinds import DRA_GROUP, DRA_KINDS, DRA_VERSIONS
from tasplan.model.dra import (
    ALL,
    EXACT_COUNT,
    AllocatedDevice,
    Allocation,
    ClaimSpec,
    Constraint,
    Device,
    DeviceClass,
    DeviceRequest,
    DeviceTaintRule,
    NodeReach,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)
from tasplan.model.quantity import QuantityError, parse_value
from tasplan.model.source import Source
from tasplan.model.taints import Taint, Toleration
from tasplan.untrusted import quote

GROUP = DRA_GROUP
VERSIONS = DRA_VERSIONS
KINDS = DRA_KINDS
# Device taint effects: None never blocks scheduling; unknown ones are kept (they never
# block either, as upstream treats effects it does not know).
DEVICE_TAINT_EFFECTS = ("NoSchedule", "NoExecute", "None")
ATTRIBUTE_TYPES = {"int": "int", "bool": "bool", "string": "string", "version": "version"}


def _meta(f: ObjectFields, obj: Mapping[str, Any], namespaced: bool) -> tuple[str, str, Mapping]:
    meta = f.mapping(obj.get("metadata"), "metadata")
    name = f.string(meta.get("name"), "metadata.name", required=True)
    ns = (f.string(meta.get("namespace"), "metadata.namespace") or "default") if namespaced else ""
    return ns, name, meta


# The API server's bounds (k8s.io/api/resource/v1 types.go, enforced by
# pkg/apis/resource/validation): what it refuses, tasplan refuses with the field.
MAX_REQUESTS = 32  # DeviceRequestsMaxSize
MAX_SUBREQUESTS = 8  # FirstAvailableDeviceRequestMaxSize
MAX_SELECTORS = 32  # DeviceSelectorsMaxSize
MAX_CONSTRAINTS = 32  # DeviceConstraintsMaxSize
MAX_TOLERATIONS = 16  # DeviceTolerationsMaxLength
MAX_SLICE_DEVICES = 128  # ResourceSliceMaxDevices
MAX_EXPRESSION = 10 * 1024  # CELSelectorExpressionMaxLength
TOLERATION_EFFECTS = ("", "NoSchedule", "NoExecute")


def _bounded(f: ObjectFields, raw: object, path: str, most: int) -> list:
    items = f.sequence(raw, path)
    if len(items) > most:
        raise f.error(path, f"must have at most {most} items, got {len(items)}")
    return items


def _selectors(f: ObjectFields, raw: object, path: str) -> tuple[str, ...]:
    out = []
    for i, sel in enumerate(_bounded(f, raw, path, MAX_SELECTORS)):
        sel = f.mapping(sel, f"{path}[{i}]")
        cel = f.mapping(sel.get("cel"), f"{path}[{i}].cel")
        if not cel:
            raise f.error(f"{path}[{i}]", "expected a cel selector (the only kind upstream "
                          "defines)")
        expression = f.string(cel.get("expression"), f"{path}[{i}].cel.expression",
                              required=True)
        if len(expression) > MAX_EXPRESSION:
            raise f.error(f"{path}[{i}].cel.expression", f"may not be longer than "
                          f"{MAX_EXPRESSION} bytes, got {len(expression)}")
        out.append(expression)
    return tuple(out)


def decode_device_class(source: Source, obj: Mapping[str, Any]) -> DeviceClass:
    f = ObjectFields(source, obj)
    _, name, _ = _meta(f, obj, False)
    spec = f.mapping(obj.get("spec"), "spec")
    return DeviceClass(name, _selectors(f, spec.get("selectors"), "spec.selectors"), source,
                       f.string(spec.get("extendedResourceName"), "spec.extendedResourceName"))


def _qualified(driver: str, name: str) -> str:
    return name if "/" in name else f"{driver}/{name}"


def _quantity(f: ObjectFields, value: object, path: str) -> int:
    try:
        return parse_value(value)  # type: ignore[arg-type]
    except QuantityError as exc:
        raise f.error(path, f"invalid quantity: {exc}") from None


def _taint(f: ObjectFields, raw: object, path: str) -> Taint:
    raw = f.mapping(raw, path)
    effect = f.string(raw.get("effect"), f"{path}.effect", required=True)
    return Taint(f.string(raw.get("key"), f"{path}.key", required=True),
                 f.string(raw.get("value"), f"{path}.value"), effect)


def _device(f: ObjectFields, driver: str, raw: object, path: str, per_device: bool) -> Device:
    raw = f.mapping(raw, path)
    name = f.string(raw.get("name"), f"{path}.name", required=True)
    body = raw
    if "basic" in raw:  # v1beta1
        body = f.mapping(raw.get("basic"), f"{path}.basic")
        path = f"{path}.basic"
    attributes: dict[str, tuple[str, object]] = {}
    for key, value in f.mapping(body.get("attributes"), f"{path}.attributes").items():
        apath = f"{path}.attributes.{key}"
        value = f.mapping(value, apath)
        kinds = [k for k in ATTRIBUTE_TYPES if k in value]
        if len(kinds) != 1:
            raise f.error(apath, "expected exactly one of int, bool, string, version")
        kind = kinds[0]
        v = value[kind]
        ok = (isinstance(v, bool) if kind == "bool"
              else isinstance(v, int) and not isinstance(v, bool) if kind == "int"
              else isinstance(v, str))
        if not ok:
            raise f.expected(f"{apath}.{kind}", f"a {kind} value", v)
        attributes[_qualified(driver, key)] = (kind, v)
    capacity: dict[str, str] = {}
    for key, value in f.mapping(body.get("capacity"), f"{path}.capacity").items():
        cpath = f"{path}.capacity.{key}"
        value = f.mapping(value, cpath)
        q = value.get("value")
        _quantity(f, q, f"{cpath}.value")
        capacity[_qualified(driver, key)] = str(q)
    consumes = []
    for i, c in enumerate(f.sequence(body.get("consumesCounters"), f"{path}.consumesCounters")):
        cpath = f"{path}.consumesCounters[{i}]"
        c = f.mapping(c, cpath)
        counter_set = f.string(c.get("counterSet"), f"{cpath}.counterSet", required=True)
        counters = {k: _quantity(f, f.mapping(v, f"{cpath}.counters.{k}").get("value"),
                                 f"{cpath}.counters.{k}.value")
                    for k, v in f.mapping(c.get("counters"), f"{cpath}.counters").items()}
        consumes.append((counter_set, counters))
    taints = tuple(_taint(f, t, f"{path}.taints[{i}]")
                   for i, t in enumerate(f.sequence(body.get("taints"), f"{path}.taints")))
    node_name = f.string(body.get("nodeName"), f"{path}.nodeName")
    selector = body.get("nodeSelector")
    all_nodes = body.get("allNodes") is True
    if per_device and sum([bool(node_name), selector is not None, all_nodes]) != 1:
        raise f.error(path, "with perDeviceNodeSelection every device needs exactly one of "
                      "nodeName, nodeSelector, allNodes")
    return Device(
        name=name, attributes=attributes, capacity=capacity, consumes=tuple(consumes),
        taints=taints, node_name=node_name,
        node_selector=_one_term(f, selector, f"{path}.nodeSelector"),
        all_nodes=all_nodes, binds_to_node=body.get("bindsToNode") is True,
        binding_conditions=tuple(f.sequence(body.get("bindingConditions"),
                                            f"{path}.bindingConditions")),
        allow_multiple_allocations=body.get("allowMultipleAllocations") is True,
        content=orjson.dumps([body.get("attributes"), body.get("capacity"),
                              body.get("allowMultipleAllocations") is True],
                             option=orjson.OPT_SORT_KEYS),
    )


def _one_term(f: ObjectFields, raw: object, path: str):
    if raw is None:
        return None
    terms = f.sequence(f.mapping(raw, path).get("nodeSelectorTerms"), f"{path}.nodeSelectorTerms")
    if len(terms) != 1:
        raise f.error(f"{path}.nodeSelectorTerms", f"expected exactly 1 term, got {len(terms)}")
    return node_selector_term(f, terms[0], f"{path}.nodeSelectorTerms[0]")


def decode_resource_slice(source: Source, obj: Mapping[str, Any]) -> ResourceSlice:
    f = ObjectFields(source, obj)
    _, name, _ = _meta(f, obj, False)
    spec = f.mapping(obj.get("spec"), "spec")
    driver = f.string(spec.get("driver"), "spec.driver", required=True)
    pool = f.mapping(spec.get("pool"), "spec.pool")
    pool_name = f.string(pool.get("name"), "spec.pool.name", required=True)
    generation = f.integer(pool.get("generation", 0), "spec.pool.generation", minimum=0)
    count = f.integer(pool.get("resourceSliceCount", 1), "spec.pool.resourceSliceCount",
                      minimum=1)
    node_name = f.string(spec.get("nodeName"), "spec.nodeName")
    selector = spec.get("nodeSelector")
    all_nodes = spec.get("allNodes") is True
    per_device = spec.get("perDeviceNodeSelection") is True
    modes = sum([bool(node_name), selector is not None, all_nodes, per_device])
    if modes != 1:
        raise f.error("spec", "expected exactly one of nodeName, nodeSelector, allNodes, "
                      f"perDeviceNodeSelection, got {modes}")
    devices = tuple(_device(f, driver, d, f"spec.devices[{i}]", per_device)
                    for i, d in enumerate(_bounded(f, spec.get("devices"), "spec.devices",
                                                   MAX_SLICE_DEVICES)))
    counters: dict[str, dict[str, int]] = {}
    for i, cs in enumerate(f.sequence(spec.get("sharedCounters"), "spec.sharedCounters")):
        path = f"spec.sharedCounters[{i}]"
        cs = f.mapping(cs, path)
        set_name = f.string(cs.get("name"), f"{path}.name", required=True)
        counters[set_name] = {
            k: _quantity(f, f.mapping(v, f"{path}.counters.{k}").get("value"),
                         f"{path}.counters.{k}.value")
            for k, v in f.mapping(cs.get("counters"), f"{path}.counters").items()}
    if devices and counters:
        raise f.error("spec", "a slice carries devices or sharedCounters, not both")
    return ResourceSlice(
        name=name, driver=driver, pool=pool_name, generation=generation, slice_count=count,
        source=source, node_name=node_name,
        node_selector=_one_term(f, selector, "spec.nodeSelector"), all_nodes=all_nodes,
        per_device=per_device, devices=devices, shared_counters=counters)


def _tolerations(f: ObjectFields, raw: object, path: str) -> tuple[Toleration, ...]:
    out = []
    for i, t in enumerate(_bounded(f, raw, path, MAX_TOLERATIONS)):
        tpath = f"{path}[{i}]"
        t = f.mapping(t, tpath)
        operator = f.string(t.get("operator"), f"{tpath}.operator") or "Equal"
        if operator not in ("Equal", "Exists"):
            raise f.expected(f"{tpath}.operator", "Equal or Exists", operator)
        effect = f.string(t.get("effect"), f"{tpath}.effect")
        if effect not in TOLERATION_EFFECTS:  # validateDeviceToleration
            raise f.expected(f"{tpath}.effect", "NoSchedule or NoExecute (or empty)", effect)
        value = f.string(t.get("value"), f"{tpath}.value")
        if operator == "Exists" and value:
            raise f.error(f"{tpath}.value", "must be empty when operator is Exists")
        out.append(Toleration(f.string(t.get("key"), f"{tpath}.key"), operator, value, effect))
    return tuple(out)


def _exact(f: ObjectFields, name: str, raw: Mapping, path: str) -> DeviceRequest:
    class_name = f.string(raw.get("deviceClassName"), f"{path}.deviceClassName", required=True)
    mode = f.string(raw.get("allocationMode"), f"{path}.allocationMode") or EXACT_COUNT
    if mode not in (EXACT_COUNT, ALL):
        raise f.expected(f"{path}.allocationMode", f"{EXACT_COUNT} or {ALL}", mode)
    count = raw.get("count")
    count = 1 if count is None else f.integer(count, f"{path}.count", minimum=1)
    unmodelled = ("capacity requests",) if raw.get("capacity") else ()
    return DeviceRequest(
        name=name, class_name=class_name,
        selectors=_selectors(f, raw.get("selectors"), f"{path}.selectors"), mode=mode,
        count=count if mode == EXACT_COUNT else 0, admin_access=raw.get("adminAccess") is True,
        tolerations=_tolerations(f, raw.get("tolerations"), f"{path}.tolerations"),
        unmodelled=unmodelled)


def decode_claim_spec(f: ObjectFields, raw: object, path: str) -> ClaimSpec:
    raw = f.mapping(raw, path)
    devices = f.mapping(raw.get("devices"), f"{path}.devices")
    requests = []
    names: dict[str, set[str]] = {}  # request name -> its subrequest names
    for i, r in enumerate(_bounded(f, devices.get("requests"), f"{path}.devices.requests",
                                   MAX_REQUESTS)):
        rpath = f"{path}.devices.requests[{i}]"
        r = f.mapping(r, rpath)
        name = f.string(r.get("name"), f"{rpath}.name", required=True)
        if name in names:
            raise f.error(f"{rpath}.name", f"Duplicate value: {quote(name)}")
        names[name] = set()
        if r.get("firstAvailable") is not None:
            subs = []
            for k, s in enumerate(_bounded(f, r.get("firstAvailable"),
                                           f"{rpath}.firstAvailable", MAX_SUBREQUESTS)):
                spath = f"{rpath}.firstAvailable[{k}]"
                s = f.mapping(s, spath)
                sub = f.string(s.get("name"), f"{spath}.name", required=True)
                if sub in names[name]:
                    raise f.error(f"{spath}.name", f"Duplicate value: {quote(sub)}")
                names[name].add(sub)
                subs.append(_exact(f, f"{name}/{sub}", s, spath))
            if not subs:
                raise f.error(f"{rpath}.firstAvailable", "expected at least 1 item")
            requests.append(DeviceRequest(name=name, subrequests=tuple(subs)))
        elif r.get("exactly") is not None:
            requests.append(_exact(f, name, f.mapping(r["exactly"], f"{rpath}.exactly"),
                                   f"{rpath}.exactly"))
        elif r.get("deviceClassName") is not None:  # v1beta1
            requests.append(_exact(f, name, r, rpath))
        else:
            raise f.error(rpath, "expected exactly or firstAvailable")
    constraints = []
    for i, c in enumerate(_bounded(f, devices.get("constraints"),
                                   f"{path}.devices.constraints", MAX_CONSTRAINTS)):
        cpath = f"{path}.devices.constraints[{i}]"
        c = f.mapping(c, cpath)
        refs = tuple(f.string(n, f"{cpath}.requests[{k}]", required=True)
                     for k, n in enumerate(f.sequence(c.get("requests"), f"{cpath}.requests")))
        for k, ref in enumerate(refs):  # validateRequestNameRef
            request, _, sub = ref.partition("/")
            if request not in names or (sub and sub not in names[request]):
                raise f.error(f"{cpath}.requests[{k}]", f"{quote(ref)} must be the name of a "
                              "request in the claim or of a request and a subrequest "
                              "separated by '/'")
        match = f.string(c.get("matchAttribute"), f"{cpath}.matchAttribute")
        distinct = f.string(c.get("distinctAttribute"), f"{cpath}.distinctAttribute")
        if bool(match) == bool(distinct):
            raise f.error(cpath, "expected exactly one of matchAttribute, distinctAttribute")
        constraints.append(Constraint(refs, match, distinct))
    return ClaimSpec(tuple(requests), tuple(constraints))


def _allocation(f: ObjectFields, raw: object, path: str) -> Allocation | None:
    if raw is None:
        return None
    raw = f.mapping(raw, path)
    devices = f.mapping(raw.get("devices"), f"{path}.devices")
    results = []
    for i, r in enumerate(f.sequence(devices.get("results"), f"{path}.devices.results")):
        rpath = f"{path}.devices.results[{i}]"
        r = f.mapping(r, rpath)
        results.append(AllocatedDevice(
            f.string(r.get("request"), f"{rpath}.request", required=True),
            f.string(r.get("driver"), f"{rpath}.driver", required=True),
            f.string(r.get("pool"), f"{rpath}.pool", required=True),
            f.string(r.get("device"), f"{rpath}.device", required=True),
            r.get("adminAccess") is True))
    reach = NodeReach()
    selector = raw.get("nodeSelector")
    if selector is not None:
        spath = f"{path}.nodeSelector.nodeSelectorTerms"
        terms = f.sequence(f.mapping(selector, f"{path}.nodeSelector").get("nodeSelectorTerms"),
                           spath)
        reach = NodeReach(any_of=tuple(node_selector_term(f, t, f"{spath}[{i}]")
                                       for i, t in enumerate(terms)))
    return Allocation(tuple(results), reach)


def decode_resource_claim(source: Source, obj: Mapping[str, Any]) -> ResourceClaim:
    f = ObjectFields(source, obj)
    ns, name, meta = _meta(f, obj, True)
    status = f.mapping(obj.get("status"), "status")
    return ResourceClaim(ns, name, decode_claim_spec(f, obj.get("spec"), "spec"), source,
                         _allocation(f, status.get("allocation"), "status.allocation"),
                         deleting=bool(meta.get("deletionTimestamp")))


def decode_claim_template(source: Source, obj: Mapping[str, Any]) -> ResourceClaimTemplate:
    f = ObjectFields(source, obj)
    ns, name, _ = _meta(f, obj, True)
    spec = f.mapping(obj.get("spec"), "spec")
    return ResourceClaimTemplate(ns, name, decode_claim_spec(f, spec.get("spec"), "spec.spec"),
                                 source)


def decode_taint_rule(source: Source, obj: Mapping[str, Any]) -> DeviceTaintRule:
    f = ObjectFields(source, obj)
    _, name, _ = _meta(f, obj, False)
    spec = f.mapping(obj.get("spec"), "spec")
    sel = f.mapping(spec.get("deviceSelector"), "spec.deviceSelector")
    return DeviceTaintRule(
        name, _taint(f, spec.get("taint"), "spec.taint"),
        f.string(sel.get("driver"), "spec.deviceSelector.driver"),
        f.string(sel.get("pool"), "spec.deviceSelector.pool"),
        f.string(sel.get("device"), "spec.deviceSelector.device"))


DECODERS = {
    "DeviceClass": decode_device_class,
    "ResourceSlice": decode_resource_slice,
    "ResourceClaim": decode_resource_claim,
    "ResourceClaimTemplate": decode_claim_template,
    "DeviceTaintRule": decode_taint_rule,
}
