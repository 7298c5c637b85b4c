"""``tasplan check``: load, plan, render; writes its output in one piece."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from tasplan.cli import teardown
from tasplan.cli.exit_status import ExitStatus
from tasplan.cli.live import LiveOptions, cluster_source
from tasplan.cli.output import render, stdout_width, target_notes, warn
from tasplan.cli.pictures import write_plan_html
from tasplan.cli.release import ReleaseOptions
from tasplan.cli.whatif import WhatIfOptions
from tasplan.errors import UsageError
from tasplan.load.batch import JobOverrides
from tasplan.load.loader import load_inputs
from tasplan.output_file import check_output_file
from tasplan.plugins.config import load_scheduler_config
from tasplan.report.compare import comparisons_document, render_comparisons
from tasplan.report.document import plan_document
from tasplan.report.serialize import to_json, to_yaml
from tasplan.report.table import render_plan
from tasplan.report.whatif import render_what_if
from tasplan.schedulers.compare import compare as compare_schedulers
from tasplan.schedulers.planner import plan
from tasplan.stdio import write_stdout
from tasplan.whatif import apply_edits


def run_check(workloads: list[Path], clusters: list[Path], output: str, all_placements: bool,
              gang: int | None, topology_key: str | None,
              scheduler_config: Path | None = None, source: LiveOptions | None = None,
              width: int | None = None, what_if: WhatIfOptions | None = None,
              release: ReleaseOptions | None = None, html: str | None = None,
              compare: bool = False) -> int:
    if not workloads:
        raise UsageError("give at least one workload file or directory")
    if html is not None:  # before any work: a bad target costs no load
        check_output_file(html, option="--html", stdout=False)
    # The (small) configuration and edits first: bad ones fail before a large snapshot is read.
    config = load_scheduler_config(scheduler_config) if scheduler_config else None
    edits = what_if.edits() if what_if else ()
    source = source or LiveOptions()
    release = release or ReleaseOptions()
    release.check()
    live = cluster_source(source)
    err = Console(stderr=True)
    quiet = source.quiet or not err.is_terminal
    with _nothing() if quiet else err.status("loading inputs…"):
        snapshot = load_inputs(workloads, clusters, jobs=JobOverrides(gang, topology_key),
                               cluster_documents=live)
    edited = apply_edits(snapshot, edits)
    snapshot = edited.snapshot
    if not any(g.planned for g in snapshot.groups):
        hints = "; ".join(snapshot.warnings)
        raise UsageError("no pod groups to plan in the workload inputs (expected PodGroups, "
                         "Workloads, Jobs or pods that reference a pod group)"
                         + (f"; {hints}" if hints else ""))
    with _nothing() if quiet else err.status("planning…"):
        # Assignments of the selected placements; of every feasible one only with --all
        # (simulating each placement pod by pod costs more than the rest of planning).
        result = plan(snapshot, all_assignments=all_placements, scheduler_config=config,
                      target=release.target(snapshot), preempt=release.preempt,
                      scheduler=release.scheduler)
    if html is not None:
        write_plan_html(html, result, snapshot, edited.applied, all_placements)
    comparisons = ()
    if compare:
        with _nothing() if quiet else err.status("comparing schedulers…"):
            comparisons = compare_schedulers(
                snapshot, result, lambda snap, **kw: plan(
                    snap, scheduler_config=config, preempt=release.preempt, **kw),
                release.target)
    if output in ("json", "yaml"):
        document = plan_document(result, what_if=edited.applied)
        if compare:
            document["comparisons"] = comparisons_document(comparisons)
        text = to_json(document) if output == "json" else to_yaml(document)
        write_stdout(text)
    else:
        warn(result.warnings)
        target_notes(result.target)
        write_stdout(render(lambda target: [*render_what_if(edited.applied), *render_plan(
            result, wide=output == "wide", all_assignments=all_placements, width=target),
            *render_comparisons(comparisons, target)], stdout_width(width)))
    teardown.keep(edited, snapshot, result)
    return ExitStatus.OK if result.schedulable else ExitStatus.UNSCHEDULABLE


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
