"""Every option of the command line, defined once (httpie's ``cli/definition.py``).

Options one command has alone are typed aliases. The groups several commands share are
frozen dataclasses whose fields carry their Typer definitions: ``command`` turns a function
that takes such groups (keyword-only parameters annotated with the group's class) into a
Typer command that takes the groups' options, and hands the function one object per group.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Collection
from dataclasses import MISSING, dataclass, fields, is_dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, get_type_hints

import typer

from tasplan.load.batch import JobOverrides
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.preemption.budgets import COMPUTED, STATUS
from tasplan.schedulers.interface import AUTO, Scheduler
from tasplan.schedulers.kueue.scheduler import KueueScheduler
from tasplan.schedulers.registry import check_choice, in_tree_schedulers, names
from tasplan.target import Target, parse_gates, parse_version


class Output(StrEnum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"


WorkloadArgs = Annotated[list[Path], typer.Argument(
    help="Workload files or directories: Workload, PodGroup, Pod and Job manifests to plan.",
    show_default=False)]
ClusterOpt = Annotated[list[Path], typer.Option(
    "--cluster", "-c", help="Cluster snapshot file or directory (kubectl get -o yaml|json); "
    "repeatable.", show_default=False)]
OutputOpt = Annotated[Output, typer.Option("--output", "-o", help="Output format.")]
WidthOpt = Annotated[int | None, typer.Option(
    "--width", min=20, metavar="COLUMNS", show_default=False,
    help="Fit tables into this many columns by leaving out optional columns; names are never "
    "cut. Default: the terminal's width, or the content's width when stdout is not a terminal.")]
HtmlOpt = Annotated[str | None, typer.Option(
    "--html", metavar="FILE", show_default=False,
    help="Also write the report as one HTML page: per group the topology map with its "
    "candidate placements, the ranked placements and the assignments (nothing fetched; "
    "prints).")]
TracebackOpt = Annotated[bool, typer.Option(
    "--traceback", help="On an error, show the Python traceback instead of one line (for bug "
    "reports).")]


@dataclass(frozen=True)
class JobOptions:
    """How pod-producing objects without scheduling of their own are grouped."""

    gang: Annotated[int | None, typer.Option(
        "--gang", min=1, metavar="MINCOUNT",
        help="Plan pod-producing objects without their own scheduling (a plain Job, JobSet, "
        "LeaderWorkerSet, Deployment, ...) as a gang with this minCount.")] = None
    topology_key: Annotated[str | None, typer.Option(
        "--topology-key", metavar="KEY",
        help="Topology key for pod-producing objects without their own scheduling (e.g. a "
        "rack label).")] = None

    def overrides(self) -> JobOverrides:
        return JobOverrides(self.gang, self.topology_key)


class PdbAllowance(StrEnum):
    """How preemption counts PodDisruptionBudgets without a status (preemption.budgets)."""

    status = STATUS
    computed = COMPUTED


@dataclass(frozen=True)
class PlanOptions:
    """Which scheduler, profile and release the groups are planned for."""

    scheduler_config: Annotated[Path | None, typer.Option(
        "--scheduler-config", metavar="FILE", show_default=False,
        help="KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1): pods are planned "
        "with the profile of their schedulerName. Default: kube-scheduler's default "
        "profile.")] = None
    kube_version: Annotated[str | None, typer.Option(
        "--kube-version", metavar="1.35|1.36|1.37|1.38", show_default=False,
        help="Kubernetes release to plan for: API versions, feature gates, fast paths and "
        "preemption follow it. Default: the cluster's version (--live, tasplan snapshots), "
        "else 1.37.")] = None
    feature_gates: Annotated[str | None, typer.Option(
        "--feature-gates", metavar="Name=bool,...", show_default=False,
        help="kube-scheduler feature gates (GenericWorkload, TopologyAwareWorkloadScheduling, "
        "WorkloadAwarePreemption, PodGroupPreemptionPolicy, ...). Gates the inputs need are "
        "assumed on unless set here.")] = None
    scheduler: Annotated[str, typer.Option(
        "--scheduler", metavar="|".join(names()),
        help="The scheduler to plan for. auto: each group's, from what it asks for (e.g. "
        "pods' schedulerName or a scheduler's labels), else kube-scheduler.")] = AUTO
    no_preempt: Annotated[bool, typer.Option(
        "--no-preempt", help="Plan as if preemption were off: the plain verdict, no "
        "victims.")] = False
    kueue_version: Annotated[str | None, typer.Option(
        "--kueue-version", metavar="0.17|0.18|0.19|0.20", show_default=False,
        help="Kueue release for --scheduler kueue: its feature gates' defaults. Default: "
        "0.20.")] = None
    peer_feature_gates: Annotated[str | None, typer.Option(
        "--peer-feature-gates", metavar="Name=bool,...", show_default=False,
        help="Kueue's own feature gates (TASBalancedPlacement, TASProfileMixed, "
        "TASMultiLayerTopology, TASRespectNodeAffinityPreferred, ...) for --scheduler "
        "kueue.")] = None
    pdb_allowance: Annotated[PdbAllowance, typer.Option(
        "--pdb-allowance", help="PodDisruptionBudgets without a status: 'status' counts "
        "them as allowing no disruption, as kube-scheduler does until the disruption "
        "controller writes one; 'computed' uses what the controller will compute from the "
        "spec.")] = PdbAllowance.status

    @property
    def preempt(self) -> bool:
        return not self.no_preempt

    def check(self) -> None:
        """Usage errors before anything is read."""
        parse_gates(self.feature_gates)
        if self.kube_version:
            parse_version(self.kube_version)
        check_choice(self.scheduler, in_tree_schedulers())
        self.kueue()

    def kueue(self) -> KueueScheduler:
        """Kueue's scheduler for --kueue-version and its --peer-feature-gates."""
        from tasplan.schedulers.kueue import gates

        release = gates.release_of(self.kueue_version) if self.kueue_version else gates.NEWEST
        return KueueScheduler(release, gates.parse_overrides(self.peer_feature_gates or ""))

    def schedulers(self) -> dict[str, Scheduler]:
        """The registry with Kueue configured as asked."""
        return in_tree_schedulers(kueue=self.kueue())

    def target(self, snapshot: ClusterSnapshot) -> Target:
        from tasplan.schedulers.planner import target_for

        return target_for(snapshot, self.kube_version, parse_gates(self.feature_gates))


def command(app: typer.Typer, *, exclude: Collection[str] = (),
            **settings: Any) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``app.command(**settings)`` for a function whose keyword-only parameters annotated
    with an option group (a dataclass) stand for the group's options, in field order.
    ``exclude``: fields left out of this command (they keep their defaults). A group with
    a ``with_context(ctx)`` method gets the command's ``typer.Context`` (``ctx`` parameter)."""
    def decorate(func: Callable[..., None]) -> Callable[..., None]:
        hints = get_type_hints(func, include_extras=True)
        params: list[inspect.Parameter] = []
        groups: dict[str, type] = {}
        for p in inspect.signature(func).parameters.values():
            group = hints[p.name]
            if p.kind is not inspect.Parameter.KEYWORD_ONLY or not is_dataclass(group):
                params.append(p.replace(annotation=hints[p.name]))
                continue
            groups[p.name] = group
            group_hints = get_type_hints(group, include_extras=True)
            params += [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY,
                                         default=_default(f), annotation=group_hints[f.name])
                       for f in _options(group) if f.name not in exclude]

        @functools.wraps(func)
        def run(**kwargs: Any) -> None:
            ctx = kwargs.get("ctx")
            for name, group in groups.items():
                values = {f.name: kwargs.pop(f.name) for f in _options(group)
                          if f.name in kwargs}
                kwargs[name] = made = group(**values)
                if ctx is not None and hasattr(made, "with_context"):
                    kwargs[name] = made.with_context(ctx)
            func(**kwargs)

        del run.__wrapped__  # Typer reads the signature below, not the function's
        run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in params}
        return app.command(**settings)(run)

    return decorate


def _options(group: type) -> list:
    """The group's fields that are options (carry a Typer definition)."""
    hints = get_type_hints(group, include_extras=True)
    return [f for f in fields(group) if getattr(hints[f.name], "__metadata__", None)]


def _default(f: Any) -> Any:
    if f.default is not MISSING:
        return f.default
    return f.default_factory()  # a list option: Typer reads the default, never mutates it
