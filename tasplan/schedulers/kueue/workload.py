"""A tasplan group seen as the Kueue Workload its object would create: its PodSets (one
per pod template, in the object's order), their annotations and pending pods in rank
order, and the queue it is submitted to."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from tasplan.model import kueue as k
from tasplan.model.group import PodGroup
from tasplan.model.kueue import ClusterQueue, KueueInputs
from tasplan.model.pod import Pod
from tasplan.schedulers.kueue.request import PODSET_ANNOTATIONS, QUEUE_NAME

# The labels the topology ungater reads a pod's rank from (``PodIndexLabel`` and
# ``SubGroupIndexLabel`` of each integration's PodSets): the outer index first.
_RANK_LABELS = (
    ("jobset.sigs.k8s.io/job-index", "batch.kubernetes.io/job-completion-index"),
    ("batch.kubernetes.io/job-completion-index",),
    ("leaderworkerset.sigs.k8s.io/worker-index",),
    ("training.kubeflow.org/replica-index",),
    ("kueue.x-k8s.io/pod-group-pod-index",),
)


@dataclass(frozen=True)
class KueuePodSet:
    """``pods``: the PodSet's pending pods, in the order the ungater gives them ranks;
    ``template``: one of them, for what every pod of the template shares."""

    name: str
    pods: tuple[Pod, ...]
    annotations: Mapping[str, str]
    running: tuple[Pod, ...] = ()  # its pods bound to nodes already
    # The PodSet of a Workload object the group was made from: its stored topologyRequest
    # is what Kueue reads (the annotations were read into it when the Workload was made).
    stored: k.WorkloadPodSet | None = None

    @property
    def template(self) -> Pod:
        return self.pods[0]

    @property
    def bound(self) -> int:
        return len(self.running)


def by_rank(pods: Sequence[Pod]) -> list[Pod] | None:
    """The pods ordered by their index labels, when every pod has them (the ranks the
    topology ungater reads); None otherwise."""
    for labels in _RANK_LABELS:
        keys = []
        for pod in pods:
            values = [pod.labels.get(label, "") for label in labels]
            if not all(v.isascii() and v.isdigit() for v in values):
                break
            keys.append(tuple(int(v) for v in values))
        else:
            if pods:
                return [p for _, p in sorted(zip(keys, pods, strict=True),
                                             key=lambda kp: (kp[0], kp[1].order))]
    return None


def _ranked(pods: Sequence[Pod]) -> list[Pod]:
    """By index labels when every pod has them, else in input order."""
    return by_rank(pods) or sorted(pods, key=lambda p: p.order)


def pod_sets(group: PodGroup, pods: Sequence[Pod], wl: k.Workload | None = None, *,
             replan: bool = False, gone: Collection[str] = ()) -> list[KueuePodSet]:
    """The Workload's PodSets with pending pods. An expanded object's templates give them
    (``Expansion.pod_sets``); plain pods of a group form one PodSet ``main``, with the
    annotations of its first pod. ``wl``: the group's Workload object, if any. ``replan``:
    the bound pods are to be placed again (Kueue admits an evicted workload anew), as
    pending copies; ``gone``: nodes whose pods are placed again so (failed nodes)."""
    by_name = {p.name: p for p in pods}
    out: list[KueuePodSet] = []
    seen: set[str] = set()

    def add(name: str, members: list[Pod], annotations: Mapping[str, str],
            stored: k.WorkloadPodSet | None = None) -> None:
        live = [p for p in members if not p.terminal]
        running = [p for p in live if p.node_name]
        pending = [p for p in live if not p.node_name]
        if replan:
            pending = [replace(p, node_name="") if p.node_name else p for p in live]
            running = []
        elif gone:
            pending = [replace(p, node_name="") if p.node_name in gone else p
                       for p in live if not p.node_name or p.node_name in gone]
            running = [p for p in running if p.node_name not in gone]
        if pending:
            out.append(KueuePodSet(name, tuple(_ranked(pending)), annotations,
                                   tuple(running), stored))

    for expansion in group.expansions:
        stored = {ps.name: ps for ps in wl.pod_sets} \
            if wl is not None and is_workload(expansion) else {}
        for ps in getattr(expansion, "pod_sets", ()):
            members = [by_name[n] for n in ps.pods if n in by_name]
            seen.update(p.name for p in members)
            add(ps.name, members, dict(ps.annotations), stored.get(ps.name))
    rest = [p for p in pods if p.name not in seen]
    pending = [p for p in rest if (not p.node_name or p.node_name in gone or replan)
               and not p.terminal]
    if pending:
        add("main", rest, dict(getattr(pending[0], "annotations", None) or {}))
    return out


def is_workload(expansion: object) -> bool:
    """The expansion is a Kueue Workload object (a group made from its PodSets)."""
    return getattr(expansion, "kind", "") == "Workload" and \
        getattr(expansion, "api_version", "") in k.VERSIONS


def queue_name(group: PodGroup, pods: Sequence[Pod], wl: k.Workload | None = None
               ) -> str | None:
    """``kueue.x-k8s.io/queue-name`` of the object (or its pods); a Workload object's
    ``spec.queueName``."""
    if wl is not None and any(is_workload(e) for e in group.expansions):
        return wl.queue_name or None
    for expansion in group.expansions:
        label = getattr(expansion, "label", None)
        value = label(QUEUE_NAME) if label is not None else None
        if value:
            return value
    for pod in pods:
        if pod.labels.get(QUEUE_NAME):
            return pod.labels[QUEUE_NAME]
    return None


def cluster_queue(namespace: str, queue: str | None, kueue: KueueInputs
                  ) -> ClusterQueue | None:
    lq = kueue.local_queues.get(f"{namespace}/{queue}") if queue else None
    return kueue.cluster_queues.get(lq.cluster_queue) if lq is not None else None


def tas_only(cq: ClusterQueue | None, kueue: KueueInputs) -> bool:
    """Every flavor of the ClusterQueue is a TAS flavor: Kueue implies TAS for PodSets that
    ask for none (``ClusterQueueSnapshot.IsTASOnly``)."""
    names = cq.flavor_names() if cq is not None else ()
    return bool(names) and all(
        kueue.flavors.get(f) is not None and kueue.flavors[f].topology_name is not None
        for f in names)


def asks_for_kueue(group: PodGroup, pods: Sequence[Pod], kueue: KueueInputs,
                   wl: k.Workload | None = None) -> str | None:
    """Why Kueue's TAS places the group (a PodSet TAS annotation, a Workload object's
    topology request, or a TAS-only queue), or None: a queued workload without either is
    admitted by quota alone and placed by kube-scheduler."""
    for ps in pod_sets(group, pods, wl):
        if ps.stored is not None:
            if ps.stored.topology:
                return ("it is a Kueue Workload whose PodSet asks for a topology "
                        "(spec.podSets[].topologyRequest)")
            continue
        keys = sorted(key for key in ps.annotations if key in PODSET_ANNOTATIONS)
        if keys:
            return f"its pod template asks Kueue for a topology ({keys[0]})"
    queue = queue_name(group, pods, wl)
    cq = cluster_queue(group.namespace, queue, kueue)
    if cq is not None and tas_only(cq, kueue):
        return (f"it is submitted to Kueue's LocalQueue {queue!r} ({QUEUE_NAME}), whose "
                f"ClusterQueue {cq.name} has only TAS flavors")
    return None
