"""NodeAffinity: nodeSelector and required node affinity filter; preferred terms score."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.status import Status, unschedulable
from tasplan.framework.types import CycleState, Scope
from tasplan.model.node import Node
from tasplan.model.pod import Pod
from tasplan.plugins import names
from tasplan.plugins.args import TYPE_META, ArgFields
from tasplan.plugins.normalize import default_normalize

ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"


def required_affinity_matches(pod: Pod, node: Node) -> bool:
    """``nodeSelector`` and required node affinity both hold (upstream
    ``GetRequiredNodeAffinity(pod).Match(node)``)."""
    labels = node.labels
    for key, value in pod.node_selector.items():
        if labels.get(key) != value:
            return False
    terms = pod.required_terms
    return terms is None or any(t.matches(node.name, labels) for t in terms)


class NodeAffinity:
    name = names.NODE_AFFINITY
    scope = Scope.STATIC

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        if not required_affinity_matches(pod, node.node):
            return unschedulable(ERR_REASON_POD, unresolvable=True)
        return None

    def pre_score(self, state: CycleState, pod: Pod) -> bool:
        return bool(pod.preferred_terms)

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        name, labels = node.node.name, node.node.labels
        return sum(p.weight for p in pod.preferred_terms if p.term.matches(name, labels))

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[int],
                        nodes: list[NodeInfo]) -> None:
        default_normalize(scores)


def new(args: Mapping[str, Any]) -> NodeAffinity:
    """NodeAffinityArgs' only field, ``addedAffinity``, changes what the filter and score
    see; tasplan does not model it, so it is refused rather than silently ignored."""
    fields = ArgFields(args)
    spec = fields.strict(args, "", (*TYPE_META, "addedAffinity"))
    if spec.get("addedAffinity"):
        raise fields.error("addedAffinity", "not supported by tasplan (the plan would differ "
                           "from kube-scheduler's)")
    return NodeAffinity()
