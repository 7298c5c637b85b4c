"""``kueue.x-k8s.io`` v1beta1/v1beta2 objects -> ``tasplan.model.kueue``.

Field names and validation follow kubernetes-sigs/kueue ``apis/kueue/v1beta2``
(``topology_types.go``, ``resourceflavor_types.go``, ``clusterqueue_types.go``,
``localqueue_types.go``, ``cohort_types.go``, ``workload_types.go``) at ff69552e; v1beta1
differs for these objects only in ``Workload.status.admission...topologyAssignment``
(``domains`` there, compressed ``slices`` in v1beta2) and in ``ClusterQueue.spec.cohort``
(``cohortName`` in v1beta2).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tasplan.load.core_v1 import node_selector_term
from tasplan.load.fields import ObjectFields
from tasplan.load.kinds import KUEUE_INTERNAL, KUEUE_KINDS
from tasplan.model import kueue as k
from tasplan.model.quantity import QuantityError, parse_milli, parse_value
from tasplan.model.requests import RequestError, pod_requests
from tasplan.model.selectors import PreferredTerm, valid_label_key
from tasplan.model.source import Source
from tasplan.model.taints import EFFECTS, Taint, Toleration
from tasplan.untrusted import quote

KINDS = KUEUE_KINDS
# Internal kind names for the loader (a Kueue Workload is not a scheduling.k8s.io one).
INTERNAL = KUEUE_INTERNAL
HOSTNAME = "kubernetes.io/hostname"
MAX_LEVELS = 16


def _meta(f: ObjectFields, obj: Mapping[str, Any], namespaced: bool) -> tuple[str, str]:
    meta = f.mapping(obj.get("metadata"), "metadata")
    name = f.string(meta.get("name"), "metadata.name", required=True)
    ns = (f.string(meta.get("namespace"), "metadata.namespace") or "default") if namespaced \
        else ""
    return ns, name


def topology_problems(levels: list[object]) -> list[tuple[str, str]]:
    """(field, message) for each rule of ``TopologySpec`` the levels break: 1 to 16 levels,
    unique, label keys of at most 316 characters, hostname only as the lowest."""
    out: list[tuple[str, str]] = []
    if not 1 <= len(levels) <= MAX_LEVELS:
        out.append(("spec.levels", f"must have 1 to {MAX_LEVELS} items, got {len(levels)}"))
    seen: set[str] = set()
    for i, level in enumerate(levels):
        label = level.get("nodeLabel") if isinstance(level, dict) else None
        path = f"spec.levels[{i}].nodeLabel"
        if not isinstance(label, str) or not label:
            out.append((path, "required field is missing"))
            continue
        if len(label) > 316 or not valid_label_key(label):
            out.append((path, f"{label!r} is not a valid label key"))
        if label in seen:
            out.append(("spec.levels", "must be unique"))
        seen.add(label)
        if label == HOSTNAME and i != len(levels) - 1:
            out.append((path, "the kubernetes.io/hostname label can only be used at the lowest "
                        "level of topology"))
    return out


def decode_topology(source: Source, obj: Mapping[str, Any]) -> k.Topology:
    f = ObjectFields(source, obj)
    _, name = _meta(f, obj, False)
    spec = f.mapping(obj.get("spec"), "spec")
    levels = f.sequence(spec.get("levels"), "spec.levels")
    for i, level in enumerate(levels):
        f.mapping(level, f"spec.levels[{i}]")
    problems = topology_problems(levels)
    if problems:
        raise f.error(*problems[0])
    return k.Topology(name, tuple(level["nodeLabel"] for level in levels), source)


def _tolerations(f: ObjectFields, raw: object, path: str) -> tuple[Toleration, ...]:
    out = []
    for i, t in enumerate(f.sequence(raw, path)):
        p = f"{path}[{i}]"
        t = f.mapping(t, p)
        op = f.string(t.get("operator"), f"{p}.operator") or "Equal"
        if op not in ("Equal", "Exists"):
            raise f.expected(f"{p}.operator", "Equal or Exists", op)
        effect = f.string(t.get("effect"), f"{p}.effect")
        if effect and effect not in EFFECTS:
            raise f.expected(f"{p}.effect", " or ".join(EFFECTS), effect)
        out.append(Toleration(f.string(t.get("key"), f"{p}.key"), op,
                              f.string(t.get("value"), f"{p}.value"), effect))
    return tuple(out)


def decode_flavor(source: Source, obj: Mapping[str, Any]) -> k.ResourceFlavor:
    f = ObjectFields(source, obj)
    _, name = _meta(f, obj, False)
    spec = f.mapping(obj.get("spec"), "spec")
    taints = []
    for i, t in enumerate(f.sequence(spec.get("nodeTaints"), "spec.nodeTaints")):
        p = f"spec.nodeTaints[{i}]"
        t = f.mapping(t, p)
        effect = f.string(t.get("effect"), f"{p}.effect", required=True)
        if effect not in EFFECTS:
            raise f.expected(f"{p}.effect", " or ".join(EFFECTS), effect)
        taints.append(Taint(f.string(t.get("key"), f"{p}.key", required=True),
                            f.string(t.get("value"), f"{p}.value"), effect))
    topology = spec.get("topologyName")
    if topology is not None:
        topology = f.string(topology, "spec.topologyName", required=True)
    labels = f.string_map(spec.get("nodeLabels"), "spec.nodeLabels")
    if topology is not None and len(labels) == 0:
        # resourceflavor_types.go: "at least one nodeLabel is required when topology is set"
        raise f.error("spec.nodeLabels", "at least one nodeLabel is required when "
                      "topologyName is set")
    return k.ResourceFlavor(name, labels, tuple(taints),
                            _tolerations(f, spec.get("tolerations"), "spec.tolerations"),
                            topology, source)


def _amount(f: ObjectFields, resource: str, raw: object, path: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
        raise f.expected(path, "a quantity", raw)
    try:
        return parse_milli(raw) if resource == "cpu" else parse_value(raw)
    except QuantityError as exc:
        raise f.error(path, str(exc)) from None


def _resource_groups(f: ObjectFields, raw: object, path: str) -> tuple[k.ResourceGroup, ...]:
    groups = []
    for i, g in enumerate(f.sequence(raw, path)):
        gp = f"{path}[{i}]"
        g = f.mapping(g, gp)
        covered = tuple(f.string(r, f"{gp}.coveredResources[{j}]", required=True)
                        for j, r in enumerate(f.sequence(g.get("coveredResources"),
                                                         f"{gp}.coveredResources")))
        flavors = []
        for j, fl in enumerate(f.sequence(g.get("flavors"), f"{gp}.flavors")):
            fp = f"{gp}.flavors[{j}]"
            fl = f.mapping(fl, fp)
            resources = {}
            for m, r in enumerate(f.sequence(fl.get("resources"), f"{fp}.resources")):
                rp = f"{fp}.resources[{m}]"
                r = f.mapping(r, rp)
                rname = f.string(r.get("name"), f"{rp}.name", required=True)
                borrowing = r.get("borrowingLimit")
                lending = r.get("lendingLimit")
                resources[rname] = k.Quota(
                    _amount(f, rname, r.get("nominalQuota", 0), f"{rp}.nominalQuota"),
                    None if borrowing is None else _amount(f, rname, borrowing,
                                                           f"{rp}.borrowingLimit"),
                    None if lending is None else _amount(f, rname, lending,
                                                         f"{rp}.lendingLimit"))
            flavors.append(k.FlavorQuotas(f.string(fl.get("name"), f"{fp}.name",
                                                   required=True), resources))
        groups.append(k.ResourceGroup(covered, tuple(flavors)))
    return tuple(groups)


def decode_cluster_queue(source: Source, obj: Mapping[str, Any]) -> k.ClusterQueue:
    f = ObjectFields(source, obj)
    _, name = _meta(f, obj, False)
    spec = f.mapping(obj.get("spec"), "spec")
    cohort = f.string(spec.get("cohortName", spec.get("cohort")),
                      "spec.cohortName" if "cohortName" in spec else "spec.cohort")
    checks = [f.string(c, f"spec.admissionChecks[{i}]")
              for i, c in enumerate(f.sequence(spec.get("admissionChecks"),
                                               "spec.admissionChecks"))]
    strategy = f.mapping(spec.get("admissionChecksStrategy"), "spec.admissionChecksStrategy")
    for i, rule in enumerate(f.sequence(strategy.get("admissionChecks"),
                                        "spec.admissionChecksStrategy.admissionChecks")):
        rule = f.mapping(rule, f"spec.admissionChecksStrategy.admissionChecks[{i}]")
        checks.append(f.string(rule.get("name"),
                               f"spec.admissionChecksStrategy.admissionChecks[{i}].name"))
    return k.ClusterQueue(
        name, cohort, _resource_groups(f, spec.get("resourceGroups"), "spec.resourceGroups"),
        tuple(c for c in checks if c),
        f.string(spec.get("queueingStrategy"), "spec.queueingStrategy") or "BestEffortFIFO",
        f.string(spec.get("stopPolicy"), "spec.stopPolicy") or "None", source)


def decode_local_queue(source: Source, obj: Mapping[str, Any]) -> k.LocalQueue:
    f = ObjectFields(source, obj)
    ns, name = _meta(f, obj, True)
    spec = f.mapping(obj.get("spec"), "spec")
    return k.LocalQueue(ns, name, f.string(spec.get("clusterQueue"), "spec.clusterQueue",
                                           required=True), source)


def decode_cohort(source: Source, obj: Mapping[str, Any]) -> k.Cohort:
    f = ObjectFields(source, obj)
    _, name = _meta(f, obj, False)
    spec = f.mapping(obj.get("spec"), "spec")
    parent = f.string(spec.get("parentName", spec.get("parent")), "spec.parentName")
    return k.Cohort(name, parent, _resource_groups(f, spec.get("resourceGroups"),
                                                   "spec.resourceGroups"), source)


# PodSetReference (apis/kueue/v1beta2/workload_types.go): MaxLength 63 and this pattern.
_POD_SET_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_TOPOLOGY_FIELDS = {
    "required": str, "preferred": str, "unconstrained": bool, "podIndexLabel": str,
    "subGroupIndexLabel": str, "subGroupCount": int, "podSetGroupName": str,
    "podSetSliceRequiredTopology": str, "podSetSliceSize": int,
    "podsetSliceRequiredTopologyConstraints": list,
}


def _pod_set(f: ObjectFields, raw: object, path: str) -> k.WorkloadPodSet:
    raw = f.mapping(raw, path)
    name = f.string(raw.get("name"), f"{path}.name") or "main"
    if len(name) > 63 or not _POD_SET_NAME.fullmatch(name):
        raise f.error(f"{path}.name", "expected a PodSet name (lowercase letters, digits and "
                                      f"'-', at most 63), got {quote(name)}")
    count = f.int32(raw.get("count", 1), f"{path}.count", minimum=0)
    min_count = raw.get("minCount")
    if min_count is not None:
        min_count = f.int32(min_count, f"{path}.minCount", minimum=0)
    template = f.mapping(raw.get("template"), f"{path}.template")
    meta = f.mapping(template.get("metadata"), f"{path}.template.metadata")
    f.string_map(meta.get("labels"), f"{path}.template.metadata.labels")
    f.string_map(meta.get("annotations"), f"{path}.template.metadata.annotations")
    spec = f.mapping(template.get("spec"), f"{path}.template.spec")
    try:
        requests = pod_requests(spec)
    except RequestError as exc:
        raise f.error(exc.path.replace("spec", f"{path}.template.spec", 1), exc.message) \
            from None
    affinity = f.mapping(f.mapping(spec.get("affinity"), f"{path}.template.spec.affinity")
                         .get("nodeAffinity"), f"{path}.template.spec.affinity.nodeAffinity")
    ap = f"{path}.template.spec.affinity.nodeAffinity"
    required = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = None
    if required is not None:
        rp = f"{ap}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
        terms = tuple(node_selector_term(f, t, f"{rp}[{i}]") for i, t in enumerate(
            f.sequence(f.mapping(required, rp.rsplit(".", 1)[0]).get("nodeSelectorTerms"), rp)))
    preferred = []
    pp = f"{ap}.preferredDuringSchedulingIgnoredDuringExecution"
    for i, p in enumerate(f.sequence(affinity.get(
            "preferredDuringSchedulingIgnoredDuringExecution"), pp)):
        p = f.mapping(p, f"{pp}[{i}]")
        preferred.append(PreferredTerm(f.int32(p.get("weight"), f"{pp}[{i}].weight"),
                                       node_selector_term(f, p.get("preference"),
                                                          f"{pp}[{i}].preference")))
    topology = raw.get("topologyRequest")
    if topology is not None:
        topology = f.mapping(topology, f"{path}.topologyRequest")
        for key, kind in _TOPOLOGY_FIELDS.items():
            value = topology.get(key)
            if value is not None and (not isinstance(value, kind)
                                      or (kind is int and isinstance(value, bool))):
                raise f.expected(f"{path}.topologyRequest.{key}", kind.__name__, value)
    return k.WorkloadPodSet(
        name, count, min_count, requests,
        f.string_map(spec.get("nodeSelector"), f"{path}.template.spec.nodeSelector"),
        _tolerations(f, spec.get("tolerations"), f"{path}.template.spec.tolerations"),
        terms, tuple(preferred), topology)


def _domains(f: ObjectFields, raw: Mapping[str, Any], path: str
             ) -> tuple[tuple[str, ...], tuple[k.DomainCount, ...]]:
    """v1beta1 ``domains`` or v1beta2 ``slices`` (``InternalSeqFrom``) -> (levels, domains)."""
    levels = tuple(f.string(v, f"{path}.levels[{i}]", required=True)
                   for i, v in enumerate(f.sequence(raw.get("levels"), f"{path}.levels")))
    out = []
    for i, d in enumerate(f.sequence(raw.get("domains"), f"{path}.domains")):
        dp = f"{path}.domains[{i}]"
        d = f.mapping(d, dp)
        values = tuple(f.string(v, f"{dp}.values[{j}]")
                       for j, v in enumerate(f.sequence(d.get("values"), f"{dp}.values")))
        if len(values) != len(levels):
            raise f.error(f"{dp}.values", f"expected {len(levels)} values (one per level)")
        out.append(k.DomainCount(values, f.int32(d.get("count"), f"{dp}.count", minimum=1)))
    for i, s in enumerate(f.sequence(raw.get("slices"), f"{path}.slices")):
        sp = f"{path}.slices[{i}]"
        s = f.mapping(s, sp)
        n = f.int32(s.get("domainCount"), f"{sp}.domainCount", minimum=1)
        per_level = f.sequence(s.get("valuesPerLevel"), f"{sp}.valuesPerLevel")
        if len(per_level) != len(levels):
            raise f.error(f"{sp}.valuesPerLevel", "valuesPerLevel must have the same length as "
                          "the number of levels in this TopologyAssignment")
        columns = []
        for j, lv in enumerate(per_level):
            lp = f"{sp}.valuesPerLevel[{j}]"
            lv = f.mapping(lv, lp)
            if "universal" in lv:
                columns.append([f.string(lv["universal"], f"{lp}.universal")] * n)
                continue
            ind = f.mapping(lv.get("individual"), f"{lp}.individual")
            roots = f.sequence(ind.get("roots"), f"{lp}.individual.roots")
            if len(roots) != n:
                raise f.error(f"{lp}.individual.roots", f"expected {n} roots (domainCount)")
            prefix = f.string(ind.get("prefix"), f"{lp}.individual.prefix")
            suffix = f.string(ind.get("suffix"), f"{lp}.individual.suffix")
            columns.append([prefix + f.string(r, f"{lp}.individual.roots[{m}]") + suffix
                            for m, r in enumerate(roots)])
        counts = f.mapping(s.get("podCounts"), f"{sp}.podCounts")
        if "universal" in counts:
            per_domain = [f.int32(counts["universal"], f"{sp}.podCounts.universal")] * n
        else:
            individual = f.sequence(counts.get("individual"), f"{sp}.podCounts.individual")
            if len(individual) != n:
                raise f.error(f"{sp}.podCounts.individual",
                              "podCounts.individual must have length equal to domainCount")
            per_domain = [f.int32(c, f"{sp}.podCounts.individual[{m}]", minimum=1)
                          for m, c in enumerate(individual)]
        for m in range(n):
            out.append(k.DomainCount(tuple(col[m] for col in columns), per_domain[m]))
    return levels, tuple(out)


def _condition(status: Mapping[str, Any], kind: str) -> bool:
    for c in status.get("conditions") or ():
        if isinstance(c, dict) and c.get("type") == kind:
            return c.get("status") == "True"
    return False


def decode_workload(source: Source, obj: Mapping[str, Any]) -> k.Workload:
    f = ObjectFields(source, obj)
    ns, name = _meta(f, obj, True)
    spec = f.mapping(obj.get("spec"), "spec")
    status = f.mapping(obj.get("status"), "status")
    pod_sets = tuple(_pod_set(f, ps, f"spec.podSets[{i}]")
                     for i, ps in enumerate(f.sequence(spec.get("podSets"), "spec.podSets")))
    seen: set[str] = set()
    for i, ps in enumerate(pod_sets):  # +listType=map, +listMapKey=name
        if ps.name in seen:
            raise f.error(f"spec.podSets[{i}].name", f"duplicate PodSet name {quote(ps.name)}")
        seen.add(ps.name)
    priority = spec.get("priority")
    if priority is not None:
        priority = f.int32(priority, "spec.priority")
    admission = f.mapping(status.get("admission"), "status.admission")
    assignments = []
    ap = "status.admission.podSetAssignments"
    for i, psa in enumerate(f.sequence(admission.get("podSetAssignments"), ap)):
        p = f"{ap}[{i}]"
        psa = f.mapping(psa, p)
        count = psa.get("count")
        levels: tuple[str, ...] = ()
        domains: tuple[k.DomainCount, ...] = ()
        ta = psa.get("topologyAssignment")
        if ta is not None:
            levels, domains = _domains(f, f.mapping(ta, f"{p}.topologyAssignment"),
                                       f"{p}.topologyAssignment")
        assignments.append(k.PodSetAssignment(
            f.string(psa.get("name"), f"{p}.name") or "main",
            f.string_map(psa.get("flavors"), f"{p}.flavors"),
            None if count is None else f.int32(count, f"{p}.count", minimum=0),
            levels, domains))
    cluster_queue = f.string(admission.get("clusterQueue"), "status.admission.clusterQueue")
    return k.Workload(
        ns, name, f.string(spec.get("queueName"), "spec.queueName"), priority, pod_sets,
        cluster_queue or None, tuple(assignments), _condition(status, "QuotaReserved"),
        _condition(status, "Admitted"), _condition(status, "Finished"), source,
        obj.get("apiVersion") or k.VERSIONS[0], _owners(f, obj["metadata"]),
        _unhealthy_nodes(f, status), _single_pod_owned(f, obj["metadata"]))


def _unhealthy_nodes(f: ObjectFields, status: Mapping[str, Any]) -> tuple[str, ...]:
    out = []
    for i, item in enumerate(f.sequence(status.get("unhealthyNodes"), "status.unhealthyNodes")):
        path = f"status.unhealthyNodes[{i}]"
        out.append(f.string(f.mapping(item, path).get("name"), f"{path}.name", required=True))
    return tuple(out)


def _single_pod_owned(f: ObjectFields, meta: Mapping[str, Any]) -> bool:
    """``workload.OwnedBySinglePod``: one owner, a v1 Pod, and not a pod group's Workload
    (``kueue.x-k8s.io/is-group-workload: "true"``)."""
    refs = f.sequence(meta.get("ownerReferences"), "metadata.ownerReferences")
    annotations = f.string_map(meta.get("annotations"), "metadata.annotations")
    return (len(refs) == 1 and isinstance(refs[0], dict) and refs[0].get("kind") == "Pod"
            and refs[0].get("apiVersion") == "v1"
            and annotations.get("kueue.x-k8s.io/is-group-workload") != "true")


def _owners(f: ObjectFields, meta: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    out = []
    for i, ref in enumerate(f.sequence(meta.get("ownerReferences"),
                                       "metadata.ownerReferences")):
        path = f"metadata.ownerReferences[{i}]"
        ref = f.mapping(ref, path)
        out.append((f.string(ref.get("kind"), f"{path}.kind", required=True),
                    f.string(ref.get("name"), f"{path}.name", required=True)))
    return tuple(out)


DECODERS = {
    "Topology": decode_topology, "ResourceFlavor": decode_flavor,
    "ClusterQueue": decode_cluster_queue, "LocalQueue": decode_local_queue,
    "Cohort": decode_cohort, "Workload": decode_workload,
}
