"""``--set GROUP.minCount=N`` / ``--set GROUP.topologyKey=KEY``: change a pod group."""

from __future__ import annotations

import re
from dataclasses import replace

from tasplan.errors import UsageError
from tasplan.model.group import Policy
from tasplan.model.selectors import valid_label_key
from tasplan.whatif.draft import Draft
from tasplan.whatif.edits import AppliedEdit, Edit

_SET = re.compile(r"^(?P<group>.+)\.(?P<field>minCount|topologyKey)=(?P<value>.*)$")


def parse_set(edit: Edit) -> tuple[str, str, str]:
    """(group key, field, value) of ``GROUP.field=value``."""
    m = _SET.match(edit.target.strip())
    if m is None:
        raise UsageError(f"{edit.where} {edit.target!r}: expected GROUP.minCount=N or "
                         "GROUP.topologyKey=KEY (GROUP as ns/name)")
    return m.group("group"), m.group("field"), m.group("value").strip()


def apply(draft: Draft, edit: Edit) -> AppliedEdit:
    key, what, value = parse_set(edit)
    index = next((i for i, g in enumerate(draft.groups) if g.key == key), None)
    if index is None:
        known = ", ".join(g.key for g in draft.groups[:8]) or "none"
        raise UsageError(f"{edit.where} {edit.target!r}: no pod group {key!r} in the inputs "
                         f"(groups: {known})")
    group = draft.groups[index]
    if what == "minCount":
        if group.policy != Policy.GANG:
            raise UsageError(f"{edit.where} {edit.target!r}: {key} is a basic group; "
                             "minCount applies to gang groups")
        if not value.isdigit() or int(value) < 1:
            raise UsageError(f"{edit.where} {edit.target!r}: minCount must be an integer >= 1")
        new = replace(group, min_count=int(value))
        effect = f"{key} minCount {group.min_count} -> {new.min_count}"
    else:
        if value and not valid_label_key(value):
            raise UsageError(f"{edit.where} {edit.target!r}: {value!r} is not a valid label key")
        new = replace(group, topology_key=value or None)
        effect = f"{key} topologyKey {group.topology_key or '(none)'} -> {value or '(none)'}"
    draft.groups[index] = new
    return AppliedEdit(edit.op, edit.describe(), effect)
