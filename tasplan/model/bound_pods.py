"""Bound pods kept as records until something reads them.

A 5,000-node dump holds 150,000 bound pods; the passes every command runs (the loader's
checks, per-node totals, the plan) read only their names, nodes, phases and requests. So
the readers (``load/typed.py``, the snapshot's pod table) keep each plain bound cluster pod
as one tuple in a ``BoundPods`` store, and a ``Pod`` is built only when a pod is read:
``ClusterSnapshot.pods`` and a node's ``NodeUsage.pods`` are then lazy sequences that
build their Pods on first iteration (the same objects every time, in the same order as the
eager path's tuples). ``len()`` never builds them.

Record layout: ``(namespace, name, node_name, phase, shape, row, ...)``; ``shape`` indexes
``BoundPods.shapes`` (requests, non-zero requests), shared by pods of one container block;
``row`` is the item's (or table row's) index; the rest is the reader's, which
``make(record, order)`` turns into the Pod.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from operator import attrgetter, itemgetter
from typing import Any

from tasplan.model.pod import TERMINAL_PHASES, Pod

NAMESPACE, NAME, NODE, PHASE, SHAPE, ROW = range(6)
_ORDER = attrgetter("order")
_KEY = itemgetter(NAMESPACE, NAME)
_ON = itemgetter(NODE, PHASE)


class BoundPods:
    """The records of one reader's plain bound pods, in input order. ``orders``: each
    record's pod order, set by the loader run by run (``Run``)."""

    __slots__ = ("_on_node", "_pods", "make", "orders", "records", "row_orders", "shapes")

    def __init__(self, make: Callable[[tuple, int], Pod],
                 shapes: list[tuple[dict[str, int], tuple[int, int]]],
                 records: list[tuple] | None = None, row_orders: bool = False) -> None:
        # row_orders: a record's order is its table's first order plus its row (``ROW``).
        self.row_orders = row_orders
        self.records: list[tuple] = [] if records is None else records
        self.shapes = shapes
        self.make = make
        self.orders: list[int] = []
        self._pods: list[Pod | None] | None = None
        self._on_node: dict[str, list[int]] | None = None  # ``by_node()``, once computed

    def fresh(self) -> BoundPods:
        """The same records for another assembly of the documents (their orders and Pods
        are the assembly's own; the node index, derived from the records, is shared)."""
        fresh = BoundPods(self.make, self.shapes, self.records, self.row_orders)
        fresh._on_node = self._on_node
        return fresh

    def by_node(self) -> dict[str, list[int]]:
        """Node name -> the indexes of its non-terminal records, in order (computed once:
        the per-node totals and a node's Pods are read through it)."""
        index = self._on_node
        if index is None:
            index = self._on_node = {}
            for j, (node, phase) in enumerate(map(_ON, self.records)):
                if phase in TERMINAL_PHASES:
                    continue
                found = index.get(node)
                if found is None:
                    index[node] = [j]
                else:
                    found.append(j)
        return index

    def set_orders(self, first: int, start: int = 0, end: int | None = None) -> None:
        """Orders from ``first`` on: of records ``start:end`` in turn, or with
        ``row_orders`` of every record by its row."""
        if self.row_orders:
            self.orders = list(map(first.__add__, map(itemgetter(ROW), self.records)))
        else:
            end = len(self.records) if end is None else end
            self.orders[start:end] = range(first, first + end - start)

    def pod(self, j: int) -> Pod:
        """Record ``j``'s Pod, built once."""
        pods = self._pods
        if pods is None:
            pods = self._pods = [None] * len(self.records)
        pod = pods[j]
        if pod is None:
            pod = pods[j] = self.make(self.records[j], self.orders[j])
        return pod

    def pods(self, start: int = 0, end: int | None = None) -> list[Pod]:
        pod = self.pod
        return [pod(j) for j in range(start, len(self.records) if end is None else end)]

    def on_node(self, name: str) -> list[Pod]:
        """The Pods of the non-terminal records bound to node ``name``, in order."""
        pod = self.pod
        return [pod(j) for j in self.by_node().get(name, ())]

    def keys(self) -> set[tuple[str, str]]:
        return set(map(_KEY, self.records))

    def names(self) -> Iterator[str]:
        return map(itemgetter(NAME), self.records)

    def namespaces(self) -> set[str]:
        return set(map(itemgetter(NAMESPACE), self.records))

    def totals(self) -> Iterator[tuple[str, int, list[tuple[str, int]], int, int]]:
        """Per node with non-terminal records: its name, how many, the sums of their
        requests (resources in order of first appearance among the shapes; a resource no
        shape on the node names is left out) and of their non-zero cpu and memory. Summed
        at C speed per resource over the node's list of shapes."""
        shapes = self.shapes
        shape_of = list(map(itemgetter(SHAPE), self.records)).__getitem__
        columns = []
        for resource in dict.fromkeys(r for requests, _ in shapes for r in requests):
            having = {i for i, (requests, _) in enumerate(shapes) if resource in requests}
            values = [requests.get(resource, 0) for requests, _ in shapes]
            columns.append((resource, values.__getitem__,
                            None if len(having) == len(shapes) else having))
        cpu = [nz[0] for _, nz in shapes].__getitem__
        mem = [nz[1] for _, nz in shapes].__getitem__
        for name, records in self.by_node().items():
            ids = list(map(shape_of, records))
            yield (name, len(ids),
                   [(r, sum(map(value, ids))) for r, value, having in columns
                    if having is None or not having.isdisjoint(ids)],
                   sum(map(cpu, ids)), sum(map(mem, ids)))


class Run:
    """Records ``start:end`` of a store: consecutive plain bound pods of one input, standing
    in one Document for all of them (``Document.model``)."""

    __slots__ = ("end", "start", "store")

    def __init__(self, store: BoundPods, start: int, end: int) -> None:
        self.store, self.start, self.end = store, start, end

    def __len__(self) -> int:
        return self.end - self.start


class _Built(Sequence):
    """A tuple of Pods built on first read (``_built``); ``len()`` never builds it."""

    __slots__ = ()

    def _built(self) -> tuple[Pod, ...]:
        raise NotImplementedError

    def __iter__(self) -> Iterator[Pod]:
        return iter(self._built())

    def __getitem__(self, index: Any) -> Any:
        return self._built()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Built):
            other = other._built()
        return self._built() == other

    def __hash__(self) -> int:
        return hash(self._built())


class LazyPods(_Built):
    """A tuple of Pods of which the records of ``stores`` are built on first read: the
    eager pods and the stores' pods merged by pod order."""

    __slots__ = ("_all", "eager", "stores")

    def __init__(self, eager: tuple[Pod, ...], stores: Sequence[BoundPods]) -> None:
        self.eager = eager
        self.stores = tuple(stores)
        self._all: tuple[Pod, ...] | None = None

    def _built(self) -> tuple[Pod, ...]:
        built = self._all
        if built is None:
            lazy = [p for s in self.stores for p in s.pods()]
            built = self._all = tuple(sorted((*self.eager, *lazy), key=_ORDER)) \
                if self.eager else tuple(lazy)
        return built

    def __len__(self) -> int:
        return len(self.eager) + sum(len(s.records) for s in self.stores)

    def __repr__(self) -> str:
        return f"LazyPods({len(self)} pods)"


class NodePods(_Built):
    """A node's bound pods: its eager ones and ``count`` from the stores, built on first
    read (merged by pod order)."""

    __slots__ = ("_all", "count", "eager", "name", "stores")

    def __init__(self, name: str, eager: tuple[Pod, ...], stores: Sequence[BoundPods],
                 count: int) -> None:
        self.name, self.eager, self.stores, self.count = name, eager, stores, count
        self._all: tuple[Pod, ...] | None = None

    def _built(self) -> tuple[Pod, ...]:
        built = self._all
        if built is None:
            lazy = [p for s in self.stores for p in s.on_node(self.name)]
            built = self._all = tuple(sorted((*self.eager, *lazy), key=_ORDER)) \
                if self.eager or len(self.stores) > 1 else tuple(lazy)
        return built

    def __len__(self) -> int:
        return len(self.eager) + self.count

    def __repr__(self) -> str:
        return f"NodePods({self.name}, {len(self)} pods)"
