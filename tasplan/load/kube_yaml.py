"""PyYAML's loaders with Kubernetes' rules (``strict``'s YAML half): scalars resolved as
go-yaml v2 (sigs.k8s.io/yaml) resolves them, duplicate keys refused, and a guarded loader
that caps what aliases expand to. Imported only when libyaml reads or composes a file:
PyYAML's import costs about as much as a whole ``check`` of a small cluster, and rapidyaml
(``yaml_fast``) reads most files without it."""

from __future__ import annotations

import re
from typing import Any, ClassVar

import yaml
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

from tasplan.errors import StrictError
from tasplan.limits import INT64_MAX, INT64_MIN
from tasplan.load.strict import MAX_DIGITS

MAX_ALIAS_NODES = 1_000_000

# go-yaml drops underscores before reading a number: ``0x_`` and ``._`` hold no digit and
# are strings (PyYAML's own patterns would take them and then fail to convert them).
_INT = re.compile(r"^[-+]?(?:0[bB][01_]*[01][01_]*|0[oO][0-7_]*[0-7][0-7_]*"
                  r"|0[xX][0-9a-fA-F_]*[0-9a-fA-F][0-9a-fA-F_]*|[0-9][0-9_]*)$")
_FLOAT = re.compile(r"^(?:[-+]?(?:\.[0-9_]*[0-9][0-9_]*|[0-9][0-9_]*(?:\.[0-9_]*)?)"
                    r"(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")


class KubeResolver(Resolver):
    """PyYAML's resolver with Kubernetes' (go-yaml v2's) integer and float rules."""


KubeResolver.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers
            if tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")]
    for first, resolvers in Resolver.yaml_implicit_resolvers.items()}
KubeResolver.add_implicit_resolver("tag:yaml.org,2002:int", _INT, list("-+0123456789"))
KubeResolver.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+.0123456789"))
# go-yaml v2 (sigs.k8s.io/yaml) also reads y, Y, n and N as booleans (resolve.go): a plain
# ``disk: y`` in a nodeSelector is a bool that the API server refuses, not a string.
KubeResolver.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^[yYnN]$"),
                                   list("yYnN"))
for _resolvers in KubeResolver.yaml_implicit_resolvers.values():  # ints before floats
    _resolvers.sort(key=lambda r: r[0] != "tag:yaml.org,2002:int")


def parse_int(text: str, line: int | None = None) -> int:
    """An integer as Go's ``strconv.ParseInt(s, 0, 64)`` reads it after go-yaml removed
    underscores; a leading zero means octal, and a non-octal one decimal (go-yaml falls
    back to a float with the same value)."""
    body = text.replace("_", "")
    sign = -1 if body[:1] == "-" else 1
    body = body.lstrip("+-")
    if len(body) > MAX_DIGITS:
        raise StrictError(f"number with {len(body)} digits is out of range (int64)", line)
    prefix = body[:2].lower()
    if prefix in ("0x", "0o", "0b"):
        value = int(body[2:], {"0x": 16, "0o": 8, "0b": 2}[prefix])
    elif len(body) > 1 and body[0] == "0" and set(body) <= set("01234567"):
        value = int(body, 8)
    else:
        value = int(body)
    value *= sign
    if not INT64_MIN <= value <= INT64_MAX:
        raise StrictError(f"integer {text[:30]}{'…' if len(text) > 30 else ''} is out of "
                          "range (int64)", line)
    return value


class KubeConstructor(SafeConstructor):
    """SafeConstructor that refuses duplicate keys and reads integers as Kubernetes."""

    bool_values: ClassVar[dict[str, bool]] = {**SafeConstructor.bool_values, "y": True,
                                              "n": False}

    def construct_kube_int(self, node: yaml.ScalarNode) -> int:
        return parse_int(self.construct_scalar(node), node.start_mark.line + 1)

    def construct_kube_float(self, node: yaml.ScalarNode) -> float:
        text = self.construct_scalar(node)
        if len(text) > MAX_DIGITS:
            raise StrictError(f"number with {len(text)} digits is out of range",
                              node.start_mark.line + 1)
        return self.construct_yaml_float(node)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        pairs = len(node.value)
        mapping = super().construct_mapping(node, deep=deep)
        merged = len(node.value) != pairs  # `<<` merge keys were flattened in
        if len(mapping) < len(node.value) or merged:
            _duplicate_key(self, node.value[len(node.value) - pairs + merged:] if merged
                           else node.value)
        return mapping


def _duplicate_key(constructor: SafeConstructor, pairs: list) -> None:
    seen: set = set()
    for key_node, _ in pairs:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = constructor.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            continue  # PyYAML has already refused unhashable keys
        if key in seen:
            raise StrictError(f"duplicate key {str(key)[:60]!r} in a mapping (Kubernetes "
                              "refuses duplicate fields)", key_node.start_mark.line + 1)
        seen.add(key)


KubeConstructor.add_constructor("tag:yaml.org,2002:int", KubeConstructor.construct_kube_int)
KubeConstructor.add_constructor("tag:yaml.org,2002:float",
                                KubeConstructor.construct_kube_float)
KubeConstructor.add_constructor("tag:yaml.org,2002:map", SafeConstructor.construct_yaml_map)


class KubeSafeLoader(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser,
                     yaml.composer.Composer, KubeConstructor, KubeResolver):
    """Pure-Python loader (the guarded one builds on it)."""

    def __init__(self, stream: Any) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        KubeConstructor.__init__(self)
        KubeResolver.__init__(self)


try:
    from yaml._yaml import CParser

    class KubeFastLoader(CParser, KubeConstructor, KubeResolver):
        """libyaml's parser with the Kubernetes constructor and resolver."""

        def __init__(self, stream: Any) -> None:
            CParser.__init__(self, stream)
            KubeConstructor.__init__(self)
            KubeResolver.__init__(self)
except ImportError:  # libyaml missing: still correct, only slower
    KubeFastLoader = KubeSafeLoader  # type: ignore[misc, assignment]


FastLoader: type = KubeFastLoader  # libyaml's parser, Kubernetes' scalar rules, strict keys


class AliasBomb(ValueError):
    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


class GuardedLoader(KubeSafeLoader):
    """SafeLoader that counts the nodes aliases would expand to and stops past a limit."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._expanded = 0
        self._sizes: dict[int, int] = {}

    def compose_node(self, parent, index):  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            node = self.anchors.get(event.anchor)
            if node is not None:
                self._expanded += self._size(node)
                if self._expanded > MAX_ALIAS_NODES:
                    raise AliasBomb(
                        f"YAML aliases expand to more than {MAX_ALIAS_NODES} nodes "
                        "(possible alias bomb); refusing to load", event.start_mark.line + 1)
        return super().compose_node(parent, index)

    def _size(self, node: yaml.Node) -> int:
        known = self._sizes.get(id(node))
        if known is not None:
            return known
        if isinstance(node, yaml.MappingNode):
            size = 1 + sum(self._size(k) + self._size(v) for k, v in node.value)
        elif isinstance(node, yaml.SequenceNode):
            size = 1 + sum(self._size(v) for v in node.value)
        else:
            size = 1
        self._sizes[id(node)] = size
        return size
