"""The commands: each a thin shell that turns its options into option groups
(``definition``) and runs its ``run_*`` function; and the one place where exceptions become
exit codes (httpie's pattern).

The signatures are the command line (``cli/build.py`` makes them Typer commands, the fast
parser reads them through ``cli/spec.py``); nothing here imports Typer, Rich or what a
command does not run.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Annotated, Any

from tasplan.cli import teardown
from tasplan.cli.definition import (
    AllPlacementsOpt,
    ClusterOpt,
    FilenameOpt,
    HtmlOpt,
    JobOptions,
    OutputOpt,
    PlanOptions,
    TracebackOpt,
    WidthOpt,
    WorkloadArgs,
)
from tasplan.cli.exit_status import ExitStatus
from tasplan.cli.lint import LintFormat
from tasplan.cli.live import LiveOptions
from tasplan.cli.params import Argument, Option
from tasplan.cli.whatif import WhatIfOptions
from tasplan.errors import InputError, InternalError, TasplanError, UsageError
from tasplan.stdio import OutputError
from tasplan.version import __version__

__all__ = ["Argument", "Option"]  # the signatures' annotations name them


def invoke(name: str, kwargs: dict[str, Any], args: list[str] | None) -> int:
    """Run command ``name`` with its options as Typer (or the fast parser) hands them: one
    keyword per option, gathered here into the objects of the command's option groups;
    ``args``: the arguments as given."""
    func = globals()[name]
    kwargs = dict(kwargs)
    for param, group in groups_of(func).items():
        values = {f.name: kwargs.pop(f.name) for f in fields(group) if f.name in kwargs}
        made = group(**values)
        kwargs[param] = made.with_args(args) if hasattr(made, "with_args") else made
    return func(**kwargs)


def groups_of(func: Callable[..., int]) -> dict[str, type]:
    """The parameters of ``func`` annotated with an option group (a dataclass of this
    module's namespace), read from the annotations' names without evaluating them."""
    groups = {name: globals().get(annotation)
              for name, annotation in func.__annotations__.items() if name != "return"}
    return {name: group for name, group in groups.items() if is_dataclass(group)}


def run_guarded(body: Callable[[], int], *, traceback: bool) -> int:
    """Run a command body; bad input is one line on stderr and exit 2, never a traceback.
    A real process (teardown skipped) ends here; in-process callers get the code."""
    try:
        code = body()
    except (InputError, UsageError, OutputError) as exc:
        if traceback:
            raise
        _error(f"error: {exc}")
        code = ExitStatus.INVALID
    except KeyboardInterrupt:
        code = ExitStatus.INTERRUPTED
    except (InternalError, TasplanError, Exception) as exc:
        if traceback:
            raise
        _error(f"internal error: {type(exc).__name__}: {exc} (run with --traceback for "
               "details and report it)")
        code = ExitStatus.INTERNAL
    if teardown.enabled():
        teardown.exit_now(int(code))
    return int(code)


def _error(text: str) -> None:
    from rich.console import Console  # only when there is an error to print

    Console(stderr=True, highlight=False, soft_wrap=True).print(text, markup=False)


def check(
    workloads: WorkloadArgs = [],  # noqa: B006 - never mutated
    filename: FilenameOpt = [],  # noqa: B006
    cluster: ClusterOpt = [],  # noqa: B006
    output: OutputOpt = "table",
    all_assignments: Annotated[bool, Option(
        "--all", help="Show assignments for every feasible placement.")] = False,
    every_placement: AllPlacementsOpt = False,
    html: HtmlOpt = None,
    compare: Annotated[bool, Option(
        "--compare", help="Also plan each group under every scheduler its intent translates "
        "to (kube-scheduler, Kueue, KAI, Volcano), side by side; JSON: comparisons.")] = False,
    *,
    jobs: JobOptions,
    width: WidthOpt = None,
    plan: PlanOptions,
    what_if: WhatIfOptions,
    live: LiveOptions,
    traceback: TracebackOpt = False,
) -> int:
    """Plan pod groups into the cluster: ranked placements and pod -> node assignments.

    Exit status: 0 every group scheduled (possibly after preemption), 1 some group is not,
    2 invalid input, 4 nothing planned or an object of the inputs could not be (see skipped).
    """
    from tasplan.cli.check import run_check
    from tasplan.cli.session import Session

    session = Session(live, what_if, plan, jobs)
    return run_guarded(lambda: run_check([*workloads, *filename], cluster, output,
                                         all_assignments, session, width, html,
                                         every_placement=every_placement, compare=compare),
                       traceback=traceback)


def lint(
    paths: Annotated[list[str], Argument(
        metavar="PATH",
        help="Manifest files or directories; '-' reads file names from stdin, one a line "
        "(git ls-files '*.yaml' | tasplan lint -).", show_default=False)],
    cluster: Annotated[list[Path], Option(
        "--cluster", "-c", metavar="PATH", help="Also check against this cluster snapshot "
        "(file or directory; repeatable): topology keys, capacity, taints, selectors.",
        show_default=False)] = [],  # noqa: B006
    output: Annotated[LintFormat, Option("--output", "-o", help="Output format.")]
    = LintFormat.text,
    strict: Annotated[bool, Option(
        "--strict", help="Unknown fields are errors, and warnings fail the run.")] = False,
    summary: Annotated[bool, Option(
        "--summary", help="Print counts (to stderr for the machine-readable formats).")]
    = False,
    namespace: Annotated[str, Option(
        "--namespace", "-n", metavar="NS",
        help="Namespace of objects that set none (as kubectl apply -n).")]
    = "default",
    kube_version: Annotated[str | None, Option(
        "--kube-version", metavar="1.35|1.36|1.37|1.38", show_default=False,
        help="Accept only the scheduling.k8s.io versions this Kubernetes release serves.")]
    = None,
    traceback: TracebackOpt = False,
) -> int:
    """Lint the manifests you submit, for CI (--cluster: also capacity).

    Workload API objects, Pods, workload controllers and the training/serving kinds check
    expands (TrainJob, PyTorchJob, MPIJob, RayCluster, JobSet, ...), Kueue, KAI and Volcano
    objects: schema, references, gang sizes, scheduler webhooks' rules; with --cluster also
    topology keys, capacity, taints and selectors. Kinds that make no pods are skipped.

    Exit status: 0 clean, 1 error findings (or any finding with --strict), 2 unreadable
    input or usage error.
    """
    from tasplan.cli.lint import run_lint

    return run_guarded(lambda: run_lint(paths, cluster, output.value, strict, summary,
                                        namespace, kube_version), traceback=traceback)


def snapshot(
    output_file: Annotated[str | None, Option(
        "--output-file", "-f", metavar="FILE", show_default=False,
        help="Snapshot file to write (.tsnap: binary; .gz: gzip; - : stdout).")] = None,
    output: Annotated[str | None, Option(
        "--output", "-o", metavar="FILE", show_default=False,
        help="The same as --output-file (kept for existing scripts; a format name such as "
        "'json' is refused).")] = None,
    cluster: ClusterOpt = [],  # noqa: B006 - never mutated
    as_list: Annotated[bool, Option(
        "--as-list", help="Write a plain v1 List (pods expanded) that kubectl-style readers "
        "understand; larger and slower to reload.")] = False,
    file_format: Annotated[str | None, Option(
        "--format", metavar="json|binary", show_default=False,
        help="json (readable) or binary (a fifth smaller, checked as strictly at any size). "
        "Default: binary for a .tsnap file name, else json.")] = None,
    *,
    live: LiveOptions,
    traceback: TracebackOpt = False,
) -> int:
    """Write the scheduling-relevant state of a cluster (--live) or of kubectl dumps
    (--cluster) as a portable snapshot that --cluster reads back ~4x faster.

    JSON by default; binary with --format binary or a .tsnap file name. --cluster reads
    both, recognising a binary snapshot by its contents.
    """
    from tasplan.cli.snapshot import file_format as chosen_format
    from tasplan.cli.snapshot import output_path, run_snapshot

    return run_guarded(lambda: run_snapshot(
        output_path(output_file, output), cluster, live, as_list,
        chosen_format(file_format, output_file or output, as_list)), traceback=traceback)


def explain(
    targets: Annotated[list[str], Argument(
        metavar="TARGET",
        help="'unschedulable' (every pending group of the inputs), group names (ns/name; a "
        "bare name with -n) or workload files and directories.", show_default=False)
    ] = [],  # noqa: B006 - never mutated
    filename: FilenameOpt = [],  # noqa: B006
    cluster: ClusterOpt = [],  # noqa: B006
    output: OutputOpt = "table",
    every_placement: AllPlacementsOpt = False,
    html: HtmlOpt = None,
    *,
    jobs: JobOptions,
    width: WidthOpt = None,
    plan: PlanOptions,
    what_if: WhatIfOptions,
    live: LiveOptions,
    traceback: TracebackOpt = False,
) -> int:
    """Why pod groups do not fit: per domain, and changes verified to make them fit.

    Exit status: 0 every explained group schedulable, 1 some group is not, 2 invalid input.
    """
    from tasplan.cli.explain import run_explain
    from tasplan.cli.session import Session

    session = Session(live, what_if, plan, jobs)
    return run_guarded(lambda: run_explain([*targets, *map(str, filename)], cluster,
                                           output, session, width, html,
                                           every_placement=every_placement), traceback=traceback)


def capacity(
    cluster: ClusterOpt = [],  # noqa: B006 - never mutated
    shape: Annotated[list[str], Option(
        "--shape", metavar="RESOURCE=QTY,...", show_default=False,
        help="A pod shape to count (repeatable), e.g. cpu=48,memory=256Gi,nvidia.com/gpu=8.")
    ] = [],  # noqa: B006
    for_: Annotated[list[Path], Option(
        "--for", metavar="WORKLOAD", show_default=False,
        help="Take shapes from the pending pods of workload files (their tolerations and "
        "selectors too), one per group.")] = [],  # noqa: B006
    tolerate: Annotated[list[str], Option(
        "--tolerate", metavar="KEY[=VALUE][:EFFECT]", show_default=False,
        help="A toleration of the --shape pods (repeatable), e.g. nvidia.com/gpu:NoSchedule.")
    ] = [],  # noqa: B006
    levels: Annotated[str | None, Option(
        "--levels", metavar="KEY,KEY,...", show_default=False,
        help="Topology keys, outermost first. Default: the well-known keys the nodes carry "
        "(region, zone, block, rack, hostname, ...).")] = None,
    depth: Annotated[int | None, Option(
        "--depth", min=0, metavar="N", show_default=False,
        help="Levels drawn in the tree. Default: all but the hostname.")] = None,
    output: Annotated[str, Option(
        "--output", "-o", metavar="table|json|yaml|jsonpath=TEMPLATE",
        help="Output format (jsonpath as kubectl's, over the JSON report).")] = "table",
    svg: Annotated[str | None, Option(
        "--svg", metavar="FILE", show_default=False,
        help="Also write the topology map: the levels as nested boxes, coloured by "
        "--color-by (one SVG file, nothing fetched).")] = None,
    html: Annotated[str | None, Option(
        "--html", metavar="FILE", show_default=False,
        help="Also write an HTML page: the map and every domain's figures in tables.")
    ] = None,
    color_by: Annotated[str | None, Option(
        "--color-by", metavar="MEASURE", show_default=False,
        help="What colours the map's tiles: now[:SHAPE] (default: pods of shape A that fit "
        "now), empty[:SHAPE], free[:RESOURCE] or free-fraction[:RESOURCE] (default resource: "
        "the GPU, else cpu).")] = None,
    gang: Annotated[int | None, Option(
        "--gang", min=1, metavar="N", show_default=False,
        help="The --shape pods form a gang of N: the tree and the map mark (✓) each domain "
        "where N of them fit now. --for shapes take their group's minCount.")] = None,
    width: WidthOpt = None,
    *,
    what_if: WhatIfOptions,
    live: LiveOptions,
    traceback: TracebackOpt = False,
) -> int:
    """Where is there room? Per topology domain: nodes, allocatable and free resources, and
    how many pods of each shape fit now and in an empty domain (the planner's own filters).

    Exit status: 0 counted, 2 invalid input.
    """
    from tasplan.cli.capacity import run_capacity
    from tasplan.cli.session import Session

    def body() -> int:
        return run_capacity(cluster, shape, for_, tolerate, levels, depth, output, svg, html,
                            width, Session(live, what_if), color_by, gang)

    return run_guarded(body, traceback=traceback)


def version() -> int:
    """Print the tasplan version."""
    sys.stdout.write(f"tasplan {__version__}\n")
    return ExitStatus.OK


# The commands in the order `tasplan --help` lists them, and what each leaves out of its
# option groups (--set changes a pod group: capacity plans none).
COMMANDS: tuple[Callable[..., int], ...] = (check, lint, snapshot, explain, capacity, version)
EXCLUDE = {"capacity": frozenset({"set"})}
