"""How deep a YAML or JSON document may nest, and which field is too deep when it nests more.

libyaml refuses flow and block nesting of 1,000 levels since PyYAML 6.0.4 (its scanner says
only "exceeded maximum nesting depth"; 6.0.3 composed 20,000 and crashed at 50,000);
orjson reads JSON to 1,024 levels but re-encodes only 254; the interpreter's recursion
limit is 1,000 frames. Kubernetes' go-yaml and encoding/json allow 10,000. tasplan applies
one limit below all of these on every reader and every version of its dependencies, and
names the field where the too-deep value starts (``metadata.labels``), as the API server's
decoder names the field whose type is wrong. No Kubernetes object nests a tenth as deep.
"""

from __future__ import annotations

import re
from itertools import accumulate

from tasplan.errors import StrictError

MAX_DEPTH = 250  # nested collections in one document (docs/limits.md)
_BRACKETS = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[{]}"))
# Indentation characters as " " (the rest as "x"), for the sampled search below.
_INDENT = bytes.maketrans(bytes(range(256)), bytes(
    32 if b in b" \t?:-" else 120 for b in range(256)))
_STRIDE = 16
_ELIDED_PARTS = 6  # a block path deeper than this is shortened with "…"


def may_nest_deeper(data: bytes, limit: int = MAX_DEPTH, *, block: bool = True) -> bool:
    """An upper bound, a fraction of a parse: True when YAML ``data`` may nest deeper than
    ``limit``. Flow depth is bounded by the brackets (quoted ones included), block depth by
    the columns of a line's indentation and indicators (``- - -``, ``? ``: at least one per
    level); a document nests at most the sum of the two. JSON (``block=False``) is all
    flow: its indentation is layout."""
    brackets = data.translate(_BRACKETS, _NOT_BRACKETS)
    flow = len(brackets)
    if flow > limit // 2:
        flow = max(accumulate(b - 1 for b in brackets), default=0)
    if flow >= limit or not block:
        return flow >= limit
    # a line that starts with that many: at the start, or after a line break (``^`` with
    # re.M is tried at every offset; a pattern led by "\n" skips to the breaks in C). The
    # regex stops at every line (9 % of reading a manifest stream): first, every 16th byte
    # is searched for a run of such characters that a run of ``need`` must leave in it.
    need = limit - flow
    if need >= 4 * _STRIDE and b" " * (need // _STRIDE) not in \
            data[::_STRIDE].translate(_INDENT):
        return False
    run = rb"[ \t?:-]{%d,}" % need
    return re.match(run, data) is not None or re.search(b"\n" + run, data) is not None


class TooDeep(StrictError):
    """A document nests deeper than the limit: the field where it starts and its line."""

    def __init__(self, field: str = "", line: int | None = None,
                 limit: int = MAX_DEPTH) -> None:
        super().__init__(f"nested deeper than {limit:,} levels (tasplan's limit; no "
                         "Kubernetes object needs so many)", line, field)


def too_deep(data: bytes) -> TooDeep:
    """The error for JSON a reader found too deep (orjson: beyond 1,024 levels to decode,
    254 to encode), with the field when the text parses as YAML flow."""
    try:
        check_depth(data.decode("utf-8", "replace"))
    except TooDeep as exc:
        return exc
    return TooDeep()


def check_depth(text: str, limit: int = MAX_DEPTH) -> None:
    """Raise TooDeep when a document of ``text`` (YAML or JSON) nests deeper than
    ``limit``. Reads parser events (pure Python, no recursion) and stops at the first
    too-deep collection, so a hostile file costs at most ``limit`` levels of work; errors
    of the YAML itself are left to the reader that follows."""
    import yaml  # only for a text that may nest deeper than the limit (may_nest_deeper)

    stack: list[list] = []  # [path part, is mapping, expects key, key or next index]
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                part = _part(stack)
                if len(stack) >= limit:
                    raise TooDeep(_field(stack, part), event.start_mark.line + 1, limit)
                stack.append([part, isinstance(event, yaml.MappingStartEvent), True, 0])
            elif isinstance(event, yaml.CollectionEndEvent):
                stack.pop()
                _advance(stack, None)
            elif isinstance(event, yaml.ScalarEvent | yaml.AliasEvent):
                _advance(stack, getattr(event, "value", None))
    except yaml.YAMLError:
        return


def _part(stack: list[list]) -> str:
    """The path part of the node that starts now under the top of ``stack``."""
    if not stack:
        return ""
    top = stack[-1]
    if top[1]:
        return "<key>" if top[2] else top[3]
    return f"[{top[3]}]"


def _advance(stack: list[list], scalar: str | None) -> None:
    if not stack:
        return
    top = stack[-1]
    if top[1]:
        if top[2]:
            top[3] = scalar if scalar is not None else "<key>"
        top[2] = not top[2]
    else:
        top[3] += 1


def _field(stack: list[list], part: str) -> str:
    """The field path to name: down to the last key above a deep run of lists (where a
    ``[[[…`` value starts), its first few parts and "…" when that is still long."""
    parts = [frame[0] for frame in stack[1:]] + [part]
    keys = len(parts)
    while keys and parts[keys - 1].startswith("["):
        keys -= 1
    if keys:
        parts = parts[:keys]
    if len(parts) > _ELIDED_PARTS:
        parts = [*parts[:_ELIDED_PARTS], "…"]
    out = ""
    for p in parts:
        out += p if p.startswith("[") or p == "…" or not out else f".{p}"
    return out
