"""CapacityReport -> the ``tasplan/v1`` ``CapacityReport`` document (JSON / YAML).

Schema: ``schemas/capacityreport-v1.json``. Keys may be added, never renamed; insertion
order is fixed here, so the same report always serialises to the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tasplan.capacity.report import CapacityReport, Domain
from tasplan.model.quantity import format_quantity
from tasplan.report.document import API_VERSION
from tasplan.whatif.edits import AppliedEdit


def capacity_document(report: CapacityReport,
                      what_if: Sequence[AppliedEdit] = ()) -> dict[str, Any]:
    """``whatIf`` lists the what-if edits applied before counting (``[]``: none)."""
    return {
        "apiVersion": API_VERSION,
        "kind": "CapacityReport",
        "whatIf": [{"op": e.op, "target": e.target, "effect": e.effect} for e in what_if],
        "levels": list(report.levels),
        "nested": list(report.nested),
        "shapes": [{"name": name, "requests": _quantities(requests),
                    "gang": report.gangs.get(name)}
                   for name, requests in report.shapes],
        "total": _domain(report.total),
        "domains": [_domain(d) for d in report.domains],
        "outside": [_domain(d) for d in report.outside],
        "largest": [{"level": x.level, "shape": x.shape, "now": x.now,
                     "domains": list(x.domains), "strict": x.strict}
                    for x in report.largest],
        "notes": list(report.notes),
        "warnings": list(report.warnings),
    }


def _quantities(values: Mapping[str, int]) -> dict[str, str]:
    return {r: format_quantity(r, v) for r, v in sorted(values.items())}


def _domain(d: Domain) -> dict[str, Any]:
    return {
        "level": d.level,
        "name": d.name,
        "parent": d.parent,
        "nodes": d.nodes,
        "allocatable": _quantities(d.allocatable),
        "free": _quantities(d.free),
        "fit": {shape: {"now": f.now, "empty": f.empty, "stranded": _quantities(f.stranded),
                        "holdsGang": f.holds}
                for shape, f in d.fit.items()},
    }
