"""Every scheduling key tasplan recognises, who owns it, and whether the plan honours it.

A key is an annotation, a label or a field that asks a scheduler for something: a topology
domain, a gang size, a queue. The founders' rule is that no such intent is dropped without
a word: each key is either *planned* (the model honours it), *planned with a note* (honoured
under an assumption the group's report states), or *warned* (the plan ignores it, and a
warning names the object, the field and what would honour it). ``tests/load/
test_scheduling_keys.py`` walks every entry and fails when one is neither.

``planned`` maps a tasplan scheduler to how it treats the key; a scheduler missing from it
warns. Peers flip their keys when their scheduler honours them (``"kueue": PLANNED``).
The loader records every key it finds in the workload inputs (``tasplan.load.intents``);
the planner turns the ones its scheduler does not honour into warnings
(``intent_warnings``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from tasplan.model.pod import DEFAULT_SCHEDULER

KUBE_SCHEDULER = "kube-scheduler"  # the scheduler tasplan plans with unless told otherwise


class Where(StrEnum):
    ANNOTATION = "annotation"
    LABEL = "label"
    FIELD = "field"


class Status(StrEnum):
    PLANNED = "planned"
    NOTED = "planned with a note"
    WARNED = "warned"


@dataclass(frozen=True, slots=True)
class SchedulingKey:
    """One recognised key. ``key`` is the annotation or label key, or for a field its path
    inside the object (a glob: ``*`` matches any run of path segments, list indexes are
    left out). ``kinds`` (``group/Kind``) limits where a field is read; ``when`` which
    values count (a schedulerName other than the default). ``honoured_by`` says what would
    honour a warned key; ``workaround`` (``{value}`` / ``{count}`` filled in) how to
    approximate it today."""

    key: str
    where: Where
    owner: str
    meaning: str
    planned: Mapping[str, Status] = field(default_factory=dict)
    honoured_by: str = ""
    workaround: str = ""
    kinds: tuple[str, ...] = ()
    when: Callable[[str], bool] | None = None
    why: str = ""  # for planned keys: how the model honours it (docs/inputs.md)
    consequence: str = "the plan ignores it"  # what a warned key's absence from the plan means

    def status(self, scheduler: str = KUBE_SCHEDULER) -> Status:
        return self.planned.get(scheduler, Status.WARNED)


_K = {KUBE_SCHEDULER: Status.PLANNED}
_N = {KUBE_SCHEDULER: Status.NOTED}
_KUEUE = "--scheduler kueue (Kueue TAS)"
_Q = {"kueue": Status.PLANNED}
_KAI = "--scheduler kai"
KAI = "kai"
_KAI_PLANNED = {KAI: Status.PLANNED}
_KAI_NOTED = {KAI: Status.NOTED}
_VOLCANO = "--scheduler volcano"
_V_PLANNED = {"volcano": Status.PLANNED}
_V_NOT_MADE = "nothing in tasplan yet (the {}'s Volcano PodGroup is not made; write a " \
    "scheduling.volcano.sh PodGroup)"
_GANG = "--gang {count} --topology-key {value}"
_KUEUE_PREFIX = "kueue.x-k8s.io/"
_KAI_PREFIX = "kai.scheduler/"
_SEGMENTS = "nothing in tasplan yet (KAI's segments are not modelled; write the subgroups " \
    "in a scheduling.run.ai PodGroup)"
_KAI_PODGROUP = ("scheduling.run.ai/PodGroup",)
_KUBEFLOW = ("kubeflow.org/PyTorchJob", "kubeflow.org/TFJob", "kubeflow.org/MPIJob",
             "kubeflow.org/XGBoostJob", "kubeflow.org/PaddleJob", "kubeflow.org/JAXJob")


def _other_scheduler(value: str) -> bool:
    return bool(value) and value != DEFAULT_SCHEDULER


KEYS: tuple[SchedulingKey, ...] = (
    # --- Kubernetes: the Workload API and the objects that write it
    SchedulingKey("*spec.schedulingGroup", Where.FIELD, "Kubernetes",
                  "the pod joins a PodGroup (v1.36+)", _K,
                  why="the pods are planned with the PodGroup they name"),
    SchedulingKey("*spec.workloadRef", Where.FIELD, "Kubernetes",
                  "the pod joins a v1alpha1 Workload's pod group (v1.35)", _K,
                  why="the pods are planned with the Workload group they name"),
    SchedulingKey("spec.scheduling", Where.FIELD, "Kubernetes",
                  "the Job's / LeaderWorkerSet's PodGroup (WorkloadWithJob, LWS scheduling)",
                  _K, kinds=("batch/Job", "leaderworkerset.x-k8s.io/LeaderWorkerSet"),
                  why="the PodGroup the controller writes: policy, minCount, constraint"),
    SchedulingKey("spec.gangPolicy", Where.FIELD, "JobSet",
                  "the JobSet's workload-aware gang", _K, kinds=("jobset.x-k8s.io/JobSet",),
                  why="a gang of the JobSet or of each replicated Job, as JobSet writes it"),
    SchedulingKey("*schedulerName", Where.FIELD, "Kubernetes",
                  "the pods ask for another scheduler",
                  {"volcano": Status.PLANNED, KAI: Status.PLANNED},
                  consequence="kube-scheduler leaves the pods to it: their group is not "
                  "planned",
                  honoured_by="that scheduler: --scheduler volcano (auto for schedulerName "
                  "volcano), --scheduler kai (auto for kai-scheduler), or --scheduler-config "
                  "with a profile of that name",
                  when=_other_scheduler),
    # --- JobSet and LeaderWorkerSet exclusive placement
    SchedulingKey("alpha.jobset.sigs.k8s.io/exclusive-topology", Where.ANNOTATION, "JobSet",
                  "each child Job in a topology domain of its own", _K,
                  why="JobSet's pod webhook: affinity to the own Job, anti-affinity to "
                  "the others, over the annotated key"),
    SchedulingKey("alpha.jobset.sigs.k8s.io/node-selector", Where.ANNOTATION, "JobSet",
                  "exclusive placement on nodes labelled per child Job", _K,
                  why="the nodeSelector alpha.jobset.sigs.k8s.io/namespaced-job and the "
                  "no-schedule toleration the controller adds"),
    SchedulingKey("leaderworkerset.sigs.k8s.io/exclusive-topology", Where.ANNOTATION, "LWS",
                  "each LWS group in a topology domain of its own", _K,
                  why="LWS's pod webhook: affinity to the own group, anti-affinity to the "
                  "others"),
    SchedulingKey("leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology", Where.ANNOTATION,
                  "LWS", "each LWS subgroup in a topology domain of its own", {},
                  honoured_by="nothing in tasplan yet (LWS subgroups are not modelled)"),
    # --- Kueue
    SchedulingKey(f"{_KUEUE_PREFIX}queue-name", Where.LABEL, "Kueue",
                  "the LocalQueue that admits the workload", _Q, honoured_by=_KUEUE,
                  why="its LocalQueue's ClusterQueue: flavor order and static quota"),
    SchedulingKey(f"{_KUEUE_PREFIX}priority-class", Where.LABEL, "Kueue",
                  "the WorkloadPriorityClass", {},
                  honoured_by="nothing in tasplan yet (WorkloadPriorityClass objects are not "
                  "read; a Kueue workload's queue priority is its pods')"),
    SchedulingKey(f"{_KUEUE_PREFIX}prebuilt-workload-name", Where.LABEL, "Kueue",
                  "a prebuilt Kueue Workload", _Q, honoured_by=_KUEUE,
                  why="the job's Workload is the one named: its admission and topology "
                  "assignment decide when the inputs hold it"),
    SchedulingKey(f"{_KUEUE_PREFIX}podset-required-topology", Where.ANNOTATION, "Kueue",
                  "the PodSet must fit in one domain of this level", _Q,
                  honoured_by=_KUEUE, workaround=_GANG,
                  why="Kueue's TAS placement: one domain of the level"),
    SchedulingKey(f"{_KUEUE_PREFIX}podset-preferred-topology", Where.ANNOTATION, "Kueue",
                  "the PodSet prefers one domain of this level", _Q,
                  honoured_by=_KUEUE, workaround=_GANG,
                  why="Kueue's TAS placement: climbs levels, spreads at the top"),
    SchedulingKey(f"{_KUEUE_PREFIX}podset-unconstrained-topology", Where.ANNOTATION, "Kueue",
                  "Kueue TAS accounting without a domain constraint", _Q, honoured_by=_KUEUE,
                  why="Kueue's TAS placement, LeastFreeCapacity"),
    SchedulingKey(f"{_KUEUE_PREFIX}podset-slice-required-topology", Where.ANNOTATION, "Kueue",
                  "each slice of the PodSet in one domain of this level", _Q,
                  honoured_by=_KUEUE,
                  why="Kueue's TAS placement: slices per domain"),
    SchedulingKey(f"{_KUEUE_PREFIX}podset-slice-size", Where.ANNOTATION, "Kueue",
                  "the size of a PodSet slice", _Q, honoured_by=_KUEUE,
                  why="Kueue's TAS placement: the slice size"),
    SchedulingKey(f"{_KUEUE_PREFIX}podset-slice-required-topology-constraints",
                  Where.ANNOTATION, "Kueue", "multi-level slice constraints", _Q,
                  honoured_by=_KUEUE,
                  why="Kueue's multi-layer slices"),
    SchedulingKey(f"{_KUEUE_PREFIX}podset-group-name", Where.ANNOTATION, "Kueue",
                  "PodSets placed together in one domain", _Q, honoured_by=_KUEUE,
                  why="Kueue's leader + workers placement"),
    SchedulingKey(f"{_KUEUE_PREFIX}pod-group-name", Where.LABEL, "Kueue",
                  "plain pods that form one Kueue workload", {**_N, **_Q},
                  honoured_by=_KUEUE,
                  why="the pods are one group <ns>/<name>: one Kueue workload under "
                  "--scheduler kueue (PodSets by pod shape, the Workload its pods own)"),
    SchedulingKey(f"{_KUEUE_PREFIX}pod-group-total-count", Where.ANNOTATION, "Kueue",
                  "how many pods the plain-pod group has", {**_N, **_Q},
                  honoured_by=_KUEUE,
                  why="the group is a gang of that many pods (Kueue admits them together)"),
    SchedulingKey(f"{_KUEUE_PREFIX}pod-group-fast-admission", Where.ANNOTATION, "Kueue",
                  "admit the pod group before all its pods exist", {},
                  honoured_by="nothing in tasplan yet (a pod group is planned with the pods "
                  "the inputs hold)"),
    SchedulingKey(f"{_KUEUE_PREFIX}pod-group-serving", Where.ANNOTATION, "Kueue",
                  "a serving pod group (pods are replaced, not finished)", {},
                  honoured_by="nothing in tasplan yet"),
    # --- KAI
    SchedulingKey(f"{_KAI_PREFIX}queue", Where.LABEL, "KAI", "the KAI queue", _KAI_NOTED,
                  honoured_by=_KAI, why="--scheduler kai plans as if the queue had room "
                  "(note kai-offline)"),
    SchedulingKey(f"{_KAI_PREFIX}node-pool", Where.LABEL, "KAI", "the KAI node pool",
                  _KAI_NOTED, honoured_by=_KAI, why="--scheduler kai plans on every node "
                  "(notes kai-offline, kai-node-pool)"),
    SchedulingKey(f"{_KAI_PREFIX}topology", Where.ANNOTATION, "KAI",
                  "the KAI Topology the constraints refer to", _KAI_PLANNED,
                  honoured_by=_KAI, why="--scheduler kai: the PodGroup KAI's pod grouper "
                  "makes when none is in the inputs"),
    SchedulingKey(f"{_KAI_PREFIX}topology-required-placement", Where.ANNOTATION, "KAI",
                  "the workload must fit in one domain of this level", _KAI_PLANNED,
                  honoured_by=_KAI, workaround=_GANG, why="as kai.scheduler/topology"),
    SchedulingKey(f"{_KAI_PREFIX}topology-preferred-placement", Where.ANNOTATION, "KAI",
                  "the workload prefers one domain of this level", _KAI_PLANNED,
                  honoured_by=_KAI, workaround=_GANG, why="as kai.scheduler/topology"),
    SchedulingKey(f"{_KAI_PREFIX}segment-size", Where.ANNOTATION, "KAI",
                  "the size of a topology segment", {}, honoured_by=_SEGMENTS),
    SchedulingKey(f"{_KAI_PREFIX}segment-topology-required-placement", Where.ANNOTATION, "KAI",
                  "each segment in one domain of this level", {}, honoured_by=_SEGMENTS),
    SchedulingKey(f"{_KAI_PREFIX}segment-topology-preferred-placement", Where.ANNOTATION,
                  "KAI", "each segment preferably in one domain of this level", {},
                  honoured_by=_SEGMENTS),
    SchedulingKey(f"{_KAI_PREFIX}subgroup-name", Where.LABEL, "KAI",
                  "the KAI subgroup a pod belongs to", _KAI_PLANNED, honoured_by=_KAI,
                  why="--scheduler kai: the pod set of the PodGroup's subgroup"),
    SchedulingKey(f"{_KAI_PREFIX}batch-min-member", Where.ANNOTATION, "KAI",
                  "the gang size KAI's pod grouper sets", _KAI_PLANNED, honoured_by=_KAI,
                  workaround="--gang {value}", why="--scheduler kai: a Job's minMember "
                  "when no PodGroup is in the inputs"),
    SchedulingKey(f"{_KAI_PREFIX}preemptibility", Where.LABEL, "KAI",
                  "whether KAI may preempt the workload", _KAI_NOTED, honoured_by=_KAI,
                  why="--scheduler kai plans no preemption (note kai-offline)"),
    SchedulingKey(f"{_KAI_PREFIX}task-priority", Where.LABEL, "KAI",
                  "the order KAI allocates a job's pods in", _KAI_PLANNED,
                  honoured_by=_KAI, why="--scheduler kai: higher first"),
    SchedulingKey("pod-group-name", Where.ANNOTATION, "KAI",
                  "the KAI PodGroup the pod belongs to", {**_N, KAI: Status.PLANNED},
                  honoured_by=_KAI,
                  why="the pods are one group <ns>/<name>; --scheduler kai plans it as the "
                  "scheduling.run.ai PodGroup of that name (minMember 1 without one)"),
    # KAI's PodGroup object (scheduling.run.ai/v2alpha2): --scheduler kai reads it; the gang
    # (minMember) is the group's under every scheduler, its constraints only kai's.
    SchedulingKey("*topologyConstraint.requiredTopologyLevel", Where.FIELD, "KAI",
                  "the PodGroup (or subgroup) must fit in one domain of this level",
                  _KAI_PLANNED, honoured_by=_KAI,
                  workaround="--gang {count} --topology-key <the node label of level {value}>",
                  kinds=_KAI_PODGROUP, why="--scheduler kai's topology plugin"),
    SchedulingKey("*topologyConstraint.preferredTopologyLevel", Where.FIELD, "KAI",
                  "the PodGroup (or subgroup) prefers one domain of this level",
                  _KAI_PLANNED, honoured_by=_KAI, kinds=_KAI_PODGROUP,
                  why="--scheduler kai's topology plugin"),
    SchedulingKey("spec.queue", Where.FIELD, "KAI", "the KAI queue of the PodGroup",
                  _KAI_NOTED, honoured_by=_KAI, kinds=_KAI_PODGROUP,
                  why="--scheduler kai plans as if the queue had room (note kai-offline)"),
    # --- Volcano
    SchedulingKey("scheduling.k8s.io/group-name", Where.ANNOTATION, "Volcano",
                  "the Volcano PodGroup the pod belongs to", {**_N, **_V_PLANNED},
                  honoured_by=_VOLCANO,
                  why="the pods are one group <ns>/<name>; --scheduler volcano plans it as "
                  "the scheduling.volcano.sh PodGroup of that name (a job of the pods present "
                  "without one)"),
    SchedulingKey("scheduling.volcano.sh/group-name", Where.ANNOTATION, "Volcano",
                  "the Volcano PodGroup the pod belongs to", {**_N, **_V_PLANNED},
                  honoured_by=_VOLCANO, why="as scheduling.k8s.io/group-name"),
    SchedulingKey("scheduling.volcano.sh/queue-name", Where.ANNOTATION, "Volcano",
                  "the Volcano queue", {"volcano": Status.NOTED}, honoured_by=_VOLCANO,
                  why="--scheduler volcano plans as if the queue had room (note "
                  "volcano-offline)"),
    SchedulingKey("volcano.sh/queue-name", Where.LABEL, "Volcano",
                  "the Volcano queue (KubeRay)", {"volcano": Status.NOTED},
                  honoured_by=_VOLCANO, why="as scheduling.volcano.sh/queue-name"),
    SchedulingKey("volcano.sh/network-topology-mode", Where.LABEL, "Volcano",
                  "Volcano network-topology mode (KubeRay)", {},
                  honoured_by=_V_NOT_MADE.format("RayCluster")),
    SchedulingKey("volcano.sh/network-topology-highest-tier-allowed", Where.LABEL, "Volcano",
                  "the highest HyperNode tier (KubeRay)", {},
                  honoured_by=_V_NOT_MADE.format("RayCluster")),
    SchedulingKey("spec.networkTopology", Where.FIELD, "Volcano",
                  "the HyperNode tier the job must fit in", {"volcano": Status.PLANNED},
                  honoured_by="--scheduler volcano",
                  kinds=("batch.volcano.sh/Job", "scheduling.volcano.sh/PodGroup"),
                  why="Volcano's HyperNode tier walk (hard; soft bounded by the root)"),
    SchedulingKey("*tasks.partitionPolicy.networkTopology", Where.FIELD, "Volcano",
                  "the HyperNode tier of each partition of a task", _V_PLANNED,
                  honoured_by=_VOLCANO, kinds=("batch.volcano.sh/Job",),
                  why="a sub-group policy of the vcjob's PodGroup, walked per partition"),
    # --- scheduler-plugins coscheduling
    SchedulingKey("scheduling.x-k8s.io/pod-group", Where.LABEL, "scheduler-plugins",
                  "the coscheduling PodGroup the pod belongs to", _N,
                  why="the pods are one group <ns>/<name>, a gang of the PodGroup's "
                  "minMember when it is in the inputs, else of the pods present"),
    # --- Kubeflow training-operator, MPI Operator, Trainer
    SchedulingKey("spec.runPolicy.schedulingPolicy.minAvailable", Where.FIELD, "Kubeflow",
                  "the gang size of the job's PodGroup", {**_N, KAI: Status.PLANNED},
                  kinds=(*_KUBEFLOW, "kubeflow.org/MPIJob"),
                  why="a gang of minAvailable, as the operator's gang scheduler gets it; "
                  "--scheduler kai: the minMember of KAI's Kubeflow groupers"),
    SchedulingKey("spec.runPolicy.schedulingPolicy.queue", Where.FIELD, "Kubeflow",
                  "the gang scheduler's queue", {}, honoured_by=_V_NOT_MADE.format("operator"),
                  kinds=_KUBEFLOW),
    SchedulingKey("spec.runPolicy.schedulingPolicy.priorityClass", Where.FIELD, "Kubeflow",
                  "the PodGroup's priority class (the pods keep their own)", {},
                  honoured_by=_V_NOT_MADE.format("operator"), kinds=_KUBEFLOW),
    SchedulingKey("spec.runPolicy.schedulingPolicy.minResources", Where.FIELD, "Kubeflow",
                  "resources the gang scheduler reserves before starting", {},
                  honoured_by=_V_NOT_MADE.format("operator"), kinds=_KUBEFLOW),
    SchedulingKey("spec.runPolicy.schedulingPolicy.scheduleTimeoutSeconds", Where.FIELD,
                  "Kubeflow", "how long the gang may wait", {},
                  honoured_by="nothing in tasplan (an offline plan does not wait)",
                  kinds=_KUBEFLOW),
    SchedulingKey("spec.elasticPolicy.minReplicas", Where.FIELD, "Kubeflow",
                  "elastic training may run with fewer workers", {KAI: Status.PLANNED},
                  honoured_by="--scheduler kai (the minMember of KAI's PyTorchJob grouper; "
                  "other schedulers plan all replicas)",
                  workaround="--gang {value}",
                  kinds=("kubeflow.org/PyTorchJob", "kubeflow.org/PaddleJob")),
    SchedulingKey("spec.podGroupPolicy.coscheduling", Where.FIELD, "Kubeflow Trainer",
                  "a coscheduling PodGroup of all the TrainJob's pods", _N,
                  kinds=("trainer.kubeflow.org/TrainingRuntime",
                         "trainer.kubeflow.org/ClusterTrainingRuntime"),
                  why="a gang of all pods, as the Trainer writes the PodGroup"),
    SchedulingKey("spec.podGroupPolicy.volcano", Where.FIELD, "Kubeflow Trainer",
                  "a Volcano PodGroup of all the TrainJob's pods", _N,
                  kinds=("trainer.kubeflow.org/TrainingRuntime",
                         "trainer.kubeflow.org/ClusterTrainingRuntime"),
                  why="a gang of all pods, as the Trainer writes the PodGroup"),
    SchedulingKey("spec.podGroupPolicy.volcano.networkTopology", Where.FIELD,
                  "Kubeflow Trainer", "the Volcano HyperNode tier of the TrainJob", {},
                  honoured_by=_V_NOT_MADE.format("Trainer"),
                  kinds=("trainer.kubeflow.org/TrainingRuntime",
                         "trainer.kubeflow.org/ClusterTrainingRuntime")),
    # --- KubeRay
    SchedulingKey("ray.io/gang-scheduling-enabled", Where.LABEL, "KubeRay",
                  "gang-schedule the Ray cluster", _N,
                  why="one gang of the head and all workers, as KubeRay's "
                  "kubernetes-was-v1alpha2 batch scheduler writes it"),
    SchedulingKey("ray.io/priority-class-name", Where.LABEL, "KubeRay",
                  "the Volcano PodGroup's priority class", {},
                  honoured_by=_V_NOT_MADE.format("RayCluster")),
    # --- YuniKorn (KubeRay's yunikorn batch scheduler reads them from the RayCluster)
    SchedulingKey("yunikorn.apache.org/queue", Where.LABEL, "YuniKorn", "the YuniKorn queue",
                  {}, honoured_by="nothing in tasplan (YuniKorn is not modelled)"),
    SchedulingKey("yunikorn.apache.org/app-id", Where.LABEL, "YuniKorn",
                  "the YuniKorn application the pods belong to", {},
                  honoured_by="nothing in tasplan (YuniKorn is not modelled)"),
    # --- Grove
    SchedulingKey("*topologyConstraint.packDomain", Where.FIELD, "Grove",
                  "pack each replica into one domain of this level", {},
                  honoured_by=_KAI + " with Grove's ClusterTopology",
                  kinds=("grove.io/PodCliqueSet",)),
)

BY_KEY: Mapping[tuple[Where, str], SchedulingKey] = {(k.where, k.key): k for k in KEYS
                                                     if k.where != Where.FIELD}
FIELDS = tuple(k for k in KEYS if k.where == Where.FIELD)


@dataclass(frozen=True, slots=True)
class Intent:
    """A recognised key found in an input object: ``obj`` is ``Kind ns/name``, ``path``
    the field path of the key in it, ``value`` its value (shortened), ``count`` the pods
    the template it sits on makes (for the --gang workaround; 0 when unknown), ``groups``
    the keys of the pod groups the object's pods are planned in (whose scheduler decides
    whether the key is honoured)."""

    key: SchedulingKey
    obj: str
    path: str
    value: str
    count: int = 0
    groups: tuple[str, ...] = ()


_SHOWN = 3


def intent_warnings(intents: Iterable[Intent],
                    scheduler: str | Callable[[str], str] = KUBE_SCHEDULER) -> list[str]:
    """One warning per key and value a scheduler does not honour, naming up to three
    objects and fields that carry it and what would honour it. ``scheduler`` is the
    scheduler's name, or a function from a group key to the name of the scheduler that
    planned it (an intent is honoured when every scheduler of its groups honours it)."""
    by: dict[tuple[str, str, str], list[Intent]] = {}
    for intent in intents:
        names = {scheduler} if isinstance(scheduler, str) else \
            {scheduler(g) for g in intent.groups} or {KUBE_SCHEDULER}
        for name in sorted(names):
            if intent.key.status(name) == Status.WARNED:
                by.setdefault((intent.key.key, intent.value, name), []).append(intent)
                break
    out = []
    for (_, value, scheduler_name), found in by.items():
        where = "; ".join(f"{i.obj} {i.path}" for i in found[:_SHOWN])
        if len(found) > _SHOWN:
            where += f" and {len(found) - _SHOWN} more"
        counts = {i.count for i in found}
        count = counts.pop() if len(counts) == 1 and 0 not in counts else None
        out.append(f"{where} = {value!r}: "
                   + describe(found[0].key, value, scheduler_name, count))
    return out


def describe(key: SchedulingKey, value: str, scheduler: str = KUBE_SCHEDULER,
             count: int | None = None) -> str:
    """Why a key is not honoured and what would honour it (``count``: the pods of the
    template it sits on, for the --gang workaround)."""
    text = (f"{key.owner}'s {key.where.value} ({key.meaning}) is not honoured by {scheduler}; "
            f"{key.consequence}")
    if key.honoured_by:
        text += f"; honoured by {key.honoured_by}"
    if key.workaround:
        text += "; approximate it with " + key.workaround.format(
            value=value, count=count if count is not None else "N")
    return text


def iter_keys(status: Status | None = None, scheduler: str = KUBE_SCHEDULER
              ) -> Iterator[SchedulingKey]:
    return (k for k in KEYS if status is None or k.status(scheduler) == status)
