"""Every option of the command line, defined once (httpie's ``cli/definition.py``).

Options one command has alone are typed aliases. The groups several commands share are
frozen dataclasses whose fields carry their definitions (``cli/params.py`` records, made
into Typer options by ``cli/build.py``); a command takes a group as a keyword-only
parameter and is handed one object per group. Nothing here imports Typer: the fast parser
builds the same objects without it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from tasplan.cli.params import Argument, Option
from tasplan.schedulers.interface import AUTO

if TYPE_CHECKING:
    from tasplan.load.batch import JobOverrides
    from tasplan.model.snapshot import ClusterSnapshot
    from tasplan.schedulers.interface import Scheduler
    from tasplan.schedulers.kueue.scheduler import KueueScheduler
    from tasplan.target import Target


WorkloadArgs = Annotated[list[Path], Argument(
    metavar="WORKLOAD",
    help="Workload files or directories: the manifests to plan (Workload API objects, Pods, "
    "Jobs, training and serving kinds such as TrainJob or RayCluster).",
    show_default=False)]
FilenameOpt = Annotated[list[Path], Option(
    "--filename", "-f", metavar="FILE", show_default=False,
    help="A workload file or directory, as kubectl's -f (repeatable; the same as giving it "
    "as an argument; - reads stdin).")]
ClusterOpt = Annotated[list[Path], Option(
    "--cluster", "-c", metavar="PATH", help="Cluster snapshot file or directory (kubectl get "
    "-o yaml|json); repeatable.", show_default=False)]
OutputOpt = Annotated[str, Option(
    "--output", "-o", metavar="table|wide|json|yaml|name|jsonpath=TEMPLATE",
    help="Output format, as kubectl's: wide adds columns; name prints kind.group/name of "
    "each object; jsonpath=TEMPLATE (or jsonpath-file=FILE) prints fields of the JSON "
    "report, e.g. -o jsonpath='{.groups[*].selected}'.")]
WidthOpt = Annotated[int | None, Option(
    "--width", min=20, metavar="COLUMNS", show_default=False,
    help="Fit tables into this many columns by leaving out optional columns; names are never "
    "cut. Default: the terminal's width, or the content's width when stdout is not a terminal.")]
AllPlacementsOpt = Annotated[bool, Option(
    "--all-placements", help="List every candidate placement (explain: every domain), not "
    "only the 10 best (JSON always lists them all).")]
HtmlOpt = Annotated[str | None, Option(
    "--html", metavar="FILE", show_default=False,
    help="Also write the report as one HTML page: per group the topology map with its "
    "candidate placements, the ranked placements and the assignments (nothing fetched; "
    "prints).")]
TracebackOpt = Annotated[bool, Option(
    "--traceback", help="On an error, show the Python traceback instead of one line (for bug "
    "reports).")]


@dataclass(frozen=True)
class JobOptions:
    """How pod-producing objects without scheduling of their own are grouped."""

    gang: Annotated[int | None, Option(
        "--gang", min=1, metavar="MINCOUNT",
        help="Plan pod-producing objects without their own scheduling (a plain Job, JobSet, "
        "LeaderWorkerSet, Deployment, ...) as a gang with this minCount.")] = None
    topology_key: Annotated[str | None, Option(
        "--topology-key", metavar="KEY",
        help="Topology key for pod-producing objects without their own scheduling (e.g. a "
        "rack label).")] = None

    def overrides(self) -> JobOverrides:
        from tasplan.load.batch import JobOverrides

        return JobOverrides(self.gang, self.topology_key)


class PdbAllowance(StrEnum):
    """How preemption counts PodDisruptionBudgets without a status: the values of
    ``preemption.budgets`` STATUS and COMPUTED (written out: that module loads the model)."""

    status = "status"
    computed = "computed"


@dataclass(frozen=True)
class PlanOptions:
    """Which scheduler, profile and release the groups are planned for."""

    scheduler_config: Annotated[Path | None, Option(
        "--scheduler-config", metavar="FILE", show_default=False,
        help="KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1): pods are planned "
        "with the profile of their schedulerName. Default: kube-scheduler's default "
        "profile.")] = None
    kube_version: Annotated[str | None, Option(
        "--kube-version", metavar="1.35|1.36|1.37|1.38", show_default=False,
        help="Kubernetes release to plan for: API versions, feature gates, fast paths and "
        "preemption follow it. Default: the cluster's version (--live, tasplan snapshots), "
        "else 1.37.")] = None
    feature_gates: Annotated[str | None, Option(
        "--feature-gates", metavar="Name=bool,...", show_default=False,
        help="kube-scheduler feature gates (GenericWorkload, TopologyAwareWorkloadScheduling, "
        "WorkloadAwarePreemption, PodGroupPreemptionPolicy, ...). Gates the inputs need are "
        "assumed on unless set here.")] = None
    scheduler: Annotated[str, Option(
        "--scheduler", metavar="|".join(scheduler_names()),
        help="The scheduler to plan for. auto: each group's, from what it asks for (e.g. "
        "pods' schedulerName or a scheduler's labels), else kube-scheduler.")] = AUTO
    no_preempt: Annotated[bool, Option(
        "--no-preempt", help="Plan as if preemption were off: the plain verdict, no "
        "victims.")] = False
    kueue_version: Annotated[str | None, Option(
        "--kueue-version", metavar="0.17|0.18|0.19|0.20", show_default=False,
        help="Kueue release for --scheduler kueue: its feature gates' defaults. Default: "
        "0.20.")] = None
    peer_feature_gates: Annotated[str | None, Option(
        "--peer-feature-gates", metavar="Name=bool,...", show_default=False,
        help="Kueue's own feature gates (TASBalancedPlacement, TASProfileMixed, "
        "TASMultiLayerTopology, TASRespectNodeAffinityPreferred, ...) for --scheduler "
        "kueue.")] = None
    pdb_allowance: Annotated[PdbAllowance, Option(
        "--pdb-allowance", help="PodDisruptionBudgets without a status: 'status' counts "
        "them as allowing no disruption, as kube-scheduler does until the disruption "
        "controller writes one; 'computed' uses what the controller will compute from the "
        "spec.")] = PdbAllowance.status

    @property
    def preempt(self) -> bool:
        return not self.no_preempt

    def check(self) -> None:
        """Usage errors before anything is read."""
        from tasplan.schedulers.registry import check_choice, in_tree_schedulers
        from tasplan.target import parse_gates, parse_version

        parse_gates(self.feature_gates)
        if self.kube_version:
            parse_version(self.kube_version)
        check_choice(self.scheduler, in_tree_schedulers())
        self.kueue()

    def kueue(self) -> KueueScheduler:
        """Kueue's scheduler for --kueue-version and its --peer-feature-gates."""
        from tasplan.schedulers.kueue import gates
        from tasplan.schedulers.kueue.scheduler import KueueScheduler

        release = gates.release_of(self.kueue_version) if self.kueue_version else gates.NEWEST
        return KueueScheduler(release, gates.parse_overrides(self.peer_feature_gates or ""))

    def schedulers(self) -> dict[str, Scheduler]:
        """The registry with Kueue configured as asked."""
        from tasplan.schedulers.registry import in_tree_schedulers

        return in_tree_schedulers(kueue=self.kueue())

    def target(self, snapshot: ClusterSnapshot) -> Target:
        from tasplan.schedulers.planner import target_for
        from tasplan.target import parse_gates

        return target_for(snapshot, self.kube_version, parse_gates(self.feature_gates))



def scheduler_names() -> tuple[str, ...]:
    """What ``--scheduler`` takes (the help's metavar; imports the registry)."""
    from tasplan.schedulers.registry import names

    return names()
