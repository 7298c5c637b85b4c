"""Topology what-if: another node label under which the group fits now.

Candidates are the node labels that partition the nodes into several domains, none of them
a single node (hostname-like keys only make smaller domains). When the group's own key is on
the nodes, a candidate must be coarser: every domain of the group's key lies inside one
domain of the candidate (rack inside block). Finest first; the first that fits is the
coarser level the group fits at now, and the search stops there.
"""

from __future__ import annotations

from dataclasses import replace

from tasplan.explain.case import Case
from tasplan.explain.result import Suggestion

KIND = "topologyKey"
MAX_TRIES = 4


def candidate_keys(case: Case) -> list[str]:
    key = case.group.topology_key
    memo = case.memo.setdefault(KIND, {})
    if key not in memo:
        memo[key] = _candidate_keys(case, key)
    return memo[key]


def _candidate_keys(case: Case, key: str | None) -> list[str]:
    values: dict[str, set[str]] = {}  # every value of a label
    inside: dict[str, set[str]] = {}  # its values on nodes that carry the group's key
    carriers: dict[str, int] = {}
    parent: dict[str, dict[str, str | None]] = {}
    for info in case.infos:
        labels = info.node.labels
        own = labels.get(key) if key else None
        for k, v in labels.items():
            if k == key:
                continue
            values.setdefault(k, set()).add(v)
            carriers[k] = carriers.get(k, 0) + 1
            if own is not None:
                inside.setdefault(k, set()).add(v)
                seen = parent.setdefault(k, {})
                if seen.setdefault(own, v) != v:
                    seen[own] = None  # one domain of the group's key spans two of k
    domains = len({i.node.labels[key] for i in case.infos if key in i.node.labels}) if key else 0
    keys = []
    for k, vals in values.items():
        if not 2 <= len(vals) < carriers[k]:
            continue
        if domains and (len(inside.get(k, ())) >= domains or k not in parent
                        or None in parent[k].values()):
            continue
        keys.append(k)
    # Finest first among the group's nodes: a label with one value there (an instance type
    # shared by every rack) is the whole cluster, the last resort.
    return sorted(keys, key=lambda k: (-len(inside.get(k, ())), -len(values[k]), k))


def suggest(case: Case) -> list[Suggestion]:
    if not case.group.topology_key:
        return []
    coarser = any(case.group.topology_key in i.node.labels for i in case.infos)
    for key in candidate_keys(case)[:MAX_TRIES]:
        result = case.replan(group=replace(case.group, topology_key=key))
        if case.met(result):
            return [Suggestion(KIND, f"use topology key {key} instead of "
                               f"{case.group.topology_key}", result,
                               details={"topologyKey": key, "coarser": coarser})]
    return []
