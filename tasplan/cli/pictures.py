"""The pictures: ``capacity --svg/--html`` and ``check/explain --html``. Their renderers
(``tasplan.report.picture``) are imported only when one is asked for, so the text and
JSON outputs never pay for them."""

from __future__ import annotations

from collections.abc import Sequence

from tasplan.capacity.report import CapacityReport
from tasplan.explain.result import ExplainResult
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.output_file import write_output_file
from tasplan.plan.result import PlanResult
from tasplan.whatif.edits import AppliedEdit


def check_color_by(text: str) -> None:
    """A usage error for an unknown measure, before anything is loaded."""
    from tasplan.report.picture.measure import check_kind

    check_kind(text)


def write_capacity_pictures(report: CapacityReport, color_by: str | None, depth: int | None,
                            applied: Sequence[AppliedEdit], svg: str | None,
                            html: str | None) -> None:
    """The topology map (--svg) and the page with it and every domain's figures (--html)."""
    if svg is None and html is None:
        return
    from tasplan.report.picture.capacity_page import capacity_html, capacity_svg
    from tasplan.report.picture.measure import parse_measure

    measure = parse_measure(color_by, report)
    if svg is not None:
        write_output_file(svg, capacity_svg(report, measure, depth, applied), option="--svg",
                          stdout=False)
    if html is not None:
        write_output_file(html, capacity_html(report, measure, depth, applied),
                          option="--html", stdout=False)


def write_plan_html(path: str, result: PlanResult | ExplainResult, snapshot: ClusterSnapshot,
                    applied: Sequence[AppliedEdit], all_placements: bool = False) -> None:
    """The report as one HTML page (``--html``), with the topology map of the planned
    cluster (``plan_capacity``: the groups' shapes counted on it)."""
    from tasplan.capacity.view import plan_capacity
    from tasplan.report.picture.plan_page import explain_html, plan_html

    report = plan_capacity(snapshot) if snapshot.nodes else None
    text = (explain_html(result, report, applied) if isinstance(result, ExplainResult)
            else plan_html(result, report, applied, all_assignments=all_placements))
    write_output_file(path, text, option="--html", stdout=False)
