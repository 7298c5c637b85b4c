"""The API server's rules for names, namespaces and labels, checked on every command.

A name the API server would refuse cannot be in a real cluster; in a tampered input it could
forge output lines or collide with another object's key (``/`` in a name). Checked once per
distinct value: pods of one controller share namespace and labels.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tasplan.model.selectors import valid_label_key, valid_label_value
from tasplan.untrusted import quote

_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


def name_problem(name: str) -> str | None:
    """``metadata.name`` of Pods, Nodes, Jobs, PodGroups, Workloads: a DNS subdomain."""
    if len(name) <= 253 and _SUBDOMAIN.fullmatch(name):
        return None
    return (f"expected a DNS subdomain name (lowercase letters, digits, '-' and '.', at most "
            f"253), got {quote(name)}")


def namespace_problem(namespace: str) -> str | None:
    if len(namespace) <= 63 and _LABEL.fullmatch(namespace):
        return None
    return (f"expected a DNS label namespace (lowercase letters, digits and '-', at most 63), "
            f"got {quote(namespace)}")


def labels_problem(labels: Mapping[str, str],
                   valid: set[tuple[str, str]] | None = None) -> tuple[str, str] | None:
    """(key, why) of the first invalid label. ``valid``: pairs already found valid, skipped
    and extended (nodes of one pool share all labels but the hostname)."""
    for key, value in labels.items():
        if valid is not None:
            try:
                if (key, value) in valid:
                    continue
            except TypeError:  # an unhashable value: the type check below names it
                pass
        if not isinstance(key, str) or not isinstance(value, str):
            return str(key), f"expected a string label key and value, got {quote(key)}: " \
                f"{quote(value)}"
        if not valid_label_key(key):
            return key, f"invalid label key {quote(key)}"
        if not valid_label_value(value):
            return key, f"invalid label value {quote(value)}"
        if valid is not None:
            valid.add((key, value))
    return None
