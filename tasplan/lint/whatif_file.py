"""``--what-if FILE``: the edits as a small versioned YAML document, for CI.

```yaml
apiVersion: tasplan/v1
kind: WhatIf
edits:
- {op: drain, target: rack=rack-3}
- {op: addNodes, count: 4, like: gpu-a1-0, in: rack-7, labels: {pool: spare}}
- {op: set, target: ml/train.minCount=6}
```
Checked against ``schemas/whatif-v1.json`` (the same schema ``tasplan lint`` applies).
"""

from __future__ import annotations

from pathlib import Path

from tasplan.errors import InputError, UsageError
from tasplan.lint.report import format_path
from tasplan.lint.schema import validate
from tasplan.load.documents import read_documents
from tasplan.load.yaml_loader import locate
from tasplan.untrusted import quote
from tasplan.whatif.edits import ADD_NODES_FIELDS, MAX_EDITS, Edit
from tasplan.whatif.ops.set_field import parse_set
from tasplan.whatif.selectors import check_label_terms, is_selector, parse_terms, pod_filter

API_VERSION = "tasplan/v1"
KIND = "WhatIf"


def load_what_if(path: Path) -> tuple[Edit, ...]:
    label = str(path)
    documents = [d for d in read_documents(path, workload=False)]
    if len(documents) != 1:
        raise InputError(label, f"expected one {API_VERSION} {KIND} document, got "
                         f"{len(documents)}")
    source, obj = documents[0].source, documents[0].obj
    if obj.get("apiVersion") != API_VERSION or obj.get("kind") != KIND:
        raise InputError(label, f"expected apiVersion {API_VERSION} and kind {KIND}, got "
                         f"{quote(obj.get('apiVersion'))} {quote(obj.get('kind'))}",
                         line=locate(label, source.document, ""))
    raw_edits = obj.get("edits")
    if isinstance(raw_edits, list) and len(raw_edits) > MAX_EDITS:  # before the schema's
        # item-by-item pass: 100,000 edits took it 14-24 s to refuse
        raise InputError(label, f"expected at most {MAX_EDITS} edits, got {len(raw_edits):,}",
                         field="edits")
    violations = validate(obj, API_VERSION, KIND) or []
    if violations:
        first = violations[0]
        where = format_path(first.path)
        raise InputError(label, first.message, field=where,
                         line=locate(label, source.document, where))
    edits = []
    for i, raw in enumerate(obj["edits"]):
        origin = f"{label}: edits[{i}] ({raw['op']})"
        # Fields of another op would be ignored: refuse them, as the API server refuses
        # unknown fields (the schema's types let 2.0 through as an integer).
        wrong = sorted((set(raw) & ADD_NODES_FIELDS) if raw["op"] != "addNodes"
                       else (set(raw) & {"target"}))
        if wrong:
            where = f"edits[{i}].{wrong[0]}"
            raise InputError(label, f"{wrong[0]} does not apply to {raw['op']} (addNodes takes "
                             "count, like, in and labels; the other ops take target)",
                             field=where, line=locate(label, source.document, where))
        if "count" in raw and type(raw["count"]) is not int:
            where = f"edits[{i}].count"
            raise InputError(label, f"expected an integer, got {raw['count']!r}", field=where,
                             line=locate(label, source.document, where))
        edits.append(Edit(
            op=raw["op"], target=raw.get("target", ""), count=raw.get("count", 0),
            like=raw.get("like", ""), domain=raw.get("in", ""),
            labels=tuple(sorted((raw.get("labels") or {}).items())), origin=origin))
    return tuple(edits)


def check_target(op: str, target: str) -> str | None:
    """Why ``target`` cannot be the target of ``op`` without looking at a cluster; None
    when it reads (it may still match nothing in a given cluster)."""
    try:
        if op == "evict":
            pod_filter(target)
        elif op == "set":
            parse_set(Edit(op, target))
        elif op in ("cordon", "drain", "remove") and is_selector(target):
            check_label_terms(parse_terms(target, what=f"--{op}"), target, f"--{op}")
    except UsageError as exc:
        return str(exc)
    return None
