"""``tasplan explain``: load, select the groups, plan and explain, render in one piece."""

from __future__ import annotations

from pathlib import Path

from tasplan.cli import teardown
from tasplan.cli.check import exit_status
from tasplan.cli.definition import PlanOptions
from tasplan.cli.output import parse_output, render, stdout_width, target_notes, warn
from tasplan.cli.session import Session
from tasplan.errors import UsageError
from tasplan.explain.explainer import explain
from tasplan.explain.selection import UNSCHEDULABLE, select
from tasplan.stdio import write_stdout

# Each output's renderer is imported where it is used: a run pays only for its own.


def split_targets(targets: list[str], namespace: str | None = None
                  ) -> tuple[list[Path], list[str], bool]:
    """Workload paths, group names and whether ``unschedulable`` was asked for. An existing
    path wins over a group name of the same spelling; with ``namespace`` (``-n``) a bare
    name is a group of that namespace, as kubectl reads it."""
    paths, names, pending = [], [], False
    for target in targets:
        if Path(target).exists():
            paths.append(Path(target))
        elif target == UNSCHEDULABLE:
            pending = True
        elif target.count("/") in (1, 2, 3) and not target.endswith((".yaml", ".yml", ".json")):
            names.append(target)
        elif namespace and target and not target.endswith((".yaml", ".yml", ".json")):
            names.append(f"{namespace}/{target}")
        else:
            raise UsageError(f"{target!r} is neither a file or directory nor a pod group name "
                             "(ns/name) nor 'unschedulable'")
    return paths, names, pending


def run_explain(targets: list[str], clusters: list[Path], output: str = "table",
                session: Session | None = None, width: int | None = None,
                html: str | None = None, *, every_placement: bool = False) -> int:
    session = session or Session()
    paths, names, pending = split_targets(targets, session.live.namespace)
    if not targets:
        raise UsageError("give 'unschedulable', group names (ns/name) or workload files")
    fmt = parse_output(output)
    if html is not None:  # before any work: a bad target costs no load
        from tasplan.output_file import check_output_file

        check_output_file(html, option="--html", stdout=False)
    plan = session.plan = session.plan or PlanOptions()
    loaded = session.load(paths, clusters)
    snapshot = select(loaded.snapshot, names, unschedulable=pending,
                      namespace=session.live.namespace)
    nothing = not any(g.planned for g in snapshot.groups) and not pending
    with session.status("explaining…"):
        result = explain(snapshot, all_assignments=not fmt.table and fmt.kind != "name",
                         scheduler_config=loaded.config, target=plan.target(snapshot),
                         preempt=plan.preempt, scheduler=plan.scheduler,
                         kueue=plan.kueue(), pdb_allowance=plan.pdb_allowance.value)
    applied = loaded.edited.applied
    if html is not None:
        from tasplan.cli.pictures import write_plan_html

        write_plan_html(html, result, snapshot, applied)
    if fmt.kind == "name":
        from tasplan.report.names import object_names

        warn(result.plan.warnings)
        write_stdout("".join(f"{line}\n" for line in object_names(result.plan)))
    elif not fmt.table:
        from tasplan.report.document import plan_document

        write_stdout(fmt.render_document(plan_document(
            result.plan, result.explanations, what_if=applied, trees=result.trees,
            skipped=snapshot.skipped)))
    else:
        from tasplan.report.explain_table import render_explanations
        from tasplan.report.table import TOP_PLACEMENTS, skipped_lines
        from tasplan.report.whatif import render_what_if

        warn(result.plan.warnings)
        target_notes(result.plan.target)
        write_stdout(render(lambda target: [*render_what_if(applied), *render_explanations(
            result, wide=fmt.kind == "wide", width=target,
            rows=None if every_placement else TOP_PLACEMENTS),
            *skipped_lines(snapshot.skipped, nothing)], stdout_width(width)))
    teardown.keep(loaded.edited, snapshot, result)
    return exit_status(result.plan, snapshot, nothing)
