"""kubectl's ``-o jsonpath=TEMPLATE`` over a report document.

kubectl's dialect of JSONPath (k8s.io/client-go/util/jsonpath, mirrored from commit
32ce75a7 of kubernetes/client-go; its test tables are in tests/report/test_jsonpath.py): text
with ``{...}`` actions; in an action ``.field`` (``\\.`` escapes a dot in a key), ``['key']``,
``[i]``, ``[start:end:step]``, ``[*]``, ``.*``, ``..field``, unions ``[a,b]``, filters
``[?(@.x == "y")]`` (``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``, or a path alone: exists),
quoted text ``{"\\n"}`` and ``{range ...}...{end}``. As ``kubectl get`` runs it: a missing key
prints nothing (``--allow-missing-template-keys`` defaults to true), the values of one action
are separated by spaces, strings print raw, mappings and lists as compact JSON with sorted
keys, no newline is added at the end. A small evaluator rather than a JSONPath library:
none of them reads kubectl's templates (ranges, its quoting and its printing rules).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any


class JSONPathError(ValueError):
    """A template that does not parse or cannot be applied to the document."""


# -- the parsed template ----------------------------------------------------------------


@dataclass(frozen=True)
class _Field:
    name: str


@dataclass(frozen=True)
class _Slice:
    start: int | None
    end: int | None
    step: int | None
    single: bool  # [i]: the end is derived (i + 1), and a negative i counts from the end


@dataclass(frozen=True)
class _Filter:
    left: tuple
    op: str  # "exists" or a comparison
    right: tuple


@dataclass(frozen=True)
class _Union:
    parts: tuple[tuple, ...]


@dataclass(frozen=True)
class _Literal:
    value: Any  # a quoted string, a number or a boolean


class _Wildcard:
    pass


class _Recursive:
    pass


_WILDCARD, _RECURSIVE = _Wildcard(), _Recursive()


@dataclass(frozen=True)
class _Action:
    steps: tuple


@dataclass(frozen=True)
class _Range:
    steps: tuple
    body: tuple


_TERMINATORS = set(" \t\r\n.,[]$@{}")
_SLICE = re.compile(r"^(-?\d*)(:-?\d*)?(:-?\d*)?$")
_COMPARISON = re.compile(r"^([^!<>=]+)([!<>=]+)(.+?)$", re.S)
_OPERATORS = {"==", "!=", "<", "<=", ">", ">="}


class _Parser:
    """One pass over the template; actions become step tuples, ranges nest their body."""

    def __init__(self, text: str) -> None:
        self.text = text

    def parse(self) -> tuple:
        items, end = self._items(0, in_range=False)
        if end is not None:
            raise JSONPathError("not in range, nothing to end")
        return items

    def _items(self, pos: int, *, in_range: bool) -> tuple[tuple, int | None]:
        """Text and actions from ``pos``; stops after an ``{end}`` (its position returned)."""
        text, out = self.text, []
        self.pos = pos
        while self.pos < len(text):
            brace = text.find("{", self.pos)
            if brace < 0:
                out.append(text[self.pos:])
                break
            if brace > self.pos:
                out.append(text[self.pos:brace])
            steps, self.pos = self._action(brace + 1)
            if steps and steps[0] == "end":
                if len(steps) > 1 or not in_range:
                    raise JSONPathError("not in range, nothing to end")
                return tuple(out), self.pos
            if steps and steps[0] == "range":
                body, end = self._items(self.pos, in_range=True)
                if end is None:
                    raise JSONPathError("a {range} has no {end}")
                out.append(_Range(steps[1:], body))
                self.pos = end
            else:
                out.append(_Action(steps))
        return tuple(out), None

    def _action(self, pos: int) -> tuple[tuple, int]:
        """The steps of one action starting at ``pos`` and the position after its ``}``."""
        text, steps = self.text, []
        while True:
            if pos >= len(text) or text[pos] in "\r\n":
                raise JSONPathError("unclosed action")
            c = text[pos]
            if c == "}":
                return tuple(steps), pos + 1
            if text.startswith("[?(", pos):
                step, pos = self._filter(pos + 3)
            elif text.startswith("..", pos):
                if steps and steps[-1] is _RECURSIVE:
                    raise JSONPathError("invalid multiple recursive descent")
                steps.append(_RECURSIVE)
                pos += 2
                if pos < len(text) and (text[pos].isalnum() or text[pos] == "_"):
                    step, pos = self._field(pos)
                else:
                    continue
            elif c in " @$":
                pos += 1
                continue
            elif c == "[":
                step, pos = self._bracket(pos)
            elif c in "\"'":
                step, pos = self._quoted(pos)
            elif c == ".":
                step, pos = self._field(pos + 1)
            elif c in "+-" or c.isdigit():
                step, pos = self._number(pos)
            elif c.isalnum() or c == "_":
                step, pos = self._identifier(pos)
            else:
                raise JSONPathError(f"unrecognized character in action: {c!r}")
            steps.append(step)

    def _field(self, pos: int) -> tuple[Any, int]:
        text, start = self.text, pos
        while pos < len(text) and text[pos] not in _TERMINATORS:
            pos += 2 if text[pos] == "\\" else 1
        name = text[start:pos].replace("\\", "")
        return (_WILDCARD if name == "*" else _Field(name)), pos

    def _identifier(self, pos: int) -> tuple[Any, int]:
        text, start = self.text, pos
        while pos < len(text) and text[pos] not in _TERMINATORS:
            pos += 1
        word = text[start:pos]
        if word in ("true", "false"):
            return _Literal(word == "true"), pos
        if word in ("range", "end"):
            return word, pos
        raise JSONPathError(f"unrecognized identifier {word}")

    def _number(self, pos: int) -> tuple[Any, int]:
        text, start = self.text, pos
        pos += text[pos] in "+-"
        while pos < len(text) and (text[pos].isdigit() or text[pos] == "."):
            pos += 1
        word = text[start:pos]
        try:
            return _Literal(int(word)), pos
        except ValueError:
            try:
                return _Literal(float(word)), pos
            except ValueError:
                raise JSONPathError(f"cannot parse number {word}") from None

    def _quoted(self, pos: int) -> tuple[Any, int]:
        text, quote, start = self.text, self.text[pos], pos
        pos += 1
        while True:
            if pos >= len(text) or text[pos] in "\r\n":
                raise JSONPathError("unterminated quoted string")
            if text[pos] == quote and text[pos - 1] != "\\":
                break
            pos += 1
        return _Literal(_unquote(text[start + 1:pos], quote)), pos + 1

    def _bracket(self, pos: int) -> tuple[Any, int]:
        close = pos
        while True:
            close += 1
            if close >= len(self.text) or self.text[close] == "\n":
                raise JSONPathError("unterminated array")
            if self.text[close] == "]":
                break
        inner = self.text[pos + 1:close]
        return _subscript("*" if inner == "*" else inner), close + 1

    def _filter(self, pos: int) -> tuple[Any, int]:
        text, start, quote, opened, closed = self.text, pos, "", False, False
        while True:
            if pos >= len(text) or text[pos] == "\n":
                raise JSONPathError("unterminated filter")
            c = text[pos]
            pos += 1
            if c in "\"'":
                if not opened:
                    opened, quote = True, c
                elif c == quote and text[pos - 2] != "\\":
                    closed = True
            elif c == ")" and opened == closed:
                break
        if pos >= len(text) or text[pos] != "]":
            raise JSONPathError("unclosed array expect ]")
        inner = text[start:pos - 1]
        m = _COMPARISON.match(inner)
        if m is None:
            return _Filter(_sub_action(inner), "exists", ()), pos + 1
        if m.group(2) not in _OPERATORS:
            raise JSONPathError(f"unrecognized filter operator {m.group(2)}")
        return _Filter(_sub_action(m.group(1)), m.group(2), _sub_action(m.group(3))), pos + 1


def _sub_action(text: str) -> tuple:
    steps, _ = _Parser("{" + text + "}")._action(1)
    return steps


def _subscript(inner: str) -> Any:
    """What ``[inner]`` means: a union, a quoted key (read as ``.key``, so dots split it as
    kubectl's parser does) or a slice."""
    parts = inner.split(",")
    if len(parts) > 1:
        return _Union(tuple(_sub_action(f"[{p.strip(' ')}]") for p in parts))
    key = re.fullmatch(r"'([^']*)'", inner)
    if key is not None:
        return _Union((_sub_action("." + key.group(1)),))
    m = _SLICE.match(":" if inner == "*" else inner)
    if m is None:
        raise JSONPathError(f"invalid array index {inner}")
    start = int(m.group(1)) if m.group(1) not in ("", "-") else None
    if m.group(1) == "-":
        raise JSONPathError("array index - is not a number")
    end = _bound(m.group(2))
    step = _bound(m.group(3))
    return _Slice(start, end, step, single=m.group(2) is None)


def _bound(part: str | None) -> int | None:
    if part is None or part == ":":
        return None
    try:
        return int(part[1:])
    except ValueError:
        raise JSONPathError(f"array index {part[1:]} is not a number") from None


def _unquote(body: str, quote: str) -> str:
    """Go's strconv.Unquote for a double- or single-quoted string (kubectl's
    UnquoteExtend): the usual backslash escapes."""
    if "\\" not in body:
        return body
    try:
        return json.loads('"' + body.replace('"' if quote == "'" else "\0", '\\"')
                          .replace("\\'", "'") + '"')
    except ValueError:
        raise JSONPathError(f"unquote string {quote}{body}{quote} error") from None


# -- evaluation ---------------------------------------------------------------------------


def _walk(values: list, steps: tuple) -> list:
    for step in steps:
        values = _step(values, step)
    return values


def _step(values: list, step: Any) -> list:
    if isinstance(step, _Field):
        return [v[step.name] for v in values if isinstance(v, dict) and step.name in v]
    if isinstance(step, _Slice):
        return [x for v in values if v is not None for x in _slice(v, step)]
    if step is _WILDCARD:
        return [x for v in values for x in _children(v)]
    if step is _RECURSIVE:
        return [x for v in values for x in _descendants(v)]
    if isinstance(step, _Union):
        return [x for part in step.parts for x in _walk(values, part)]
    if isinstance(step, _Filter):
        return [x for v in values for x in _filter(v, step)]
    if isinstance(step, _Literal):
        return [step.value for _ in values]
    raise JSONPathError(f"unexpected {step!r}")  # pragma: no cover - the parser makes none


def _slice(value: Any, s: _Slice) -> list:
    if not isinstance(value, list):
        raise JSONPathError(f"{_type(value)} is not array or slice")
    n = len(value)
    start = 0 if s.start is None else s.start + n if s.start < 0 else s.start
    end = n if s.end is None else s.end + n if s.end < 0 else s.end
    if s.single:
        end = start + 1
    if end == start:
        return []
    if not 0 <= start < n:
        raise JSONPathError(f"array index out of bounds: index {start}, length {n}")
    if not 0 <= end <= n:
        raise JSONPathError(f"array index out of bounds: index {end - 1}, length {n}")
    if start > end:
        raise JSONPathError(f"starting index {start} is greater than ending index {end}")
    if s.step is not None and s.step <= 0:
        raise JSONPathError("step must be > 0")
    return value[start:end:s.step or 1]


def _children(value: Any) -> list:
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, list):
        return value
    if isinstance(value, str):  # Go indexes a string by its bytes
        return list(value.encode())
    return []


def _descendants(value: Any) -> Iterator[Any]:
    children = _children(value) if value is not None else []
    if children:
        yield value
        for child in children:
            yield from _descendants(child)


def _filter(value: Any, f: _Filter) -> Iterator[Any]:
    if not isinstance(value, list):
        raise JSONPathError(f"{_type(value)} is not array or slice and cannot be filtered")
    for item in value:
        if f.op == "exists":
            try:
                if _walk([item], f.left):
                    yield item
            except JSONPathError:
                pass  # kubectl ignores the error of an existence test
            continue
        lefts = _walk([item], f.left)
        rights = _walk([item], f.right)
        if not lefts or not rights:
            continue
        if len(lefts) > 1 or len(rights) > 1:
            raise JSONPathError("can only compare one element at a time")
        if _compare(lefts[0], f.op, rights[0]):
            yield item


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    raise JSONPathError("invalid type for comparison")


def _compare(left: Any, op: str, right: Any) -> bool:
    """Go template's comparisons: both sides of one basic kind, else an error."""
    if _kind(left) != _kind(right):
        raise JSONPathError("incompatible types for comparison")
    if op == "==":
        return left == right
    if op == "!=":
        return left != right
    if isinstance(left, bool):
        raise JSONPathError("invalid type for comparison")
    return {"<": left < right, "<=": left <= right, ">": left > right,
            ">=": left >= right}[op]


def _type(value: Any) -> str:
    return {dict: "map[string]interface {}", str: "string", bool: "bool", int: "int64",
            float: "float64"}.get(type(value), "<nil>" if value is None else "value")


# -- printing -------------------------------------------------------------------------------


def _go_float(value: float) -> str:
    """Go's %v of a float64: the shortest digits, an exponent below 1e-4 or from 1e21."""
    return _float(value, low=-4, pad=2)


def _float(value: float, *, low: int, pad: int) -> str:
    """Shortest digits of ``value``; positional when its exponent is in [low, 21)."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if str(value).startswith("-") else "0"
    number = Decimal(repr(value)).normalize()
    sign, digits, exponent = number.as_tuple()
    e = len(digits) - 1 + exponent
    if low <= e < 21:
        return format(number, "f")
    text = "".join(map(str, digits))
    body = text[0] + ("." + text[1:] if len(text) > 1 else "")
    return f"{'-' if sign else ''}{body}e{'+' if e >= 0 else '-'}{abs(e):0{pad}d}"


def _go_json(value: Any, indent: str = "", level: int = 0) -> str:
    """encoding/json's Marshal (``indent``: MarshalIndent): sorted keys, HTML characters
    escaped, floats without a needless ``.0``."""
    if isinstance(value, dict):
        items = [(_go_string(str(k)), _go_json(v, indent, level + 1))
                 for k, v in sorted(value.items())]
        if not items:
            return "{}"
        if not indent:
            return "{" + ",".join(f"{k}:{v}" for k, v in items) + "}"
        pad, inner = "\n" + indent * level, "\n" + indent * (level + 1)
        return "{" + ",".join(f"{inner}{k}: {v}" for k, v in items) + pad + "}"
    if isinstance(value, (list, tuple)):
        parts = [_go_json(v, indent, level + 1) for v in value]
        if not parts:
            return "[]"
        if not indent:
            return "[" + ",".join(parts) + "]"
        pad, inner = "\n" + indent * level, "\n" + indent * (level + 1)
        return "[" + ",".join(inner + p for p in parts) + pad + "]"
    if isinstance(value, str):
        return _go_string(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _float(value, low=-6, pad=1)
    return str(value)


def _go_string(text: str) -> str:
    return (json.dumps(text, ensure_ascii=False).replace("<", "\\u003c")
            .replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _text(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return _go_json(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _go_float(value)
    return str(value)


# -- the API --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Template:
    """A parsed template; ``as_json``: ``-o jsonpath-as-json``, each action's results as
    one indented JSON array."""

    source: str
    items: tuple
    as_json: bool = False

    def render(self, document: Any) -> str:
        out: list[str] = []
        try:
            self._render(self.items, document, out)
        except RecursionError:
            raise JSONPathError("the document nests too deeply") from None
        return "".join(out)

    def _render(self, items: tuple, data: Any, out: list[str]) -> None:
        for item in items:
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, _Range):
                for value in _walk([data], item.steps):
                    self._render(item.body, value, out)
            else:
                values = _walk([data], item.steps)
                if self.as_json:
                    out.append(_go_json(values, "    ") + "\n")
                else:
                    out.append(" ".join(_text(v) for v in values))


def parse(text: str, *, as_json: bool = False) -> Template:
    """The template, or JSONPathError naming what is wrong."""
    try:
        return Template(text, _Parser(text).parse(), as_json)
    except RecursionError:
        raise JSONPathError("the template nests too deeply") from None
