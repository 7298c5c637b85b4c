"""Node selector terms (node affinity) and their matching rules.

Upstream: ``component-helpers/scheduling/corev1/nodeaffinity``. Terms are ORed, the
requirements inside a term ANDed; an empty term matches nothing; ``NotIn`` and
``DoesNotExist`` match nodes that lack the label; ``matchFields`` supports only
``metadata.name``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def valid_label_value(value: str) -> bool:
    return value == "" or (len(value) <= 63 and _NAME.fullmatch(value) is not None)


def valid_label_key(key: str) -> bool:
    """Upstream ``IsQualifiedName``: ``[prefix/]name``; a ``/`` needs a non-empty prefix."""
    prefix, slash, name = key.rpartition("/")
    if "/" in prefix or (slash and (not prefix or len(prefix) > 253
                                    or not _DNS1123_SUBDOMAIN.fullmatch(prefix))):
        return False
    return 0 < len(name) <= 63 and _NAME.fullmatch(name) is not None


@dataclass(frozen=True, slots=True)
class Requirement:
    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        if not _parses(self):
            return False
        op = self.operator
        if op == "In":
            return self.key in labels and labels[self.key] in self.values
        if op == "NotIn":
            return self.key not in labels or labels[self.key] not in self.values
        if op == "Exists":
            return self.key in labels
        if op == "DoesNotExist":
            return self.key not in labels
        # Gt / Lt: both sides must parse as integers, else no match.
        if self.key not in labels:
            return False
        try:
            have, want = int(labels[self.key]), int(self.values[0])
        except (ValueError, IndexError):
            return False
        return have > want if op == "Gt" else have < want


@lru_cache(maxsize=4096)
def _parses(req: Requirement) -> bool:
    """Upstream turns each requirement into a label selector (``labels.NewRequirement``);
    one that does not parse makes its term match nothing."""
    if not valid_label_key(req.key) and req.key != "metadata.name":
        return False
    if req.operator in ("In", "NotIn"):
        return bool(req.values) and all(valid_label_value(v) for v in req.values)
    if req.operator in ("Exists", "DoesNotExist"):
        return not req.values
    if len(req.values) != 1:
        return False
    try:
        int(req.values[0])
    except ValueError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    match_expressions: tuple[Requirement, ...] = ()
    match_fields: tuple[Requirement, ...] = ()

    def matches(self, name: str, labels: Mapping[str, str]) -> bool:
        if not self.match_expressions and not self.match_fields:
            return False
        if not all(r.matches(labels) for r in self.match_expressions):
            return False
        fields = {"metadata.name": name}
        return all(r.matches(fields) for r in self.match_fields)


@dataclass(frozen=True, slots=True)
class PreferredTerm:
    weight: int
    term: NodeSelectorTerm
