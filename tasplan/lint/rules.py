"""The lint rules: stable ids, default severities and the hint each finding carries.

Ids never change meaning once released: CI configurations and SARIF baselines refer to
them. TP0xx are about reading files, TP1xx schema rules (``schemas/``), TP2xx semantic
rules on the manifests alone, TP3xx rules that need ``--cluster``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    name: str
    severity: Severity
    summary: str  # what the rule checks, for the README table and SARIF
    hint: str  # how to fix a finding, shown with it


_E, _W = Severity.ERROR, Severity.WARNING

RULES: tuple[Rule, ...] = (
    Rule("TP001", "unparseable-file", _E,
         "The file cannot be read as YAML or JSON: syntax error, binary or non-UTF-8 content, "
         "a python tag, an alias bomb, too deep nesting or too large.",
         "Fix the file so that `kubectl apply --dry-run=client -f FILE` reads it."),
    Rule("TP002", "not-an-object", _E,
         "A document is not a Kubernetes object: not a mapping, or without apiVersion/kind.",
         "Every document needs `apiVersion` and `kind`."),
    Rule("TP003", "unsupported-version", _E,
         "A scheduling.k8s.io kind with an apiVersion no Kubernetes release serves.",
         "Use scheduling.k8s.io/v1beta1 (v1.37), v1alpha2 (v1.36) or v1alpha1 (v1.35)."),
    Rule("TP101", "wrong-type", _E,
         "A field has the wrong type (a string where an integer belongs, ...).",
         "See the field's type in the API reference of your Kubernetes version."),
    Rule("TP102", "required-field", _E,
         "A required field is missing.",
         "Add the field; the API server rejects the object without it."),
    Rule("TP103", "invalid-format", _E,
         "A name, reference or label key does not have the format the API server demands "
         "(DNS label, DNS subdomain, label key, path segment).",
         "Names are lowercase alphanumerics and '-'; label keys are [prefix/]name."),
    Rule("TP104", "item-count", _E,
         "A list has more or fewer items than allowed (at most 8 templates, 1 topology "
         "constraint, 4 resource claims; at least 1 template).",
         "Keep the list within the bounds the message gives (split a workload that needs "
         "more than 8 templates)."),
    Rule("TP105", "exactly-one-of", _E,
         "A union field sets none or several of its members (basic / gang, single / all, "
         "podGroupTemplates / compositePodGroupTemplates, ...).",
         "Set exactly one member, e.g. `schedulingPolicy: {gang: {minCount: 4}}`."),
    Rule("TP106", "out-of-range", _E,
         "A number is outside its bounds (minCount >= 1, priority <= 1000000000, int32).",
         "Use a value within the bounds the message gives."),
    Rule("TP107", "invalid-value", _E,
         "A field holds a value outside its enumeration (preemptionPolicy, disruptionMode, "
         "toleration operator or effect, ...).",
         "Use one of the values the message lists."),
    Rule("TP108", "unknown-field", _W,
         "A field the API version does not define (a typo, or a field of another version). "
         "An error with --strict.",
         "Check the spelling and the apiVersion; the API server drops or rejects unknown "
         "fields."),
    Rule("TP201", "unresolved-reference", _W,
         "A pod or PodGroup references a PodGroup or Workload that is not in the inputs.",
         "Fine if it exists in the cluster. Pods whose PodGroup is missing stay pending until "
         "it exists; a PodGroup whose Workload is missing is still scheduled from its own "
         "spec."),
    Rule("TP202", "unknown-template", _E,
         "A reference names a pod group template that the referenced Workload (in the "
         "inputs) does not declare.",
         "Use one of the Workload's podGroupTemplates / podGroups names."),
    Rule("TP203", "reference-other-namespace", _E,
         "A reference names an object that exists in the inputs only in another namespace; "
         "references are namespace-local.",
         "Put the pod and its group in the same namespace (check metadata.namespace)."),
    Rule("TP204", "gang-too-few-pods", _W,
         "Fewer pods in the inputs reference a gang than its minCount: GangScheduling keeps "
         "them waiting until minCount pods exist.",
         "Add pods, lower minCount, or make sure the remaining pods are created elsewhere."),
    Rule("TP205", "mixed-scheduler-name", _E,
         "Pods of one group name different schedulers; the pod-group cycle rejects the "
         "group.",
         "Give every pod of the group the same spec.schedulerName."),
    Rule("TP206", "mixed-priority", _E,
         "Pods of one group (or a pod and its PodGroup) have different priority classes; "
         "the pod-group cycle requires one priority.",
         "Give the PodGroup and all its pods the same priorityClassName."),
    Rule("TP207", "topology-unsupported-version", _E,
         "A topology constraint on an API version that has none (scheduling.k8s.io/v1alpha1).",
         "Move to scheduling.k8s.io/v1alpha2 or later (podGroupTemplates[]."
         "schedulingConstraints.topology)."),
    Rule("TP208", "gang-exceeds-parallelism", _E,
         "A Job's gang minCount is larger than the number of pods the Job runs at once "
         "(parallelism, or completions if smaller): the gang can never be complete.",
         "Lower minCount or raise spec.parallelism."),
    Rule("TP209", "duplicate-name", _E,
         "Two objects of the same kind share namespace and name, or a list keyed by name "
         "(templates, resource claims) repeats a name.",
         "Rename one of them."),
    Rule("TP210", "bad-what-if-edit", _E,
         "An edit of a tasplan WhatIf file whose target tasplan check --what-if cannot read "
         "(selector syntax, an evict filter, GROUP.field=value).",
         "Write the target as the flag takes it (docs/whatif.md)."),
    Rule("TP211", "cel-compile-error", _E,
         "A DRA CEL selector (DeviceClass, ResourceClaim or template request) does not "
         "compile or does not evaluate to bool.",
         "Fix the expression; `device.attributes[\"<domain>\"].<name>` reads an attribute."),
    Rule("TP212", "unresolved-parent", _W,
         "spec.parentCompositePodGroupName names a CompositePodGroup that is not in the "
         "inputs: kube-scheduler keeps the whole hierarchy pending until it exists.",
         "Fine if it exists in the cluster; otherwise create it or fix the name."),
    Rule("TP213", "hierarchy-cycle", _E,
         "Parent references between CompositePodGroups form a cycle: kube-scheduler marks "
         "every group of the hierarchy invalid and never schedules it.",
         "Give the tree one root (a CompositePodGroup without a parent)."),
    Rule("TP214", "hierarchy-too-deep", _E,
         "A group tree is deeper than 4 levels (the root is level 1, leaves count): "
         "kube-scheduler marks every group of it invalid.",
         "Flatten the tree to at most 4 levels."),
    Rule("TP215", "min-group-count-exceeds-children", _W,
         "A CompositePodGroup's minGroupCount is larger than the number of its children in "
         "the inputs: the tree waits until enough children exist.",
         "Lower minGroupCount, or make sure the remaining children are created elsewhere."),
    Rule("TP216", "child-constraint-coarser", _W,
         "A child's topology constraint is coarser than (or unrelated to) an ancestor's: "
         "constraints are resolved top-down, so the child's constraint adds nothing or "
         "cannot hold.",
         "Order constraints from the largest domain at the root to the smallest at the "
         "leaves (zone > block > rack > host)."),
    Rule("TP217", "mixed-priority-in-tree", _E,
         "The groups of one tree name different priority classes; KEP-6012 (alpha) requires "
         "one priority for a whole tree.",
         "Give every CompositePodGroup and PodGroup of the tree the same priorityClassName."),
    Rule("TP218", "refused-by-check", _E,
         "`tasplan check` refuses the object: expanding it into the pods its controller "
         "makes fails on this field (the same message check prints).",
         "Fix the field; check and lint name the same fault in the same words."),
    Rule("TP219", "not-expandable", _W,
         "A valid object `tasplan check` cannot expand from these inputs (a TrainJob whose "
         "runtime is not among them, a RayJob on an existing cluster): check skips it.",
         "Pass what the message names (the runtime) with the manifests, or plan the pods "
         "it runs on."),
    Rule("TP220", "scheduling-key-ignored", _W,
         "A recognised scheduling annotation, label or field that no scheduler tasplan plans "
         "with honours: `tasplan check` plans without it and warns the same way.",
         "Plan with the scheduler that honours it (the message names it), or use the "
         "--gang / --topology-key approximation it gives."),
    Rule("TP230", "kueue-topology-request", _E,
         "Kueue's webhook refuses the pod template's TAS annotations (kueue.x-k8s.io/"
         "podset-*): several of required / preferred / unconstrained, a level that is not a "
         "label key, a slice size missing, not a number or above the PodSet's pods, bad "
         "slice constraints, a podset-group-name that does not pair two PodSets.",
         "Fix the annotation the message names (docs/schedulers.md#kueue---scheduler-kueue)."),
    Rule("TP231", "kueue-object-invalid", _E,
         "A Kueue Topology, ResourceFlavor or Workload the API server refuses: levels not "
         "1-16, repeated, not label keys, kubernetes.io/hostname above the lowest level; a "
         "topologyName without nodeLabels; a Workload PodSet's slice size missing, "
         "forbidden or not above 0.",
         "Fix the field the message names."),
    Rule("TP240", "kai-webhook-rejects", _E,
         "A KAI PodGroup or Topology that KAI's admission webhook rejects on create "
         "(duplicate or cyclic subgroups, a missing parent, minMember and minSubGroup "
         "together or on the wrong subgroups, duplicate or colliding level aliases).",
         "Fix the field the message names; `kubectl apply` fails with the same message."),
    Rule("TP241", "kai-webhook-warns", _W,
         "A KAI PodGroup the webhook admits with a warning: minSubGroup above the number "
         "of child subgroups, so the gang can never be complete.",
         "Lower minSubGroup or add subgroups."),
    Rule("TP242", "kai-unknown-topology", _W,
         "A KAI topology constraint names a Topology (kai.scheduler/v1alpha1) that is not in "
         "the inputs: KAI never places the job without it.",
         "Fine if it exists in the cluster (lint --cluster checks); else create it or fix "
         "the name."),
    Rule("TP243", "kai-unknown-level", _E,
         "A KAI required or preferred topology level (a node label or a level alias) that "
         "the named Topology does not have: KAI never places the job.",
         "Use one of the Topology's spec.levels[].nodeLabel values or their aliases."),
    Rule("TP244", "kai-no-level", _E,
         "A KAI topology constraint names a topology but neither a required nor a preferred "
         "level: KAI never places the job.",
         "Add requiredTopologyLevel or preferredTopologyLevel, or drop the constraint."),
    Rule("TP245", "kai-preferred-above-required", _E,
         "A KAI preferred topology level above the required one: KAI never places the job.",
         "The preferred level must be the required one or below it (e.g. required zone, "
         "preferred rack)."),
    Rule("TP246", "kai-ignored-constraint", _W,
         "A KAI topology constraint with levels but no topology: KAI ignores it.",
         "Add `topology: <Topology name>` to the constraint."),
    Rule("TP247", "kai-subgroup-coarser", _E,
         "A KAI subgroup required to stay in a level coarser than its parent's: KAI counts "
         "free capacity only inside the parent's domain, so the subgroup never fits.",
         "Require the subgroup at its parent's level or below it."),
    Rule("TP248", "kai-unknown-subgroup", _E,
         "A pod names a subgroup (kai.scheduler/subgroup-name) its KAI PodGroup does not "
         "define, or none when the PodGroup has subgroups: KAI never schedules it.",
         "Label the pod with one of the PodGroup's spec.subGroups[].name."),
    Rule("TP249", "kai-scheduler-name", _W,
         "A pod joins a KAI PodGroup (pod-group-name) but does not ask for schedulerName "
         "kai-scheduler: KAI leaves it to another scheduler.",
         "Set spec.schedulerName: kai-scheduler."),
    Rule("TP250", "hypernode-without-members", _E,
         "A Volcano HyperNode lists no members; Volcano's HyperNode webhook rejects it.",
         "List its nodes or child HyperNodes under spec.members."),
    Rule("TP251", "hypernode-bad-regex", _E,
         "A HyperNode member's regexMatch pattern is not a Go (RE2) regular expression; "
         "Volcano's webhook rejects it (RE2 has no lookarounds or backreferences).",
         "Write the pattern in RE2 syntax, e.g. ^node-[0-9]+$."),
    Rule("TP252", "hypernode-member-ignored", _W,
         "A HyperNode member of type HyperNode uses regexMatch or labelMatch: Volcano finds "
         "child HyperNodes by exactMatch only and ignores the member.",
         "Name each child HyperNode with selector.exactMatch.name."),
    Rule("TP253", "vcjob-invalid", _E,
         "A Volcano Job that Volcano's job webhook rejects: no task, a task minAvailable "
         "above its replicas, a duplicated task name, a job minAvailable above the total "
         "replicas, a job or pod name (<job>-<task>-<index>) that is not a qualified name "
         "of at most 63 characters.",
         "Fix the field the message names; `kubectl apply` would be refused."),
    Rule("TP254", "network-topology-both-tiers", _E,
         "A networkTopology sets both highestTierAllowed and highestTierName; Volcano's job "
         "and PodGroup webhooks reject it (on a job, a partition, a PodGroup or one of its "
         "sub-group policies).",
         "Keep one of highestTierAllowed or highestTierName."),
    Rule("TP255", "vcjob-partition-invalid", _E,
         "A vcjob task's partitionPolicy that Volcano's job webhook rejects: totalPartitions "
         "or partitionSize not positive, replicas not totalPartitions x partitionSize, "
         "minAvailable not minPartitions x partitionSize.",
         "Make replicas = totalPartitions x partitionSize (and minAvailable = minPartitions "
         "x partitionSize)."),
    Rule("TP301", "topology-key-missing", _E,
         "No node of the cluster carries the group's topology key: there is no placement.",
         "Use a label key the nodes have (kubectl get nodes -L KEY)."),
    Rule("TP302", "never-fits", _E,
         "The group cannot be placed in any topology domain even in an empty cluster: it "
         "will never schedule.",
         "Lower minCount or the pods' requests, or use a larger topology domain."),
    Rule("TP303", "does-not-fit-now", _W,
         "The group fits an empty cluster but not the cluster as it is now "
         "(`tasplan check`'s verdict).",
         "Run `tasplan check` for the placement table; wait for capacity or free some."),
    Rule("TP304", "untolerated-taints", _E,
         "Every node of every topology domain carries a taint the group's pods do not "
         "tolerate.",
         "Add the matching tolerations to the pods."),
    Rule("TP305", "no-matching-nodes", _E,
         "The pods' nodeSelector / required node affinity excludes every node of every "
         "topology domain.",
         "Fix the selector, or label the nodes."),
    Rule("TP306", "not-plannable", _E,
         "The manifests cannot be planned against the cluster (e.g. a priorityClassName "
         "the cluster does not define).",
         "Fix the field the message names, or add the missing object to the cluster dump."),
    Rule("TP307", "unknown-claim-template", _E,
         "A pod, PodGroup, Workload template or Job names a ResourceClaimTemplate that "
         "neither the inputs nor the cluster hold (in its namespace).",
         "Create the template, or fix the name; the pod is not scheduled without it "
         "(ResourceClaim not created yet)."),
    Rule("TP308", "unknown-device-class", _E,
         "A DRA request names a DeviceClass that neither the inputs nor the cluster hold.",
         "Fix deviceClassName (kubectl get deviceclasses); the request cannot be allocated "
         "without its class."),
    Rule("TP309", "tree-never-fits", _E,
         "A CompositePodGroup tree cannot be placed in any domain even in an empty cluster: "
         "it will never schedule.",
         "Lower minGroupCount or minCount, shrink the pods, or use larger domains."),
)

BY_ID: dict[str, Rule] = {r.id: r for r in RULES}


def rule(rule_id: str) -> Rule:
    return BY_ID[rule_id]
