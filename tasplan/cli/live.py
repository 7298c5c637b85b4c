"""The live-cluster options every command that reads a cluster shares, and
``cluster_source``: those options -> the cluster documents for the loader."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from tasplan.cli.params import Option
from tasplan.errors import UsageError
from tasplan.limits import REQUEST_TIMEOUT

if TYPE_CHECKING:  # the kubernetes client and Rich are imported only when --live asks
    from rich.console import Console

    from tasplan.live.lister import ListProgress
    from tasplan.load.document import Document

@dataclass(frozen=True)
class LiveOptions:
    """The options of every command that reads a cluster."""

    live: Annotated[bool, Option(
        "--live", help="Read the cluster of the kubeconfig's current context (read-only: GET "
        "requests only).")] = False
    context: Annotated[str | None, Option(
        "--context", metavar="NAME", help="kubeconfig context to use (with --live).",
        show_default=False)] = None
    kubeconfig: Annotated[str | None, Option(
        "--kubeconfig", metavar="PATH", help="kubeconfig file (default: $KUBECONFIG, then "
        "~/.kube/config; in a pod, its service account).", show_default=False)] = None
    namespace: Annotated[str | None, Option(
        "--namespace", "-n", metavar="NS", help="As kubectl's: the namespace of workload "
        "objects that set none (one that sets another is an error); explain looks at this "
        "namespace's groups; with --live, only its pods, pod groups and PDBs are read (nodes "
        "always all).", show_default=False)] = None
    request_timeout: Annotated[str | None, Option(
        "--request-timeout", metavar="DURATION", help="Give up on a request after this long "
        "(30, 30s, 2m, 1h; default and 0: 60s, TASPLAN_REQUEST_TIMEOUT).",
        show_default=False)] = None
    quiet: Annotated[bool, Option(
        "--quiet", "-q", help="No progress output on stderr.")] = False

    def check(self, *, offline_namespace: bool = True) -> None:
        """``offline_namespace``: whether the command gives -n a meaning without --live."""
        if self.live:
            return
        given = [flag for flag, value in (
            ("--context", self.context), ("--kubeconfig", self.kubeconfig),
            ("--namespace", None if offline_namespace else self.namespace),
            ("--request-timeout", self.request_timeout))
            if value is not None]
        if given:
            raise UsageError(f"{', '.join(given)} only apply with --live")


_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m|h)?$")


def parse_timeout(text: str | None) -> float | None:
    """kubectl's --request-timeout: a number of seconds or a duration; 0 = no limit."""
    if text is None:
        return None
    match = _DURATION.match(text.strip())
    if not match:
        raise UsageError(f"--request-timeout: expected a duration such as 30s or 2m, got "
                         f"{text!r}")
    value = float(match.group(1)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600, None: 1}[
        match.group(2)]
    if value > REQUEST_TIMEOUT.maximum:  # a socket timeout must fit the C timeval
        raise UsageError(f"--request-timeout: {text.strip()[:40]!r} is longer than the "
                         f"longest timeout tasplan takes ({REQUEST_TIMEOUT.maximum / 3600:g}h)")
    return value or None


def read_live(options: LiveOptions) -> dict[str, Any]:
    """The live cluster's snapshot document; progress and warnings on stderr."""
    from rich.console import Console

    from tasplan.live.cluster import read_cluster
    from tasplan.live.config import connect

    timeout = parse_timeout(options.request_timeout)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    connection = connect(options.kubeconfig, options.context)
    try:
        if err.is_terminal and not options.quiet:
            with _progress(err) as report:
                document, warnings = read_cluster(
                    connection, namespace=options.namespace or "", timeout=timeout,
                    progress=report)
        else:
            document, warnings = read_cluster(connection, namespace=options.namespace or "",
                                              timeout=timeout)
    finally:
        connection.close()
    for warning in warnings:
        err.print(f"warning: {warning}", markup=False)
    return document


def cluster_source(options: LiveOptions) -> list[Document]:
    """Documents for ``load_inputs(cluster_documents=...)``: the live cluster when --live,
    else none (the --cluster files are read by the loader itself)."""
    options.check()
    if not options.live:
        return []
    from tasplan.load.documents import parsed_documents

    document = read_live(options)
    origin = document["metadata"]
    label = f"<live {origin.get('context') or origin.get('cluster')}>"
    return list(parsed_documents(label, [document], workload=False))


class _progress:
    """A Rich status line on stderr: resource, objects listed, bytes, rate."""

    def __init__(self, console: Console) -> None:
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self.bar = Progress(SpinnerColumn(), TextColumn("{task.description}"),
                            TimeElapsedColumn(), console=console, transient=True)
        self.task = self.bar.add_task("connecting…", total=None)

    def __enter__(self) -> _progress:
        self.bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.__exit__(*exc)

    def __call__(self, p: ListProgress) -> None:
        rate = p.objects / p.elapsed if p.elapsed > 0 else 0.0
        self.bar.update(self.task, description=(
            f"listing {p.resource}: {p.objects:,} objects, {p.bytes / 1e6:,.1f} MB, "
            f"{rate:,.0f} objects/s"))
