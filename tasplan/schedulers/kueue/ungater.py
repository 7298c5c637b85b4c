"""Kueue's topology ungater for a Workload that is admitted already: each pod of a PodSet
to a domain of the PodSet's topology assignment, as ``pkg/controller/tas/
topology_ungater.go`` (kubernetes-sigs/kueue ff69552e) hands them out.

With ranks (every pod of the PodSet carries its index label) the pod of rank ``r`` takes
``rankToDomainID[r]``: the assignment's domains in order, each repeated by its count. Without
them (or a rank past the assignment) it is greedy: domain by domain, the count less the pods
already there (bound, or ungated with the domain's node selector), filled with the gated
pods in order.

Ranks are read as ``readRanksForLabels`` reads them when the Workload's PodSet names its
``podIndexLabel`` (and ``subGroupIndexLabel`` / ``subGroupCount``: JobSet's job index):
``index + subGroup * (count / subGroupCount)``, each below the PodSet's count, none twice,
and a pod already placed in its rank's domain; else greedy. Without a Workload object
(tasplan's own placement) the pods' index labels order them. Not modelled: the kubeflow
``pod-index-offset`` annotation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tasplan.model import kueue as k
from tasplan.model.pod import Pod
from tasplan.schedulers.kueue.request import TopologyRequest
from tasplan.schedulers.kueue.workload import by_rank

TOPOLOGY_GATE = "kueue.x-k8s.io/topology"


def rank_to_domain(psa: k.PodSetAssignment) -> list[tuple[str, ...]]:
    """``rankToDomainID``."""
    return [d.values for d in psa.domains for _ in range(d.count)]


def pod_domain(pod: Pod, levels: Sequence[str], node_labels: Mapping[str, Mapping[str, str]]
               ) -> tuple[str, ...] | None:
    """Where a pod of the PodSet is already: its node's values at the assignment's levels
    (a bound pod), or its node selector's (a pod the ungater released), else None."""
    labels = node_labels.get(pod.node_name) if pod.node_name else None
    if labels is None:
        if TOPOLOGY_GATE in pod.scheduling_gates:
            return None
        labels = pod.node_selector
    values = tuple(labels.get(level) for level in levels)
    return values if all(v is not None for v in values) else None  # type: ignore[return-value]


def read_ranks(pods: Sequence[Pod], request: TopologyRequest, count: int
               ) -> dict[int, Pod] | None:
    """``readRanksForLabels``: rank -> pod, or None when ranks cannot be used."""
    label, sub_label = request.pod_index_label, request.sub_group_index_label
    if label is None:
        return None
    size = count
    if sub_label is not None:
        if not request.sub_group_count or request.sub_group_count <= 0:
            return None
        size = count // request.sub_group_count
    out: dict[int, Pod] = {}
    for pod in pods:
        rank = _uint(pod.labels.get(label))
        if rank is None:
            return None
        if sub_label is not None:
            job = _uint(pod.labels.get(sub_label))
            if job is None or job >= request.sub_group_count or rank >= size:
                return None
            rank += job * size
        if rank >= count or rank in out:
            return None
        out[rank] = pod
    return out


def _uint(text: str | None) -> int | None:
    return int(text) if text is not None and text.isascii() and text.isdigit() else None


def assign(psa: k.PodSetAssignment, pods: Sequence[Pod],
           node_labels: Mapping[str, Mapping[str, str]],
           request: TopologyRequest | None = None, count: int | None = None
           ) -> dict[str, tuple[str, ...]]:
    """Pending pod key -> the domain values (at ``psa.levels``) the ungater sends it to.
    ``pods``: the PodSet's pods, bound ones included (finished ones do not count).
    ``request``/``count``: the Workload's PodSet topology request and count, whose index
    labels give the ranks. Pending pods the ungater has released already keep their
    domain; pods it has no room for are left out (Kueue leaves them gated)."""
    pods = [p for p in pods if not p.terminal]
    slots = rank_to_domain(psa)
    out: dict[str, tuple[str, ...]] = {}
    placed: dict[str, tuple[str, ...]] = {}
    for pod in pods:
        where = pod_domain(pod, psa.levels, node_labels)
        if where is not None:
            placed[pod.key] = where
            if not pod.node_name:
                out[pod.key] = where
    if request is not None:
        by_index = read_ranks(pods, request, count if count is not None else len(slots))
        ranked = None
        if by_index is not None and all(r < len(slots) and placed.get(p.key, slots[r])
                                        == slots[r] for r, p in by_index.items()):
            for rank, pod in by_index.items():
                if pod.key not in placed:
                    out[pod.key] = slots[rank]
            return out
    else:
        ranked = by_rank(pods)
    if ranked is not None and len(ranked) <= len(slots) and all(
            placed.get(p.key, slots[r]) == slots[r] for r, p in enumerate(ranked)):
        for rank, pod in enumerate(ranked):
            if pod.key not in placed:
                out[pod.key] = slots[rank]
        return out
    there: dict[tuple[str, ...], int] = {}
    for where in placed.values():
        there[where] = there.get(where, 0) + 1
    gated = [p for p in sorted(pods, key=lambda p: p.order) if p.key not in placed]
    for d in psa.domains:
        room = max(d.count - there.get(d.values, 0), 0)
        for pod in gated[:room]:
            out[pod.key] = d.values
        gated = gated[room:]
    return out
