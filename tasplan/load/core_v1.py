"""core/v1 Node, Pod and Namespace, and scheduling.k8s.io/v1 PriorityClass -> model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from tasplan.load.dra_references import claim_statuses, pod_claims
from tasplan.load.fields import ObjectFields
from tasplan.load.group_names import annotated_group
from tasplan.load.pod_affinity import has_pod_affinity, pod_affinity, spread_constraints
from tasplan.model import timestamp
from tasplan.model.node import Node
from tasplan.model.pod import (
    DEFAULT_SCHEDULER,
    KUEUE_WORKLOAD_ANNOTATION,
    MIRROR_ANNOTATION,
    UNMODELLED_VOLUMES,
    HostPort,
    Pod,
)
from tasplan.model.pod_affinity import NAMESPACE_NAME_LABEL
from tasplan.model.quantity import QuantityError, parse_milli, parse_value
from tasplan.model.requests import RequestError, pod_requests_and_non_zero
from tasplan.model.selectors import OPERATORS, NodeSelectorTerm, PreferredTerm, Requirement
from tasplan.model.snapshot import PriorityClass
from tasplan.model.source import Source
from tasplan.model.taints import EFFECTS, Taint, Toleration

_EMPTY: Mapping[str, Any] = {}


def decode_node(source: Source, obj: Mapping[str, Any]) -> Node:
    f = ObjectFields(source, obj)
    meta = f.mapping(obj.get("metadata"), "metadata")
    name = f.string(meta.get("name"), "metadata.name", required=True)
    labels = f.string_map(meta.get("labels"), "metadata.labels")
    spec = f.mapping(obj.get("spec"), "spec")
    status = f.mapping(obj.get("status"), "status")
    taints = []
    for i, raw in enumerate(f.sequence(spec.get("taints"), "spec.taints")):
        path = f"spec.taints[{i}]"
        raw = f.mapping(raw, path)
        effect = f.string(raw.get("effect"), f"{path}.effect", required=True)
        if effect not in EFFECTS:
            raise f.expected(f"{path}.effect", " or ".join(EFFECTS), effect)
        taints.append(Taint(f.string(raw.get("key"), f"{path}.key", required=True),
                            f.string(raw.get("value"), f"{path}.value"), effect))
    unschedulable = spec.get("unschedulable", False)
    if not isinstance(unschedulable, bool):
        raise f.expected("spec.unschedulable", "true or false", unschedulable)
    field = "status.allocatable" if "allocatable" in status else "status.capacity"
    allocatable = {}
    for resource, qty in f.mapping(status.get(field.split(".")[1]), field).items():
        try:
            allocatable[resource] = parse_milli(qty) if resource == "cpu" else parse_value(qty)
        except QuantityError as exc:
            raise f.error(f"{field}.{resource}", str(exc)) from None
        if allocatable[resource] < 0:
            raise f.error(f"{field}.{resource}", f"must be greater than or equal to 0, got "
                          f"{str(qty)[:40]!r} (the API server refuses negative quantities)")
    return Node(name, labels, tuple(taints), unschedulable, allocatable, source,
                has_images=bool(status.get("images")), ready=node_ready(status))


def node_ready(status: Mapping[str, Any]) -> bool | None:
    """The first Ready condition's status (Kueue's ``IsNodeStatusConditionTrue``)."""
    for cond in status.get("conditions") or ():
        if isinstance(cond, dict) and cond.get("type") == "Ready":
            return cond.get("status") == "True"
    return None


def decode_namespace(source: Source, obj: Mapping[str, Any]) -> tuple[str, dict[str, str]]:
    """Name and labels; the API server always adds the name label, older exports may lack it."""
    f = ObjectFields(source, obj)
    meta = f.mapping(obj.get("metadata"), "metadata")
    name = f.string(meta.get("name"), "metadata.name", required=True)
    labels = dict(f.string_map(meta.get("labels"), "metadata.labels"))
    labels.setdefault(NAMESPACE_NAME_LABEL, name)
    return name, labels


def decode_priority_class(source: Source, obj: Mapping[str, Any]) -> PriorityClass:
    f = ObjectFields(source, obj)
    meta = f.mapping(obj.get("metadata"), "metadata")
    name = f.string(meta.get("name"), "metadata.name", required=True)
    value = f.int32(obj.get("value"), "value")
    default = obj.get("globalDefault", False)
    if not isinstance(default, bool):
        raise f.expected("globalDefault", "true or false", default)
    policy = f.string(obj.get("preemptionPolicy"), "preemptionPolicy") or "PreemptLowerPriority"
    return PriorityClass(name, value, default, policy)


class PriorityResolver:
    """``priorityClassName`` -> value, as the Priority admission plugin does: the built-in
    system classes always exist, a global default class applies to pods naming none."""

    SYSTEM: ClassVar[dict[str, int]] = {
        "system-cluster-critical": 2_000_000_000,
        "system-node-critical": 2_000_001_000,
    }

    def __init__(self, classes: Mapping[str, PriorityClass], *, no_cluster: bool = False) -> None:
        self.classes = classes
        self.no_cluster = no_cluster  # the inputs hold no Nodes: --cluster was forgotten
        defaults = [c for c in classes.values() if c.global_default]
        self.default = min(defaults, key=lambda c: c.value).value if defaults else 0

    def resolve(self, f: ObjectFields, name: str, field: str, what: str = "pod") -> int:
        if not name:
            return self.default
        if not isinstance(name, str):
            raise f.expected(field, "a string", name)
        cls = self.classes.get(name)
        if cls is not None:
            return cls.value
        if name in self.SYSTEM:
            return self.SYSTEM[name]
        if self.no_cluster:
            raise f.error(field, f"no PriorityClass with name {name} was found, and the inputs "
                          "contain no Nodes: pass the cluster with --cluster (kubectl get "
                          "nodes,pods,priorityclasses -A -o json)")
        raise f.error(field, f"no PriorityClass with name {name} was found (the API server "
                      f"would reject this {what}; add the PriorityClass to the inputs)")


def decode_pod(
    source: Source,
    obj: Mapping[str, Any],
    order: int,
    priorities: PriorityResolver,
    *,
    group: str | None = None,
    spec_path: str = "spec",
    synthesised: bool = False,
    owner: ObjectFields | None = None,
) -> Pod:
    """``group`` overrides the group reference (Job pods); ``spec_path`` is where the pod
    spec sits in the source object and ``owner`` the object errors should name (the Job,
    for pods synthesised from its template)."""
    f = owner or ObjectFields(source, obj)
    # None (absent, null) is empty; any other non-mapping (an empty list too) is an error,
    # as the API server's decoder refuses it.
    meta = _EMPTY if (m := obj.get("metadata")) is None else m
    spec = _EMPTY if (s := obj.get("spec")) is None else s
    status = _EMPTY if (st := obj.get("status")) is None else st
    if type(meta) is not dict:
        meta = f.mapping(meta, "metadata")
    if type(spec) is not dict:
        spec = f.mapping(spec, spec_path)
    if type(status) is not dict:
        status = f.mapping(status, "status")
    name = meta.get("name")
    if not name or type(name) is not str:
        name = f.string(name, "metadata.name", required=True)
    namespace = meta.get("namespace") or "default"
    if type(namespace) is not str:
        namespace = f.string(namespace, "metadata.namespace")
    labels = _EMPTY if (lb := meta.get("labels")) is None else lb
    if type(labels) is not dict or not all(type(v) is str for v in labels.values()):
        labels = f.string_map(labels, "metadata.labels")
    try:
        requests, non_zero = pod_requests_and_non_zero(spec)
    except RequestError as exc:
        raise f.error(exc.path.replace("spec", spec_path, 1), exc.message) from None
    node_name = spec.get("nodeName") or ""
    phase = status.get("phase") or ("Running" if node_name else "Pending")
    class_name = spec.get("priorityClassName") or ""
    for value, field in ((node_name, f"{spec_path}.nodeName"), (phase, "status.phase"),
                         (class_name, f"{spec_path}.priorityClassName")):
        if type(value) is not str:
            raise f.expected(field, "a string", value)

    priority = spec.get("priority")
    if priority is None:
        priority = priorities.resolve(f, class_name, f"{spec_path}.priorityClassName")
    elif type(priority) is not int:
        priority = f.int32(priority, f"{spec_path}.priority")

    if group is None:
        group = _group_ref(f, namespace, spec, spec_path) or annotated_group(f, namespace, meta)
    ports = host_ports(f, spec, spec_path)
    uid = meta.get("uid") or ""
    if type(uid) is not str:
        uid = f.string(uid, "metadata.uid")
    start = status.get("startTime")
    start = timestamp_field(f, start, "status.startTime") if start is not None else ""
    pod = Pod(
        namespace=namespace, name=name, node_name=node_name, phase=phase, priority=priority,
        requests=requests, non_zero=non_zero, source=source, order=order, labels=labels,
        group=group, priority_class_name=class_name, host_ports=ports,
        deleting=bool(meta.get("deletionTimestamp")), synthesised=synthesised,
        owner_kind=owner_kind(meta), kueue_workload=kueue_workload(meta), uid=uid,
        start_time=start,
    )
    if node_name:
        # Bound: its usage matters, its pod (anti-)affinity, which binds pods that come
        # later (symmetry), and its DRA claims (what an eviction what-if frees); nothing
        # else of it is read.
        if has_pod_affinity(spec):
            f.string_map(labels, "metadata.labels")
            pod.pod_affinity = pod_affinity(f, spec, namespace, labels, spec_path)
        if spec.get("resourceClaims"):
            pod.claims = pod_claims(f, spec["resourceClaims"], f"{spec_path}.resourceClaims")
            pod.claim_statuses = claim_statuses(f, status.get("resourceClaimStatuses"),
                                                "status.resourceClaimStatuses")
        return pod
    return _with_scheduling_fields(f, pod, spec, status, spec_path)


def timestamp_field(f: ObjectFields, value: object, field: str) -> str:
    """An RFC 3339 timestamp as ``metav1.Time`` reads it (callers treat null as unset)."""
    if type(value) is not str:
        value = timestamp.from_yaml(value) or value
        if hasattr(value, "isoformat"):  # a YAML date or zoneless time: shown as written
            value = value.isoformat()
    if type(value) is not str or not timestamp.valid(value):
        raise f.expected(field, 'an RFC 3339 timestamp such as "2026-01-02T15:04:05Z"', value)
    return value


def kueue_workload(meta: Mapping[str, Any]) -> str:
    """The Kueue Workload a pod runs for (its ``kueue.x-k8s.io/workload`` annotation)."""
    annotations = meta.get("annotations")
    value = annotations.get(KUEUE_WORKLOAD_ANNOTATION) if type(annotations) is dict else None
    return value if type(value) is str else ""


def owner_kind(meta: Mapping[str, Any]) -> str:
    """The controlling owner's kind; ``Node`` for a mirror pod (its annotation, or the
    Node owner the kubelet sets). Lenient: malformed references are not this field's
    business (default spreading validates the controller reference where it reads it)."""
    annotations = meta.get("annotations")
    if type(annotations) is dict and annotations.get(MIRROR_ANNOTATION) is not None:
        return "Node"
    refs = meta.get("ownerReferences")
    for ref in refs if type(refs) is list else ():
        if type(ref) is dict and ref.get("controller") is True and type(ref.get("kind")) is str:
            return ref["kind"]
    return ""


def _with_scheduling_fields(f: ObjectFields, pod: Pod, spec: Mapping, status: Mapping,
                            path: str) -> Pod:
    tolerations = []
    for i, raw in enumerate(f.sequence(spec.get("tolerations"), f"{path}.tolerations")):
        tpath = f"{path}.tolerations[{i}]"
        raw = f.mapping(raw, tpath)
        operator = f.string(raw.get("operator"), f"{tpath}.operator") or "Equal"
        if operator not in ("Equal", "Exists"):
            raise f.expected(f"{tpath}.operator", "Equal or Exists", operator)
        effect = f.string(raw.get("effect"), f"{tpath}.effect")
        if effect and effect not in EFFECTS:
            raise f.expected(f"{tpath}.effect", " or ".join(EFFECTS), effect)
        tolerations.append(Toleration(f.string(raw.get("key"), f"{tpath}.key"), operator,
                                      f.string(raw.get("value"), f"{tpath}.value"), effect))
    affinity = f.mapping(f.mapping(spec.get("affinity"), f"{path}.affinity").get("nodeAffinity"),
                         f"{path}.affinity.nodeAffinity")
    apath = f"{path}.affinity.nodeAffinity"
    required = None
    req = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if req is not None:
        rpath = f"{apath}.requiredDuringSchedulingIgnoredDuringExecution"
        terms = f.mapping(req, rpath).get("nodeSelectorTerms")
        required = tuple(node_selector_term(f, t, f"{rpath}.nodeSelectorTerms[{i}]")
                         for i, t in enumerate(f.sequence(terms, f"{rpath}.nodeSelectorTerms")))
    preferred = []
    ppath = f"{apath}.preferredDuringSchedulingIgnoredDuringExecution"
    for i, raw in enumerate(f.sequence(
            affinity.get("preferredDuringSchedulingIgnoredDuringExecution"), ppath)):
        raw = f.mapping(raw, f"{ppath}[{i}]")
        weight = f.integer(raw.get("weight"), f"{ppath}[{i}].weight", minimum=1,
                           maximum=100)
        preferred.append(PreferredTerm(weight, node_selector_term(f, raw.get("preference"),
                                                     f"{ppath}[{i}].preference")))
    f.string_map(pod.labels, "metadata.labels")  # a candidate's labels must be strings
    return replace(
        pod,
        scheduler_name=f.string(spec.get("schedulerName"), f"{path}.schedulerName")
        or DEFAULT_SCHEDULER,
        preemption_policy=f.string(spec.get("preemptionPolicy"), f"{path}.preemptionPolicy")
        or "PreemptLowerPriority",
        node_selector=f.string_map(spec.get("nodeSelector"), f"{path}.nodeSelector"),
        required_terms=required,
        preferred_terms=tuple(preferred),
        tolerations=tuple(tolerations),
        spread_constraints=spread_constraints(f, spec, pod.labels, path),
        pod_affinity=pod_affinity(f, spec, pod.namespace, pod.labels, path),
        nominated_node_name=f.string(status.get("nominatedNodeName"), "status.nominatedNodeName"),
        unmodelled=_unmodelled(spec),
        claims=pod_claims(f, spec.get("resourceClaims"), f"{path}.resourceClaims"),
        claim_statuses=claim_statuses(f, status.get("resourceClaimStatuses"),
                                      "status.resourceClaimStatuses"),
        scheduling_gates=_scheduling_gates(f, spec, path),
    )


def _scheduling_gates(f: ObjectFields, spec: Mapping, path: str) -> tuple[str, ...]:
    names = []
    for i, gate in enumerate(f.sequence(spec.get("schedulingGates"), f"{path}.schedulingGates")):
        gate = f.mapping(gate, f"{path}.schedulingGates[{i}]")
        names.append(f.string(gate.get("name"), f"{path}.schedulingGates[{i}].name",
                              required=True))
    return tuple(names)


# Volume sources whose scheduling (binding, zones, attach limits) tasplan does not simulate.
_VOLUME_SOURCES = ("persistentVolumeClaim", "ephemeral", "csi", "awsElasticBlockStore",
                   "gcePersistentDisk", "azureDisk", "cinder", "iscsi", "rbd")


def _unmodelled(spec: Mapping) -> frozenset[str]:
    """Features of the pod spec that upstream plugins tasplan does not model would read."""
    out = set()
    for volume in spec.get("volumes") or ():
        if isinstance(volume, dict) and any(k in volume for k in _VOLUME_SOURCES):
            out.add(UNMODELLED_VOLUMES)
            break
    return frozenset(out)


def node_selector_term(f: ObjectFields, raw: object, path: str) -> NodeSelectorTerm:
    raw = f.mapping(raw, path)

    def requirements(key: str) -> tuple[Requirement, ...]:
        out = []
        for i, r in enumerate(f.sequence(raw.get(key), f"{path}.{key}")):
            rp = f"{path}.{key}[{i}]"
            r = f.mapping(r, rp)
            op = f.string(r.get("operator"), f"{rp}.operator", required=True)
            if op not in OPERATORS:
                raise f.expected(f"{rp}.operator", ", ".join(OPERATORS), op)
            values = f.sequence(r.get("values"), f"{rp}.values")
            for k, v in enumerate(values):
                f.string(v, f"{rp}.values[{k}]")
            out.append(Requirement(f.string(r.get("key"), f"{rp}.key", required=True), op,
                                   tuple(values)))
        return tuple(out)

    return NodeSelectorTerm(requirements("matchExpressions"), requirements("matchFields"))


def _group_ref(f: ObjectFields, namespace: str, spec: Mapping, path: str) -> str | None:
    sg = spec.get("schedulingGroup")
    if sg is not None and spec.get("workloadRef") is not None:
        raise f.error(f"{path}.workloadRef", "a pod belongs to one pod group: schedulingGroup "
                      "(v1.36+) and workloadRef (v1.35) are both set, and an API server knows "
                      "only one of them (the other is an unknown field)")
    if sg is not None:
        sg = f.mapping(sg, f"{path}.schedulingGroup")
        name = f.string(sg.get("podGroupName"), f"{path}.schedulingGroup.podGroupName",
                        required=True)
        return f"{namespace}/{name}"
    wr = spec.get("workloadRef")  # v1.35 (scheduling.k8s.io/v1alpha1)
    if wr is not None:
        wr = f.mapping(wr, f"{path}.workloadRef")
        parts = [namespace,
                 f.string(wr.get("name"), f"{path}.workloadRef.name", required=True),
                 f.string(wr.get("podGroup"), f"{path}.workloadRef.podGroup", required=True)]
        replica = f.string(wr.get("podGroupReplicaKey"), f"{path}.workloadRef.podGroupReplicaKey")
        if replica:
            parts.append(replica)
        return "/".join(parts)
    return None


def host_ports(f: ObjectFields, spec: Mapping, path: str) -> tuple[HostPort, ...]:
    ports = []
    for i, c in enumerate(spec.get("containers") or ()):
        declared = c.get("ports") if isinstance(c, dict) else None
        if not declared:
            continue
        for k, p in enumerate(f.sequence(declared, f"{path}.containers[{i}].ports")):
            if not isinstance(p, dict) or not p.get("hostPort"):
                continue
            field = f"{path}.containers[{i}].ports[{k}]"
            port = f.integer(p["hostPort"], f"{field}.hostPort", minimum=1, maximum=65535)
            ports.append(HostPort(port, f.string(p.get("protocol"), f"{field}.protocol") or "TCP",
                                  f.string(p.get("hostIP"), f"{field}.hostIP") or "0.0.0.0"))
    return tuple(ports)
