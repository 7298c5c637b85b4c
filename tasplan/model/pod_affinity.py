"""Rules that relate a pod to other pods: label selectors, topology spread constraints and
inter-pod (anti-)affinity terms.

Upstream: ``metav1.LabelSelector`` (a missing selector selects nothing, an empty one
everything), ``core/v1.TopologySpreadConstraint`` and ``core/v1.PodAffinityTerm``.
``matchLabelKeys`` / ``mismatchLabelKeys`` are merged into the selector with the incoming
pod's label values, as the API server does on create.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tasplan.model.selectors import Requirement

LABEL_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
# The API server sets this label on every namespace; namespaceSelectors may rely on it.
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """``matchLabels`` as In requirements plus ``matchExpressions``; all must hold. No
    requirements at all selects everything."""

    requirements: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        return all(r.matches(labels) for r in self.requirements)

    @property
    def empty(self) -> bool:
        return not self.requirements

    def merged(self, extra: tuple[Requirement, ...]) -> LabelSelector:
        return LabelSelector(self.requirements + extra) if extra else self


def label_key_requirements(labels: Mapping[str, str], match: tuple[str, ...],
                           mismatch: tuple[str, ...] = ()) -> tuple[Requirement, ...]:
    """``matchLabelKeys`` -> ``key In (value)``, ``mismatchLabelKeys`` -> ``key NotIn
    (value)``, for the keys the pod carries (absent keys are ignored, as upstream)."""
    out = [Requirement(k, "In", (labels[k],)) for k in match if k in labels]
    out += [Requirement(k, "NotIn", (labels[k],)) for k in mismatch if k in labels]
    return tuple(out)


@dataclass(frozen=True, slots=True)
class SpreadConstraint:
    """One ``topologySpreadConstraints`` entry; ``selector`` already includes
    ``matchLabelKeys``. ``selector`` None selects no pods."""

    max_skew: int
    topology_key: str
    when_unsatisfiable: str
    selector: LabelSelector | None
    min_domains: int | None = None
    node_affinity_policy: str = HONOR
    node_taints_policy: str = IGNORE

    @property
    def hard(self) -> bool:
        return self.when_unsatisfiable == DO_NOT_SCHEDULE


@dataclass(frozen=True, slots=True)
class PodAffinityTerm:
    """``namespaces`` empty and ``namespace_selector`` None mean the owning pod's own
    namespace (filled in by the decoder); ``namespace_selector`` empty means all."""

    selector: LabelSelector | None
    topology_key: str
    namespaces: frozenset[str] = frozenset()
    namespace_selector: LabelSelector | None = None

    def matches_namespace(self, namespace: str,
                          namespace_labels: Mapping[str, Mapping[str, str]]) -> bool:
        if namespace in self.namespaces:
            return True
        if self.namespace_selector is None:
            return False
        labels = namespace_labels.get(namespace)
        if labels is None:
            labels = {NAMESPACE_NAME_LABEL: namespace}
        return self.namespace_selector.matches(labels)

    def matches(self, pod_namespace: str, pod_labels: Mapping[str, str],
                namespace_labels: Mapping[str, Mapping[str, str]]) -> bool:
        """Does a pod with these namespace and labels satisfy the term's selectors?"""
        if self.selector is None or not self.matches_namespace(pod_namespace,
                                                               namespace_labels):
            return False
        return self.selector.matches(pod_labels)


@dataclass(frozen=True, slots=True)
class WeightedPodAffinityTerm:
    weight: int
    term: PodAffinityTerm


@dataclass(frozen=True, slots=True)
class PodAffinity:
    """``spec.affinity.podAffinity`` and ``podAntiAffinity`` of one pod."""

    required: tuple[PodAffinityTerm, ...] = ()
    preferred: tuple[WeightedPodAffinityTerm, ...] = ()
    required_anti: tuple[PodAffinityTerm, ...] = ()
    preferred_anti: tuple[WeightedPodAffinityTerm, ...] = ()

    def terms(self) -> tuple[PodAffinityTerm, ...]:
        """Every term, required and preferred, affinity and anti-affinity."""
        return (*self.required, *self.required_anti,
                *(w.term for w in (*self.preferred, *self.preferred_anti)))
