"""``tasplan check``: load, plan, render; writes its output in one piece."""

from __future__ import annotations

from pathlib import Path

from tasplan.cli import teardown
from tasplan.cli.definition import PlanOptions
from tasplan.cli.exit_status import ExitStatus
from tasplan.cli.output import render, stdout_width, target_notes, warn
from tasplan.cli.session import Session
from tasplan.errors import UsageError
from tasplan.schedulers.planner import plan as plan_groups
from tasplan.stdio import write_stdout

# Each output's renderer is imported where it is used: a run pays only for its own.


def run_check(workloads: list[Path], clusters: list[Path], output: str = "table",
              all_placements: bool = False, session: Session | None = None,
              width: int | None = None, html: str | None = None) -> int:
    if not workloads:
        raise UsageError("give at least one workload file or directory")
    if html is not None:  # before any work: a bad target costs no load
        from tasplan.output_file import check_output_file

        check_output_file(html, option="--html", stdout=False)
    session = session or Session()
    plan = session.plan = session.plan or PlanOptions()
    loaded = session.load(workloads, clusters)
    snapshot = loaded.snapshot
    if not any(g.planned for g in snapshot.groups):
        hints = "; ".join(snapshot.warnings)
        raise UsageError("no pod groups to plan in the workload inputs (expected PodGroups, "
                         "Workloads, Jobs or pods that reference a pod group)"
                         + (f"; {hints}" if hints else ""))
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
    if output in ("json", "yaml"):
        from tasplan.report.document import plan_document
        from tasplan.report.serialize import to_json, to_yaml

        document = plan_document(result, what_if=applied)
        write_stdout(to_json(document) if output == "json" else to_yaml(document))
    else:
        from tasplan.report.table import render_plan
        from tasplan.report.whatif import render_what_if

        warn(result.warnings)
        target_notes(result.target)
        write_stdout(render(lambda target: [*render_what_if(applied), *render_plan(
            result, wide=output == "wide", all_assignments=all_placements, width=target)],
            stdout_width(width)))
    teardown.keep(loaded.edited, snapshot, result)
    return ExitStatus.OK if result.schedulable else ExitStatus.UNSCHEDULABLE
