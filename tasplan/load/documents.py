"""Files and directories -> Kubernetes objects (dicts), with limits and error positions.

JSON goes through orjson, YAML through libyaml's CSafeLoader when available. YAML that
defines anchors is read by a guarded pure-Python loader that caps alias expansion, so an
alias bomb is an error instead of an out-of-memory kill. Line numbers are looked up only
when an error needs one, by composing the file again. Files ending in ``.gz`` are
decompressed first (within the same size limit). A tasplan snapshot (``ClusterSnapshot``)
yields its ``items`` and then itself, for the loader to decode its pod table.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from tasplan.errors import InputError
from tasplan.limits import MAX_INPUT_BYTES
from tasplan.load.document import Document, type_name
from tasplan.load.nesting import check_depth, may_nest_deeper, too_deep
from tasplan.load.strict import (
    StrictError,
    check_json_ints,
    check_json_keys,
    check_strings,
    encoding_problem,
)
from tasplan.load.yaml_loader import GZIP, decode_yaml, load_yaml, locate
from tasplan.model.source import Source
from tasplan.snapshot import format as snapshot_format
from tasplan.snapshot import signature as snapshot_signature

SUFFIXES = (".yaml", ".yml", ".json", snapshot_signature.SUFFIX)
READ_CHUNK = 16 * 1024**2
STRICT_TYPED_BYTES = 16 * 1024**2  # files up to this size are read by the (strict) dict path


def max_input_bytes() -> int:
    return MAX_INPUT_BYTES.get_int()


def read_limited(stream: Any, label: str, limit: int, what: str = "input") -> bytes:
    """At most ``limit`` bytes of ``stream``, read in bounded chunks (``read(limit)`` on a
    buffered stream reserves ``limit`` bytes up front); more is an error. A regular file
    is read in one call into one buffer of its size (a 548 MB dump read in chunks and
    joined costs a second copy, and twice its size in memory)."""
    chunks: list[bytes] = []
    total = 0
    size = _regular_size(stream)
    if size is not None and size <= limit:
        data = stream.read(size + 1)
        if len(data) <= size:  # at its end: the whole file
            return data
        chunks.append(data)  # it grew meanwhile: read on, within the limit
        total = len(data)
    while total <= limit:
        chunk = stream.read(min(READ_CHUNK, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > limit:
        raise InputError(label, f"{what} is larger than the limit of {limit} bytes "
                         f"({MAX_INPUT_BYTES.hint()})")
    return b"".join(chunks)


def _regular_size(stream: Any) -> int | None:
    """Bytes left in ``stream`` when it is a regular file, else None."""
    if not isinstance(stream, io.BufferedReader | io.FileIO):
        return None  # a decompressing stream's fileno is the compressed file's
    try:
        info = os.fstat(stream.fileno())
        return info.st_size - stream.tell() if stat.S_ISREG(info.st_mode) else None
    except (OSError, ValueError):
        return None


def expand_paths(path: str | os.PathLike, warnings: list[str] | None = None) -> list[Path]:
    """A file as is; a directory's YAML/JSON files, recursively, in name order. Symlinks to
    directories inside it are not followed (as ``kubectl -R``); each is reported in
    ``warnings``, loops back to an enclosing directory as such."""
    p = Path(path)
    if p.is_dir():
        files: list[Path] = []
        for root, dirs, names in os.walk(p, onerror=None):
            for d in dirs:
                link = Path(root, d)
                if link.is_symlink() and warnings is not None:
                    warnings.append(_skipped_link(link))
            for n in sorted(names):
                if _suffix(Path(n)) not in SUFFIXES:
                    continue
                file = Path(root, n)
                if file.is_file():
                    files.append(file)
                elif file.is_symlink():  # a dump would be read without it: say which
                    raise InputError(str(file), _broken_link(file))
        return sorted(files)
    if p.is_file() or str(p) == "-":
        return [p]
    if p.is_symlink():
        raise InputError(str(p), _broken_link(p))
    try:
        mode = os.stat(p).st_mode
    except OSError:
        raise InputError(str(p), "no such file or directory") from None
    raise InputError(str(p), not_regular(mode, directory_ok=True))


def _broken_link(link: Path) -> str:
    """Why a symbolic link leads to no file: the chain of links, up to the loop or the
    missing target (the kernel gives up after 40 hops; so does this)."""
    chain = [str(link)]
    seen = {os.path.abspath(link)}
    current = str(link)
    for _ in range(40):
        try:
            target = os.readlink(current)
        except OSError:
            break
        current = os.path.join(os.path.dirname(current), target)
        chain.append(target)
        if os.path.abspath(current) in seen:
            return f"a symbolic link loop: {' -> '.join(chain)}"
        seen.add(os.path.abspath(current))
        if not os.path.islink(current):
            break
    return f"a broken symbolic link: {' -> '.join(chain)}"


def _skipped_link(link: Path) -> str:
    try:
        target = link.resolve(strict=True)
        loop = link.parent.resolve().is_relative_to(target)
    except (OSError, RuntimeError):
        target, loop = None, True
    why = "a symlink loop" if loop else f"a symlink to directory {target}"
    return f"{link}: {why}, not followed"


def _suffix(path: Path) -> str:
    """The format suffix, looking through ``.gz``: ``a.json.gz`` -> ``.json``."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == GZIP:
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def read_documents(path: Path, *, workload: bool, typed: bool = False) -> Iterator[Document]:
    """Every object in the file; ``kind: *List`` documents are flattened into their items.

    ``typed``: JSON Lists and snapshots go through the typed reader, which decodes Nodes
    and bound Pods to the model directly (``Document.model``), and so do large kubectl
    YAML Lists that ``load/yaml_dump.py`` can convert exactly; what they do not take, this
    module reads as before."""
    if str(path) != "-" and path.suffix.lower() != GZIP and _binary_head(path):
        return parsed_documents(str(path), [_binary_snapshot(str(path), _read_bytes(path))],
                                workload=workload)
    if typed and _suffix(path) == ".json":
        from tasplan.load import typed as typed_reader  # msgspec: for JSON only

        if (path.suffix.lower() != GZIP and str(path) != "-" and path.is_file()
                and path.stat().st_size <= max_input_bytes()):
            docs = typed_reader.read_json_stream(path, workload=workload)
            if docs is not None:
                return iter(docs)
    yaml_mapped = False
    if (typed and _suffix(path) in (".yaml", ".yml") and path.suffix.lower() != GZIP
            and str(path) != "-" and path.is_file()
            and STRICT_TYPED_BYTES < path.stat().st_size <= max_input_bytes()):
        from tasplan.load.yaml_dump import read_yaml_file

        yaml_mapped = True
        docs = read_yaml_file(str(path), workload=workload)
        if docs is not None:
            return iter(docs)
    data = _read_bytes(path)
    if snapshot_signature.is_binary(data):  # gzip or stdin
        return parsed_documents(str(path), [_binary_snapshot(str(path), data)],
                                workload=workload)
    # Small files take the dict path, which checks for duplicate keys (see load/strict.py;
    # the typed path checks strings only, so a large kubectl dump is not re-encoded).
    if typed and len(data) > STRICT_TYPED_BYTES:
        docs = None
        if _is_json(path, data):
            from tasplan.load import typed as typed_reader

            docs = typed_reader.read_json_cluster(str(path), data.removeprefix(_BOM),
                                                  workload=workload)
        elif not yaml_mapped:  # gzip, stdin, another suffix
            from tasplan.load.yaml_dump import read_yaml_list

            docs = read_yaml_list(str(path), data, workload=workload)
        if docs is not None:
            return iter(docs)
    return parsed_documents(str(path), _parse(path, data), workload=workload)


def _binary_head(path: Path) -> bool:
    """Whether a file starts like a binary snapshot (its first bytes: any name will do)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False  # a FIFO would block the open: the ordinary read refuses it
        with open(path, "rb") as fh:
            return snapshot_signature.is_binary(fh.read(len(snapshot_signature.MAGIC)))
    except OSError:
        return False  # the ordinary read reports it


def _binary_snapshot(label: str, data: bytes) -> dict[str, Any]:
    """A binary snapshot -> the snapshot document its JSON form holds, read as strictly:
    its JSON parts by the JSON reader of every input, its columns typed."""
    def parse_json(text: bytes, what: str) -> Any:
        try:
            return parse_bytes(label, text, ".json")[0]
        except InputError as exc:
            raise InputError(label, f"malformed binary snapshot: {what}: {exc.detail}",
                             field=exc.field) from None

    from tasplan.snapshot import binary as snapshot_binary  # msgspec: for binary ones only

    try:
        return snapshot_binary.decode(data, parse_json)
    except snapshot_binary.BinaryError as exc:
        raise InputError(label, str(exc)) from None


def parsed_documents(label: str, objects: Iterable[Any], *,
                     workload: bool) -> Iterator[Document]:
    """Documents of already-parsed objects (a file's, or a snapshot taken in memory)."""
    for index, obj in enumerate(objects):
        if obj is None:
            continue
        source = Source(label, index, None, workload)
        if not isinstance(obj, dict):
            raise InputError(label, f"expected a Kubernetes object (a mapping with apiVersion "
                             f"and kind), got {type_name(obj)}",
                             line=locate(label, index, ""))
        kind = obj.get("kind")
        if snapshot_format.is_snapshot(obj):
            yield from _snapshot_documents(label, index, obj, workload)
        elif isinstance(kind, str) and kind.endswith("List") and "items" in obj:
            items = obj["items"]
            if items is None:
                continue
            if not isinstance(items, list):
                raise InputError(label, f"expected a list, got {type_name(items)}",
                                 field="items", line=locate(label, index, "items"))
            item_kind = kind[: -len("List")] if kind != "List" else None
            for k, item in enumerate(items):
                item_source = Source(label, index, k, workload)
                if not isinstance(item, dict):
                    raise InputError(label, f"expected a Kubernetes object, got "
                                     f"{type_name(item)}", field=f"items[{k}]",
                                     line=locate(label, index, f"items[{k}]"))
                if snapshot_format.is_snapshot(item):
                    raise InputError(label, "a tasplan snapshot inside a List is not read; "
                                     "pass the snapshot file itself", field=f"items[{k}]",
                                     line=locate(label, index, f"items[{k}]"))
                if item_kind and "kind" not in item:  # NodeList items may omit kind
                    item = {**item, "kind": item_kind, "apiVersion": obj.get("apiVersion")}
                yield Document(item_source, item)
        else:
            yield Document(source, obj)


def _snapshot_documents(label: str, index: int, obj: dict[str, Any],
                        workload: bool) -> Iterator[Document]:
    if obj.get("apiVersion") != snapshot_format.API_VERSION:
        raise InputError(label, f"unsupported snapshot version {obj.get('apiVersion')!r} "
                         f"(this tasplan reads {snapshot_format.API_VERSION})",
                         field="apiVersion")
    items = obj.get("items") or []
    if not isinstance(items, list):
        raise InputError(label, f"expected a list, got {type_name(items)}", field="items")
    for k, item in enumerate(items):
        if not isinstance(item, dict):
            raise InputError(label, f"expected a Kubernetes object, got {type_name(item)}",
                             field=f"items[{k}]")
        yield Document(Source(label, index, k, workload), item)
    yield Document(Source(label, index, None, workload), obj)  # its pod table


def open_input(path: Path) -> Any:
    """``path`` opened for reading, checked as every input is (cluster, workload, what-if,
    scheduler config, lint): a regular file within the size limit. A device or FIFO is
    refused before a byte is read (``/dev/zero`` would be read up to the size limit).
    Raises OSError when it cannot be opened."""
    label = str(path)
    mode = os.stat(path).st_mode  # before opening: opening a FIFO waits for a writer
    if not stat.S_ISREG(mode):
        raise InputError(label, not_regular(mode))
    fh = path.open("rb")
    try:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise InputError(label, not_regular(info.st_mode))
        limit = max_input_bytes()
        if info.st_size > limit:
            raise InputError(label, f"file is {info.st_size} bytes, larger than the limit of "
                             f"{limit} bytes ({MAX_INPUT_BYTES.hint()})")
    except BaseException:
        fh.close()
        raise
    return fh


def not_regular(mode: int, directory_ok: bool = False) -> str:
    """The error for an input that is not a regular file."""
    if stat.S_ISDIR(mode):
        return "is a directory; expected a YAML or JSON file"
    what = ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a file")
    files = "a YAML or JSON file" + (" or a directory of them" if directory_ok else "")
    return f"is not a regular file ({what}); expected {files} (- reads standard input)"


def _read_bytes(path: Path) -> bytes:
    limit = max_input_bytes()
    label = str(path)
    try:
        if label == "-":
            import sys

            data = read_limited(sys.stdin.buffer, label, limit)
        else:
            with open_input(path) as fh:
                data = read_limited(fh, label, limit)
    except OSError as exc:
        raise InputError(label, f"cannot read: {exc.strerror or exc}") from None
    if path.suffix.lower() == GZIP:
        try:
            with gzip.GzipFile(fileobj=_Bytes(data)) as stream:
                data = read_limited(stream, label, limit, "decompressed input")
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(label, f"not a valid gzip file: {exc}") from None
    return data


class _Bytes:
    """A read-only file over bytes without the copy ``io.BytesIO`` makes."""

    def __init__(self, data: bytes) -> None:
        self.view = memoryview(data)
        self.pos = 0

    def read(self, n: int = -1) -> bytes:
        end = len(self.view) if n is None or n < 0 else min(self.pos + n, len(self.view))
        out = bytes(self.view[self.pos:end])
        self.pos = end
        return out


_BOM = b"\xef\xbb\xbf"


def _is_json(path: Path, data: bytes) -> bool:
    return _looks_json(_suffix(path), data)


def _looks_json(suffix: str, data: bytes) -> bool:
    """.json is JSON; anything else that looks like JSON is tried as JSON first and, since
    flow-style YAML looks the same, read as YAML when that fails."""
    return suffix == ".json" or (suffix not in (".yaml", ".yml")
                                 and data.removeprefix(_BOM).lstrip()[:1] in (b"{", b"["))


def _parse(path: Path, data: bytes | None = None) -> list[Any]:
    if data is None:
        data = _read_bytes(path)
    return parse_bytes(str(path), data, _suffix(path))


def parse_bytes(label: str, data: bytes, suffix: str = "") -> list[Any]:
    """The documents of a YAML or JSON file's bytes, decoded as the API server would:
    duplicate keys, NUL characters, lone surrogates and out-of-range integers refused."""
    problem = encoding_problem(data)
    if problem:
        raise InputError(label, problem)
    if _looks_json(suffix, data):
        try:
            obj = orjson.loads(data.removeprefix(_BOM))
        except orjson.JSONDecodeError as exc:
            if "depth" in exc.msg or "recursion" in exc.msg.lower():
                deep = too_deep(data)
                raise InputError(label, str(deep), line=deep.line, field=deep.field) from None
            if suffix == ".json":
                raise InputError(label, f"invalid JSON: {exc.msg} (column {exc.colno})",
                                 line=exc.lineno) from None
        else:
            try:
                if may_nest_deeper(data, block=False):
                    check_depth(data.decode("utf-8", "replace"))
                check_strings(data, obj)
                check_json_keys(data, obj)
                check_json_ints(data)
            except StrictError as exc:
                raise InputError(label, str(exc), line=exc.line, field=exc.field) from None
            return [obj]
    text = decode_yaml(label, data)
    from tasplan.load import yaml_fast  # rapidyaml: imported when a YAML file is read

    docs = yaml_fast.documents(data)
    if docs is not None:
        return docs
    return load_yaml(label, data, text)


