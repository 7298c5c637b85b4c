"""``tasplan capacity --svg / --html``: the topology map alone, or the map on a page with
every domain's figures in tables (the numbers a tile has no room for, on paper too)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from tasplan.capacity.report import CapacityReport, Domain
from tasplan.model.topology import last_segment
from tasplan.report.capacity_tree import default_depth
from tasplan.report.formatting import human, short_resource
from tasplan.report.picture.measure import Measure, shape_letters
from tasplan.report.picture.page import items, page, paragraph, table, what_if
from tasplan.report.picture.topology_map import Overlay, topology_map
from tasplan.whatif.edits import AppliedEdit

TITLE = "tasplan capacity"


def edits_overlay(applied: Sequence[AppliedEdit], level: str = "",
                  marks: dict | None = None, pods: dict | None = None) -> Overlay | None:
    """What the map shows of the what-if edits: per node the edits that changed it, and the
    nodes removed (not on the map). None when there is nothing to show."""
    edits: dict[str, list[str]] = {}
    removed: list[str] = []
    for edit in applied:
        if edit.op == "remove":
            removed.extend(edit.nodes)
            continue
        for node in edit.nodes:
            edits.setdefault(node, []).append(f"{edit.op} {edit.target}")
    if not (edits or removed or marks or pods):
        return None
    return Overlay(level, marks or {}, pods or {}, {n: tuple(e) for n, e in edits.items()},
                   tuple(removed))


def capacity_svg(report: CapacityReport, measure: Measure, depth: int | None = None,
                 applied: Sequence[AppliedEdit] = ()) -> str:
    return topology_map(report, measure, depth, edits_overlay(applied), TITLE)


def capacity_html(report: CapacityReport, measure: Measure, depth: int | None = None,
                  applied: Sequence[AppliedEdit] = ()) -> str:
    return page(TITLE, _body(report, measure, depth, applied))


def _body(report: CapacityReport, measure: Measure, depth: int | None,
          applied: Sequence[AppliedEdit]) -> Iterator[str]:
    yield f"<h1>{TITLE}</h1>\n"
    yield paragraph(f"{report.total.nodes:,} node(s); levels: "
                    + (" › ".join(report.levels) or "(none)"), "muted")
    yield what_if(applied)
    yield topology_map(report, measure, depth, edits_overlay(applied), TITLE, heading=False)
    if depth is None:
        depth = default_depth(report.levels)
    letters = shape_letters(report)
    resources = _resources(report)
    strict = {(x.level, x.shape, x.domains[0]) for x in report.largest if x.strict}
    yield "<h2>Domains</h2>\n"
    yield paragraph("now = pods of the shape that fit as the cluster is; empty = with only "
                    "DaemonSet and mirror pods left; ✓ = a gang of the shape's size fits "
                    "now; ★ = the one domain of its level that holds the most now.", "muted")
    headers = ["domain", "in", "nodes", *(f"free {short_resource(r)}" for r in resources),
               *(f"{letters[n]} {k}" for n, _ in report.shapes for k in ("now", "empty"))]
    numeric = range(2, len(headers))
    for level in (report.total.level, *report.levels[:depth]):
        domains = ([report.total] if not level
                   else [d for d in (*report.domains, *report.outside) if d.level == level])
        if not domains:
            continue
        yield f"<h3>{'cluster' if not level else last_segment(level)}</h3>\n"
        rows = [_row(d, report, resources, strict) for d in domains]
        yield table(headers, rows, numeric)
    if report.notes or report.warnings:
        yield "<h2>Notes</h2>\n"
        yield items([*report.notes, *(f"warning: {w}" for w in report.warnings)])


def _row(d: Domain, report: CapacityReport, resources: Sequence[str],
         strict: set[tuple[str, str, str]]) -> list[str]:
    name = d.name or f"(no {last_segment(d.level)} label)"
    cells = [name, d.parent or "", f"{d.nodes:,}"]
    cells.extend(f"{human(r, d.free.get(r, 0))}/{human(r, d.allocatable.get(r, 0))}"
                 for r in resources)
    for shape, _ in report.shapes:
        fit = d.fit[shape]
        marks = (" ✓" if fit.holds else "") + (
            " ★" if (d.level, shape, d.name) in strict else "")
        cells.extend((f"{fit.now}{marks}", str(fit.empty)))
    return cells


def _resources(report: CapacityReport) -> list[str]:
    have = report.total.allocatable
    asked = {r for _, requests in report.shapes for r in requests}
    return [r for r in ("cpu", "memory", *sorted((asked | {k for k in have if "/" in k})
                                                   - {"cpu", "memory"}))
            if r in have or r in asked]
