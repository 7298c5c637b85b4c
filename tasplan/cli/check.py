"""``tasplan check``: load, plan, render; writes its output in one piece."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tasplan.cli import teardown
from tasplan.cli.definition import PlanOptions
from tasplan.cli.exit_status import ExitStatus
from tasplan.cli.output import render, stdout_width, target_notes, warn
from tasplan.cli.session import Session
from tasplan.errors import UsageError
from tasplan.schedulers.planner import plan as plan_groups
from tasplan.stdio import write_stdout

if TYPE_CHECKING:
    from tasplan.model.snapshot import ClusterSnapshot
    from tasplan.plan.result import PlanResult

# Each output's renderer is imported where it is used: a run pays only for its own.


def run_check(workloads: list[Path], clusters: list[Path], output: str = "table",
              all_placements: bool = False, session: Session | None = None,
              width: int | None = None, html: str | None = None, compare: bool = False
              ) -> int:
    if not workloads:
        raise UsageError("give at least one workload file or directory")
    if html is not None:  # before any work: a bad target costs no load
        from tasplan.output_file import check_output_file

        check_output_file(html, option="--html", stdout=False)
    session = session or Session()
    plan = session.plan = session.plan or PlanOptions()
    loaded = session.load(workloads, clusters)
    snapshot = loaded.snapshot
    nothing = not any(g.planned for g in snapshot.groups)
    with session.status("planning…"):
        # Assignments of the selected placements; of every feasible one only with --all
        # (simulating each placement pod by pod costs more than the rest of planning).
        result = plan_groups(snapshot, all_assignments=all_placements,
                             scheduler_config=loaded.config, target=plan.target(snapshot),
                             preempt=plan.preempt, scheduler=plan.scheduler,
                             schedulers=plan.schedulers(),
                             pdb_allowance=plan.pdb_allowance.value)
    applied = loaded.edited.applied
    if html is not None:
        from tasplan.cli.pictures import write_plan_html

        write_plan_html(html, result, snapshot, applied, all_placements)
    comparisons: tuple = ()
    if compare:
        from tasplan.schedulers.compare import compare as compare_schedulers

        with session.status("comparing schedulers…"):
            comparisons = compare_schedulers(
                snapshot, result, lambda snap, **kw: plan_groups(
                    snap, scheduler_config=loaded.config, preempt=plan.preempt,
                    schedulers=plan.schedulers(), **kw),
                plan.target, plan.schedulers())
    if output in ("json", "yaml"):
        from tasplan.report.document import plan_document
        from tasplan.report.serialize import to_json, to_yaml

        document = plan_document(result, what_if=applied, skipped=snapshot.skipped)
        if compare:
            from tasplan.report.compare import comparisons_document

            document["comparisons"] = comparisons_document(comparisons)
        write_stdout(to_json(document) if output == "json" else to_yaml(document))
    else:
        from tasplan.report.compare import render_comparisons
        from tasplan.report.table import render_plan, skipped_lines
        from tasplan.report.whatif import render_what_if

        warn(result.warnings)
        target_notes(result.target)
        write_stdout(render(lambda target: [*render_what_if(applied), *render_plan(
            result, wide=output == "wide", all_assignments=all_placements, width=target),
            *skipped_lines(snapshot.skipped, nothing), *render_comparisons(comparisons, target)],
            stdout_width(width)))
    teardown.keep(loaded.edited, snapshot, result)
    return exit_status(result, snapshot, nothing)


def exit_status(result: PlanResult, snapshot: ClusterSnapshot, nothing: bool) -> ExitStatus:
    """1 when a planned group does not fit; else 4 when nothing could be planned or an
    object the workload inputs hold could not be (see ``Skipped.checked``); else 0."""
    if not result.schedulable:
        return ExitStatus.UNSCHEDULABLE
    if nothing or any(not k.checked for k in snapshot.skipped):
        return ExitStatus.NOT_CHECKED
    return ExitStatus.OK
