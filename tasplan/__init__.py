"""tasplan: what-if planning of Kubernetes topology-aware workload scheduling (KEP-5732).

The supported library API; the CLI is a thin shell over these names::

    snapshot = tasplan.load_inputs(["train.yaml"], ["cluster.json"])
    result = tasplan.plan(snapshot)

The names are imported when first used (PEP 562), so that ``import tasplan.cli...`` (every
command, ``--version``) does not pay for the whole library.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from tasplan.version import __version__

if TYPE_CHECKING:
    from tasplan.errors import InputError, TasplanError, UsageError
    from tasplan.framework.profile import SchedulerConfig
    from tasplan.load.batch import JobOverrides
    from tasplan.load.loader import load_inputs
    from tasplan.model.snapshot import ClusterSnapshot
    from tasplan.plan.result import GroupResult, PlacementResult, PlanResult
    from tasplan.plugins.config import load_scheduler_config
    from tasplan.report.document import plan_document
    from tasplan.schedulers.planner import plan

_WHERE = {
    "ClusterSnapshot": "tasplan.model.snapshot",
    "GroupResult": "tasplan.plan.result",
    "InputError": "tasplan.errors",
    "JobOverrides": "tasplan.load.batch",
    "PlacementResult": "tasplan.plan.result",
    "PlanResult": "tasplan.plan.result",
    "SchedulerConfig": "tasplan.framework.profile",
    "TasplanError": "tasplan.errors",
    "UsageError": "tasplan.errors",
    "load_inputs": "tasplan.load.loader",
    "load_scheduler_config": "tasplan.plugins.config",
    "plan": "tasplan.schedulers.planner",
    "plan_document": "tasplan.report.document",
}

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


# The subpackage tasplan.plan, once imported, would be set as this module's attribute
# ``plan`` and hide the function: import it now (a docstring) and drop the attribute, so that
# ``tasplan.plan`` is always the function, resolved below.
importlib.import_module("tasplan.plan")
del globals()["plan"]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'tasplan' has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})
