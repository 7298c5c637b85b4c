"""The one cause explain puts in its headline, and the suggestions that fix it first.

The cause is the first of these that holds:

- topology key: no node carries the group's topology key, so there is no placement;
- selector, affinity, taint, cordon: every node of every candidate placement is shut out
  before capacity counts, and this constraint shuts out the most of them (each is judged
  on its own, not in upstream's filter order, which names a taint and hides a nodeSelector
  that matches no node at all);
- selector, affinity, taint: the group fits nowhere even with no other pods, and dropping
  that constraint (a verified suggestion) makes it fit;
- capacity: the group fits nowhere even with no other pods;
- contention: it would fit in an empty cluster; other pods hold what it needs.

One cause, one sentence: what else is true (a coarser level where it fits now, nodes
without the key) is said elsewhere, never glued on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tasplan.model.node import Node
from tasplan.model.pod import Pod
from tasplan.model.taints import (
    NO_EXECUTE,
    NO_SCHEDULE,
    UNSCHEDULABLE_TAINT_KEY,
    Taint,
    tolerated,
)
from tasplan.plugins import names

SELECTOR, AFFINITY, TAINT, CORDON = "selector", "affinity", "taint", "cordon"
TOPOLOGY_KEY, CAPACITY, CONTENTION = "topology key", "capacity", "contention"
QUOTA = "quota"  # Kueue: the ClusterQueue does not admit the workload

# Suggestion kinds (tasplan.explain.counterfactuals and explain.kueue) that fix each cause.
FIXES = {
    SELECTOR: ("nodeSelector", "selector", "nodeAffinity"),
    AFFINITY: ("nodeAffinity", "selector"),
    TAINT: ("toleration", "tolerations"),
    CORDON: ("addNodes",),
    TOPOLOGY_KEY: ("topologyKey",),
    CAPACITY: ("minCount", "addNodes", "topologyKey"),
    CONTENTION: ("evict", "consolidate", "addNodes"),
}
# Which constraint names the cause when several shut out as many nodes.
_PRECEDENCE = (SELECTOR, AFFINITY, TAINT, CORDON)


@dataclass(frozen=True)
class Cause:
    """``kind``: one of the names above; ``text``: one sentence that says it."""

    kind: str
    text: str


def static_cause(pod: Pod, nodes: Sequence[Node], diagnosed: dict[str, str]) -> Cause | None:
    """The constraint that leaves the group no node at all, or None when some node is
    left. ``diagnosed``: node -> the plugin upstream's diagnosis rejected it with (pod
    affinity and spread are judged from it; they depend on other pods)."""
    if not nodes:
        return None
    shut: dict[str, set[str]] = {kind: set() for kind in _PRECEDENCE}
    taints: Counter = Counter()
    unmatched_keys: Counter = Counter()
    for node in nodes:
        labels = node.labels
        missing = [k for k, v in pod.node_selector.items() if labels.get(k) != v]
        if missing:
            shut[SELECTOR].add(node.name)
            unmatched_keys.update(missing)
        if pod.required_terms is not None and not any(
                t.matches(node.name, labels) for t in pod.required_terms):
            shut[AFFINITY].add(node.name)
        if node.unschedulable and not tolerated(CORDON_TAINT, pod.tolerations):
            shut[CORDON].add(node.name)
        untolerated = [t for t in node.taints if t.effect in (NO_SCHEDULE, NO_EXECUTE)
                       and t.key != UNSCHEDULABLE_TAINT_KEY
                       and not tolerated(t, pod.tolerations)]
        if untolerated:
            shut[TAINT].add(node.name)
            taints[untolerated[0]] += 1
        if diagnosed.get(node.name) == names.INTER_POD_AFFINITY:
            shut[AFFINITY].add(node.name)
    if set().union(*shut.values()) != {n.name for n in nodes}:
        return None
    kind = max(_PRECEDENCE, key=lambda k: (len(shut[k]), -_PRECEDENCE.index(k)))
    n, total = len(shut[kind]), len(nodes)
    share = "no node" if n == total else f"{n:,} of the {total:,} nodes"
    if kind == SELECTOR:
        selector = ", ".join(f"{k}={pod.node_selector[k]}" for k in sorted(unmatched_keys))
        if n == total:
            return Cause(kind, f"no node matches nodeSelector {selector}")
        return Cause(kind, f"nodeSelector {selector} rules out {share}; the others are "
                     "shut out too")
    if kind == AFFINITY:
        what = "its required node affinity" if pod.required_terms is not None \
            else "its pod affinity or anti-affinity"
        return Cause(kind, f"{what} rules out {'every node' if n == total else share}")
    if kind == TAINT:
        taint, count = taints.most_common(1)[0]
        where = "every node" if n == total else share
        return Cause(kind, f"{where} has a taint the pods do not tolerate ({taint} on "
                     f"{count:,})")
    return Cause(kind, "every node is cordoned" if n == total else
                 f"{share} are cordoned; the others are shut out too")


# What NodeUnschedulable checks a cordoned node's pods against (upstream's
# v1.TaintNodeUnschedulable with effect NoSchedule).
CORDON_TAINT = Taint(UNSCHEDULABLE_TAINT_KEY, "", NO_SCHEDULE)
_HOLD = "keeps it off the nodes that would hold it"


def cause_of(*, topology_key: str | None, placements: int, fits_empty: bool,
             static: Cause | None, suggestions: Iterable, noun: str, needed: int) -> Cause:
    """The headline cause from what explain found (see the module docstring). ``noun``
    names one placement (rack, block, domain), ``needed`` the pods it must hold."""
    if topology_key and not placements:
        return Cause(TOPOLOGY_KEY, f"no node carries {topology_key}, so there is no "
                     "placement to try")
    if static is not None:
        return static
    if not fits_empty:
        for s in suggestions:
            d = s.details
            if s.kind == "nodeSelector" and "key" in d:
                return Cause(SELECTOR, f"nodeSelector {d['key']}={d['value']} {_HOLD}")
            if s.kind == "nodeAffinity" and "requirement" in d:
                return Cause(AFFINITY, f"its required node affinity ({d['requirement']}) "
                             f"{_HOLD}")
            if s.kind == "toleration" and "taint" in d:
                return Cause(TAINT, f"the taint {d['taint']}, which the pods do not "
                             f"tolerate, {_HOLD}")
            kind = {"selector": SELECTOR, "tolerations": TAINT}.get(s.kind)
            if kind is not None:
                return Cause(kind, f"a {kind} {_HOLD} ({s.change} makes it fit)")
        what = f"{needed:,} pod" + ("" if needed == 1 else "s")
        if noun == "cluster":
            return Cause(CAPACITY, f"the cluster cannot hold {what} even with no other "
                         "pods running")
        return Cause(CAPACITY, f"no {noun} holds {what} even with no other pods running")
    return Cause(CONTENTION, "it would fit in an empty cluster, but other pods hold the capacity "
                 "it needs")


def fixing_first(cause: Cause, suggestions: Sequence) -> tuple:
    """The suggestions that fix ``cause`` first, each part in its own order."""
    fixes = FIXES.get(cause.kind, ())
    return (*[s for s in suggestions if s.kind in fixes],
            *[s for s in suggestions if s.kind not in fixes])
