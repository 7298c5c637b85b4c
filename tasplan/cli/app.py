"""Typer app and the one place where exceptions become exit codes (httpie's pattern)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from tasplan import __version__
from tasplan.cli import teardown
from tasplan.cli.exit_status import ExitStatus
from tasplan.cli.lint import lint
from tasplan.cli.live import (
    ContextOpt,
    KubeconfigOpt,
    LiveOpt,
    LiveOptions,
    NamespaceOpt,
    QuietOpt,
    RequestTimeoutOpt,
)
from tasplan.cli.release import ReleaseOptions
from tasplan.cli.whatif import (
    ARGS_KEY,
    AddNodesOpt,
    CordonOpt,
    DrainOpt,
    EvictOpt,
    InOpt,
    LabelOpt,
    LikeOpt,
    RemoveOpt,
    SetOpt,
    WhatIfCommand,
    WhatIfFileOpt,
    WhatIfOptions,
)
from tasplan.errors import InputError, InternalError, TasplanError, UsageError
from tasplan.schedulers.registry import names as scheduler_names
from tasplan.stdio import OutputError, run_exit_hooks

app = typer.Typer(
    name="tasplan",
    help="What-if planner for Kubernetes topology-aware workload scheduling (KEP-5732).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
    context_settings={"help_option_names": ["-h", "--help"]},
)


class Output(StrEnum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"


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


WorkloadArgs = Annotated[list[Path], typer.Argument(
    help="Workload files or directories: Workload, PodGroup, Pod and Job manifests to plan.",
    show_default=False)]
ClusterOpt = Annotated[list[Path], typer.Option(
    "--cluster", "-c", help="Cluster snapshot file or directory (kubectl get -o yaml|json); "
    "repeatable.", show_default=False)]
OutputOpt = Annotated[Output, typer.Option("--output", "-o", help="Output format.")]
SchedulerConfigOpt = Annotated[Path | None, typer.Option(
    "--scheduler-config", metavar="FILE", show_default=False,
    help="KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1): pods are planned with "
    "the profile of their schedulerName. Default: kube-scheduler's default profile.")]
KubeVersionOpt = Annotated[str | None, typer.Option(
    "--kube-version", metavar="1.35|1.36|1.37|1.38", show_default=False,
    help="Kubernetes release to plan for: API versions, feature gates, fast paths and "
    "preemption follow it. Default: the cluster's version (--live, tasplan snapshots), "
    "else 1.37.")]
FeatureGatesOpt = Annotated[str | None, typer.Option(
    "--feature-gates", metavar="Name=bool,...", show_default=False,
    help="kube-scheduler feature gates (GenericWorkload, TopologyAwareWorkloadScheduling, "
    "WorkloadAwarePreemption, PodGroupPreemptionPolicy, ...). Gates the inputs need are "
    "assumed on unless set here.")]
SchedulerOpt = Annotated[str, typer.Option(
    "--scheduler", metavar="|".join(scheduler_names()),
    help="The scheduler to plan for. auto: each group's, from what it asks for (e.g. pods' "
    "schedulerName or a scheduler's labels), else kube-scheduler.")]
NoPreemptOpt = Annotated[bool, typer.Option(
    "--no-preempt", help="Plan as if preemption were off: the plain verdict, no victims.")]
TracebackOpt = Annotated[bool, typer.Option("--traceback", help="Show Python tracebacks.",
                                            hidden=True)]
TracebackOpt = Annotated[bool, typer.Option(
    "--traceback", help="On an error, show the Python traceback instead of one line (for bug "
    "reports).")]
WidthOpt = Annotated[int | None, typer.Option(
    "--width", min=20, metavar="COLUMNS", show_default=False,
    help="Fit tables into this many columns by leaving out optional columns; names are never "
    "cut. Default: the terminal's width, or the content's width when stdout is not a terminal.")]
GangOpt = Annotated[int | None, typer.Option(
    "--gang", min=1, metavar="MINCOUNT",
    help="Plan pod-producing objects without their own scheduling (a plain Job, JobSet, "
    "LeaderWorkerSet, Deployment, ...) as a gang with this minCount.")]
HtmlOpt = Annotated[str | None, typer.Option(
    "--html", metavar="FILE", show_default=False,
    help="Also write the report as one HTML page: per group the topology map with its "
    "candidate placements, the ranked placements and the assignments (nothing fetched; "
    "prints).")]
TopologyKeyOpt = Annotated[str | None, typer.Option(
    "--topology-key", metavar="KEY",
    help="Topology key for pod-producing objects without their own scheduling (e.g. a rack "
    "label).")]


@app.command(cls=WhatIfCommand)
def check(
    ctx: typer.Context,
    workloads: WorkloadArgs,
    cluster: ClusterOpt = [],  # noqa: B006 - Typer reads the default, never mutates it
    output: OutputOpt = Output.table,
    all_placements: Annotated[bool, typer.Option(
        "--all", help="Show assignments for every feasible placement.")] = False,
    html: HtmlOpt = None,
    gang: GangOpt = None,
    topology_key: TopologyKeyOpt = None,
    width: WidthOpt = None,
    scheduler_config: SchedulerConfigOpt = None,
    kube_version: KubeVersionOpt = None,
    feature_gates: FeatureGatesOpt = None,
    scheduler: SchedulerOpt = "auto",
    compare: Annotated[bool, typer.Option(
        "--compare", help="Also plan each group under every scheduler its intent translates "
        "to (kube-scheduler, KAI, ...), side by side; JSON: comparisons.")] = False,
    no_preempt: NoPreemptOpt = False,
    cordon: CordonOpt = [],  # noqa: B006 - Typer reads the default, never mutates it
    drain: DrainOpt = [],  # noqa: B006
    remove: RemoveOpt = [],  # noqa: B006
    add_nodes: AddNodesOpt = [],  # noqa: B006
    like: LikeOpt = [],  # noqa: B006
    in_: InOpt = [],  # noqa: B006
    label: LabelOpt = [],  # noqa: B006
    evict: EvictOpt = [],  # noqa: B006
    set_: SetOpt = [],  # noqa: B006
    what_if: WhatIfFileOpt = [],  # noqa: B006
    live: LiveOpt = False,
    context: ContextOpt = None,
    kubeconfig: KubeconfigOpt = None,
    namespace: NamespaceOpt = None,
    request_timeout: RequestTimeoutOpt = None,
    quiet: QuietOpt = False,
    traceback: TracebackOpt = False,
) -> None:
    """Plan pod groups into the cluster: ranked placements and pod -> node assignments.

    Exit status: 0 every group scheduled (possibly after preemption), 1 some group is not,
    2 invalid input.
    """
    from tasplan.cli.check import run_check

    source = LiveOptions(live, context, kubeconfig, namespace, request_timeout, quiet)
    release = ReleaseOptions(kube_version, feature_gates, not no_preempt, scheduler)
    edits = WhatIfOptions(cordon, drain, remove, add_nodes, like, in_, label, evict, set_,
                          what_if, ctx.meta.get(ARGS_KEY))
    run_guarded(lambda: run_check(workloads, cluster, output.value, all_placements, gang,
                                  topology_key, scheduler_config, source, width, edits,
                                  release, html, compare), traceback=traceback)


app.command()(lint)


@app.command()
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
    live: LiveOpt = False,
    context: ContextOpt = None,
    kubeconfig: KubeconfigOpt = None,
    namespace: NamespaceOpt = None,
    request_timeout: RequestTimeoutOpt = None,
    quiet: QuietOpt = False,
    traceback: TracebackOpt = False,
) -> None:
    """Write the scheduling-relevant state of a cluster (--live) or of kubectl dumps
    (--cluster) as a portable snapshot that --cluster reads back ~10x faster.
    """
    from tasplan.cli.snapshot import output_path, run_snapshot

    source = LiveOptions(live, context, kubeconfig, namespace, request_timeout, quiet)
    run_guarded(lambda: run_snapshot(output_path(output_file, output), cluster, source,
                                     as_list), traceback=traceback)


@app.command(cls=WhatIfCommand)
def explain(
    ctx: typer.Context,
    targets: Annotated[list[str], typer.Argument(
        help="'unschedulable' (every pending group of the inputs), group names (ns/name) or "
        "workload files and directories.", show_default=False)],
    cluster: ClusterOpt = [],  # noqa: B006 - Typer reads the default, never mutates it
    output: OutputOpt = Output.table,
    html: HtmlOpt = None,
    gang: GangOpt = None,
    topology_key: TopologyKeyOpt = None,
    width: WidthOpt = None,
    scheduler_config: SchedulerConfigOpt = None,
    kube_version: KubeVersionOpt = None,
    feature_gates: FeatureGatesOpt = None,
    scheduler: SchedulerOpt = "auto",
    no_preempt: NoPreemptOpt = False,
    cordon: CordonOpt = [],  # noqa: B006 - Typer reads the default, never mutates it
    drain: DrainOpt = [],  # noqa: B006
    remove: RemoveOpt = [],  # noqa: B006
    add_nodes: AddNodesOpt = [],  # noqa: B006
    like: LikeOpt = [],  # noqa: B006
    in_: InOpt = [],  # noqa: B006
    label: LabelOpt = [],  # noqa: B006
    evict: EvictOpt = [],  # noqa: B006
    set_: SetOpt = [],  # noqa: B006
    what_if: WhatIfFileOpt = [],  # noqa: B006
    live: LiveOpt = False,
    context: ContextOpt = None,
    kubeconfig: KubeconfigOpt = None,
    namespace: NamespaceOpt = None,
    request_timeout: RequestTimeoutOpt = None,
    quiet: QuietOpt = False,
    traceback: TracebackOpt = False,
) -> None:
    """Why pod groups do not fit: per domain, and changes verified to make them fit.

    Exit status: 0 every explained group schedulable, 1 some group is not, 2 invalid input.
    """
    from tasplan.cli.explain import run_explain

    source = LiveOptions(live, context, kubeconfig, namespace, request_timeout, quiet)
    from tasplan.load.batch import JobOverrides

    release = ReleaseOptions(kube_version, feature_gates, not no_preempt, scheduler)

    edits = WhatIfOptions(cordon, drain, remove, add_nodes, like, in_, label, evict, set_,
                          what_if, ctx.meta.get(ARGS_KEY))
    run_guarded(lambda: run_explain(targets, cluster, output.value, scheduler_config, source,
                                    width, JobOverrides(gang, topology_key), edits, release,
                                    html), traceback=traceback)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"tasplan {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print the tasplan version and exit.")] = False) -> None:
    """What-if planner for Kubernetes topology-aware workload scheduling (KEP-5732)."""


@app.command(cls=WhatIfCommand)
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
    cordon: CordonOpt = [],  # noqa: B006 - Typer reads the default, never mutates it
    drain: DrainOpt = [],  # noqa: B006
    remove: RemoveOpt = [],  # noqa: B006
    add_nodes: AddNodesOpt = [],  # noqa: B006
    like: LikeOpt = [],  # noqa: B006
    in_: InOpt = [],  # noqa: B006
    label: LabelOpt = [],  # noqa: B006
    evict: EvictOpt = [],  # noqa: B006
    what_if: WhatIfFileOpt = [],  # noqa: B006
    live: LiveOpt = False,
    context: ContextOpt = None,
    kubeconfig: KubeconfigOpt = None,
    namespace: NamespaceOpt = None,
    request_timeout: RequestTimeoutOpt = None,
    quiet: QuietOpt = False,
    traceback: TracebackOpt = False,
) -> None:
    """Where is there room? Per topology domain: nodes, allocatable and free resources, and
    how many pods of each shape fit now and in an empty domain (the planner's own filters).

    Exit status: 0 counted, 2 invalid input.
    """
    from tasplan.cli.capacity import run_capacity

    if output not in ("table", "json", "yaml"):
        raise typer.BadParameter("expected table, json or yaml", param_hint="--output")
    source = LiveOptions(live, context, kubeconfig, namespace, request_timeout, quiet)
    edits = WhatIfOptions(cordon, drain, remove, add_nodes, like, in_, label, evict, [],
                          what_if, ctx.meta.get(ARGS_KEY))
    run_guarded(lambda: run_capacity(cluster, shape, for_, tolerate, levels, depth, output,
                                     svg, html, width, source, edits, color_by, gang),
                traceback=traceback)


@app.command()
def version() -> None:
    """Print the tasplan version."""
    typer.echo(f"tasplan {__version__}")


def main() -> None:
    teardown.enable()
    app(prog_name=Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "tasplan")
