"""``--set GROUP.minCount=N`` / ``--set GROUP.topologyKey=KEY``: change a pod group.

A minCount beyond the pods a gang has would make it wait for pods that never come: where
an object in the inputs makes the group's pods (a Job, a Deployment, a JobSet, ...), the
edit grows it as raising its replicas or parallelism would, with more pods from the same
template (the last PodSet: workers follow leaders, masters and heads). A gang of bare pods
has no such object: a warning says it will wait.
"""

from __future__ import annotations

import re
from dataclasses import replace

from tasplan.errors import UsageError
from tasplan.limits import INT32_MAX
from tasplan.model.group import PodGroup, Policy
from tasplan.model.pod import Pod
from tasplan.model.selectors import valid_label_key
from tasplan.untrusted import quote
from tasplan.whatif.draft import Draft
from tasplan.whatif.edits import AppliedEdit, Edit, strict_int

_SET = re.compile(r"^(?P<group>.+)\.(?P<field>minCount|topologyKey)=(?P<value>.*)$")


def parse_set(edit: Edit) -> tuple[str, str, str]:
    """(group key, field, value) of ``GROUP.field=value``."""
    m = _SET.match(edit.target.strip())
    if m is None:
        raise UsageError(f"{edit.where} {quote(edit.target)}: expected GROUP.minCount=N or "
                         "GROUP.topologyKey=KEY (GROUP as ns/name)")
    return m.group("group"), m.group("field"), m.group("value").strip()


def apply(draft: Draft, edit: Edit) -> AppliedEdit:
    key, what, value = parse_set(edit)
    index = next((i for i, g in enumerate(draft.groups) if g.key == key), None)
    if index is None:
        known = ", ".join(g.key for g in draft.groups[:8]) or "none"
        raise UsageError(f"{edit.where} {quote(edit.target)}: no pod group {quote(key)} in "
                         f"the inputs (groups: {known})")
    group = draft.groups[index]
    if what == "minCount":
        if group.policy != Policy.GANG:
            raise UsageError(f"{edit.where} {quote(edit.target)}: {key} is a basic group; "
                             "minCount applies to gang groups")
        try:
            count = strict_int(value)
        except ValueError:
            count = 0
        if not 1 <= count <= INT32_MAX:  # the API's minCount is an int32
            raise UsageError(f"{edit.where} {quote(edit.target)}: minCount must be an integer "
                             f"from 1 to {INT32_MAX}")
        new = replace(group, min_count=count)
        effect = f"{key} minCount {group.min_count} -> {new.min_count}"
        grown = grow(draft, new)
        if grown is not None:
            new, more = grown
            effect += f"; {more}"
    else:
        if value and not valid_label_key(value):
            raise UsageError(f"{edit.where} {quote(edit.target)}: {quote(value)} is not a "
                             "valid label key")
        new = replace(group, topology_key=value or None)
        effect = f"{key} topologyKey {group.topology_key or '(none)'} -> {value or '(none)'}"
    draft.groups[index] = new
    return AppliedEdit(edit.op, edit.describe(), effect)


# The field that sets how many pods a single-template object runs (the effect names it).
COUNT_FIELDS = {"Job": "spec.parallelism", "Deployment": "spec.replicas",
                "StatefulSet": "spec.replicas", "ReplicaSet": "spec.replicas",
                "ReplicationController": "spec.replicas"}
_TRAILING_NUMBER = re.compile(r"^(.*?)(\d+)$")


def grow(draft: Draft, group: PodGroup) -> tuple[PodGroup, str] | None:
    """Pods added so that ``group`` has its minCount, and what was done (None: it has
    enough). Without an object that makes its pods, a warning instead."""
    members = [p for p in draft.live_pods() if p.group == group.key and not p.terminal]
    missing = group.min_count - len(members)
    if missing <= 0:
        return None
    where = (f"--set {group.key}.minCount={group.min_count}: {len(members)} pod(s) of the "
             "group are in the inputs")
    expansion = group.expansions[-1] if group.expansions else None
    pod_set = expansion.pod_sets[-1] if expansion is not None and expansion.pod_sets else None
    names = set(pod_set.pods) if pod_set is not None else set()
    template = next((p for p in reversed(members) if p.name in names and not p.node_name),
                    next((p for p in reversed(members) if p.name in names), None))
    if template is None or template.claims:
        why = ("no object in the inputs makes them" if template is None else
               "their ResourceClaims are per pod and tasplan does not invent claims")
        draft.warnings.append(f"{where} and {why}: the gang waits for {missing} more that "
                              "never come")
        return group, f"waits for {missing} pod(s) nothing creates"
    added = _copies(draft, template, missing)
    draft.pods.extend(added)
    grown_set = replace(pod_set, count=pod_set.count + missing,
                        pods=(*pod_set.pods, *(p.name for p in added)))
    grown = replace(expansion, synthesised=expansion.synthesised + missing,
                    pod_sets=(*expansion.pod_sets[:-1], grown_set))
    total = pod_set.count + missing
    field = COUNT_FIELDS.get(expansion.kind) if len(expansion.pod_sets) == 1 else None
    how = (f"as with {field}: {total}" if field is not None else
           f"as with more replicas of its {pod_set.name!r} template")
    return (replace(group, expansions=(*group.expansions[:-1], grown)),
            f"{expansion.kind} {expansion.name} grows by {missing} pod(s) to {total} ({how})")


def _copies(draft: Draft, template: Pod, n: int) -> list[Pod]:
    """``n`` pending copies of ``template``, named as its controller numbers pods
    (``finetune-2``, ``finetune-3``, ...: after the highest number in use)."""
    taken = {p.name for p in draft.pods if p.namespace == template.namespace}
    m = _TRAILING_NUMBER.match(template.name)
    prefix = m.group(1) if m else f"{template.name}-"
    numbers = [int(found.group(2)) for name in taken
               if (found := _TRAILING_NUMBER.match(name)) and found.group(1) == prefix]
    start = max(numbers, default=-1) + 1
    order = max((p.order for p in draft.pods), default=0) + 1
    out = []
    for i in range(start, start + len(taken) + n):
        if len(out) == n:
            break
        name = f"{prefix}{i}"
        if name in taken:
            continue
        out.append(replace(template, name=name, node_name="", phase="Pending",
                           order=order + len(out), synthesised=True, uid="", start_time="",
                           nominated_node_name="", deleting=False, claim_statuses=()))
    return out
