"""``--set GROUP.minCount=N`` / ``--set GROUP.topologyKey=KEY``: change a pod group."""

from __future__ import annotations

import re
from dataclasses import replace

from tasplan.errors import UsageError
from tasplan.limits import INT32_MAX
from tasplan.model.group import Policy
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
    else:
        if value and not valid_label_key(value):
            raise UsageError(f"{edit.where} {quote(edit.target)}: {quote(value)} is not a "
                             "valid label key")
        new = replace(group, topology_key=value or None)
        effect = f"{key} topologyKey {group.topology_key or '(none)'} -> {value or '(none)'}"
    draft.groups[index] = new
    return AppliedEdit(edit.op, edit.describe(), effect)
