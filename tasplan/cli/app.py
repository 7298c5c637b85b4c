"""The commands: each a thin shell that turns its options into option groups
(``definition``) and runs its ``run_*`` function; and the one place where exceptions become
exit codes (httpie's pattern)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from tasplan.cli import teardown
from tasplan.cli.definition import (
    ClusterOpt,
    HtmlOpt,
    JobOptions,
    Output,
    OutputOpt,
    PlanOptions,
    TracebackOpt,
    WidthOpt,
    WorkloadArgs,
    command,
)
from tasplan.cli.exit_status import ExitStatus
from tasplan.cli.lint import LintFormat
from tasplan.cli.live import LiveOptions
from tasplan.cli.session import Session
from tasplan.cli.whatif import WhatIfCommand, WhatIfOptions
from tasplan.errors import InputError, InternalError, TasplanError, UsageError
from tasplan.stdio import OutputError, run_exit_hooks
from tasplan.version import __version__

app = typer.Typer(
    name="tasplan",
    help="What-if planner for Kubernetes topology-aware workload scheduling (KEP-5732).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
    context_settings={"help_option_names": ["-h", "--help"]},
)


def run_guarded(body: Callable[[], int], *, traceback: bool) -> None:
    """Run a command body; bad input is one line on stderr and exit 2, never a traceback."""
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    try:
        code = body()
    except (InputError, UsageError, OutputError) as exc:
        if traceback:
            raise
        err.print(f"error: {exc}", markup=False)
        code = ExitStatus.INVALID
    except KeyboardInterrupt:
        code = ExitStatus.INTERRUPTED
    except (InternalError, TasplanError, Exception) as exc:
        if traceback:
            raise
        err.print(f"internal error: {type(exc).__name__}: {exc} (run with --traceback for "
                  "details and report it)", markup=False)
        code = ExitStatus.INTERNAL
    if teardown.enabled():
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # closed or broken: the code says enough
                if stream is not None:
                    stream.flush()
        run_exit_hooks()
        os._exit(int(code))
    raise typer.Exit(int(code))


@command(app, cls=WhatIfCommand)
def check(
    ctx: typer.Context,
    workloads: WorkloadArgs,
    cluster: ClusterOpt = [],  # noqa: B006 - Typer reads the default, never mutates it
    output: OutputOpt = Output.table,
    all_placements: Annotated[bool, typer.Option(
        "--all", help="Show assignments for every feasible placement.")] = False,
    html: HtmlOpt = None,
    compare: Annotated[bool, typer.Option(
        "--compare", help="Also plan each group under every scheduler its intent translates "
        "to (kube-scheduler, KAI, ...), side by side; JSON: comparisons.")] = False,
    *,
    jobs: JobOptions,
    width: WidthOpt = None,
    plan: PlanOptions,
    what_if: WhatIfOptions,
    live: LiveOptions,
    traceback: TracebackOpt = False,
) -> None:
    """Plan pod groups into the cluster: ranked placements and pod -> node assignments.

    Exit status: 0 every group scheduled (possibly after preemption), 1 some group is not,
    2 invalid input.
    """
    from tasplan.cli.check import run_check

    session = Session(live, what_if, plan, jobs)
    run_guarded(lambda: run_check(workloads, cluster, output.value, all_placements, session,
                                  width, html, compare), traceback=traceback)


@app.command()
def lint(
    paths: Annotated[list[str], typer.Argument(
        help="Manifest files or directories; '-' reads file names from stdin, one a line "
        "(git ls-files '*.yaml' | tasplan lint -).", show_default=False)],
    cluster: Annotated[list[Path], typer.Option(
        "--cluster", "-c", help="Also check against this cluster snapshot (file or directory; "
        "repeatable): topology keys, capacity, taints, selectors.", show_default=False)] = [],  # noqa: B006
    output: Annotated[LintFormat, typer.Option("--output", "-o", help="Output format.")]
    = LintFormat.text,
    strict: Annotated[bool, typer.Option(
        "--strict", help="Unknown fields are errors, and warnings fail the run.")] = False,
    summary: Annotated[bool, typer.Option(
        "--summary", help="Print counts (to stderr for the machine-readable formats).")]
    = False,
    namespace: Annotated[str, typer.Option(
        "--namespace", "-n", help="Namespace of objects that set none (as kubectl apply -n).")]
    = "default",
    kube_version: Annotated[str | None, typer.Option(
        "--kube-version", metavar="1.35|1.36|1.37|1.38", show_default=False,
        help="Accept only the scheduling.k8s.io versions this Kubernetes release serves.")]
    = None,
    traceback: TracebackOpt = False,
) -> None:
    """Lint Workload, PodGroup, Pod and Job manifests for CI (--cluster: also capacity).

    Schema, references and gang sizes; with --cluster also topology keys, capacity, taints
    and selectors. Other kinds are skipped.

    Exit status: 0 clean, 1 error findings (or any finding with --strict), 2 unreadable
    input or usage error.
    """
    from tasplan.cli.lint import run_lint

    run_guarded(lambda: run_lint(paths, cluster, output.value, strict, summary, namespace,
                                 kube_version), traceback=traceback)


@command(app)
def snapshot(
    output_file: Annotated[str | None, typer.Option(
        "--output-file", "-f", metavar="FILE", show_default=False,
        help="Snapshot file to write (.gz: gzip; - : stdout).")] = None,
    output: Annotated[str | None, typer.Option(
        "--output", "-o", metavar="FILE", show_default=False,
        help="The same as --output-file (kept for existing scripts; a format name such as "
        "'json' is refused).")] = None,
    cluster: ClusterOpt = [],  # noqa: B006 - Typer reads the default, never mutates it
    as_list: Annotated[bool, typer.Option(
        "--as-list", help="Write a plain v1 List (pods expanded) that kubectl-style readers "
        "understand; larger and slower to reload.")] = False,
    *,
    live: LiveOptions,
    traceback: TracebackOpt = False,
) -> None:
    """Write the scheduling-relevant state of a cluster (--live) or of kubectl dumps
    (--cluster) as a portable snapshot that --cluster reads back ~10x faster.
    """
    from tasplan.cli.snapshot import output_path, run_snapshot

    run_guarded(lambda: run_snapshot(output_path(output_file, output), cluster, live,
                                     as_list), traceback=traceback)


@command(app, cls=WhatIfCommand)
def explain(
    ctx: typer.Context,
    targets: Annotated[list[str], typer.Argument(
        help="'unschedulable' (every pending group of the inputs), group names (ns/name) or "
        "workload files and directories.", show_default=False)],
    cluster: ClusterOpt = [],  # noqa: B006 - Typer reads the default, never mutates it
    output: OutputOpt = Output.table,
    html: HtmlOpt = None,
    *,
    jobs: JobOptions,
    width: WidthOpt = None,
    plan: PlanOptions,
    what_if: WhatIfOptions,
    live: LiveOptions,
    traceback: TracebackOpt = False,
) -> None:
    """Why pod groups do not fit: per domain, and changes verified to make them fit.

    Exit status: 0 every explained group schedulable, 1 some group is not, 2 invalid input.
    """
    from tasplan.cli.explain import run_explain

    session = Session(live, what_if, plan, jobs)
    run_guarded(lambda: run_explain(targets, cluster, output.value, session, width, html),
                traceback=traceback)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"tasplan {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print the tasplan version and exit.")] = False) -> None:
    """What-if planner for Kubernetes topology-aware workload scheduling (KEP-5732)."""


# --set changes a pod group: capacity plans none.
@command(app, cls=WhatIfCommand, exclude={"set"})
def capacity(
    ctx: typer.Context,
    cluster: ClusterOpt = [],  # noqa: B006 - Typer reads the default, never mutates it
    shape: Annotated[list[str], typer.Option(
        "--shape", metavar="RESOURCE=QTY,...", show_default=False,
        help="A pod shape to count (repeatable), e.g. cpu=48,memory=256Gi,nvidia.com/gpu=8.")
    ] = [],  # noqa: B006
    for_: Annotated[list[Path], typer.Option(
        "--for", metavar="WORKLOAD", show_default=False,
        help="Take shapes from the pending pods of workload files (their tolerations and "
        "selectors too), one per group.")] = [],  # noqa: B006
    tolerate: Annotated[list[str], typer.Option(
        "--tolerate", metavar="KEY[=VALUE][:EFFECT]", show_default=False,
        help="A toleration of the --shape pods (repeatable), e.g. nvidia.com/gpu:NoSchedule.")
    ] = [],  # noqa: B006
    levels: Annotated[str | None, typer.Option(
        "--levels", metavar="KEY,KEY,...", show_default=False,
        help="Topology keys, outermost first. Default: the well-known keys the nodes carry "
        "(region, zone, block, rack, hostname, ...).")] = None,
    depth: Annotated[int | None, typer.Option(
        "--depth", min=0, metavar="N", show_default=False,
        help="Levels drawn in the tree. Default: all but the hostname.")] = None,
    output: Annotated[str, typer.Option(
        "--output", "-o", metavar="FORMAT", help="table, json or yaml.")] = "table",
    svg: Annotated[str | None, typer.Option(
        "--svg", metavar="FILE", show_default=False,
        help="Also write the topology map: the levels as nested boxes, coloured by "
        "--color-by (one SVG file, nothing fetched).")] = None,
    html: Annotated[str | None, typer.Option(
        "--html", metavar="FILE", show_default=False,
        help="Also write an HTML page: the map and every domain's figures in tables.")
    ] = None,
    color_by: Annotated[str | None, typer.Option(
        "--color-by", metavar="MEASURE", show_default=False,
        help="What colours the map's tiles: now[:SHAPE] (default: pods of shape A that fit "
        "now), empty[:SHAPE], free[:RESOURCE] or free-fraction[:RESOURCE] (default resource: "
        "the GPU, else cpu).")] = None,
    gang: Annotated[int | None, typer.Option(
        "--gang", min=1, metavar="N", show_default=False,
        help="The --shape pods form a gang of N: the tree and the map mark (✓) each domain "
        "where N of them fit now. --for shapes take their group's minCount.")] = None,
    width: WidthOpt = None,
    *,
    what_if: WhatIfOptions,
    live: LiveOptions,
    traceback: TracebackOpt = False,
) -> None:
    """Where is there room? Per topology domain: nodes, allocatable and free resources, and
    how many pods of each shape fit now and in an empty domain (the planner's own filters).

    Exit status: 0 counted, 2 invalid input.
    """
    from tasplan.cli.capacity import run_capacity

    if output not in ("table", "json", "yaml"):
        raise typer.BadParameter("expected table, json or yaml", param_hint="--output")
    session = Session(live, what_if)
    run_guarded(lambda: run_capacity(cluster, shape, for_, tolerate, levels, depth, output,
                                     svg, html, width, session, color_by, gang),
                traceback=traceback)


@app.command()
def version() -> None:
    """Print the tasplan version."""
    typer.echo(f"tasplan {__version__}")


def main() -> None:
    teardown.enable()
    app(prog_name=Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "tasplan")
