"""kubectl JSON lists and tasplan snapshots -> Documents, Nodes and bound Pods decoded with
typed msgspec schemas instead of dict trees.

A large dump is mostly bound pods, of which scheduling reads a few fields (requests, ports,
node, priority, group, labels); building a dict for every container status, volume and
annotation is most of what ``orjson.loads`` + ``decode_pod`` costs. Here msgspec decodes
each list item into Structs that name only the fields ``core_v1.decode_node`` and the
bound-pod part of ``core_v1.decode_pod`` read, skipping the rest, and the model objects are
built from them directly. Requests, non-zero requests and host ports are computed once per
distinct container block (replicas share them) by the same code the dict path runs.

Exactness first: this path only ever *accepts* what the dict path accepts, with the same
result. Anything it does not handle in full -- pending pods, bound pods with pod
(anti-)affinity, with DRA ``resourceClaims`` or without ``spec.priority``, other kinds, and
any item whose fields do not have the expected types or values -- is handed over as the
item's own dict (``orjson`` of its bytes), which the dict path decodes, and reports errors
for, exactly as before. A file that is not a JSON ``List`` or snapshot, or that is not valid
JSON, is read by the dict path whole, so errors keep their file, line and field.

Large kubectl dumps are read through a memory map a few megabytes of items at a time
(``read_json_stream``); everything else whole (``read_json_cluster``): a List's items in
one pass into the typed schemas, and item by item (each from its own bytes) when that pass
meets anything unusual. Strictness
(load/strict.py): a piece with an escape that can produce NUL or a lone surrogate sends the
file to the dict path, which refuses those. Duplicate keys are looked for by the dict path,
which reads all JSON up to ``documents.STRICT_TYPED_BYTES``; not in larger typed reads.
"""

from __future__ import annotations

import codecs
import mmap
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import orjson
from msgspec import UNSET, Raw, Struct, UnsetType

from tasplan.errors import TasplanError
from tasplan.load.document import Document
from tasplan.load.group_names import COSCHEDULING, KUEUE_GROUP
from tasplan.load.nesting import may_nest_deeper
from tasplan.load.strict import long_int, risky_escape
from tasplan.model import timestamp
from tasplan.model.bound_pods import BoundPods, Run
from tasplan.model.kai_inputs import POD_GROUP_ANNOTATION
from tasplan.model.node import Node
from tasplan.model.pod import (
    DEFAULT_SCHEDULER,
    KUEUE_WORKLOAD_ANNOTATION,
    MIRROR_ANNOTATION,
    HostPort,
    Pod,
)
from tasplan.model.quantity import QuantityError, parse_milli, parse_value
from tasplan.model.requests import RequestError, pod_requests_and_non_zero
from tasplan.model.source import Source
from tasplan.model.taints import EFFECTS, Taint
from tasplan.model.volcano_inputs import VOLCANO_GROUP_ANNOTATIONS
from tasplan.snapshot import format as snapshot_format

_NULL = Raw(b"null")
Quantity = str | int | float


class _OwnerRef(Struct):
    kind: Any = None
    controller: Any = None


class _Annotations(Struct):
    """Only the annotations ``core_v1.owner_kind``, Kueue and KAI's group reference read,
    and Volcano's group reference (its pods take the dict path, which hands the annotation
    to the pod grouping); the others are skipped."""

    mirror: Any = msgspec.field(default=None, name=MIRROR_ANNOTATION)
    kueue_workload: Any = msgspec.field(default=None, name=KUEUE_WORKLOAD_ANNOTATION)
    pod_group: Any = msgspec.field(default=None, name=POD_GROUP_ANNOTATION)
    volcano_group: Any = msgspec.field(default=None, name=VOLCANO_GROUP_ANNOTATIONS[0])
    volcano_group_legacy: Any = msgspec.field(default=None, name=VOLCANO_GROUP_ANNOTATIONS[1])


class _Meta(Struct):
    name: str | None = None
    namespace: str | None = None
    labels: dict[str, str] | None = None
    deletionTimestamp: str | None = None
    uid: str | None = None
    ownerReferences: list[_OwnerRef] | None = None
    annotations: _Annotations | None = None


class _Container(Struct):
    """What requests and host ports read of a container, as raw bytes: the cache key."""

    resources: Raw = _NULL
    restartPolicy: str | None = None
    ports: Raw = _NULL


class _SchedulingGroup(Struct):
    podGroupName: str | None = None


class _WorkloadRef(Struct):
    name: str | None = None
    podGroup: str | None = None
    podGroupReplicaKey: str | None = None


class _Affinity(Struct):
    podAffinity: Raw = _NULL
    podAntiAffinity: Raw = _NULL


class _Taint(Struct):
    key: str | None = None
    value: str | None = None
    effect: str | None = None


class _Spec(Struct):
    """Pod and Node spec fields in one schema (an item's kind is known only once read)."""

    containers: list[_Container] | None = None
    initContainers: list[_Container] | None = None
    overhead: Raw = _NULL
    resources: Raw = _NULL
    nodeName: str | None = None
    priority: int | None = None
    priorityClassName: str | None = None
    schedulingGroup: _SchedulingGroup | None = None
    workloadRef: _WorkloadRef | None = None
    affinity: _Affinity | None = None
    resourceClaims: Raw = _NULL
    taints: list[_Taint] | None = None
    unschedulable: bool = False


class _Status(Struct):
    phase: str | None = None
    startTime: str | None = None
    allocatable: dict[str, Quantity] | UnsetType | None = UNSET
    capacity: dict[str, Quantity] | None = None
    images: Raw = _NULL
    conditions: Raw = _NULL  # read for nodes only (Ready)


class _Item(Struct):
    apiVersion: str | UnsetType | None = UNSET
    kind: str | UnsetType | None = UNSET
    metadata: _Meta | None = None
    spec: _Spec | None = None
    status: _Status | None = None


class _File(Struct):
    """A JSON file's top level: a ``List`` (``items``) or a snapshot (``items``, ``pods``)."""

    apiVersion: Any = None
    kind: Any = None
    metadata: Raw = _NULL
    items: list[Raw] | UnsetType | None = UNSET
    pods: Raw = _NULL


class _TypedFile(Struct):
    """The same top level with its items decoded in the one pass (a List's usual case)."""

    apiVersion: Any = None
    kind: Any = None
    items: list[_Item] | UnsetType | None = UNSET
    pods: Raw = _NULL


_FILE = msgspec.json.Decoder(_File)
_TYPED_FILE = msgspec.json.Decoder(_TypedFile)
_ITEM = msgspec.json.Decoder(_Item)
_ITEMS = msgspec.json.Decoder(list[_Item])
_RAWS = msgspec.json.Decoder(list[Raw])
_EMPTY: dict = {}
# A JSON value's truthiness without decoding it: only short texts can be falsy.
_FALSY = frozenset({b"null", b"false", b"0", b"[]", b"{}", b'""'})
_INT64 = (-(2**63), 2**63 - 1)  # as the dict path (strict.check_json_ints) and the API server
_NOWHERE = Source("")
_NO_NAMES: frozenset[str] = frozenset()
_tuple = tuple.__new__


class _Fallback(Exception):
    """The item needs the dict path (it may be fine: a pending pod, another kind)."""


def _loads(raw: Raw) -> Any:
    """The dict path's decoding (orjson) of a part of the input, for exact equality."""
    return orjson.loads(memoryview(raw))


def _truthy(raw: Raw) -> bool:
    if len(raw) > 24:
        return True
    text = bytes(raw).strip()
    return text not in _FALSY and bool(orjson.loads(text))


def read_json_cluster(label: str, data: bytes, *, workload: bool) -> list[Document] | None:
    """The file's documents, or None when the dict path must read the file (not a List or
    snapshot, invalid JSON or UTF-8): that path then reports any error exactly."""
    if (not data.isascii() and not _valid_utf8(data)) or risky_escape(data):
        return None
    docs = _typed_list(label, data, workload)
    if docs is not _UNDECIDED:
        return docs
    try:
        top = _FILE.decode(data)
    except msgspec.DecodeError:
        return None
    kind, items = top.kind, top.items
    if snapshot_format.is_snapshot({"kind": kind, "apiVersion": top.apiVersion}):
        if top.apiVersion != snapshot_format.API_VERSION or not isinstance(items, list | None):
            return None
        reader = _Reader(label, workload, None, None)
        if not all(reader.raw(raw) for raw in items or ()):
            return None
        snapshot: dict[str, Any] = {"apiVersion": top.apiVersion, "kind": kind}
        for key, raw in (("metadata", top.metadata), ("pods", top.pods)):
            if raw is not _NULL:
                snapshot[key] = _loads(raw)
        reader.docs.append(Document(Source(label, 0, None, workload), snapshot))
        return reader.docs if reader.done() else None
    if not (isinstance(kind, str) and kind.endswith("List")) or items is UNSET:
        return None
    if items is None:
        return []
    reader = _Reader(label, workload, kind[: -len("List")] if kind != "List" else None,
                     top.apiVersion)
    if not all(reader.raw(raw) for raw in items) or not reader.done():
        return None
    return reader.docs


_UNDECIDED: Any = object()


def _typed_list(label: str, data: bytes, workload: bool) -> Any:
    """A kubectl List decoded in one pass into the typed schemas (no item decoded twice):
    its documents, or None for the dict path; ``_UNDECIDED`` when anything is unusual (a
    snapshot, an item of another shape, a field of an unexpected type anywhere), and
    ``read_json_cluster`` then reads the file item by item."""
    try:
        top = _TYPED_FILE.decode(data)
    except msgspec.DecodeError:
        return _UNDECIDED
    kind, items = top.kind, top.items
    if (not isinstance(kind, str) or not kind.endswith("List") or not isinstance(items, list)
            or top.pods is not _NULL
            or snapshot_format.is_snapshot({"kind": kind, "apiVersion": top.apiVersion})):
        return _UNDECIDED
    reader = _Reader(label, workload, kind[: -len("List")] if kind != "List" else None,
                     top.apiVersion)
    if not reader.items(items, lambda: _FILE.decode(data).items):
        return None
    return reader.docs if reader.done() else None


CHUNK_BYTES = 1 << 23
# The items decoded at once: a piece's temporary objects (msgspec's Structs of every item)
# are freed before the next piece, and the fewer there are, the more of the memory they
# took the next piece reuses instead of faulting in fresh pages (the 1 GB 5k-node dump:
# 174k page faults with 8 MB pieces, 160k with 1 MB).
PIECE_BYTES = 1 << 20


def read_json_stream(path: Path, *, workload: bool,
                     chunk_bytes: int = CHUNK_BYTES) -> list[Document] | None:
    """A large indented JSON List (``kubectl get -o json``) read through a memory map about
    a megabyte of items at a time, so the file never sits in memory whole (a 1 GB dump
    would otherwise cost 1 GB before the first object is built). None when the file is
    smaller than two ``chunk_bytes`` or not laid out like kubectl's output: the callers
    read it whole then."""
    with open(path, "rb") as fh:
        if os.fstat(fh.fileno()).st_size < 2 * chunk_bytes:
            return None
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        return _stream(str(path), mm, workload, min(chunk_bytes, PIECE_BYTES))
    finally:
        mm.close()


def _stream(label: str, mm: mmap.mmap, workload: bool, chunk_bytes: int) -> list[Document] | None:
    # kubectl sorts keys: apiVersion, items, kind, metadata. Items are separated by a line
    # "},", at the indentation of the first item, and a line "{"; JSON strings cannot hold
    # a newline, so these lines are structure. A split in the wrong place would leave a
    # piece that does not decode: then the file is read whole instead.
    key = mm.find(b'"items"', 0, 4096)
    bracket = mm.find(b"[", key, key + 64) if key > 0 else -1
    if bracket < 0 or mm[key + 7:bracket].strip() != b":":
        return None
    key_indent = mm[mm.rfind(b"\n", 0, key) + 1:key]
    first = mm.find(b"{", bracket, bracket + 256)
    indent = mm[bracket + 2:first]
    if (first < 0 or mm[bracket + 1:bracket + 2] != b"\n" or key_indent.strip(b" ")
            or indent.strip(b" ")):
        return None
    separator = b"\n" + indent + b"},\n" + indent + b"{"
    end_marker = b"\n" + indent + b"}\n" + key_indent + b"]"
    end = mm.rfind(end_marker)
    if end < first:
        return None
    try:
        top = _FILE.decode(b"".join((mm[:key], b'"items": []', mm[end + len(end_marker):])))
    except msgspec.DecodeError:
        return None
    if (not isinstance(top.kind, str) or not top.kind.endswith("List")
            or snapshot_format.is_snapshot({"kind": top.kind, "apiVersion": top.apiVersion})):
        return None
    reader = _Reader(label, workload, top.kind[: -len("List")] if top.kind != "List" else None,
                     top.apiVersion)
    stop = end + len(indent) + 2  # one past the last item's "}"
    pos, dropped = first, 0
    while pos < stop:
        cut = mm.find(separator, min(pos + chunk_bytes, stop), stop)
        piece_end = stop if cut < 0 else cut + len(indent) + 2
        piece = bytearray(piece_end - pos + 2)  # "[" items "]", copied from the map once
        piece[0], piece[-1] = 0x5B, 0x5D
        with memoryview(mm) as view:
            piece[1:-1] = view[pos:piece_end]
        if (not piece.isascii() and not _valid_utf8(piece)) or risky_escape(piece):
            return None
        if not reader.chunk(piece):
            return None
        pos = stop if cut < 0 else cut + len(separator) - 1
        # The mapped pages read so far count in the process's memory until dropped.
        done = pos - pos % mmap.PAGESIZE
        if done > dropped:
            mm.madvise(mmap.MADV_DONTNEED, dropped, done - dropped)
            dropped = done
    return reader.docs if reader.done() else None


def _valid_utf8(data: bytes, chunk: int = 1 << 24) -> bool:
    """orjson refuses invalid UTF-8 anywhere; msgspec only where it decodes a string."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for start in range(0, len(data), chunk):
            decoder.decode(data[start:start + chunk])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


class _Reader:
    """List items -> Documents, with what they share: the requests cache, the pod order, the
    pods' start times (checked together at the end: ``done``)."""

    def __init__(self, label: str, workload: bool, item_kind: str | None,
                 list_api: Any) -> None:
        self.label, self.workload = label, workload
        self.item_kind, self.list_api = item_kind, list_api
        self.docs: list[Document] = []
        self.cache: dict = {}
        self.pods = 0  # the loader's pod order, if this file's pods come first
        self.starts: list[str] = []
        self.seen = 0  # items read so far (the next item's index)
        # Plain bound pods of cluster inputs are kept as records (model/bound_pods.py):
        # ``run`` is where the current run of them began in ``store.records``.
        shapes: list = []
        self.store = BoundPods(_lazy_maker(label, workload, shapes), shapes) \
            if LAZY and not workload else None
        self.run = 0

    def done(self) -> bool:
        """Whether every typed pod's ``status.startTime`` is valid; if one is not, the dict
        path reads the file and reports it with its place (checked in bulk: most are the
        API server's canonical form)."""
        self.close_run()
        return timestamp.first_invalid(self.starts) is None

    def close_run(self) -> None:
        """The records since the last Document become one Document (a ``Run``)."""
        store = self.store
        if store is not None and len(store.records) > self.run:
            self.docs.append(Document(Source(self.label, 0, None, self.workload), _POD,
                                      Run(store, self.run, len(store.records))))
            self.run = len(store.records)

    def chunk(self, piece: bytes | bytearray) -> bool:
        """Items of a JSON array; False when one is not an object (or the piece not JSON)."""
        try:
            items = _ITEMS.decode(piece)
        except msgspec.DecodeError:
            try:
                raws = _RAWS.decode(piece)
            except msgspec.DecodeError:
                return False
            return all(self.raw(raw) for raw in raws)
        return self.items(items, lambda: _RAWS.decode(piece))

    def items(self, items: list[_Item], raws: Callable[[], Any]) -> bool:
        """A List's items in order: typed where they can be, else from their bytes
        (``raws()``: every item's, asked for once when needed); False when one is not an
        object. Runs once per object of a dump: the per-item work is written out here."""
        docs, label, workload = self.docs, self.label, self.workload
        item_kind, list_api, cache, starts = self.item_kind, self.list_api, self.cache, self.starts
        store = self.store
        records = store.records if store is not None else None
        shapes = store.shapes if store is not None else []
        keep = store is not None
        add = records.append if records is not None else None
        append = docs.append
        base = self.seen
        self.seen += len(items)
        all_raws = None
        for i, item in enumerate(items):
            k = base + i
            kind, api = item.kind, item.apiVersion
            if kind is UNSET and item_kind:  # NodeList items may omit kind
                kind, api = item_kind, list_api
            if api == "v1" and (kind == "Pod" or kind == "Node"):
                try:
                    if kind == "Pod":
                        pod = _pod(item, k, label, workload, self.pods, cache, starts, shapes,
                                   keep)
                        self.pods += 1
                        if type(pod) is tuple:
                            add(pod)
                            continue
                        if records is not None and len(records) > self.run:
                            self.close_run()
                        append(_tuple(Document, (pod.source, _POD, pod)))
                    else:
                        # Source(label, 0, k, workload) and Document(...) built as the tuples
                        # they are: a NamedTuple's own __new__ is a Python function.
                        source = _tuple(Source, (label, 0, k, workload, "items", ""))
                        node = _node(item, source)
                        if records is not None and len(records) > self.run:
                            self.close_run()
                        append(_tuple(Document, (source, _NODE, node)))
                    continue
                except _Fallback:
                    pass
            if all_raws is None:
                all_raws = raws()
            if not self.as_dict(k, all_raws[i]):
                return False
        return True

    def raw(self, raw: Raw) -> bool:
        """The next item from its bytes, typed when it can be; False when not an object."""
        try:
            item = _ITEM.decode(raw)
        except msgspec.DecodeError:
            self.seen += 1
            return self.as_dict(self.seen - 1, raw)
        return self.items([item], lambda: [raw])

    def as_dict(self, k: int, raw: Raw) -> bool:
        """An item decoded whole (not Pod or Node, or not typed): the dict path's checks
        on its bytes apply, or the file goes to the dict path (False), which names the
        problem: integers beyond int64, nesting beyond the limit."""
        data = bytes(raw)
        if long_int(data) or may_nest_deeper(data, block=False):
            return False
        obj = _loads(raw)
        if not isinstance(obj, dict) or snapshot_format.is_snapshot(obj):
            return False  # the dict path names the problem
        if self.item_kind and "kind" not in obj:
            obj = {**obj, "kind": self.item_kind, "apiVersion": self.list_api}
        self.pods += obj.get("kind") == "Pod" and obj.get("apiVersion") == "v1"
        self.close_run()
        self.docs.append(Document(Source(self.label, 0, k, self.workload), obj))
        return True


# The ``obj`` of a typed Document: only what the loader classifies by. The model is in
# ``Document.model``; nothing else reads a typed Pod or Node's object.
_POD = {"apiVersion": "v1", "kind": "Pod"}
_NODE = {"apiVersion": "v1", "kind": "Node"}


def _node(item: _Item, source: Source) -> Node:
    meta = item.metadata or _Meta()
    spec = item.spec or _Spec()
    status = item.status or _Status()
    if not meta.name:
        raise _Fallback
    taints = []
    for t in spec.taints or ():
        if not t.key or t.effect not in EFFECTS:
            raise _Fallback
        taints.append(Taint(t.key, t.value or "", t.effect))
    resources = status.allocatable if status.allocatable is not UNSET else status.capacity
    try:
        allocatable = {r: parse_milli(q) if r == "cpu" else parse_value(q)
                       for r, q in (resources or _EMPTY).items()}
    except QuantityError:
        raise _Fallback from None
    if any(v < 0 for v in allocatable.values()):
        raise _Fallback  # the dict path refuses it, with the field
    ready = None
    if _truthy(status.conditions):
        from tasplan.load.core_v1 import node_ready

        conditions = _loads(status.conditions)
        if not isinstance(conditions, list):
            raise _Fallback
        ready = node_ready({"conditions": conditions})
    return Node(meta.name, meta.labels or {}, tuple(taints), spec.unschedulable, allocatable,
                source, has_images=_truthy(status.images), ready=ready)


def _pod(item: _Item, k: int, label: str, workload: bool, order: int, cache: dict,
         starts: list[str], shapes: list, keep: bool) -> Pod | tuple:
    """A bound pod as ``decode_pod`` builds it; anything else is a _Fallback. Its start time
    goes to ``starts``, checked with the others' (``_Reader.done``). With ``keep`` (records
    are kept: ``model.bound_pods``), a plain one (no group, group label, host ports or Kueue
    Workload) is returned as its record, which ``_lazy_maker`` builds the same Pod from."""
    meta, spec, status = item.metadata, item.spec, item.status
    if meta is None or spec is None:
        raise _Fallback  # no name or no node: the dict path's
    name, node_name, priority = meta.name, spec.nodeName, spec.priority
    if (not name or not node_name or priority is None
            or not _INT64[0] <= priority <= _INT64[1]):
        raise _Fallback  # pending pods, and priorities resolved from their class
    affinity = spec.affinity
    if affinity is not None and (
            (affinity.podAffinity is not _NULL and _truthy(affinity.podAffinity))
            or (affinity.podAntiAffinity is not _NULL and _truthy(affinity.podAntiAffinity))):
        raise _Fallback  # bound pods with pod affinity: decoded in full
    if spec.resourceClaims is not _NULL and _truthy(spec.resourceClaims):
        raise _Fallback  # bound pods with DRA claims (what an eviction frees): likewise
    annotations = meta.annotations
    if annotations is not None and (annotations.volcano_group is not None
                                    or annotations.volcano_group_legacy is not None):
        raise _Fallback  # a Volcano job's pod: grouped by its annotation (load.pod_groups)
    if status is None:
        phase, start = "Running", None
    else:
        phase, start = status.phase or "Running", status.startTime
        if start == "":
            raise _Fallback  # "" is not a time: the dict path refuses it, with the field
    namespace = meta.namespace or "default"
    # The requests cache key. The usual pod (one or two containers, no ports, no
    # restartPolicy, nothing else that adds to requests): its resources' bytes alone, with
    # no tuple to build and hash per pod. Else a tuple: ``_resources_key``'s four parts, or
    # one (resources, restartPolicy, ports) per container. The forms never compare equal.
    containers = spec.containers
    key: Any = None
    if (containers and spec.initContainers is None and spec.overhead is _NULL
            and spec.resources is _NULL and len(containers) <= 2):
        c = containers[0]
        ports = c.ports
        if ports is _NULL and c.restartPolicy is None:
            if len(containers) == 1:
                key = bytes(c.resources)
            else:
                d = containers[1]
                if d.ports is _NULL and d.restartPolicy is None:
                    key = (bytes(c.resources), bytes(d.resources))
        if key is None:
            key = ((bytes(c.resources), c.restartPolicy,
                    None if ports is _NULL else bytes(ports)),)
            if len(containers) == 2:
                c = containers[1]
                ports = c.ports
                key = (key[0], (bytes(c.resources), c.restartPolicy,
                                None if ports is _NULL else bytes(ports)))
    else:
        key = _resources_key(spec)
    value = cache.get(key)
    if value is None:
        value = cache[key] = (*_compute_resources(spec), len(shapes))
        shapes.append(value[:2])
    requests, non_zero, host_ports, shape = value
    # As core_v1.owner_kind and core_v1.kueue_workload.
    kueue_workload = owner_kind = ""
    named = spec.schedulingGroup is not None or spec.workloadRef is not None
    if annotations is not None:
        if type(annotations.kueue_workload) is str:
            kueue_workload = annotations.kueue_workload
        if annotations.mirror is not None:
            owner_kind = "Node"
        named = named or annotations.pod_group is not None
    if not owner_kind:
        for ref in meta.ownerReferences or ():
            if ref.controller is True and type(ref.kind) is str:
                owner_kind = ref.kind
                break
    group = _group(namespace, spec, meta) if named else None
    if start is None:
        start = ""
    else:
        starts.append(start)  # checked with the others' (_Reader.done)
    labels = meta.labels or _EMPTY
    if (keep and group is None and not host_ports and not kueue_workload
            and KUEUE_GROUP not in labels and COSCHEDULING not in labels):
        return (namespace, name, node_name, phase, shape, k, labels, priority,
                spec.priorityClassName or "", bool(meta.deletionTimestamp), owner_kind,
                meta.uid or "", start)
    # Positional, in Pod's field order (model.pod.POSITIONAL).
    return Pod(
        namespace, name, node_name, phase, priority, requests, non_zero,
        _tuple(Source, (label, 0, k, workload, "items", "")), order,
        labels, group, spec.priorityClassName or "", DEFAULT_SCHEDULER,
        "PreemptLowerPriority", _EMPTY, None, (), (), host_ports, (), None, None, "",
        bool(meta.deletionTimestamp), False, _NO_NAMES, (), (), owner_kind, (),
        kueue_workload, meta.uid or "", start)


# Whether the typed reader keeps plain bound cluster pods as records (False: a Pod each,
# the plain path the differential tests compare with).
LAZY = True


def _lazy_maker(label: str, workload: bool, shapes: list) -> Callable[[tuple, int], Pod]:
    """The Pod of a record ``_pod`` returned, exactly as ``_pod`` would have built it
    (``shapes``: the store's)."""

    def make(record: tuple, order: int) -> Pod:
        (namespace, name, node_name, phase, shape, k, labels, priority, class_name,
         deleting, owner_kind, uid, start) = record
        requests, non_zero = shapes[shape]
        return Pod(
            namespace, name, node_name, phase, priority, requests, non_zero,
            _tuple(Source, (label, 0, k, workload, "items", "")), order, labels, None,
            class_name, DEFAULT_SCHEDULER, "PreemptLowerPriority", _EMPTY, None, (), (), (),
            (), None, None, "", deleting, False, _NO_NAMES, (), (), owner_kind, (), "", uid,
            start)

    return make


def _group(namespace: str, spec: _Spec, meta: _Meta) -> str | None:
    sg = spec.schedulingGroup
    if sg is not None:
        if not sg.podGroupName:
            raise _Fallback
        return f"{namespace}/{sg.podGroupName}"
    wr = spec.workloadRef
    if wr is not None:
        if not wr.name or not wr.podGroup:
            raise _Fallback
        parts = [namespace, wr.name, wr.podGroup]
        if wr.podGroupReplicaKey:
            parts.append(wr.podGroupReplicaKey)
        return "/".join(parts)
    kai = meta.annotations.pod_group if meta.annotations is not None else None
    if kai is not None:
        if type(kai) is not str or not kai:
            raise _Fallback  # the dict path names the field
        return f"{namespace}/{kai}"
    return None


def _resources_key(spec: _Spec) -> tuple:
    """What requests, non-zero requests and host ports are computed from (replicas share
    them: computed once per distinct key)."""
    inits = spec.initContainers
    return (tuple((bytes(c.resources), c.restartPolicy, bytes(c.ports))
                  for c in spec.containers or ()),
            None if inits is None else tuple((bytes(c.resources), c.restartPolicy)
                                             for c in inits),
            bytes(spec.overhead), bytes(spec.resources))


def _compute_resources(spec: _Spec) -> tuple[dict[str, int], tuple[int, int],
                                             tuple[HostPort, ...]]:
    from tasplan.load.core_v1 import host_ports
    from tasplan.load.fields import ObjectFields

    def block(c: _Container) -> dict[str, Any]:
        return {"resources": _loads(c.resources), "restartPolicy": c.restartPolicy,
                "ports": _loads(c.ports)}

    as_dict = {"containers": [block(c) for c in spec.containers or ()],
               "initContainers": None if spec.initContainers is None
               else [block(c) for c in spec.initContainers],
               "overhead": _loads(spec.overhead),
               "resources": _loads(spec.resources)}
    try:
        requests, non_zero = pod_requests_and_non_zero(as_dict)
        # Errors only make this a fallback: the dict path reports them with their place.
        return requests, non_zero, host_ports(ObjectFields(_NOWHERE, as_dict), as_dict, "spec")
    except (RequestError, TasplanError, ValueError):
        raise _Fallback from None


def typed_objects(docs: list[Document]) -> int:
    """How many objects of ``docs`` the typed reader decoded (a Run holds several pods)."""
    return sum(len(d.model) if type(d.model) is Run else d.model is not None for d in docs)


class _TypedList(Struct):
    items: list[_Item] = []


def decode_floor(data: bytes) -> int:
    """Decode a List into the typed schemas in one pass and build nothing: the benchmark's
    floor for this reader."""
    return len(msgspec.json.decode(data, type=_TypedList).items)
