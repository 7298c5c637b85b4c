"""Volcano objects -> the model: HyperNodes, ``scheduling.volcano.sh`` PodGroups and vcjobs
(``batch.volcano.sh/v1alpha1`` Job), the last as a pod producer for ``expand``.

Decoding refuses what the API server refuses (types, enums, the CRDs' CEL rules on member
selectors, minimums); the admission webhooks' rules are lint's (``tasplan.lint.volcano``).
A vcjob's pods are named and labelled as volcano's job controller names them
(``pkg/controllers/job/job_controller_util.go`` ``createJobPod``: ``<job>-<task>-<i>``,
``volcano.sh/task-spec``, ``volcano.sh/partition-id``) and its PodGroup is what
``createOrUpdatePodGroup`` makes (minMember, minTaskMember, minResources of the first
minAvailable pods, networkTopology, one subGroupPolicy per partitioned task), after the
mutating webhook's defaults (queue ``default``, task names ``default<i>``, minAvailable).
Upstream names the PodGroup ``<job>-<uid>``; tasplan calls the group ``<namespace>/<job>``.
Read at volcano commit ed72c7c815a9fd547a787134676f73d42e9d049c.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tasplan.load.fields import ObjectFields
from tasplan.load.kinds import VOLCANO_KINDS
from tasplan.load.pod_affinity import label_selector
from tasplan.load.producers import PodBatch, Producer, check_expansion, identity, pod_template
from tasplan.load.scheduling import GroupSpec
from tasplan.model.group import PodGroup, Policy
from tasplan.model.pod_affinity import LabelSelector, Requirement
from tasplan.model.quantity import QuantityError, parse_milli, parse_value
from tasplan.model.requests import pod_requests
from tasplan.model.source import Source
from tasplan.model.volcano import (
    ALLOCATED_HYPERNODE_ANNOTATION,
    HARD,
    MEMBER_HYPERNODE,
    MEMBER_NODE,
    PARTITION_ID_KEY,
    PODGROUP_VERSION,
    SOFT,
    TASK_SPEC_KEY,
    VCJOB_VERSION,
    HyperNode,
    Member,
    NetworkTopology,
    SubGroupPolicy,
    VolcanoInputs,
    VolcanoPodGroup,
)
from tasplan.untrusted import quote

KINDS = VOLCANO_KINDS
DNS_SUBDOMAIN_MAX = 253
JOB_NAME_KEY = "volcano.sh/job-name"
JOB_NAMESPACE_KEY = "volcano.sh/job-namespace"
QUEUE_NAME_KEY = "volcano.sh/queue-name"
TASK_INDEX_KEY = "volcano.sh/task-index"
DEFAULT_QUEUE = "default"
DEFAULT_TASK = "default"


def _name(f: ObjectFields) -> tuple[str, str]:
    meta = f.mapping(f.obj.get("metadata"), "metadata")
    return (f.string(meta.get("namespace"), "metadata.namespace") or "default",
            f.string(meta.get("name"), "metadata.name", required=True))


def network_topology(f: ObjectFields, raw: object, path: str) -> NetworkTopology | None:
    """``networkTopology``: mode ``hard`` (default) or ``soft``, ``highestTierAllowed``
    (>= 0) or ``highestTierName``."""
    if raw is None:
        return None
    m = f.strict(raw, path, ("mode", "highestTierAllowed", "highestTierName"))
    mode = f.string(m.get("mode"), f"{path}.mode") or HARD
    if mode not in (HARD, SOFT):
        raise f.expected(f"{path}.mode", "hard or soft", mode)
    tier = m.get("highestTierAllowed")
    tier = None if tier is None else f.int32(tier, f"{path}.highestTierAllowed", minimum=0)
    return NetworkTopology(mode, tier, f.string(m.get("highestTierName"),
                                                f"{path}.highestTierName"))


def _member(f: ObjectFields, raw: object, path: str) -> Member:
    m = f.strict(raw, path, ("type", "selector"))
    kind = f.string(m.get("type"), f"{path}.type", required=True)
    if kind not in (MEMBER_NODE, MEMBER_HYPERNODE):
        raise f.expected(f"{path}.type", "Node or HyperNode", kind)
    sel = f.strict(m.get("selector"), f"{path}.selector",
                   ("exactMatch", "regexMatch", "labelMatch"))
    given = [k for k in ("exactMatch", "regexMatch", "labelMatch") if k in sel]
    if len(given) != 1:
        raise f.error(f"{path}.selector", "Either ExactMatch or RegexMatch or LabelMatch must "
                      "be specified" if not given else
                      "Only one of ExactMatch, RegexMatch, or LabelMatch can be specified")
    if "exactMatch" in sel:
        ex = f.strict(sel["exactMatch"], f"{path}.selector.exactMatch", ("name",))
        name = f.string(ex.get("name"), f"{path}.selector.exactMatch.name", required=True)
        if len(name) > DNS_SUBDOMAIN_MAX:
            raise f.error(f"{path}.selector.exactMatch.name",
                          f"must be no more than {DNS_SUBDOMAIN_MAX} characters")
        return Member(kind, exact=name)
    if "regexMatch" in sel:
        rx = f.strict(sel["regexMatch"], f"{path}.selector.regexMatch", ("pattern",))
        return Member(kind, regex=f.string(rx.get("pattern"),
                                           f"{path}.selector.regexMatch.pattern",
                                           required=True))
    labels = label_selector(f, sel["labelMatch"], f"{path}.selector.labelMatch")
    return Member(kind, labels=labels or LabelSelector())


def decode_hypernode(source: Source, obj: Mapping[str, Any]) -> HyperNode:
    f = ObjectFields(source, obj)
    _, name = _name(f)
    spec = f.strict(obj.get("spec"), "spec", ("tier", "tierName", "members"))
    tier = spec.get("tier")
    tier = 0 if tier is None else f.integer(tier, "spec.tier", minimum=0)
    tier_name = f.string(spec.get("tierName"), "spec.tierName")
    if len(tier_name) > DNS_SUBDOMAIN_MAX:
        raise f.error("spec.tierName", f"must be no more than {DNS_SUBDOMAIN_MAX} characters")
    members = tuple(_member(f, m, f"spec.members[{i}]")
                    for i, m in enumerate(f.sequence(spec.get("members"), "spec.members")))
    return HyperNode(name, tier, members, tier_name, source)


def _resources(f: ObjectFields, raw: object, path: str) -> dict[str, int] | None:
    if raw is None:
        return None
    out = {}
    for name, q in f.mapping(raw, path).items():
        try:
            out[name] = parse_milli(q) if name == "cpu" else parse_value(q)
        except (QuantityError, TypeError, ValueError):
            raise f.expected(f"{path}.{name}", "a quantity", q) from None
    return out


def _policy(f: ObjectFields, raw: object, path: str) -> SubGroupPolicy:
    m = f.mapping(raw, path)
    size = m.get("subGroupSize")
    mins = m.get("minSubGroups")
    keys = tuple(f.string(k, f"{path}.matchLabelKeys[{i}]") for i, k in
                 enumerate(f.sequence(m.get("matchLabelKeys"), f"{path}.matchLabelKeys")))
    return SubGroupPolicy(
        f.string(m.get("name"), f"{path}.name", required=True),
        None if size is None else f.int32(size, f"{path}.subGroupSize", minimum=0),
        None if mins is None else f.int32(mins, f"{path}.minSubGroups", minimum=0),
        label_selector(f, m.get("labelSelector"), f"{path}.labelSelector"), keys,
        network_topology(f, m.get("networkTopology"), f"{path}.networkTopology"))


def decode_podgroup(source: Source, obj: Mapping[str, Any], order: int
                    ) -> tuple[PodGroup, VolcanoPodGroup]:
    """A Volcano PodGroup: a gang of ``minMember`` for the planner, and its Volcano
    fields."""
    f = ObjectFields(source, obj)
    ns, name = _name(f)
    meta = f.mapping(obj.get("metadata"), "metadata")
    annotations = f.string_map(meta.get("annotations"), "metadata.annotations")
    spec = f.mapping(obj.get("spec"), "spec")
    status = f.mapping(obj.get("status"), "status")
    min_member = spec.get("minMember")
    min_member = 1 if min_member is None else f.int32(min_member, "spec.minMember", minimum=0)
    task_min = {k: f.int32(v, f"spec.minTaskMember.{k}", minimum=0)
                for k, v in f.mapping(spec.get("minTaskMember"), "spec.minTaskMember").items()}
    key = f"{ns}/{name}"
    volcano = VolcanoPodGroup(
        key, min_member, task_min,
        f.string(spec.get("queue"), "spec.queue") or DEFAULT_QUEUE,
        _resources(f, spec.get("minResources"), "spec.minResources"),
        network_topology(f, spec.get("networkTopology"), "spec.networkTopology"),
        tuple(_policy(f, p, f"spec.subGroupPolicy[{i}]") for i, p in
              enumerate(f.sequence(spec.get("subGroupPolicy"), "spec.subGroupPolicy"))),
        f.string(status.get("phase"), "status.phase"),
        annotations.get(ALLOCATED_HYPERNODE_ANNOTATION, ""))
    group = PodGroup(key=key, namespace=ns, policy=Policy.GANG, min_count=max(min_member, 1),
                     topology_key=None, kind="PodGroup", api_version=PODGROUP_VERSION,
                     source=source, order=order,
                     priority_class_name=f.string(spec.get("priorityClassName"),
                                                  "spec.priorityClassName"))
    return group, volcano


def _task_pod(job: str, task: str, index: int, namespace: str, queue: str,
              partition: int | None) -> tuple[str, Mapping[str, str]]:
    labels = {TASK_INDEX_KEY: str(index), JOB_NAME_KEY: job, TASK_SPEC_KEY: task,
              JOB_NAMESPACE_KEY: namespace, QUEUE_NAME_KEY: queue}
    if partition is not None:
        labels[PARTITION_ID_KEY] = str(partition)
    return f"{job}-{task}-{index}", labels


def decode_vcjob(source: Source, obj: Mapping[str, Any]) -> tuple[Producer, VolcanoPodGroup]:
    """A vcjob -> its pods (one batch per task) and the PodGroup its controller creates."""
    f = ObjectFields(source, obj)
    ns, name, spec = identity(f)
    queue = f.string(spec.get("queue"), "spec.queue") or DEFAULT_QUEUE
    tasks_raw = f.sequence(spec.get("tasks"), "spec.tasks")
    if not tasks_raw:
        raise f.error("spec.tasks", "No task specified in job spec")
    batches = []
    task_min: dict[str, int] = {}
    policies = []
    first_pods: list[tuple[int, dict[str, int], int, int]] = []
    total = 0
    for i, raw in enumerate(tasks_raw):
        path = f"spec.tasks[{i}]"
        t = f.mapping(raw, path)
        task = f.string(t.get("name"), f"{path}.name") or f"{DEFAULT_TASK}{i}"
        count = t.get("replicas")
        count = 0 if count is None else f.int32(count, f"{path}.replicas", minimum=0)
        template = pod_template(f, t.get("template"), f"{path}.template")
        partition = _partition(f, t.get("partitionPolicy"), f"{path}.partitionPolicy")
        minimum = t.get("minAvailable")
        if minimum is not None:
            minimum = f.int32(minimum, f"{path}.minAvailable", minimum=0)
        elif partition is not None and partition[2] > 0:
            minimum = partition[2] * partition[1]
        else:
            minimum = count
        task_min[task] = minimum
        check_expansion(f, f"{path}.replicas", count, total)
        total += count
        size = partition[1] if partition else 0

        def pod(index: int, task: str = task, size: int = size,
                partitioned: bool = partition is not None) -> tuple[str, Mapping[str, str]]:
            return _task_pod(name, task, index, ns, queue,
                             (index // size if size > 0 else 0) if partitioned else None)

        batches.append(PodBatch(template, f"{path}.template", count, pod, (), name))
        if partition is not None:
            policies.append(SubGroupPolicy(
                task, partition[1], partition[2],
                LabelSelector((Requirement(TASK_SPEC_KEY, "In", (task,)),)),
                (PARTITION_ID_KEY,), partition[3]))
        # calcPGMinResources orders tasks by their PriorityClass value; tasplan keeps task
        # order (the classes are resolved later, per pod).
        first_pods.append((0, _requests(f, template, f"{path}.template"), count, minimum))
    min_available = spec.get("minAvailable")
    min_available = 0 if min_available is None else f.int32(min_available, "spec.minAvailable",
                                                            minimum=0)
    if min_available == 0:
        min_available = sum(task_min.values())
    key = f"{ns}/{name}"
    volcano = VolcanoPodGroup(
        key, min_available, task_min, queue,
        _min_resources(first_pods, min_available),
        network_topology(f, spec.get("networkTopology"), "spec.networkTopology"),
        tuple(policies), from_vcjob=True)
    producer = Producer(
        kind="Job", api_version=VCJOB_VERSION, namespace=ns, name=name, source=source,
        obj=obj, batches=tuple(batches), default=GroupSpec(Policy.GANG, max(min_available, 1),
                                                           None),
        explicit=True, count_field="spec.tasks[].replicas")
    return producer, volcano


def _partition(f: ObjectFields, raw: object, path: str
               ) -> tuple[int, int, int, NetworkTopology | None] | None:
    """(totalPartitions, partitionSize, minPartitions, networkTopology)."""
    if raw is None:
        return None
    m = f.mapping(raw, path)

    def num(key: str) -> int:
        value = m.get(key)
        return 0 if value is None else f.int32(value, f"{path}.{key}", minimum=0)

    return (num("totalPartitions"), num("partitionSize"), num("minPartitions"),
            network_topology(f, m.get("networkTopology"), f"{path}.networkTopology"))


def _requests(f: ObjectFields, template: Mapping[str, Any], path: str) -> dict[str, int]:
    try:
        return pod_requests(f.mapping(template.get("spec"), f"{path}.spec"))
    except ValueError as exc:
        raise f.error(f"{path}.spec", str(exc)) from None


def _min_resources(tasks: list[tuple[int, dict[str, int], int, int]],
                   min_available: int) -> dict[str, int]:
    """``calcPGMinResources``: the requests of the first ``minAvailable`` pods, tasks by
    priority (stable), each task's pods up to its own minAvailable first when the job's
    minAvailable covers them all (``CalcPGMinResources``), else in task order
    (``CalcFirstCountResources``)."""
    order = sorted(range(len(tasks)), key=lambda i: -tasks[i][0])
    total_min = sum(t[3] for t in tasks)
    out: dict[str, int] = {}
    left = min_available

    def add(request: dict[str, int], n: int) -> None:
        for k, v in request.items():
            out[k] = out.get(k, 0) + v * n

    if min_available < total_min:
        for i in order:
            n = min(tasks[i][2], left)
            add(tasks[i][1], n)
            left -= n
        return out
    for i in order:
        n = min(tasks[i][3], left)
        add(tasks[i][1], n)
        left -= n
    for i in order:
        n = min(tasks[i][2] - tasks[i][3], left)
        add(tasks[i][1], max(n, 0))
        left -= max(n, 0)
    return out


def volcano_inputs(docs: Iterable[tuple[Source, Mapping[str, Any]]]) -> VolcanoInputs:
    """HyperNodes and Volcano PodGroups (a vcjob's own included) of ``docs``."""
    hypernodes: dict[str, HyperNode] = {}
    podgroups: dict[str, VolcanoPodGroup] = {}
    for order, (source, obj) in enumerate(docs):
        key = (obj.get("apiVersion"), obj.get("kind"))
        kind = KINDS.get(key) if all(isinstance(k, str) for k in key) else None
        if kind == "HyperNode":
            hn = decode_hypernode(source, obj)
            hypernodes[hn.name] = hn
        elif kind == "VolcanoPodGroup":
            volcano = decode_podgroup(source, obj, order)[1]
            podgroups[volcano.key] = volcano
        elif kind == "VolcanoJob":
            volcano = decode_vcjob(source, obj)[1]
            podgroups[volcano.key] = volcano
    return VolcanoInputs(hypernodes, podgroups)


def vcjob_producer(source: Source, obj: Mapping[str, Any], overrides: object) -> Producer:
    """The loader's producer hook (``--gang`` does not apply: a vcjob is a gang)."""
    return decode_vcjob(source, obj)[0]


def load_volcano(by_kind: Mapping[str, list], positions: Mapping[Source, int],
                 groups: list[PodGroup], unique, warnings: list[str]) -> VolcanoInputs:
    """The loader's part: HyperNodes and Volcano PodGroups of the inputs; the PodGroups join
    ``groups`` as gangs (a vcjob's own group comes from its expansion). ``unique`` is the
    loader's duplicate check (the workload definition wins, with a warning)."""
    hypernodes = unique("HyperNode", [
        ((h.name,), h, d.source) for d in by_kind["HyperNode"]
        for h in [decode_hypernode(d.source, d.obj)]], warnings)
    decoded = unique("PodGroup", [
        ((g.key,), (g, v), d.source) for d in by_kind["VolcanoPodGroup"]
        for g, v in [decode_podgroup(d.source, d.obj, positions[d.source])]], warnings)
    podgroups: dict[str, VolcanoPodGroup] = {}
    for group, volcano in decoded.values():
        groups.append(group)
        podgroups[group.key] = volcano
    for d in by_kind["VolcanoJob"]:
        if d.source.workload:
            volcano = decode_vcjob(d.source, d.obj)[1]
            podgroups[volcano.key] = volcano
    waiting = [name for d in by_kind["VolcanoJob"] if not d.source.workload
               for name in [_waiting(d.obj, podgroups)] if name]
    if waiting:
        shown = ", ".join(waiting[:5]) + (f" and {len(waiting) - 5} more"
                                          if len(waiting) > 5 else "")
        warnings.append(f"{len(waiting)} vcjob(s) of the cluster wait for Volcano's enqueue "
                        f"action ({shown}): their PodGroup is Pending, so their pods do not "
                        "exist yet and are not planned; give a vcjob's manifest as a workload "
                        "input to plan it")
    return VolcanoInputs({h.name: h for h in hypernodes.values()}, podgroups)


def _waiting(obj: Mapping[str, Any], podgroups: Mapping[str, VolcanoPodGroup]) -> str:
    """``ns/name`` of a cluster vcjob whose PodGroup (``<name>-<uid>``, job_controller_util.go
    ``createOrUpdatePodGroup``) is Pending or not created yet, the job itself Pending: its
    controller creates the pods only once the PodGroup leaves Pending (``syncJob``). ""
    otherwise, or when the object lacks what this needs (cluster objects are read as the
    server holds them)."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return ""
    name, uid = meta.get("name"), meta.get("uid")
    namespace = meta.get("namespace") or "default"
    if not all(isinstance(v, str) and v for v in (name, uid, namespace)):
        return ""
    status = obj.get("status")
    state = status.get("state") if isinstance(status, dict) else None
    phase = state.get("phase") if isinstance(state, dict) else None
    if phase not in (None, "", "Pending"):  # running, finished or being torn down
        return ""
    group = podgroups.get(f"{namespace}/{name}-{uid}")
    if (group is not None and group.phase not in ("", "Pending")) \
            or f"{namespace}/{name}" in podgroups:  # given as a workload: planned
        return ""
    return quote(f"{namespace}/{name}")
