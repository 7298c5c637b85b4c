"""The schedulers tasplan plans for, by name. ``auto`` asks them in this order whether they
claim a group; kube-scheduler plans every group none claims."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from tasplan.errors import UsageError
from tasplan.model.scheduling_keys import KUBE_SCHEDULER
from tasplan.schedulers.interface import AUTO, Scheduler
from tasplan.schedulers.kai import KAI
from tasplan.schedulers.volcano import VOLCANO

if TYPE_CHECKING:
    from tasplan.schedulers.kube.scheduler import KubeScheduler
    from tasplan.schedulers.kueue.scheduler import KueueScheduler

DEFAULT = KUBE_SCHEDULER
# The registered names in claim order, known without importing a scheduler (``--help``
# lists them); tests/schedulers/test_interface.py checks them against the instances.
NAMES = (KUBE_SCHEDULER, "kueue", KAI, VOLCANO)


def in_tree_schedulers(kube: KubeScheduler | None = None,
                       kueue: KueueScheduler | None = None) -> dict[str, Scheduler]:
    """Every registered scheduler by name, in claim order (``kube``: the kube-scheduler
    instance to use, e.g. with explain's hook; ``kueue``: Kueue's, for a release and its
    gates)."""
    from tasplan.schedulers.kai.scheduler import KaiScheduler
    from tasplan.schedulers.kube.scheduler import KubeScheduler
    from tasplan.schedulers.kueue.scheduler import KueueScheduler
    from tasplan.schedulers.volcano.scheduler import VolcanoScheduler

    schedulers: list[Scheduler] = [kube or KubeScheduler(), kueue or KueueScheduler(),
                                   KaiScheduler(), VolcanoScheduler()]
    return {s.name: s for s in schedulers}


def names() -> tuple[str, ...]:
    """What ``--scheduler`` takes."""
    return (AUTO, *NAMES)


def check_choice(choice: str, schedulers: Mapping[str, Scheduler]) -> None:
    if choice != AUTO and choice not in schedulers:
        known = ", ".join([AUTO, *schedulers])
        raise UsageError(f"unknown scheduler {choice!r}: expected one of {known}")
