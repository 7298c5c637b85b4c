"""The one path every command that plans or counts takes: usage errors before anything is
read, the inputs loaded (files and ``--live``) under a status line, the what-if edits
applied."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tasplan.cli.definition import JobOptions, PlanOptions
from tasplan.cli.live import LiveOptions, cluster_source
from tasplan.cli.whatif import WhatIfOptions
from tasplan.load.loader import load_inputs
from tasplan.whatif.apply import WhatIf, apply_edits

if TYPE_CHECKING:
    from tasplan.framework.profile import SchedulerConfig
    from tasplan.model.snapshot import ClusterSnapshot


@dataclass
class Session:
    """One command's inputs. ``quiet``: no status line (``--quiet``, or stderr is not a
    terminal)."""

    live: LiveOptions = field(default_factory=LiveOptions)
    what_if: WhatIfOptions = field(default_factory=WhatIfOptions)
    plan: PlanOptions | None = None
    jobs: JobOptions = field(default_factory=JobOptions)

    def __post_init__(self) -> None:
        self._err = None
        self.quiet = self.live.quiet or not _maybe_terminal()
        if not self.quiet:
            from rich.console import Console

            self._err = Console(stderr=True)
            self.quiet = not self._err.is_terminal

    def status(self, text: str) -> AbstractContextManager:
        return nullcontext() if self._err is None or self.quiet else self._err.status(text)

    def load(self, workloads: Sequence[Path], clusters: Sequence[Path], *,
             check: Callable[[ClusterSnapshot], None] | None = None) -> Loaded:
        """The snapshot the command works on. The (small) configuration and edits are read
        first, so a bad one fails before a large cluster is; ``check`` sees the snapshot
        before the edits."""
        plan = self.plan
        config = None
        if plan is not None and plan.scheduler_config:
            from tasplan.plugins.config import load_scheduler_config

            config = load_scheduler_config(plan.scheduler_config)
        edits = self.what_if.edits()
        if plan is not None:
            plan.check()
        documents = cluster_source(self.live)
        with self.status("loading inputs…"):
            snapshot = load_inputs(list(workloads), list(clusters),
                                   jobs=self.jobs.overrides(), cluster_documents=documents,
                                   namespace=self.live.namespace)
            if check is not None:
                check(snapshot)
            edited = apply_edits(snapshot, edits)
        return Loaded(edited.snapshot, edited, config)


@dataclass(frozen=True)
class Loaded:
    """``snapshot``: after the what-if edits, which ``edited`` lists."""

    snapshot: ClusterSnapshot
    edited: WhatIf
    config: SchedulerConfig | None


def _maybe_terminal() -> bool:
    """False where Rich would not call stderr a terminal either (not a TTY, neither
    FORCE_COLOR nor TTY_COMPATIBLE set): Rich is then not imported for the status line."""
    stream = sys.stderr
    isatty = getattr(stream, "isatty", None)
    try:
        tty = bool(isatty and isatty())
    except ValueError:  # closed
        tty = False
    return tty or "FORCE_COLOR" in os.environ or "TTY_COMPATIBLE" in os.environ
