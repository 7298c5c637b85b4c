"""``tasplan check``: load, plan, render; writes its output in one piece."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tasplan.cli import teardown
from tasplan.cli.definition import PlanOptions
from tasplan.cli.exit_status import ExitStatus
from tasplan.cli.output import parse_output, render, stdout_width, target_notes, warn
from tasplan.cli.session import Session
from tasplan.errors import UsageError
from tasplan.schedulers.planner import plan as plan_groups
from tasplan.stdio import write_stdout

if TYPE_CHECKING:
    from tasplan.model.snapshot import ClusterSnapshot
    from tasplan.plan.result import PlanResult

# Each output's renderer is imported where it is used: a run pays only for its own.


def run_check(workloads: list[Path], clusters: list[Path], output: str = "table",
              all_assignments: bool = False, session: Session | None = None,
              width: int | None = None, html: str | None = None, *,
              every_placement: bool = False, compare: bool = False) -> int:
    """``all_assignments``: --all; ``every_placement``: --all-placements; ``compare``:
    --compare."""
    if not workloads:
        raise UsageError("give at least one workload file or directory (an argument or -f)")
    fmt = parse_output(output)
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
        result = plan_groups(snapshot, all_assignments=all_assignments,
                             scheduler_config=loaded.config, target=plan.target(snapshot),
                             preempt=plan.preempt, scheduler=plan.scheduler,
                             schedulers=plan.schedulers(),
                             pdb_allowance=plan.pdb_allowance.value)
    applied = loaded.edited.applied
    if html is not None:
        from tasplan.cli.pictures import write_plan_html

        write_plan_html(html, result, snapshot, applied, all_assignments)
    comparisons: tuple = ()
    if compare:
        from tasplan.schedulers.compare import compare as compare_schedulers

        with session.status("comparing schedulers…"):
            comparisons = compare_schedulers(
                snapshot, result, lambda snap, **kw: plan_groups(
                    snap, scheduler_config=loaded.config, preempt=plan.preempt,
                    schedulers=plan.schedulers(), **kw),
                plan.target, plan.schedulers())
    if fmt.kind == "name":
        from tasplan.report.names import object_names

        warn(result.warnings)
        write_stdout("".join(f"{line}\n" for line in object_names(result)))
    elif not fmt.table:
        from tasplan.report.document import plan_document

        document = plan_document(result, what_if=applied, skipped=snapshot.skipped)
        if compare:
            from tasplan.report.compare import comparisons_document

            document["comparisons"] = comparisons_document(comparisons)
        write_stdout(fmt.render_document(document))
    else:
        from tasplan.report.table import TOP_PLACEMENTS, render_plan, skipped_lines
        from tasplan.report.whatif import render_what_if

        def compared(target: int) -> list:
            if not comparisons:  # --compare only: its renderer is imported when used
                return []
            from tasplan.report.compare import render_comparisons

            return [*render_comparisons(comparisons, target)]

        warn(result.warnings)
        target_notes(result.target)
        write_stdout(render(lambda target: [*render_what_if(applied), *render_plan(
            result, wide=fmt.kind == "wide", all_assignments=all_assignments, width=target,
            rows=None if every_placement else TOP_PLACEMENTS),
            *skipped_lines(snapshot.skipped, nothing), *compared(target)],
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
