"""The targets of what-if edits: node name lists, kubectl label selectors, and the
``priority`` / ``namespace`` expressions of ``--evict``.

Selector syntax is kubectl's (apimachinery ``labels.Parse``): requirements joined by
commas, each ``k=v`` (or ``k==v``), ``k!=v``, ``k in (a,b)``, ``k notin (a,b)``, ``k``
(exists) or ``!k`` (does not exist). A key without ``/`` that no node carries resolves to
the node label whose last path segment it is (``rack`` -> ``topology.example.com/rack``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tasplan.errors import UsageError
from tasplan.model.pod_affinity import LabelSelector
from tasplan.model.selectors import Requirement, valid_label_key, valid_label_value
from tasplan.model.topology import last_segment
from tasplan.untrusted import quote
from tasplan.whatif.edits import strict_int

_SET_OP = re.compile(r"^\s*(\S+?)\s+(in|notin)\s*\((.*)\)\s*$")
_BINARY = re.compile(r"^\s*(!?)\s*([^!=<>\s]+)\s*(==|=|!=|<=|<)?\s*(.*?)\s*$")
_OPS = {"=": "In", "==": "In", "!=": "NotIn"}
# Characters that make a target a selector rather than a list of node names.
_SELECTOR_MARK = re.compile(r"[=!()<>]|\s(in|notin)\s")


@dataclass(frozen=True, slots=True)
class Term:
    """One requirement as written: ``op`` is ``=``, ``!=``, ``in``, ``notin``, ``exists``,
    ``!exists``, ``<`` or ``<=``."""

    key: str
    op: str
    values: tuple[str, ...] = ()

    def requirement(self) -> Requirement:
        if self.op in ("=", "in"):
            return Requirement(self.key, "In", self.values)
        if self.op in ("!=", "notin"):
            return Requirement(self.key, "NotIn", self.values)
        return Requirement(self.key, "Exists" if self.op == "exists" else "DoesNotExist")


def is_selector(text: str) -> bool:
    return _SELECTOR_MARK.search(text) is not None


def split_top_level(text: str) -> list[str]:
    """Split on commas outside parentheses."""
    parts, depth, current = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


def parse_terms(text: str, *, what: str, comparisons: frozenset[str] = frozenset()) -> list[Term]:
    """``text`` as selector terms; ``comparisons`` are the keys that may use ``<``/``<=``."""
    if text.count("(") != text.count(")"):
        raise UsageError(f"{what} {quote(text)}: unbalanced parentheses")
    terms = []
    for raw in split_top_level(text):
        if not raw.strip():
            raise UsageError(f"{what} {quote(text)}: empty requirement (a stray comma?)")
        m = _SET_OP.match(raw)
        if m:
            values = tuple(v.strip() for v in m.group(3).split(","))
            if not all(values):
                raise UsageError(f"{what} {quote(text)}: {m.group(2)} needs a non-empty value list")
            terms.append(Term(m.group(1), m.group(2), values))
            continue
        m = _BINARY.match(raw)
        if m is None:
            raise UsageError(f"{what} {quote(text)}: cannot parse {quote(raw.strip())} "
                             "(expected k=v, k!=v, 'k in (a,b)', 'k notin (a,b)', k or !k)")
        negated, key, op, value = m.groups()
        if negated:
            if op:
                raise UsageError(f"{what} {quote(text)}: '!' goes before a bare key (!k)")
            terms.append(Term(key, "!exists"))
        elif op is None:
            if value:
                raise UsageError(f"{what} {quote(text)}: cannot parse {quote(raw.strip())}")
            terms.append(Term(key, "exists"))
        elif op in ("<", "<="):
            if key not in comparisons:
                raise UsageError(f"{what} {quote(text)}: '{op}' is only for "
                                 f"{' and '.join(sorted(comparisons)) or 'no key here'}")
            terms.append(Term(key, op, (value,)))
        else:
            terms.append(Term(key, "=" if op == "==" else op, (value,)))
    return terms


def check_label_terms(terms: Iterable[Term], text: str, what: str) -> None:
    for term in terms:
        if not valid_label_key(term.key):
            raise UsageError(f"{what} {quote(text)}: {quote(term.key)} is not a valid label key")
        for value in term.values:
            if not valid_label_value(value):
                raise UsageError(f"{what} {quote(text)}: {quote(value)} is not a valid label value")


def resolve_key(key: str, known: Iterable[str], what: str) -> str:
    """A bare key (no ``/``) that is no label of ``known`` -> the one known key whose last
    path segment it is; ambiguous is an error. Anything else is returned as it is."""
    known = set(known)
    if "/" in key or key in known:
        return key
    matches = sorted(k for k in known if "/" in k and last_segment(k) == key)
    if len(matches) > 1:
        raise UsageError(f"{what}: key {quote(key)} is ambiguous: it may mean "
                         f"{', '.join(matches)} (write the full key)")
    return matches[0] if matches else key


def node_label_keys(labels: Iterable[Mapping[str, str]]) -> set[str]:
    keys: set[str] = set()
    for node_labels in labels:
        keys.update(node_labels)
    return keys


def label_selector(text: str, keys: Iterable[str], what: str) -> LabelSelector:
    """A node label selector with bare keys resolved against ``keys``."""
    known = set(keys)
    terms = parse_terms(text, what=what)
    terms = [Term(resolve_key(t.key, known, what), t.op, t.values) for t in terms]
    check_label_terms(terms, text, what)
    return LabelSelector(tuple(t.requirement() for t in terms))


@dataclass(frozen=True, slots=True)
class PodFilter:
    """What ``--evict`` selects: bound pods below a priority, of a namespace, with labels;
    every given part must hold."""

    below: int | None = None  # priority < below
    namespace: str | None = None
    labels: LabelSelector | None = None

    def matches(self, namespace: str, priority: int, labels: Mapping[str, str]) -> bool:
        return ((self.below is None or priority < self.below)
                and (self.namespace is None or namespace == self.namespace)
                and (self.labels is None or self.labels.matches(labels)))


def pod_filter(text: str) -> PodFilter:
    """``priority<N`` / ``priority<=N``, ``namespace=NS``, a label selector over all
    namespaces, or several of them comma-joined."""
    what = "--evict"
    terms = parse_terms(text, what=what, comparisons=frozenset({"priority"}))
    below = namespace = None
    rest = []
    for term in terms:
        if term.key == "priority":
            if term.op not in ("<", "<="):
                raise UsageError(f"{what} {quote(text)}: priority takes '<' or '<=' (priority<N)")
            try:
                bound = strict_int(term.values[0])
            except ValueError:
                raise UsageError(f"{what} {quote(text)}: priority bound "
                                 f"{quote(term.values[0])} is not an integer") from None
            bound += term.op == "<="
            below = bound if below is None else min(below, bound)
        elif term.key == "namespace":
            if term.op != "=" or namespace is not None:
                raise UsageError(f"{what} {quote(text)}: namespace takes one '=' (namespace=NS)")
            namespace = term.values[0]
            if not namespace:
                raise UsageError(f"{what} {quote(text)}: namespace= needs a namespace name")
        else:
            rest.append(term)
    check_label_terms(rest, text, what)
    labels = LabelSelector(tuple(t.requirement() for t in rest)) if rest else None
    return PodFilter(below, namespace, labels)
