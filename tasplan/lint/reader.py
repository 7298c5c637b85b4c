"""Manifest files -> objects that remember where each of their fields is.

The spine's loader parses fast and looks positions up only for its one error; lint needs
a line and column for every finding, so YAML is composed to a node tree once and the
objects are constructed from it (libyaml for both steps), unless rapidyaml can read the
file exactly (``load/yaml_fast``). JSON, and YAML read by rapidyaml, are composed by libyaml
only when a finding needs a position. The same limits as the spine
apply: a size cap, the alias-expansion guard, safe constructors only (python tags are
refused). Problems with a file's content are returned as a :class:`ParseProblem`, never
raised; only a file that cannot be opened raises :class:`InputError`.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import yaml

from tasplan.errors import InputError
from tasplan.lint.report import Path as FieldPath
from tasplan.load.documents import max_input_bytes, not_regular, read_limited
from tasplan.load.kube_yaml import AliasBomb, FastLoader, GuardedLoader
from tasplan.load.nesting import check_depth, may_nest_deeper
from tasplan.load.strict import (
    StrictError,
    check_json_ints,
    check_json_keys,
    check_strings,
    encoding_problem,
)
from tasplan.load.yaml_loader import needs_guarded_loader

Mark = tuple[int | None, int | None]  # 1-based line, column
YAML_LIMIT_ENV = "TASPLAN_LINT_MAX_YAML_BYTES"
DEFAULT_YAML_LIMIT = 64 * 2**20
DEFAULT_COMPOSE_LIMIT = 4 * 2**20  # ~5 s of composing with positions on the reference machine
_SNIFF = 8192
_RESOLVED: dict[tuple, str] = {}


class _Loader(FastLoader):  # type: ignore[misc, valid-type]
    """libyaml's safe loader with memoised implicit tags: resolving a plain scalar runs
    Python regexes, and manifests repeat the same keys and values thousands of times."""

    def resolve(self, kind, value, implicit):  # type: ignore[override]
        if kind is not yaml.ScalarNode:
            return super().resolve(kind, value, implicit)
        key = (value, implicit)
        tag = _RESOLVED.get(key)
        if tag is None:
            if len(_RESOLVED) > 100_000:
                _RESOLVED.clear()
            tag = _RESOLVED[key] = super().resolve(kind, value, implicit)
        return tag


@dataclass(frozen=True, slots=True)
class ParseProblem:
    message: str
    line: int | None = None
    column: int | None = None


@dataclass(slots=True)
class ManifestFile:
    """One input file. ``nodes`` holds each document's root node; for JSON and for YAML
    that rapidyaml read, it is composed on first use (None when even that fails: findings
    then have no position). ``split``: YAML that rapidyaml read, whose documents are
    composed one by one from the bytes, from ``spans`` (where each is in ``data``, found
    on first use), so that only the document a finding is in gets composed. ``text`` is
    decoded on first use (an ASCII file's bytes are its text)."""

    label: str
    data: bytes
    decoded: str | None = None
    nodes: list[yaml.Node | None] | None = None
    composed: bool = False
    split: bool = False
    spans: list[tuple[int, int]] | None = None
    lines: dict[int, int] | None = None  # document -> lines before it, with ``spans``
    counted: tuple[int, int] = (0, 0)  # an offset and the lines before it (``_document``)

    @property
    def text(self) -> str:
        if self.decoded is None:
            self.decoded = self.data.decode("utf-8-sig")
        return self.decoded

    def node(self, document: int) -> yaml.Node | None:
        if self.split:
            return self._document(document)
        if not self.composed:
            self.composed = True
            try:
                self.nodes = list(yaml.compose_all(self.text, Loader=FastLoader))
            except (yaml.YAMLError, RecursionError):
                self.nodes = None
        if self.nodes is None or document >= len(self.nodes):
            return None
        return self.nodes[document]

    def line_offset(self, document: int) -> int:
        """Lines before the text the document's node was composed from."""
        return self.lines.get(document, 0) if self.lines is not None else 0

    def _document(self, document: int) -> yaml.Node | None:
        if self.spans is None:
            from tasplan.load.yaml_fast import spans

            self.spans = spans(self.data)
        if self.nodes is None:
            self.nodes, self.lines = [None] * len(self.spans), {}
        if document >= len(self.spans):
            return None
        if document not in self.lines:
            start, end = self.spans[document]
            # counted on from the last document asked for (findings come in document order)
            at, lines = self.counted if self.counted[0] <= start else (0, 0)
            self.counted = start, lines + self.data.count(b"\n", at, start)
            self.lines[document] = self.counted[1]
            try:
                self.nodes[document] = yaml.compose(self.data[start:end], Loader=FastLoader)
            except (yaml.YAMLError, RecursionError):
                self.nodes[document] = None
        return self.nodes[document]


@dataclass(slots=True)
class Manifest:
    """One Kubernetes object of a file: a document, or an item of a ``kind: List``.
    ``kind``, ``api_version``, ``namespace`` and ``name`` are read once (every rule asks
    for them; a 200,000-document file asked 23 times per object): "" when absent or not
    a string (an empty namespace too)."""

    file: ManifestFile
    document: int
    item: int | None
    obj: Any
    kind: str = field(init=False)
    api_version: str = field(init=False)
    namespace: str = field(init=False)
    name: str = field(init=False)
    # Documents of one shape (``yaml_fast.Roots``) are equal but for a plain
    # ``metadata.name``; None when unknown.
    shape: int | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        obj = self.obj
        kind = version = namespace = name = ""
        if isinstance(obj, dict):
            kind, version = obj.get("kind"), obj.get("apiVersion")
            meta = obj.get("metadata")
            if isinstance(meta, dict):
                namespace, name = meta.get("namespace"), meta.get("name")
        self.kind = kind if isinstance(kind, str) else ""
        self.api_version = version if isinstance(version, str) else ""
        self.namespace = namespace if isinstance(namespace, str) else ""
        self.name = name if isinstance(name, str) else ""

    def like(self, document: int, obj: Any) -> Manifest:
        """Document ``document`` of this one's shape (``obj`` equal to this one's object
        but for a plain ``metadata.name``): what ``__post_init__`` reads is this one's."""
        m = object.__new__(Manifest)
        m.file, m.document, m.item, m.obj, m.shape = self.file, document, None, obj, self.shape
        m.kind, m.api_version, m.namespace = self.kind, self.api_version, self.namespace
        meta = obj.get("metadata") if isinstance(obj, dict) else None
        name = meta.get("name") if isinstance(meta, dict) else None
        m.name = name if isinstance(name, str) else ""
        return m

    def locate(self, path: FieldPath, *, key: bool = False) -> Mark:
        """Position of ``path``: its value (or, with ``key``, its key). A path that does not
        exist points at the key of the deepest part that does."""
        node = self.file.node(self.document)
        if node is not None and self.item is not None:
            node = _child(node, "items")
            node = _child(node[1], self.item) if node else None
            node = node[1] if node else None
        if node is None:
            return None, None
        key_node = None
        offset = self.file.line_offset(self.document)
        for part in path:
            child = _child(node, part)
            if child is None:
                return _mark(key_node or node, offset)
            key_node, node = child
        return _mark(key_node if key and key_node is not None else node, offset)


def _child(node: yaml.Node, part: str | int) -> tuple[yaml.Node | None, yaml.Node] | None:
    if isinstance(node, yaml.MappingNode) and isinstance(part, str):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == part:
                return k, v
    elif (isinstance(node, yaml.SequenceNode) and isinstance(part, int)
          and 0 <= part < len(node.value)):
        return None, node.value[part]
    return None


def _mark(node: yaml.Node, line_offset: int = 0) -> Mark:
    return node.start_mark.line + 1 + line_offset, node.start_mark.column + 1


def yaml_limit() -> int:
    """Largest YAML file lint reads (``TASPLAN_LINT_MAX_YAML_BYTES`` sets it)."""
    raw = os.environ.get(YAML_LIMIT_ENV)
    return int(raw) if raw and raw.isdigit() else DEFAULT_YAML_LIMIT


def compose_limit() -> int:
    """Largest YAML file lint reads through libyaml, composing a position for every node
    (about 1 MiB/s: a 60 MB file would take a minute or more; refusing says so at once).
    Files rapidyaml reads exactly go up to ``yaml_limit``: their positions are composed
    only for the documents that have findings. ``TASPLAN_LINT_MAX_YAML_BYTES`` sets both."""
    raw = os.environ.get(YAML_LIMIT_ENV)
    return int(raw) if raw and raw.isdigit() else DEFAULT_COMPOSE_LIMIT


def read_bytes(path: Path) -> bytes:
    """The file's bytes; raises InputError when it cannot be opened (exit status 2). A file
    over the size limit is returned one byte over it (``parse`` reports it)."""
    limit = max_input_bytes()
    try:
        mode = os.stat(path).st_mode  # before opening: opening a FIFO waits for a writer
        if not stat.S_ISREG(mode):
            raise InputError(str(path), not_regular(mode))
        with path.open("rb") as fh:
            try:
                return read_limited(fh, str(path), limit)
            except InputError:
                return b"\0" * (limit + 1)
    except OSError as exc:
        raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from None


def _line(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _deepest_line(text: str) -> int | None:
    """Where nesting is deepest: the first line at the deepest flow bracket, else the first
    of the most indented lines (where a "too deep" file goes wrong)."""
    depth = deepest = at = 0
    for i, ch in enumerate(text):
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, i
        elif ch in "]}":
            depth -= 1
    if deepest > 1:
        return text.count("\n", 0, at) + 1
    lines = text.splitlines()
    if not lines:
        return None
    indents = [len(line) - len(line.lstrip(" ")) for line in lines]
    return indents.index(max(indents)) + 1


def parse(label: str, data: bytes) -> tuple[list[Manifest], ParseProblem | None]:
    """Every object in the file. On a problem, the objects read before it are kept only
    for YAML streams (earlier documents are complete); the problem is reported once."""
    limit = max_input_bytes()
    if len(data) > limit:
        return [], ParseProblem(
            f"file is larger than the limit of {limit} bytes "
            "(set TASPLAN_MAX_INPUT_BYTES to raise it)")
    if not label.lower().endswith(".json") and len(data) > yaml_limit():
        return [], ParseProblem(
            f"YAML file of {len(data) / 2**20:.1f} MiB is over lint's limit of "
            f"{yaml_limit() / 2**20:.1f} MiB (split it, lint it as JSON, or set "
            f"{YAML_LIMIT_ENV} to raise the limit)")
    problem = encoding_problem(data)
    if problem:
        return [], ParseProblem(problem, 1, 1)
    nul = data.find(b"\0", 0, _SNIFF)
    if nul >= 0:
        return [], ParseProblem(
            f"binary file (NUL byte at offset {nul}), not YAML or JSON", _line(data, nul))
    file = ManifestFile(label, data)
    if not data.isascii():
        try:
            file.decoded = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            return [], ParseProblem(
                f"not UTF-8 text (invalid byte at offset {exc.start})", _line(data, exc.start))
    is_json = label.lower().endswith(".json")
    if may_nest_deeper(data, block=not is_json):
        try:
            check_depth(file.text)
        except StrictError as exc:
            return [], ParseProblem(f"{exc.field}: {exc}" if exc.field else str(exc), exc.line)
    if is_json:
        try:
            roots = [orjson.loads(file.text)]
            check_strings(data, roots)
            check_json_keys(data, roots[0])
            check_json_ints(data)
        except orjson.JSONDecodeError as exc:
            return [], ParseProblem(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno)
        except StrictError as exc:
            return [], ParseProblem(str(exc), exc.line)
        return _objects(file, roots), None
    from tasplan.load.yaml_fast import documents

    fast = documents(data)
    if fast is not None:  # positions are composed when a finding asks for one
        file.split = True
        return _objects(file, fast, getattr(fast, "shapes", None)), None
    if len(data) > compose_limit():
        return [], ParseProblem(
            f"YAML file of {len(data) / 2**20:.1f} MiB is over lint's limit of "
            f"{compose_limit() / 2**20:.1f} MiB for YAML that rapidyaml cannot read exactly "
            "(anchors, tags, YAML 1.1 words such as yes/on as plain values, ...): libyaml "
            "keeps the position of every field and reads about 1 MiB/s, so it would take "
            f"minutes (split it, lint it as JSON, or set {YAML_LIMIT_ENV} to raise the limit)")
    file.composed = True
    file.nodes = []
    roots: list[Any] = []
    loader_class = GuardedLoader if needs_guarded_loader(data) else _Loader
    text = file.text
    loader = loader_class(text)
    problem = None
    try:
        while loader.check_node():
            node = loader.get_node()
            file.nodes.append(node)
            roots.append(None if node is None else
                         _construct(loader, node) if loader_class is _Loader else
                         loader.construct_document(node))
        check_strings(data, roots)
    except (AliasBomb, StrictError) as exc:
        problem = ParseProblem(str(exc), exc.line)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = exc.problem or exc.context or "invalid YAML"
        if mark is None:
            problem = ParseProblem(f"invalid YAML: {what}")
        else:
            problem = ParseProblem(f"invalid YAML: {what}", mark.line + 1, mark.column + 1)
    except yaml.YAMLError as exc:
        problem = ParseProblem(f"invalid YAML: {exc}")
    except RecursionError:
        problem = ParseProblem("YAML nesting is too deep", _deepest_line(text))
    finally:
        loader.dispose()
    if problem is not None and problem.message.startswith(("a string holds", "duplicate")):
        roots = []  # the whole document is suspect, as for the loader
    return _objects(file, roots), problem


_STR, _SEQ, _MAP = (f"tag:yaml.org,2002:{t}" for t in ("str", "seq", "map"))
_SCALARS = frozenset(f"tag:yaml.org,2002:{t}" for t in ("null", "bool", "int", "float"))


class _Slow(Exception):
    """The document has something only the full constructor handles (merge keys, a
    duplicate or non-string key, an unknown tag): it constructs the whole document."""


def _construct(loader: _Loader, root: yaml.Node) -> Any:
    """The document's value, as ``construct_document`` gives it, without PyYAML's generic
    per-node machinery (most of lint's parse time): strings, lists and mappings with
    unique string keys are built here, other scalars by the loader's own constructors."""
    def build(node: yaml.Node) -> Any:
        tag = node.tag
        if tag == _STR and isinstance(node, yaml.ScalarNode):
            return node.value
        if tag == _MAP and isinstance(node, yaml.MappingNode):
            out = {}
            for key_node, value_node in node.value:
                if key_node.tag != _STR or not isinstance(key_node, yaml.ScalarNode) \
                        or key_node.value in out:
                    raise _Slow
                out[key_node.value] = build(value_node)
            return out
        if tag == _SEQ and isinstance(node, yaml.SequenceNode):
            return [build(item) for item in node.value]
        if tag in _SCALARS and isinstance(node, yaml.ScalarNode):
            return loader.yaml_constructors[tag](loader, node)
        raise _Slow

    try:
        return build(root)
    except _Slow:
        return loader.construct_document(root)


def _objects(file: ManifestFile, roots: list[Any],
             shapes: list[int | None] | None = None) -> list[Manifest]:
    """Documents, with ``kind: *List`` flattened into their items (as kubectl does).
    ``shapes``: each document's shape (``yaml_fast.Roots``), kept on its Manifest."""
    out: list[Manifest] = []
    first: dict[int, Manifest] = {}  # shape -> its first document (not a List)
    for index, obj in enumerate(roots):
        if obj is None:
            continue
        shape = None if shapes is None else shapes[index]
        like = first.get(shape) if shape is not None else None
        if like is not None:
            out.append(like.like(index, obj))
            continue
        kind = obj.get("kind") if isinstance(obj, dict) else None
        items = obj.get("items") if isinstance(obj, dict) else None
        if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
            item_kind = kind[: -len("List")] if kind != "List" else None
            for k, item in enumerate(items):
                if item_kind and isinstance(item, dict) and "kind" not in item:
                    item = {**item, "kind": item_kind, "apiVersion": obj.get("apiVersion")}
                out.append(Manifest(file, index, k, item))
        else:
            m = Manifest(file, index, None, obj)
            if shape is not None:
                m.shape, first[shape] = shape, m
            out.append(m)
    return out
