"""NVIDIA Grove grove.io/v1alpha1 PodCliqueSet -> its PodCliques' pods and PodGangs (see
``producers``).

Mirrors ai-dynamo/grove (NVIDIA/grove a9716b8e614aa430add45d0eacdee767bc2ce2eb):
``operator/api/common/namegen.go`` (names), ``operator/api/common/labels.go`` and the
PodClique / pod builders (``podcliqueset/components/podclique``,
``podcliquescalinggroup/components/podclique``, ``podclique/components/pod``), the PodGang
sync (``podcliqueset/components/podgang/syncflow.go``) and the defaulting webhook:

- per replica ``r`` of the PodCliqueSet (``spec.replicas``, default 0): each clique outside
  a scaling group is PodClique ``<pcs>-<r>-<clique>``; each scaling group is
  ``<pcs>-<r>-<sg>`` whose replica ``k`` has PodCliques ``<pcs>-<r>-<sg>-<k>-<clique>``;
  a PodClique keeps ``replicas`` (default 1) pods, named ``<pclq>-<i>`` by tasplan (Grove
  uses generateName ``<pclq>-`` and sets the hostname ``<pclq>-<i>``);
- the base PodGang ``<pcs>-<r>`` holds the standalone cliques and scaling-group replicas
  below the group's ``minAvailable`` (default 1); each further scaling-group replica is a
  PodGang ``<pcs>-<r>-<sg>-<k - minAvailable>`` of its own. A PodGang is a PodGroup per
  PodClique, each with the clique's ``minAvailable`` (default: its ``replicas``);
- the pods carry the PodClique's labels (the template's, Grove's managed-by / part-of /
  component / podgang / replica-index labels; the pod-template-hash is left out) and the
  pod's own (``grove.io/podclique``), and the template's annotations.

A PodGang is honoured by Grove's scheduler backend (KAI), not by kube-scheduler: tasplan
plans each as a kube-scheduler gang of the sum of its cliques' ``minAvailable`` (a note
says the per-clique minimums are not enforced); each clique is a PodSet with its
``minAvailable`` as ``min_count`` for schedulers that enforce them.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from tasplan.load.fields import ObjectFields
from tasplan.load.producers import (
    Overrides,
    PodBatch,
    Producer,
    check_expansion,
    identity,
    required_list,
)
from tasplan.load.scheduling import GroupSpec
from tasplan.model.group import Policy
from tasplan.model.source import Source

GROUP = "grove.io"
VERSIONS = (f"{GROUP}/v1alpha1",)
PODCLIQUE = "grove.io/podclique"
PODGANG = "grove.io/podgang"
BASE_PODGANG = "grove.io/base-podgang"
PCS_REPLICA = "grove.io/podcliqueset-replica-index"
PCSG = "grove.io/podcliquescalinggroup"
PCSG_REPLICA = "grove.io/podcliquescalinggroup-replica-index"


def _pod(pclq: str, labels: Mapping[str, str], i: int) -> tuple[str, Mapping[str, str]]:
    return f"{pclq}-{i}", labels


def _clique(f: ObjectFields, raw: object, path: str) -> tuple[str, Mapping, int, int]:
    """(name, template, replicas, minAvailable) of a clique, defaulted as Grove's webhook."""
    c = f.mapping(raw, path)
    name = f.string(c.get("name"), f"{path}.name", required=True)
    spec = f.mapping(c.get("spec"), f"{path}.spec")
    pod_spec = f.mapping(spec.get("podSpec"), f"{path}.spec.podSpec")
    count = spec.get("replicas")
    count = 0 if count is None else f.int32(count, f"{path}.spec.replicas", minimum=0)
    minimum = spec.get("minAvailable")
    # defaultPodCliqueTemplateSpecs: minAvailable from replicas before replicas defaults
    minimum = count if minimum is None else f.int32(minimum, f"{path}.spec.minAvailable",
                                                    minimum=0)
    template = {"metadata": {"labels": f.string_map(c.get("labels"), f"{path}.labels"),
                             "annotations": f.string_map(c.get("annotations"),
                                                         f"{path}.annotations")},
                "spec": pod_spec}
    return name, template, count or 1, minimum


def decode_grove(source: Source, obj: Mapping[str, Any], overrides: Overrides) -> Producer:
    f = ObjectFields(source, obj)
    namespace, pcs, spec = identity(f)
    count = spec.get("replicas")
    count = 0 if count is None else f.int32(count, "spec.replicas", minimum=0)
    tpl = f.mapping(spec.get("template"), "spec.template")
    cliques = {}
    for i, raw in enumerate(required_list(f, tpl.get("cliques"), "spec.template.cliques")):
        path = f"spec.template.cliques[{i}]"
        name, template, replicas, minimum = _clique(f, raw, path)
        cliques[name] = (template, replicas, minimum, f"{path}.spec.podSpec")
    groups = []
    in_group: set[str] = set()
    for i, raw in enumerate(f.sequence(tpl.get("podCliqueScalingGroups"),
                                       "spec.template.podCliqueScalingGroups")):
        path = f"spec.template.podCliqueScalingGroups[{i}]"
        sg = f.mapping(raw, path)
        name = f.string(sg.get("name"), f"{path}.name", required=True)
        members = [f.string(n, f"{path}.cliqueNames[{j}]", required=True)
                   for j, n in enumerate(f.sequence(sg.get("cliqueNames"),
                                                    f"{path}.cliqueNames"))]
        for j, member in enumerate(members):
            if member not in cliques:
                raise f.error(f"{path}.cliqueNames[{j}]", f"no clique named {member!r}")
        reps = sg.get("replicas")
        reps = 1 if reps is None else f.int32(reps, f"{path}.replicas", minimum=0)
        low = sg.get("minAvailable")
        low = 1 if low is None else f.int32(low, f"{path}.minAvailable", minimum=1)
        groups.append((name, members, reps, low))
        in_group.update(members)
    per_replica = sum(cliques[c][1] for c in cliques if c not in in_group) + sum(
        reps * cliques[c][1] for _, members, reps, _ in groups for c in members)
    check_expansion(f, "spec.replicas", count * per_replica)  # before listing them

    managed = {"app.kubernetes.io/managed-by": "grove-operator",
               "app.kubernetes.io/part-of": pcs}
    batches: list[PodBatch] = []
    sizes: dict[str, int] = {}

    def add(pclq: str, clique: str, gang: str, base: str, replica: int,
            extra: Mapping[str, str]) -> None:
        template, replicas, minimum, path = cliques[clique]
        labels = {**template["metadata"]["labels"], **managed,
                  "app.kubernetes.io/name": pclq, PODGANG: gang, PCS_REPLICA: str(replica),
                  **extra, PODCLIQUE: pclq}
        if gang != base:
            labels[BASE_PODGANG] = base
        batches.append(PodBatch(template, path.removesuffix(".spec.podSpec"), replicas,
                                partial(_pod, pclq, labels), ({PODCLIQUE: pclq},), gang,
                                pod_set=pclq, labels=labels, min_count=minimum))
        sizes[gang] = sizes.get(gang, 0) + minimum

    for r in range(count):
        base = f"{pcs}-{r}"
        for clique in cliques:
            if clique not in in_group:
                add(f"{pcs}-{r}-{clique}", clique, base, base, r,
                    {"app.kubernetes.io/component": "pcs-podclique"})
        for name, members, reps, low in groups:
            pcsg = f"{pcs}-{r}-{name}"
            for k in range(reps):
                gang = base if k < low else f"{pcsg}-{k - low}"
                for clique in members:
                    add(f"{pcsg}-{k}-{clique}", clique, gang, base, r,
                        {"app.kubernetes.io/component": "pcsg-podclique", PCSG: pcsg,
                         PCSG_REPLICA: str(k)})
    specs = {gang: GroupSpec(Policy.GANG, max(n, 1), overrides.topology_key)
             for gang, n in sizes.items()}
    note = ("gang-assumed", f"PodCliqueSet {namespace}/{pcs}: each PodGang is honoured by "
            "Grove's scheduler backend (KAI) as one PodGroup per PodClique with that clique's "
            "minAvailable; planned as a kube-scheduler gang of their sum (the per-clique "
            "minimums are not enforced)")
    # The template's podSpec is the pod spec: PodBatch reads template["spec"].
    return Producer("PodCliqueSet", obj["apiVersion"], namespace, pcs, source, obj,
                    tuple(batches), overrides.group_spec(), True, specs,
                    count_field="spec.replicas", notes=(note,), takes_topology_key=True)
