"""The worst-case cost of a DRA selector, estimated before it runs, as the API server does.

Upstream validates every selector with ``env.EstimateCost`` and refuses one whose estimate
exceeds ``CELSelectorExpressionMaxCost`` (1,000,000): "too complex, exceeds cost limit"
(pkg/apis/resource/validation ``validateCELSelector``; the estimator with DRA's size
bounds is staging/src/k8s.io/dynamic-resource-allocation/cel/compile.go ``sizeEstimator``
at the kubernetes commit read for issue 25). tasplan's engine (cel-cpp) has no cost
estimator, so this module estimates on the engine's own checked expression (decoded from
``Expression.serialize()``: a ``cel.expr.CheckedExpr``), with cel-go's rules for what can
grow -- string and list concatenation (0.1 per character or element), comprehensions
(their range's size times their step), ``cel.bind`` (the bound value's size flows into its
body) -- and DRA's bounds on what a device holds (strings of at most 64 characters, at most
32 attributes per domain). It is an upper bound of the same order as upstream's, not its
exact number: a selector near the limit may be judged differently (docs/dra.md).

Without it, a 500-byte selector whose ``cel.bind`` chain grows a string tenfold per level
ran for 9-44 s into a MemoryError.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

MAX_COST = 1_000_000  # resourceapi.CELSelectorExpressionMaxCost
DEVICE_STRING = 64  # DeviceAttributeMaxValueLength: an attribute string's length
DEVICE_ENTRIES = 32  # ResourceSliceMaxAttributesAndCapacitiesPerDevice
UNKNOWN = 2**63  # a size nothing bounds (cel-go: math.MaxUint64)
TRAVERSAL = 0.1  # common.StringTraversalCostFactor
LIST_CREATE, MAP_CREATE = 10, 30  # common.ListCreateBaseCost, MapCreateBaseCost


class CostError(ValueError):
    """The estimated cost exceeds the limit."""


# -------------------------------------------------------------- protobuf wire format

def _fields(data: bytes) -> list[tuple[int, int, object]]:
    """(field number, wire type, value) of a protobuf message, in order."""
    out = []
    i, n = 0, len(data)
    while i < n:
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(data, i)
        elif wire == 2:
            length, i = _varint(data, i)
            value, i = data[i:i + length], i + length
        elif wire == 1:
            value, i = data[i:i + 8], i + 8
        elif wire == 5:
            value, i = data[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {wire}")
        out.append((number, wire, value))
    return out


def _varint(data: bytes, i: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        b = data[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7


@dataclass
class _Node:
    kind: str  # const, ident, select, call, list, struct, comprehension
    id: int = 0
    text: str = ""  # ident name, select field, call function, constant string
    is_string: bool = False
    children: list[_Node] = field(default_factory=list)  # call: target first if any
    names: tuple[str, str] = ("", "")  # comprehension: iter_var, accu_var


def _expr(data: bytes) -> _Node:
    node = _Node("const")
    for number, _, value in _fields(data):
        if number == 2:
            node.id = value  # type: ignore[assignment]
        elif number == 3:
            node.kind = "const"
            for n, _, v in _fields(value):  # type: ignore[arg-type]
                if n == 6:
                    node.text, node.is_string = v.decode("utf-8", "replace"), True
        elif number == 4:
            node.kind = "ident"
            node.text = next((v.decode() for n, _, v in _fields(value) if n == 1), "")
        elif number == 5:
            node.kind = "select"
            for n, _, v in _fields(value):  # type: ignore[arg-type]
                if n == 1:
                    node.children.append(_expr(v))
                elif n == 2:
                    node.text = v.decode("utf-8", "replace")
        elif number == 6:
            node.kind = "call"
            args = []
            for n, _, v in _fields(value):  # type: ignore[arg-type]
                if n == 1:
                    node.children.insert(0, _expr(v))
                elif n == 2:
                    node.text = v.decode()
                elif n == 3:
                    args.append(_expr(v))
            node.children.extend(args)
        elif number == 7:
            node.kind = "list"
            node.children = [_expr(v) for n, _, v in _fields(value) if n == 1]
        elif number == 8:
            node.kind = "struct"
            for n, _, entry in _fields(value):  # type: ignore[arg-type]
                if n == 2:
                    node.children += [_expr(v) for k, _, v in _fields(entry) if k in (3, 4)]
        elif number == 9:
            node.kind = "comprehension"
            parts: dict[int, object] = dict((n, v) for n, _, v in _fields(value))
            node.names = (parts.get(1, b"").decode(), parts.get(3, b"").decode())
            node.children = [_expr(parts[k]) if k in parts else _Node("const")
                             for k in (2, 4, 5, 6, 7)]  # range, init, condition, step, result
    return node


def _overloads(checked: bytes) -> dict[int, tuple[str, ...]]:
    out: dict[int, tuple[str, ...]] = {}
    for number, _, value in _fields(checked):
        if number == 2:  # reference_map entry: key, Reference
            parts = _fields(value)  # type: ignore[arg-type]
            key = next((v for n, _, v in parts if n == 1), 0)
            ref = next((v for n, _, v in parts if n == 2), b"")
            out[key] = tuple(v.decode() for n, _, v in _fields(ref) if n == 3)  # type: ignore
    return out


# -------------------------------------------------------------------------- estimate

@dataclass(frozen=True)
class _Est:
    cost: float
    size: float  # the most characters (strings) or elements (lists, maps) it can hold


class _Estimator:
    def __init__(self, overloads: dict[int, tuple[str, ...]]) -> None:
        self.overloads = overloads
        self.scope: list[dict[str, float]] = [{}]

    def var_size(self, name: str) -> float | None:
        for frame in reversed(self.scope):
            if name in frame:
                return frame[name]
        return None

    def est(self, node: _Node) -> _Est:
        kind = node.kind
        if kind == "const":
            return _Est(0, len(node.text) if node.is_string else 1)
        if kind == "ident":
            size = self.var_size(node.text)
            return _Est(1, size if size is not None else DEVICE_ENTRIES)
        if kind == "select":  # a field of device (or below): DRA bounds what it holds
            inner = self.est(node.children[0]) if node.children else _Est(0, 0)
            return _Est(inner.cost + 1, DEVICE_STRING)
        if kind == "list":
            parts = [self.est(c) for c in node.children]
            return _Est(sum(p.cost for p in parts) + LIST_CREATE, len(parts))
        if kind == "struct":
            parts = [self.est(c) for c in node.children]
            return _Est(sum(p.cost for p in parts) + MAP_CREATE, len(parts) // 2)
        if kind == "comprehension":
            return self.comprehension(node)
        return self.call(node)

    def comprehension(self, node: _Node) -> _Est:
        iter_range, init, condition, step, result = node.children
        r, i = self.est(iter_range), self.est(init)
        iter_var, accu_var = node.names
        self.scope.append({iter_var: self.element_size(iter_range, r), accu_var: i.size})
        try:
            c, s = self.est(condition), self.est(step)
            # The accumulator can grow by a step's result each iteration (map, filter).
            self.scope[-1][accu_var] = i.size + r.size * max(s.size, 1) \
                if r.size else i.size
            out = self.est(result)
        finally:
            self.scope.pop()
        return _Est(r.cost + i.cost + r.size * (c.cost + s.cost) + out.cost, out.size)

    def element_size(self, iter_range: _Node, r: _Est) -> float:
        return DEVICE_STRING if iter_range.kind != "list" else max(
            (self.est(c).size for c in iter_range.children), default=0)

    def call(self, node: _Node) -> _Est:
        args = [self.est(c) for c in node.children]
        cost = sum(a.cost for a in args)
        sizes = [a.size for a in args]
        function = node.text
        overloads = self.overloads.get(node.id, ())
        if function == "_+_" and any(o.startswith(("add_string", "add_list", "add_bytes"))
                                     for o in overloads):
            size = sizes[0] + sizes[1]
            return _Est(cost + math.ceil(TRAVERSAL * size), size)
        if function in ("_==_", "_!=_"):
            return _Est(cost + 1 + math.ceil(TRAVERSAL * min(sizes)), 1)
        if function in ("_&&_", "_||_", "!_", "_<_", "_<=_", "_>_", "_>=_", "size",
                        "_in_"):
            extra = sizes[1] if function == "_in_" and len(sizes) > 1 else 1
            return _Est(cost + extra, 1)
        if function == "_?_:_":
            branch = max(args[1].cost, args[2].cost)
            return _Est(args[0].cost + branch + 1, max(sizes[1], sizes[2]))
        if function == "_[_]":
            return _Est(cost + 1, sizes[0])
        if function in ("contains", "startsWith", "endsWith", "lowerAscii", "upperAscii",
                        "trim", "indexOf", "lastIndexOf", "charAt", "substring", "reverse"):
            return _Est(cost + math.ceil(TRAVERSAL * sizes[0]) + 1, sizes[0])
        if function == "matches":
            return _Est(cost + math.ceil(TRAVERSAL * sizes[0] * max(sizes[-1], 1)) + 1, 1)
        if function in ("replace", "join", "split", "format", "string", "quote"):
            size = sizes[0] * max(max(sizes[1:], default=1), 1)
            return _Est(cost + math.ceil(TRAVERSAL * size) + 1, size)
        return _Est(cost + 1, max(sizes, default=1))


def estimate(serialized: bytes) -> int:
    """The estimated worst-case cost of a compiled expression (``Expression.serialize()``);
    UNKNOWN when the encoding is not understood (then nothing is refused for it)."""
    try:
        any_fields = dict((n, v) for n, _, v in _fields(serialized))
        checked = any_fields.get(2, b"")
        expr = next((v for n, _, v in _fields(checked) if n == 4), None)  # type: ignore
        if expr is None:
            return 0
        result = _Estimator(_overloads(checked)).est(_expr(expr))  # type: ignore[arg-type]
    except (ValueError, IndexError, KeyError, RecursionError, UnicodeDecodeError):
        return 0
    return int(min(result.cost, UNKNOWN))


def check_cost(serialized: bytes) -> int:
    """The estimate; raises CostError beyond the limit, naming it as upstream does."""
    cost = estimate(serialized)
    if cost > MAX_COST:
        raise CostError(f"too complex, exceeds cost limit (estimated cost {cost:,} is more "
                        f"than {MAX_COST:,}, the API server's CELSelectorExpressionMaxCost)")
    return cost
