"""``-o name``: the objects a report is about, as ``kubectl get -o name`` prints them
(``kind.group/name``, the kind in lower case, no group for the core API; no namespace)."""

from __future__ import annotations

from tasplan.plan.result import GroupResult, PlanResult
from tasplan.report.tree_order import report_order


def kubectl_name(kind: str, api_version: str, name: str) -> str:
    """``job.batch/train`` for kind Job of batch/v1; ``pod/web-0`` for the core API."""
    group = api_version.rpartition("/")[0] if "/" in api_version else ""
    return f"{kind.lower()}{'.' + group if group else ''}/{name}"


def object_names(result: PlanResult) -> list[str]:
    """One line per object the report answers for, in report order: the object a group
    came from (the Job, JobSet, ... whose pods tasplan made; a v1alpha1 Workload once for
    all its pod groups), or the PodGroup / CompositePodGroup itself."""
    out: list[str] = []
    for item, _ in report_order(result):
        if isinstance(item, GroupResult):
            g = item.group
            if g.expansions:
                e = g.expansions[0]
                line = kubectl_name(e.kind, e.api_version, e.name.rpartition("/")[2])
            else:
                # The object's name: the key's second part (``ns/name`` or, for a v1alpha1
                # Workload, ``ns/workload/podGroup``).
                line = kubectl_name(g.kind, g.api_version, g.key.split("/")[1])
        else:
            c = item.composite
            line = kubectl_name(c.kind, c.api_version, c.name)
        if line not in out:
            out.append(line)
    return out
