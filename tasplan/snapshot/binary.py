"""The binary encoding of a snapshot document (``tasplan snapshot -f cluster.tsnap``).

A file is ``MAGIC``, the layout version (two bytes, big-endian) and one MessagePack array
(``_Body``), columnar where a snapshot is large:

- pods: the JSON pod table's columns as typed arrays (names, uids and start times as
  strings; metadata and spec as indexes; node names and phases as indexes into their own
  small tables);
- Nodes as the pruner writes them: name and labels per node, the rest (apiVersion, spec,
  status: the same for the nodes of one pool) as an index into a table of distinct parts,
  and ``status.images`` as indexes into a table of distinct image entries;
- everything else (the origin, the other items, the pod table's shared metadata, specs and
  extras, the distinct node parts) as JSON text inside the body, which the caller reads with
  the strict JSON reader of every input (duplicate keys, NUL characters, out-of-range
  integers and deep nesting refused).

``decode`` rebuilds the very document the JSON snapshot holds, so both go through one
validation and one model. The encoding is canonical: ``encode`` of a document always gives
the same bytes, and a body that is not what ``encode`` writes for its content is refused
(trailing bytes, duplicate map keys, integers or strings encoded another way).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import Any

import msgspec
import orjson

from tasplan.snapshot.format import COLUMNS, KIND, OPTIONAL_COLUMNS
from tasplan.snapshot.signature import MAGIC, SUFFIX, is_binary

__all__ = ["MAGIC", "SUFFIX", "BinaryError", "decode", "encode", "is_binary"]

VERSION = 1
_HEADER = len(MAGIC) + 2
_TABLE_COLUMNS = frozenset((*COLUMNS, *OPTIONAL_COLUMNS))
_NODE_KEYS = ["apiVersion", "kind", "metadata", "spec", "status"]  # prune_node's order


class _Body(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    document: bytes  # JSON: the snapshot document without its Nodes and pod columns
    node_parts: bytes  # JSON: {"parts": distinct {apiVersion, spec, status}, "images": [...]}
    node_at: list[int]  # each Node's position among the document's items
    node_name: list[str]
    node_labels: list[dict[str, str]]
    node_part: list[int]
    node_images: list[list[int]]  # status.images; the part's status holds "images": null
    name: list[str]
    meta: list[int]
    spec: list[int]
    node_names: list[str]  # distinct nodeName values, first seen first ("" included)
    node: list[int]
    phases: list[str]
    phase: list[int]
    uid: list[str]
    start_time: list[str]


_FIELDS = _Body.__struct_fields__
_ENCODER = msgspec.msgpack.Encoder()
# Keys sorted: objects read from a live API server and from files differ only in key order.
_SORTED = orjson.OPT_SORT_KEYS
_DECODER = msgspec.msgpack.Decoder(_Body)


class BinaryError(ValueError):
    """Why bytes that start like a binary snapshot are not a readable one."""


def encode(document: dict[str, Any]) -> bytes:
    """A snapshot document (``format.encode``'s) -> the binary file's bytes."""
    pods = document.get("pods") or {}
    rows = len(pods.get("name") or ())
    items, node_at, node_name, node_labels, node_part, node_images = [], [], [], [], [], []
    parts: dict[bytes, int] = {}
    images: dict[bytes, int] = {}
    for k, item in enumerate(document.get("items") or ()):
        if not _plain_node(item):
            items.append(item)
            continue
        node_at.append(k)
        node_name.append(item["metadata"]["name"])
        node_labels.append(dict(sorted(item["metadata"].get("labels", {}).items())))
        status = item["status"]
        listed = status.get("images") or []
        if listed:
            status = {**status, "images": None}
        part = orjson.dumps({"apiVersion": item["apiVersion"], "spec": item["spec"],
                             "status": status}, option=_SORTED)
        node_part.append(parts.setdefault(part, len(parts)))
        node_images.append([images.setdefault(orjson.dumps(i, option=_SORTED), len(images))
                            for i in listed])
    rest = {**document, "items": items,
            "pods": {k: v for k, v in pods.items() if k not in _TABLE_COLUMNS}}
    node_names, node = _interned(pods.get("nodeName") or [""] * rows)
    phases, phase = _interned(pods.get("phase") or [""] * rows)
    body = _Body(
        document=orjson.dumps(rest, option=_SORTED),
        node_parts=b'{"parts":[%s],"images":[%s]}' % (b",".join(parts), b",".join(images)),
        node_at=node_at, node_name=node_name, node_labels=node_labels, node_part=node_part,
        node_images=node_images,
        name=list(pods.get("name") or ()), meta=list(pods.get("meta") or ()),
        spec=list(pods.get("spec") or ()), node_names=node_names, node=node, phases=phases,
        phase=phase, uid=list(pods.get("uid") or [""] * rows),
        start_time=list(pods.get("startTime") or [""] * rows))
    return MAGIC + VERSION.to_bytes(2, "big") + _ENCODER.encode(body)


def _plain_node(item: Any) -> bool:
    """A Node as ``prune_node`` writes it (metadata: name and labels only), which the
    columns hold exactly; any other is kept whole among the items."""
    if not isinstance(item, dict) or list(item) != _NODE_KEYS or item["kind"] != "Node":
        return False
    meta = item["metadata"]
    return (isinstance(meta, dict) and list(meta) in (["name"], ["name", "labels"])
            and isinstance(meta["name"], str) and isinstance(meta.get("labels", {}), dict)
            and all(type(k) is str and type(v) is str for k, v in meta.get("labels", {}).items())
            and meta.get("labels", True) != {} and isinstance(item["status"], dict)
            and isinstance(item["status"].get("images") or [], list)
            and item["status"].get("images", True) not in (None, []))


def _interned(column: list[str]) -> tuple[list[str], list[int]]:
    """Distinct values (first seen first) and each row's index into them."""
    index: dict[str, int] = {}
    rows = [index.setdefault(v, len(index)) for v in column]
    return list(index), rows


def decode(data: bytes, parse_json: Callable[[bytes, str], Any]) -> dict[str, Any]:
    """A binary snapshot -> the snapshot document the JSON snapshot holds. ``parse_json(text,
    what)`` is the caller's strict JSON reader. Raises BinaryError saying what is wrong."""
    if len(data) < _HEADER:
        raise BinaryError(f"truncated binary snapshot ({len(data)} bytes, shorter than its "
                          f"{_HEADER}-byte header)")
    if data[:len(MAGIC)] != MAGIC:
        raise BinaryError("not a tasplan binary snapshot: its signature is damaged (was it "
                          "copied in text mode?)")
    version = int.from_bytes(data[len(MAGIC):_HEADER], "big")
    if version != VERSION:
        raise BinaryError(f"unsupported binary snapshot format version {version} (this "
                          f"tasplan reads version {VERSION}; write a JSON snapshot with the "
                          "tasplan that made it: tasplan snapshot -c FILE -f cluster.json)")
    view = memoryview(data)[_HEADER:]
    try:
        body = _DECODER.decode(view)
    except msgspec.DecodeError as exc:  # ValidationError too
        raise BinaryError(f"malformed binary snapshot: {_named(str(exc))}") from None
    except UnicodeDecodeError as exc:  # a string that is not UTF-8 (a lone surrogate)
        raise BinaryError(f"malformed binary snapshot: a string is not UTF-8 ({exc.reason} at "
                          f"byte {exc.start})") from None
    except RecursionError:
        raise BinaryError("malformed binary snapshot: nested too deeply") from None
    if _ENCODER.encode(body) != view:
        raise BinaryError("malformed binary snapshot: not in the canonical form tasplan "
                          "writes (trailing bytes, duplicate keys, or values encoded another "
                          "way)")
    _same_length(body, ("node_at", "node_name", "node_labels", "node_part", "node_images"))
    _same_length(body, ("name", "meta", "spec", "node", "phase", "uid", "start_time"))
    _no_nul(body)
    document = parse_json(body.document, "document")
    if not isinstance(document, dict) or document.get("kind") != KIND:
        raise BinaryError(f"malformed binary snapshot: its document is not a {KIND}")
    items, table = document.get("items"), document.get("pods")
    if not isinstance(items, list) or not isinstance(table, dict):
        raise BinaryError("malformed binary snapshot: its document has no items list or pod "
                          "table")
    both = sorted(set(table) & _TABLE_COLUMNS)
    if both:
        raise BinaryError(f"malformed binary snapshot: column pods.{both[0]} is also in its "
                          "document")
    document["items"] = _with_nodes(body, items, parse_json(body.node_parts, "node parts"))
    table.update(name=body.name, meta=body.meta, spec=body.spec,
                 nodeName=_expanded(body.node_names, body.node, "node"),
                 phase=_expanded(body.phases, body.phase, "phase"),
                 uid=body.uid, startTime=body.start_time)
    return document


def _with_nodes(body: _Body, items: list, tables: Any) -> list:
    """The document's items with the Nodes put back at their positions."""
    parts = tables.get("parts") if isinstance(tables, dict) else None
    images = tables.get("images") if isinstance(tables, dict) else None
    if (not isinstance(tables, dict) or list(tables) != ["parts", "images"]
            or not isinstance(parts, list)
            or not isinstance(images, list) or not all(
                isinstance(p, dict) and list(p) == ["apiVersion", "spec", "status"]
                and isinstance(p["status"], dict) for p in parts)):
        raise BinaryError("malformed binary snapshot: node parts: expected {parts: [{apiVersion, "
                          "spec, status}], images: [...]}")
    total = len(items) + len(body.node_at)
    at = body.node_at
    if at and (at[0] < 0 or at[-1] >= total or any(a >= b for a, b in pairwise(at))):
        raise BinaryError("malformed binary snapshot: node_at: expected increasing item "
                          f"positions below {total}")
    out: list = []
    rest = iter(items)
    nodes = iter(enumerate(zip(body.node_name, body.node_labels, body.node_part,
                               body.node_images, strict=True)))
    next_at = iter(at)
    want = next(next_at, None)
    for k in range(total):
        if k != want:
            out.append(next(rest))
            continue
        n, (name, labels, i, listed) = next(nodes)
        part = _index(parts, i, "node_part")
        status = part["status"]
        if ("images" in status) != bool(listed) or status.get("images") is not None:
            raise BinaryError(f"malformed binary snapshot: node_images[{n}]: "
                              "expected images exactly where the node part holds "
                              '"images": null')
        if listed:
            status = dict(status)
            status["images"] = [_index(images, j, "node_images") for j in listed]
        meta = {"name": name, "labels": labels} if labels else {"name": name}
        out.append({"apiVersion": part["apiVersion"], "kind": "Node", "metadata": meta,
                    "spec": part["spec"], "status": status})
        want = next(next_at, None)
    return out


def _index(table: list, i: int, field: str) -> Any:
    if not 0 <= i < len(table):
        raise BinaryError(f"malformed binary snapshot: {field}: index {i} is out of range "
                          f"({len(table)} entries)")
    return table[i]


def _same_length(body: _Body, fields: tuple[str, ...]) -> None:
    lengths = {f: len(getattr(body, f)) for f in fields}
    if len(set(lengths.values())) > 1:
        listed = ", ".join(f"{f}={n}" for f, n in lengths.items())
        raise BinaryError(f"malformed binary snapshot: expected columns of equal length, got "
                          f"{listed}")


def _no_nul(body: _Body) -> None:
    """NUL characters are refused in every string, as the JSON reader refuses them."""
    for field in ("node_name", "name", "node_names", "phases", "uid", "start_time"):
        if "\x00" in "".join(getattr(body, field)):
            raise BinaryError(f"malformed binary snapshot: {field}: a string holds a NUL "
                              "character")
    if any("\x00" in "".join((*labels, *labels.values())) for labels in body.node_labels):
        raise BinaryError("malformed binary snapshot: node_labels: a string holds a NUL "
                          "character")


def _expanded(table: list[str], rows: list[int], field: str) -> list[str]:
    if rows and (min(rows) < 0 or max(rows) >= len(table)):
        bad = next(i for i, v in enumerate(rows) if not 0 <= v < len(table))
        raise BinaryError(f"malformed binary snapshot: {field}[{bad}]: index {rows[bad]} is "
                          f"out of range ({len(table)} entries)")
    return [table[i] for i in rows]


def _named(message: str) -> str:
    """msgspec's ``$[3]...`` paths with the body's field names."""
    head, sep, path = message.partition(" - at `$[")
    index, _, rest = path.partition("]")
    if sep and index.isdecimal() and int(index) < len(_FIELDS):
        return f"{_FIELDS[int(index)]}{rest.rstrip('`')}: {head}"
    return message
