"""kubectl YAML dumps (``kubectl get … -o yaml``) -> Documents through rapidyaml and the typed
reader, instead of libyaml building a dict tree (1-5 MB/s).

kubectl writes YAML from JSON with go-yaml v2: a ``List`` whose ``items:`` is a block
sequence at column 0, two-space indentation, and every string that would read back as
something else double-quoted. Such a file is cut at its column-0 ``- `` lines into pieces of
a few megabytes; rapidyaml (C++) parses each piece and writes it as JSON, which the typed
reader (``load/typed.py``) decodes as it decodes a kubectl JSON dump.

rapidyaml reads YAML 1.2 and its JSON writer has its own idea of scalars, while Kubernetes
reads YAML as go-yaml v2 (``load/strict.py``): ``on``, ``yes``, ``True``, ``~``, ``0755``,
``1_000``, ``.inf``, timestamps, merge keys, numeric or boolean keys differ. Agreement is
made by construction: a piece goes through rapidyaml only when a scan of its bytes proves
that no plain scalar is one of those. The scan over-approximates (a risky word after any
structural character counts), so a hand-written file may fall back without need, never the
other way. It also refuses anchors, aliases, tags, directives, complex keys, folded blocks,
empty keys or values next to flow indicators, several documents, tabs, carriage returns and
characters libyaml refuses. The header and tail of the List (``apiVersion``, ``kind``,
``metadata``: a few lines) are read by libyaml. On large files the scan runs in a forked
child while this process converts (it costs about as much as rapidyaml's parse).

Anything else -- a layout that is not kubectl's, a risky piece, a rapidyaml error, an item
the typed reader does not take whole -- and the whole file goes to the libyaml path, which
reports errors with file, line and field. Like large JSON dumps read by the typed reader,
duplicate keys are not looked for here (``documents.STRICT_TYPED_BYTES``).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import re
import signal
import threading
from collections.abc import Callable, Iterator

from tasplan.errors import InputError
from tasplan.load.document import Document
from tasplan.load.strict import risky_escape
from tasplan.load.yaml_loader import read_yaml
from tasplan.snapshot import format as snapshot_format

CHUNK_BYTES = 1 << 23
PARALLEL_BYTES = 1 << 25  # from 32 MB of items the scan runs in a child process

# The scan works on a copy of a piece with spaces deleted, ``:`` made \x02, ``[{`` \x03,
# ``]}`` \x04, ``,#`` made ``,`` and control characters (libyaml refuses them; tabs and CR
# are legal but read differently around indicators) made \x01. A plain scalar is then a
# token between a left boundary (a line start with the ``-`` of any sequence entries, ``,``,
# \x02 or \x03) and a right one (``\n``, ``,``, \x02 or \x04). A token between two \x02 is inside
# a scalar (``10:00:00``), as ``a: b: c`` is not YAML. In flow collections YAML 1.2 reads
# an empty key or value next to an indicator (``[:]``, ``{a:}``) where libyaml errs: a
# \x02 right after ``[{,`` or right before ``,]}`` is refused (``key: # note`` too).
_SCAN = bytes.maketrans(
    bytes(range(32)) + b"\x7f:[{]},#",
    b"\x01" * 10 + b"\n" + b"\x01" * 21 + b"\x01\x02\x03\x03\x04\x04,,")
# Plain scalars that Kubernetes reads as something other than rapidyaml's JSON: YAML 1.1
# words, go-yaml's numbers, rapidyaml's own inf/nan spellings, merge and value keys.
_WORDS = (rb"(?:[yY]es|YES|[nN]o|NO|[oO]n|ON|[oO]ff|OFF|True|TRUE|False|FALSE|~|Null|NULL"
          rb"|<<|=|[iI]nf|INF|[nN]a[nN]|NAN|[yYnN])")
_NUMBERS = (rb"[-+]?+0(?:[xX][0-9a-fA-F_]*+|[oO][0-7_]*+|[bB][01_]*+"   # 0x1F 0o17 0b1
            rb"|[0-9_][0-9_.]*+(?:[eE][-+]?[0-9]*+)?|[eE][-+]?[0-9]*+)"  # 0755 00.5 0e1
            rb"|[-+]?+[0-9.][0-9.]*+_[0-9._]*+(?:[eE][-+]?[0-9]++)?"     # 1_000
            rb"|[-+]?+\.[0-9][0-9_]*+(?:[eE][-+]?[0-9]++)?"              # .5
            rb"|[-+]?+[0-9]{19,}+(?:\.[0-9]*+)?(?:[eE][-+]?[0-9]++)?"    # beyond int64
            rb"|[-+]?+[0-9]++(?:\.[0-9]*+)?[eE][-+]?[0-9]{3,}+"          # 1e400
            rb"|[-+]?\.?(?:[iI]nf|INF|[nN]a[nN]|NAN)")                   # -.inf nan


def _token(end: bytes, key: bool) -> bytes:
    """A risky token after a left boundary, dispatched on its first character (sre tries
    alternatives one by one). ``key``: the token may be a mapping key, which must then be
    a string (no number, timestamp, true, false or null)."""
    return (rb"(?:(?=[-+.0-9])(?:(?:" + _NUMBERS + rb")" + end
            + rb"|\+[0-9.]|[0-9]{4}-[0-9]" + (rb"|[^\n\x02,\x04]*+\x02" if key else b"") + rb")"
            rb"|(?=[yYnNoOTFtf~<=iI][^\n\x02,\x04]{0,4}[\n\x02,\x04])(?:" + _WORDS + end
            + (rb"|(?:true|false|null)\x02" if key else b"") + rb")"
            rb"|[&*!%@`?>])")  # anchor, alias, tag, directive, reserved, complex key, folded


_KEY_OR_VALUE = rb"-*+" + _token(rb"(?=[\n\x02,\x04])", key=True)
_LINE = rb"(?:---|\.\.\.|" + _KEY_OR_VALUE + rb")"  # document markers: several documents
# Every alternative starts with a literal, so sre skips to the boundaries at C speed.
_RISKY = re.compile(rb"\x02(?:[,\x04]|" + _token(rb"(?=[\n,\x04])", key=False) + rb")"
                    + rb"|\n" + _LINE + rb"|,(?:\x02|" + _KEY_OR_VALUE + rb")"
                    + rb"|\x03(?:\x02|" + _KEY_OR_VALUE + rb")|\x01")
# Non-ASCII that libyaml reads differently (NEL, LS, PS are line breaks in YAML 1.1) or
# refuses (C1 controls, U+FFFE/FFFF), and byte order marks.
UNICODE = re.compile(rb"\xc2[\x80-\x9f]|\xe2\x80[\xa8\xa9]|\xef\xbb\xbf|\xef\xbf[\xbe\xbf]")
_TAIL = re.compile(rb"\n(?=[^ \n#-]|-[^ \n])")


def risky(piece: bytes) -> bool:
    """True when a plain scalar of ``piece`` may be read differently by Kubernetes and by
    rapidyaml's JSON (or the piece uses YAML this path does not take, or is not UTF-8)."""
    if not piece.isascii():
        try:
            piece.decode("utf-8")
        except UnicodeDecodeError:
            return True
        if UNICODE.search(piece):
            return True
    text = b"\n" + piece.translate(_SCAN, b" ") + b"\n"
    return _RISKY.search(text) is not None or risky_escape(piece)


def read_yaml_list(label: str, data: bytes | mmap.mmap, *, workload: bool,
                   chunk_bytes: int = CHUNK_BYTES) -> list[Document] | None:
    """The documents of a kubectl YAML ``List``, or None when the libyaml path must read the
    file (see the module docstring); errors are never raised from here."""
    layout = _layout(data)
    if layout is None:
        return None
    items_key, start, end = layout
    top = _top(label, data[:items_key] + b"items: []\n" + data[end:])
    if top is None:
        return None
    try:
        import ryml
    except ImportError:  # no wheel for this platform: libyaml reads it, slowly
        return None

    from tasplan.load import typed

    kind = top["kind"]
    reader = typed._Reader(label, workload, kind[: -len("List")] if kind != "List" else None,
                           top.get("apiVersion"))
    tree = ryml.Tree()
    bounds = list(_pieces(data, start, end, chunk_bytes))
    scan = _scan_aside(data, bounds) if end - start >= PARALLEL_BYTES else None
    try:
        for a, b in bounds:
            piece = data[a:b]
            _release(data, b)
            if scan is None and risky(piece):
                return None
            json = _to_json(ryml, tree, piece)
            if json is None:
                return None
            try:
                if not reader.chunk(json):
                    return None
            except ValueError:  # orjson on an item msgspec let through
                return None
        if scan is not None and not scan.safe():
            return None
    finally:
        if scan is not None:
            scan.close()
    # Every typed pod's startTime is valid, or libyaml reads the file and the dict path
    # names the bad one (this check was missing: the fast path accepted what it refuses).
    return reader.docs if reader.done() else None


class _Scan:
    """The scan of every piece in a forked child, while this process converts them (two
    cores: the scan costs about as much as rapidyaml's parse). Its verdict is one byte."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid, self.fd, self.verdict = pid, fd, None

    def safe(self) -> bool:
        with os.fdopen(self.fd, "rb") as fh:
            self.verdict = fh.read(1)
        self.fd = -1
        os.waitpid(self.pid, 0)
        self.pid = 0
        return self.verdict == b"0"

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
        if self.pid:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)


def _scan_aside(data: bytes | mmap.mmap, bounds: list[tuple[int, int]]) -> _Scan | None:
    """A child scanning the pieces, or None where forking is not safe (no fork, threads)."""
    def scan() -> bool:
        for a, b in bounds:
            piece = data[a:b]
            _release(data, b)
            if risky(piece):
                return True
        return False

    return aside(scan)


def aside(risky_in: Callable[[], bool]) -> _Scan | None:
    """``risky_in()`` computed in a forked child while this process goes on (its answer is
    ``_Scan.safe()``), or None where forking is not safe (no fork, threads)."""
    if not hasattr(os, "fork") or threading.active_count() > 1:
        return None
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the child: answer, and leave without running anything of the parent's
        try:
            os.close(read)
            os.write(write, b"1" if risky_in() else b"0")
        finally:
            os._exit(0)
    os.close(write)
    return _Scan(pid, read)


def read_yaml_file(path: str, *, workload: bool) -> list[Document] | None:
    """``read_yaml_list`` of a regular file through a memory map whose pages are released
    as the pieces are read: the file never sits in memory whole."""
    with open(path, "rb") as fh:
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        return read_yaml_list(path, mm, workload=workload)
    finally:
        mm.close()


def _release(data: bytes | mmap.mmap, upto: int) -> None:
    """Drop the mapped pages before ``upto`` from this process's memory (read again from
    the page cache if needed)."""
    if isinstance(data, mmap.mmap) and upto >= mmap.PAGESIZE:
        with contextlib.suppress(OSError, ValueError):
            data.madvise(mmap.MADV_DONTNEED, 0, upto - upto % mmap.PAGESIZE)


def _layout(data: bytes | mmap.mmap) -> tuple[int, int, int] | None:
    """(offset of the ``items:`` line, first item, end of the items), or None."""
    first = data[:7] == b"items:\n"
    items_key = 0 if first else data.find(b"\nitems:\n") + 1
    start = items_key + len(b"items:\n")
    if (items_key == 0 and not first) or data[start:start + 2] not in (b"- ", b"-\n"):
        return None
    last = data.rfind(b"\n-", start - 1)
    tail = _TAIL.search(data, last + 1)
    return items_key, start, len(data) if tail is None else tail.start() + 1


def _top(label: str, text: bytes) -> dict | None:
    """The List around the items (read by libyaml: a few lines), if it is one."""
    try:
        docs = read_yaml(label, text)
    except InputError:
        return None
    if len(docs) != 1 or not isinstance(docs[0], dict):
        return None
    top = docs[0]
    kind = top.get("kind")
    if (not isinstance(kind, str) or not kind.endswith("List") or top.get("items") != []
            or snapshot_format.is_snapshot(top)):
        return None
    return top


def _pieces(data: bytes | mmap.mmap, start: int, end: int,
            chunk_bytes: int) -> Iterator[tuple[int, int]]:
    """The items as pieces of about ``chunk_bytes``, cut before a column-0 ``- `` line."""
    pos = start
    while pos < end:
        cut = data.find(b"\n- ", min(pos + chunk_bytes, end), end)
        stop = end if cut < 0 else cut + 1
        yield pos, stop
        pos = stop


def _to_json(ryml, tree, piece: bytes) -> memoryview | None:
    """The piece as a JSON array, or None when rapidyaml refuses it or reads it as other
    than one sequence entry per column-0 dash (a cut inside a scalar)."""
    entries = 1 + piece.count(b"\n- ") + piece.count(b"\n-\n")
    return emit_json(ryml, tree, piece, lambda root: tree.is_seq(root)
                     and tree.num_children(root) == entries)


def emit_json(ryml, tree, piece: bytes | memoryview, accept=None, *, quiet: bool = True,
              stream: bool = False, out: bytearray | None = None) -> memoryview | None:
    """One YAML document (no ``---``) as rapidyaml's JSON, or None when rapidyaml refuses
    it, reads several documents, or ``accept(root)`` is false. ``quiet=False``: the caller
    has silenced stderr already (``quiet_stderr``). ``stream``: several documents are
    allowed (written as one JSON array). ``out``: a buffer to write into, reused from
    piece to piece (a new one is zeroed: 5 % of reading a stream), when large enough."""
    buf = bytearray(piece)
    silence = quiet_stderr if quiet else contextlib.nullcontext
    try:
        tree.clear()
        tree.clear_arena()
        with silence():
            ryml.parse_in_place(buf, tree)
        root = tree.root_id()
        if (tree.is_stream(root) and not stream) or (accept is not None and not accept(root)):
            return None
        if out is None or len(out) < 2 * len(piece) + 64:
            out = bytearray(2 * len(piece) + 64)
        with silence():
            failed, size = ryml.emit_json_to_substr(tree, root, out)
            if failed:
                out = bytearray(size)
                failed, size = ryml.emit_json_to_substr(tree, root, out)
    except Exception:  # rapidyaml raises its own types; any means "not here"
        return None
    return None if failed else memoryview(out)[:size]


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    """rapidyaml prints its errors to file descriptor 2 before raising; a refusal here only
    means the libyaml path reads the file, so they are not shown."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
