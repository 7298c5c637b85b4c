"""What tasplan did not or could not model for a group, said only when the input uses it.

Each note names a place where kube-scheduler's decision may differ from the plan: a plugin
tasplan does not simulate (volumes, DRA, ImageLocality), randomness upstream (node sampling,
tie-breaking) or timing (basic groups seen in part).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from tasplan.framework.profile import Profile
from tasplan.framework.sampling import NodeSampling
from tasplan.framework.types import GroupContext
from tasplan.model.dra import DraInputs
from tasplan.model.group import Policy
from tasplan.model.pod import UNMODELLED_VOLUMES
from tasplan.model.pod_affinity import PodAffinity
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.dra_notes import dra_notes
from tasplan.plan.notes import Note, NoteCode

if TYPE_CHECKING:
    from tasplan.plan.result import GroupResult

IMAGE_LOCALITY = "ImageLocality"

class ClusterFacts:
    """What the notes need to know about the whole input, worked out when first asked."""

    def __init__(self, snapshot: ClusterSnapshot) -> None:
        self._snapshot = snapshot

    @property
    def dra(self) -> DraInputs:
        return self._snapshot.dra

    @cached_property
    def node_images(self) -> bool:
        """Some node lists status.images."""
        return any(n.has_images for n in self._snapshot.nodes)

    @cached_property
    def unlabelled_namespaces(self) -> tuple[str, ...]:
        """Namespaces pods live in whose Namespace object (labels) is not in the input."""
        snapshot = self._snapshot
        return tuple(sorted(snapshot.pod_namespaces - snapshot.namespaces.keys()))


def group_notes(ctx: GroupContext, profile: Profile, sampling: Sequence[NodeSampling],
                result: GroupResult, facts: ClusterFacts) -> tuple[Note, ...]:
    """``sampling``: the simulated placements where upstream would not look at every node."""
    pending = ctx.pending
    selected, tied_with = result.selected, result.tied_with
    notes: list[Note] = [Note(code, message) for code, message in ctx.group.notes]
    features = frozenset().union(*(p.unmodelled for p in pending))
    if UNMODELLED_VOLUMES in features:
        notes.append(Note(NoteCode.VOLUMES, "pods use persistent or CSI volumes: VolumeBinding, "
                          "VolumeZone, NodeVolumeLimits and VolumeRestrictions are not "
                          "simulated, so a node the volumes cannot reach may be chosen"))
    notes.extend(Note(code, message) for code, message in dra_notes(ctx, result, facts.dra))
    if facts.node_images and IMAGE_LOCALITY in profile.unmodelled and pending:
        notes.append(Note(NoteCode.IMAGE_LOCALITY, "nodes list their images but ImageLocality "
                          "(score weight 1) is not modelled: upstream may prefer nodes that "
                          "already hold the pods' images within a placement"))
    if sampling and pending:
        s = max(sampling, key=lambda s: (s.nodes, s.placement))
        notes.append(Note(NoteCode.NODE_SAMPLING, "upstream filters each pod only until it finds "
                          f"{s.feasible_to_find} feasible nodes of the {s.nodes} in placement "
                          f"{s.placement!r} (percentageOfNodesToScore {s.percentage}%), "
                          "starting where the previous pod "
                          "stopped; tasplan evaluates every node, so node choice inside a "
                          "placement may differ (feasibility does not)"))
    if ctx.group.policy == Policy.BASIC and len(pending) > 1:
        notes.append(Note(NoteCode.BASIC_TIMING, "basic groups are not gated: the scheduler may "
                          "start the group's cycle when only its first pods are queued and "
                          "choose the domain from those alone; tasplan plans all "
                          f"{len(pending)} pending pods at once"))
    if tied_with:
        names = (selected, *tied_with)  # every one in JSON tiedWith; a note names five
        tied = ", ".join(repr(n) for n in names[:5]) + (
            f" and {len(names) - 5:,} more" if len(names) > 5 else "")
        notes.append(Note(NoteCode.RANDOM_TIES, f"placements {tied} tie on score: upstream picks "
                          f"one at random, tasplan the first by name ({selected!r})"))
    if any(_uses_namespace_selector(p.pod_affinity) for p in pending) \
            and (missing := facts.unlabelled_namespaces):
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more"
                                          if len(missing) > 5 else "")
        notes.append(Note(NoteCode.NAMESPACE_LABELS, "pod affinity uses a namespaceSelector "
                          f"but the Namespace objects of {shown} are not in the inputs: they "
                          "were matched by their kubernetes.io/metadata.name label only"))
    if result.preemption is not None:
        notes.extend(Note(code, message) for code, message in result.preemption.notes)
    # Preemption can only help a group that reached a scheduling cycle with somewhere to go:
    # not a gang still waiting for its pods (PreEnqueue), not one with no placement (no node
    # carries its topology key), not one that failed validation.
    if (not result.schedulable and pending and result.placements and not result.error
            and any(p.preemption_policy != "Never" for p in pending)):
        notes.append(Note(NoteCode.PREEMPTION, "upstream would next try preemption (workload-aware "
                          "for pod groups) and may evict lower-priority pods; the plan does "
                          "not preempt (tasplan explain shows eviction what-ifs)"))
    return tuple(notes)


def _uses_namespace_selector(affinity: PodAffinity | None) -> bool:
    """A selector with requirements: an empty one selects every namespace, labels or not."""
    return affinity is not None and any(t.namespace_selector is not None
                                        and not t.namespace_selector.empty
                                        for t in affinity.terms())
