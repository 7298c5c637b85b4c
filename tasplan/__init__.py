"""tasplan: what-if planning of Kubernetes topology-aware workload scheduling (KEP-5732).

The supported library API; the CLI is a thin shell over these names::

    snapshot = tasplan.load_inputs(["train.yaml"], ["cluster.json"])
    result = tasplan.plan(snapshot)
"""

from tasplan.errors import InputError, TasplanError, UsageError
from tasplan.framework.profile import SchedulerConfig
from tasplan.load.batch import JobOverrides
from tasplan.load.loader import load_inputs
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.result import GroupResult, PlacementResult, PlanResult
from tasplan.plugins.config import load_scheduler_config
from tasplan.report.document import plan_document
from tasplan.schedulers.planner import plan
from tasplan.version import __version__

__all__ = [
    "ClusterSnapshot",
    "GroupResult",
    "InputError",
    "JobOverrides",
    "PlacementResult",
    "PlanResult",
    "SchedulerConfig",
    "TasplanError",
    "UsageError",
    "__version__",
    "load_inputs",
    "load_scheduler_config",
    "plan",
    "plan_document",
]
