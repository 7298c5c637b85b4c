"""tasplan: what-if planning of Kubernetes topology-aware workload scheduling (KEP-5732).

The supported library API; the CLI is a thin shell over these names::

    snapshot = tasplan.load_inputs(["train.yaml"], ["cluster.json"])
    result = tasplan.plan(snapshot)
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tasplan.errors import InputError, TasplanError, UsageError
    from tasplan.framework.profile import SchedulerConfig
    from tasplan.load.batch import JobOverrides
    from tasplan.load.loader import load_inputs
    from tasplan.load.scheduler_config import load_scheduler_config
    from tasplan.model.snapshot import ClusterSnapshot
    from tasplan.plan.planner import plan
    from tasplan.plan.result import GroupResult, PlacementResult, PlanResult
    from tasplan.report.document import plan_document

# Imported on first use: a command that needs only part of the package (lint, --help)
# does not pay for loading the planner, the loaders and the plugins at start-up.
_EXPORTS = {
    "InputError": "tasplan.errors", "TasplanError": "tasplan.errors",
    "UsageError": "tasplan.errors", "SchedulerConfig": "tasplan.framework.profile",
    "JobOverrides": "tasplan.load.batch", "load_inputs": "tasplan.load.loader",
    "load_scheduler_config": "tasplan.load.scheduler_config",
    "ClusterSnapshot": "tasplan.model.snapshot", "plan": "tasplan.plan.planner",
    "GroupResult": "tasplan.plan.result", "PlacementResult": "tasplan.plan.result",
    "PlanResult": "tasplan.plan.result", "plan_document": "tasplan.report.document",
}


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tasplan' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


__version__ = "0.1.0"

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
