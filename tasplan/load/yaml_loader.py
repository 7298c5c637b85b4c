"""YAML through libyaml with Kubernetes' rules: the strict loaders (``strict``), a guarded
pure-Python loader for YAML that defines anchors (it caps what aliases expand to, so an
alias bomb is an error instead of an out-of-memory kill), the nesting check before either
runs, and line numbers looked up by composing a file again when an error needs one."""

from __future__ import annotations

import functools
import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tasplan.errors import InputError
from tasplan.limits import MAX_LOCATE_BYTES
from tasplan.load.nesting import check_depth, may_nest_deeper
from tasplan.load.strict import StrictError, check_strings, encoding_problem

if TYPE_CHECKING:
    import yaml

GZIP = ".gz"
# An anchor can only start a node: at a line start, after an indicator (``- ``, ``: ``,
# ``? ``, flow brackets, commas) or after a tag. ``&&`` inside a scalar (shell commands)
# is not one and must not send whole dumps to the slow guarded loader.
_ANCHOR = re.compile(rb"(?:^|[\[{,]|[-:?,\[{][ \t]|![^\s]*[ \t])[ \t]*&[^\s\[\]{},&]",
                     re.M)


def needs_guarded_loader(data: bytes) -> bool:
    """True when the YAML defines anchors (alias bombs). Nesting is checked before any
    loader runs (``load/nesting.py``): libyaml's composer recurses in C."""
    return _ANCHOR.search(data) is not None


def read_yaml(label: str, data: bytes) -> list[Any]:
    """The documents of YAML bytes, through libyaml only (no fast path)."""
    problem = encoding_problem(data)
    if problem:
        raise InputError(label, problem)
    return load_yaml(label, data, decode_yaml(label, data))


def decode_yaml(label: str, data: bytes) -> str:
    """The text of YAML bytes, refused when not UTF-8 or nested deeper than the limit."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(label, f"not UTF-8 text (byte {exc.start})") from None
    if may_nest_deeper(data):
        try:
            check_depth(text)
        except StrictError as exc:
            raise InputError(label, str(exc), line=exc.line, field=exc.field) from None
    return text


def load_yaml(label: str, data: bytes, text: str) -> list[Any]:
    """The documents of ``text`` (``data`` decoded by ``decode_yaml``) through libyaml."""
    import yaml

    from tasplan.load.kube_yaml import AliasBomb, FastLoader, GuardedLoader

    loader = GuardedLoader if needs_guarded_loader(data) else FastLoader
    try:
        docs = list(yaml.load_all(text, Loader=loader))
        check_strings(data, docs)
        return docs
    except (AliasBomb, StrictError) as exc:
        raise InputError(label, str(exc), line=exc.line) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        line = None
        if mark is not None:  # a mark at the end of the stream points past the last line
            line = min(mark.line + 1, text.count("\n") + (not text.endswith("\n")) or 1)
        raise InputError(label, f"invalid YAML: {problem}", line=line) from None
    except yaml.YAMLError as exc:
        raise InputError(label, f"invalid YAML: {exc}") from None
    except RecursionError:
        raise InputError(label, "YAML nesting is too deep") from None


_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def locate(path: str, document: int, field: str) -> int | None:
    """1-based line of ``field`` (``items[2].spec.containers[0].name``) in a document, or
    of the deepest part of it that exists; None when the file cannot be composed again or
    is larger than the locate limit (an error must not cost minutes)."""
    node = _document_node(path, document)
    if node is None:
        return None
    import yaml

    for name, number in _TOKEN.findall(field):
        child = None
        if name and isinstance(node, yaml.MappingNode):
            child = next((v for k, v in node.value if getattr(k, "value", None) == name), None)
        elif number and isinstance(node, yaml.SequenceNode) and int(number) < len(node.value):
            child = node.value[int(number)]
        if child is None:
            break
        node = child
    return node.start_mark.line + 1


def _document_node(path: str, document: int) -> yaml.Node | None:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    if (path.lower().endswith(GZIP) or not stat.S_ISREG(info.st_mode)
            or info.st_size > MAX_LOCATE_BYTES.get_int()):
        return None
    nodes = _composed(path, info.st_size, info.st_mtime_ns)
    return nodes[document] if document < len(nodes) else None


@functools.lru_cache(maxsize=2)
def _composed(path: str, size: int, mtime: int) -> list[yaml.Node | None]:
    """Every document's node tree, composed once per file (libyaml unless the file needs
    the guarded loader): an input with many errors must not re-parse per error."""
    from tasplan.load.kube_yaml import FastLoader, GuardedLoader

    try:
        data = Path(path).read_bytes()
        loader = (GuardedLoader if needs_guarded_loader(data) else FastLoader)(
            data.decode("utf-8-sig"))
        try:
            nodes = []
            while loader.check_node():
                nodes.append(loader.get_node())
            return nodes
        finally:
            loader.dispose()
    except Exception:
        return []
