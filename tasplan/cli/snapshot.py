"""``tasplan snapshot``: a live cluster (or kubectl dumps) -> a portable snapshot file."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tasplan.cli import teardown
from tasplan.cli.exit_status import ExitStatus
from tasplan.cli.live import LiveOptions, read_live
from tasplan.errors import UsageError
from tasplan.gc_pause import gc_paused
from tasplan.load.batch import JobOverrides
from tasplan.load.documents import expand_paths, read_documents
from tasplan.load.loader import assemble, require_kind, used_kind
from tasplan.snapshot import format as snapshot_format
from tasplan.snapshot.prune import prune
from tasplan.snapshot.write import BINARY, JSON, format_for, write_snapshot
from tasplan.untrusted import quote
from tasplan.version import __version__

# Names that are output formats elsewhere (-o FORMAT): as a snapshot file name they are
# almost certainly a mistake ("snapshot -o json" used to write a file named "json").
FORMAT_NAMES = {"json", "yaml", "yml", "table", "wide", "text", "junit", "sarif", "github",
                "gz", "gzip"}


def output_path(output_file: str | None, output: str | None) -> str:
    """The file to write: ``--output-file`` (``-f``), or the older ``--output`` (``-o``)."""
    if output_file and output:
        raise UsageError("give the snapshot file once: --output-file (-f) or --output (-o)")
    path = output_file or output
    if not path:
        raise UsageError("name the snapshot file: --output-file FILE (-f FILE; .gz: gzip; "
                         "- : stdout)")
    if path.lower() in FORMAT_NAMES:
        raise UsageError(f"refusing to write a snapshot file named {path!r}: name the file, "
                         "e.g. -f cluster.json (cluster.json.gz for gzip, cluster.tsnap for "
                         "binary, - for stdout); --format json|binary chooses the format")
    return path


def file_format(requested: str | None, path: str | None, as_list: bool) -> str:
    """``--format``, or what the file name asks for (``.tsnap``: binary)."""
    if requested is not None and requested not in (JSON, BINARY):
        raise UsageError(f"--format: expected json or binary, got {quote(requested)}")
    fmt = requested or (format_for(path) if path and path != "-" else JSON)
    if as_list and fmt == BINARY:
        raise UsageError("--as-list writes a plain JSON List; it has no binary form")
    return fmt


def run_snapshot(output: str, clusters: list[Path], options: LiveOptions,
                 as_list: bool, fmt: str = JSON) -> int:
    options.check(offline_namespace=False)
    if options.live == bool(clusters):
        raise UsageError("give either --live or --cluster files to snapshot")
    started = time.monotonic()
    if options.live:
        document = read_live(options)
    else:
        with gc_paused(freeze=True):
            document = _from_files(clusters, started)
    if as_list:
        document = snapshot_format.to_list(document)
    size = write_snapshot(document, output, fmt)
    if not options.quiet and output != "-":
        _summary(output, document, size, time.monotonic() - started)
    teardown.keep(document)
    return ExitStatus.OK


def _from_files(clusters: list[Path], started: float) -> dict[str, Any]:
    """kubectl dumps (or snapshots) -> a snapshot of the objects tasplan reads."""
    docs = [doc for path in clusters for file in expand_paths(path)
            for doc in read_documents(file, workload=False)]
    # Decoded as check decodes them, so a conversion never writes a snapshot that check
    # would refuse (and a malformed snapshot table is reported, not expanded blindly).
    assemble(docs, JobOverrides())
    objects: list[dict[str, Any]] = []
    for doc in docs:
        obj = doc.obj
        require_kind(doc)  # as check and explain: a kind-less object is an error
        if snapshot_format.is_snapshot(obj):
            table = obj.get("pods") or {}
            objects.extend(snapshot_format.expand_pod(table, k)
                           for k in range(len(table.get("name") or ())))
        elif used_kind(obj):
            objects.append(prune(obj))
    origin = snapshot_format.Origin(
        taken_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        duration_seconds=round(time.monotonic() - started, 3), tasplan_version=__version__,
        inputs=tuple(str(p) for p in clusters))
    return snapshot_format.encode(objects, origin)


def _summary(output: str, document: dict[str, Any], size: int, seconds: float) -> None:
    kinds: dict[str, int] = {}
    for item in document.get("items") or ():
        kinds[item.get("kind", "?")] = kinds.get(item.get("kind", "?"), 0) + 1
    pods = document.get("pods")
    if isinstance(pods, dict):
        kinds["Pod"] = len(pods.get("name") or ())
    counts = ", ".join(f"{n:,} {kind}" for kind, n in kinds.items())
    from rich.console import Console  # the one line on stderr

    Console(stderr=True, highlight=False, soft_wrap=True).print(
        f"wrote {output}: {counts or 'no objects'} ({size / 1e6:,.1f} MB) in {seconds:.1f}s",
        markup=False)
