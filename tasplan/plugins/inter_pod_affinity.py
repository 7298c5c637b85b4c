"""InterPodAffinity: required pod affinity / anti-affinity filter and preferred (anti-)affinity
score, both symmetric with the pods already placed (upstream ``plugins/interpodaffinity``).

What upstream's PreFilter and PreScore compute per pod, ``prepare`` computes once per pod
class from every node of the cluster, kept current by ``add_pod`` / ``remove_pod`` as pods
are assumed (upstream's AddPod / RemovePod, which count with multiplier +1 / -1):

* ``existing_anti``: per topology pair (key, value), how many required anti-affinity terms
  of placed pods match the incoming pod (symmetry: a placed pod's anti-affinity keeps the
  incoming pod out of its domain);
* ``affinity`` / ``anti``: per topology pair, how many placed pods match the incoming pod's
  required affinity terms (a pod counts only when it matches all of them) and anti-affinity
  terms;
* ``scores``: per topology key and value, the summed weights of preferred terms in both
  directions, plus ``hardPodAffinityWeight`` for every placed pod's required affinity term
  the incoming pod matches.

Upstream's newer hostname fast path (feature gate ``InterPodAffinityHostnameFastPath``) reaches
the same decisions by looking at a node's own pods for ``kubernetes.io/hostname`` terms; this
module keeps the counting form, which treats every topology key alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tasplan.errors import ProfileError
from tasplan.framework.node_info import NodeInfo
from tasplan.framework.status import Status, unschedulable
from tasplan.framework.types import MAX_NODE_SCORE, CycleState, Scope
from tasplan.model.pod import Pod
from tasplan.model.pod_affinity import PodAffinityTerm
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plugins import names

ERR_REASON_AFFINITY_RULES = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES = "node(s) didn't match pod anti-affinity rules"
ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"

DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1
MAX_HARD_POD_AFFINITY_WEIGHT = 100

# Preemption cannot create a pod the affinity needs; it can evict one that repels.
_AFFINITY_FAILED = unschedulable(ERR_REASON_AFFINITY_RULES, unresolvable=True)
_ANTI_AFFINITY_FAILED = unschedulable(ERR_REASON_ANTI_AFFINITY_RULES)
_EXISTING_ANTI_AFFINITY_FAILED = unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY)

Pair = tuple[str, str]


class AffinitySummary:
    """The counts and score map of one pod class (see the module docstring). ``scoring`` is
    False when the score is skipped for the class; ``self_match`` says whether the pod
    matches all of its own required affinity terms (the first pod of a self-affine group)."""

    __slots__ = ("affinity", "anti", "existing_anti", "scores", "scoring", "self_match")

    def __init__(self, scoring: bool, self_match: bool) -> None:
        self.scoring = scoring
        self.self_match = self_match
        self.existing_anti: dict[Pair, int] = {}
        self.affinity: dict[Pair, int] = {}
        self.anti: dict[Pair, int] = {}
        self.scores: dict[str, dict[str, int]] = {}

    def copy(self) -> AffinitySummary:
        clone = AffinitySummary(self.scoring, self.self_match)
        clone.existing_anti = dict(self.existing_anti)
        clone.affinity = dict(self.affinity)
        clone.anti = dict(self.anti)
        clone.scores = {key: dict(values) for key, values in self.scores.items()}
        return clone


def _count(counts: dict[Pair, int], labels: Mapping[str, str], key: str, delta: int) -> None:
    """Upstream ``topologyToMatchedTermCount.update``: nodes without the key count nowhere;
    a pair that drops to zero disappears."""
    value = labels.get(key)
    if value is None:
        return
    pair = (key, value)
    total = counts.get(pair, 0) + delta
    if total:
        counts[pair] = total
    else:
        del counts[pair]


def _weigh(scores: dict[str, dict[str, int]], labels: Mapping[str, str], key: str,
           amount: int) -> None:
    value = labels.get(key)
    if value is not None:
        values = scores.setdefault(key, {})
        values[value] = values.get(value, 0) + amount


class InterPodAffinity:
    name = names.INTER_POD_AFFINITY
    scope = Scope.CLUSTER

    def __init__(self, hard_pod_affinity_weight: int = DEFAULT_HARD_POD_AFFINITY_WEIGHT,
                 ignore_preferred_terms_of_existing_pods: bool = False) -> None:
        self.hard_pod_affinity_weight = hard_pod_affinity_weight
        self.ignore_preferred_terms_of_existing_pods = ignore_preferred_terms_of_existing_pods
        self._namespaces: Mapping[str, Mapping[str, str]] = {}
        self._unplaced: tuple[Pod, ...] = ()

    def bind_snapshot(self, snapshot: ClusterSnapshot) -> None:
        """Namespace labels for namespaceSelectors, and the unplaced group pods with terms:
        assumed during a group's cycle, they may bind a class whose ``prepare`` found nothing
        to do. (Only group pods are ever assumed; the planner has grouped them already.)"""
        self._namespaces = snapshot.namespaces
        self._unplaced = tuple(p for pods in snapshot.pods_by_group.values() for p in pods
                               if not p.node_name and p.pod_affinity is not None)

    # -- cluster state -------------------------------------------------------------------------

    def _scoring(self, pod: Pod) -> bool:
        """Upstream PreScore's Skip for ``ignorePreferredTermsOfExistingPods``."""
        own = pod.pod_affinity
        return not (self.ignore_preferred_terms_of_existing_pods
                    and (own is None or not (own.preferred or own.preferred_anti)))

    def prepare(self, pod: Pod, cluster: Sequence[NodeInfo]) -> AffinitySummary | None:
        """Upstream PreFilter + PreScore over the whole cluster. None (Skip) when the pod
        has no terms, no placed pod's term reaches it, and no unplaced pod's could."""
        own = pod.pod_affinity
        scoring = self._scoring(pod)
        self_match = own is not None and bool(own.required) and all(
            t.matches(pod.namespace, pod.labels, self._namespaces) for t in own.required)
        summary = AffinitySummary(scoring, self_match)
        if own is not None:
            # The pod's own terms may select any pod, with or without terms of its own.
            for info in cluster:
                for other in info.pods:
                    self._update(summary, pod, other, info, 1)
            return summary
        for info in cluster:
            for other in info.affinity_pods:
                self._update(summary, pod, other, info, 1)
        if summary.existing_anti or summary.scores or any(
                self._reaches(other, pod, scoring) for other in self._unplaced):
            return summary
        return None

    def add_pod(self, summary: AffinitySummary, pod: Pod, added: Pod,
                node: NodeInfo) -> set[Pair] | None:
        """The node's pairs for the terms' topology keys; None when the first-pod rule may
        have flipped (it reads whether any pod anywhere matches)."""
        had_affinity = bool(summary.affinity)
        self._update(summary, pod, added, node, 1)
        if bool(summary.affinity) != had_affinity:
            return None
        keys = {t.topology_key for a in (pod.pod_affinity, added.pod_affinity) if a is not None
                for t in a.terms()}
        labels = node.node.labels
        return {(k, labels[k]) for k in keys if k in labels}

    def remove_pod(self, summary: AffinitySummary, pod: Pod, removed: Pod,
                   node: NodeInfo) -> None:
        self._update(summary, pod, removed, node, -1)

    def _update(self, s: AffinitySummary, pod: Pod, other: Pod, info: NodeInfo,
                delta: int) -> None:
        """Count ``other`` on ``info`` for the incoming ``pod`` (upstream ``updateWithPod``
        and, for the score, ``processExistingPod``)."""
        own, theirs = pod.pod_affinity, other.pod_affinity
        if own is None and theirs is None:
            return
        labels = info.node.labels
        ns = self._namespaces
        if theirs is not None:
            for t in theirs.required_anti:
                if t.matches(pod.namespace, pod.labels, ns):
                    _count(s.existing_anti, labels, t.topology_key, delta)
        if own is not None:
            if own.required and all(t.matches(other.namespace, other.labels, ns)
                                    for t in own.required):
                for t in own.required:
                    _count(s.affinity, labels, t.topology_key, delta)
            for t in own.required_anti:
                if t.matches(other.namespace, other.labels, ns):
                    _count(s.anti, labels, t.topology_key, delta)
        if not s.scoring:
            return
        scores = s.scores
        if own is not None:
            for w in own.preferred:
                if w.term.matches(other.namespace, other.labels, ns):
                    _weigh(scores, labels, w.term.topology_key, w.weight * delta)
            for w in own.preferred_anti:
                if w.term.matches(other.namespace, other.labels, ns):
                    _weigh(scores, labels, w.term.topology_key, -w.weight * delta)
        if theirs is not None:
            if self.hard_pod_affinity_weight > 0:
                for t in theirs.required:
                    if t.matches(pod.namespace, pod.labels, ns):
                        _weigh(scores, labels, t.topology_key,
                               self.hard_pod_affinity_weight * delta)
            for w in theirs.preferred:
                if w.term.matches(pod.namespace, pod.labels, ns):
                    _weigh(scores, labels, w.term.topology_key, w.weight * delta)
            for w in theirs.preferred_anti:
                if w.term.matches(pod.namespace, pod.labels, ns):
                    _weigh(scores, labels, w.term.topology_key, -w.weight * delta)

    def _reaches(self, other: Pod, pod: Pod, scoring: bool) -> bool:
        """Could ``other``'s terms count for ``pod`` once ``other`` is placed?"""
        theirs = other.pod_affinity
        terms: list[PodAffinityTerm] = list(theirs.required_anti)
        if scoring:
            if self.hard_pod_affinity_weight > 0:
                terms += theirs.required
            terms += [w.term for w in (*theirs.preferred, *theirs.preferred_anti)]
        return any(t.matches(pod.namespace, pod.labels, self._namespaces) for t in terms)

    # -- filter --------------------------------------------------------------------------------

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        s: AffinitySummary = state[self.name]
        labels = node.node.labels
        own = pod.pod_affinity
        if own is not None:
            if own.required and not _satisfies_affinity(s, own.required, labels):
                return _AFFINITY_FAILED
            if s.anti:
                for t in own.required_anti:
                    value = labels.get(t.topology_key)
                    if value is not None and s.anti.get((t.topology_key, value), 0) > 0:
                        return _ANTI_AFFINITY_FAILED
        counts = s.existing_anti
        if counts:
            if len(counts) < len(labels):
                blocked = any(n > 0 and labels.get(k) == v for (k, v), n in counts.items())
            else:
                blocked = any(counts.get(pair, 0) > 0 for pair in labels.items())
            if blocked:
                return _EXISTING_ANTI_AFFINITY_FAILED
        return None

    # -- score ---------------------------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod) -> bool:
        # Upstream also skips when the score map is empty; every node then scores 0 here,
        # which adds the same nothing.
        return state[self.name].scoring

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        labels = node.node.labels
        total = 0
        for key, values in state[self.name].scores.items():
            value = labels.get(key)
            if value is not None:
                total += values.get(value, 0)
        return total

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[int],
                        nodes: list[NodeInfo]) -> None:
        """Min-max to [0, 100], truncated as upstream's float arithmetic; all 0 when equal."""
        if not scores or not state[self.name].scores:
            return
        low, high = min(scores), max(scores)
        spread = high - low
        for i, value in enumerate(scores):
            scores[i] = int(MAX_NODE_SCORE * ((value - low) / spread)) if spread > 0 else 0


def _satisfies_affinity(s: AffinitySummary, terms: tuple[PodAffinityTerm, ...],
                        labels: Mapping[str, str]) -> bool:
    """Upstream ``satisfyPodAffinity``: the node needs every term's topology key, and a
    matching pod in each term's domain - unless no pod anywhere matches and the pod matches
    its own terms (the first pod of a group with affinity to itself may go anywhere)."""
    pods_exist = True
    for t in terms:
        value = labels.get(t.topology_key)
        if value is None:
            return False
        if s.affinity.get((t.topology_key, value), 0) <= 0:
            pods_exist = False
    return pods_exist or (not s.affinity and s.self_match)


def new(args: Mapping[str, Any]) -> InterPodAffinity:
    """``InterPodAffinityArgs``: ``hardPodAffinityWeight`` (0..100, default 1) and
    ``ignorePreferredTermsOfExistingPods`` (default false), validated as upstream."""
    weight = args.get("hardPodAffinityWeight", DEFAULT_HARD_POD_AFFINITY_WEIGHT)
    if isinstance(weight, bool) or not isinstance(weight, int):
        raise ProfileError("<profile>", f"expected an integer, got {weight!r}",
                           field="InterPodAffinity.args.hardPodAffinityWeight")
    if not 0 <= weight <= MAX_HARD_POD_AFFINITY_WEIGHT:
        raise ProfileError("<profile>", f"{weight} not in valid range [0, "
                           f"{MAX_HARD_POD_AFFINITY_WEIGHT}]",
                           field="InterPodAffinity.args.hardPodAffinityWeight")
    ignore = args.get("ignorePreferredTermsOfExistingPods", False)
    if not isinstance(ignore, bool):
        raise ProfileError("<profile>", f"expected true or false, got {ignore!r}",
                           field="InterPodAffinity.args.ignorePreferredTermsOfExistingPods")
    return InterPodAffinity(weight, ignore)
