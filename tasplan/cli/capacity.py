"""``tasplan capacity``: load, count, render; writes its output in one piece."""

from __future__ import annotations

import sys
from pathlib import Path

from tasplan.capacity.shapes import parse_shape, parse_toleration, workload_shapes
from tasplan.capacity.view import capacity
from tasplan.cli.exit_status import ExitStatus
from tasplan.cli.output import parse_output, render, stdout_width, warn
from tasplan.cli.session import Session
from tasplan.errors import InputError, UsageError
from tasplan.model.snapshot import ClusterSnapshot


def run_capacity(clusters: list[Path], shapes: list[str], for_files: list[Path],
                 tolerate: list[str], levels: str | None, depth: int | None, output: str,
                 svg: str | None, html: str | None, width: int | None = None,
                 session: Session | None = None, color_by: str | None = None,
                 gang: int | None = None) -> int:
    fmt = parse_output(output, ("table", "json", "yaml"))
    tolerations = tuple(parse_toleration(t) for t in tolerate)
    parsed = [parse_shape(s, tolerations, gang) for s in shapes]
    if tolerations and not shapes:
        raise UsageError("--tolerate applies to --shape shapes (--for pods have their own)")
    if gang is not None and not shapes:
        raise UsageError("--gang applies to --shape shapes (--for groups have their minCount)")
    if color_by is not None:
        if svg is None and html is None:
            raise UsageError("--color-by colours the map: give --svg or --html")
        from tasplan.cli.pictures import check_color_by

        check_color_by(color_by)
    if not parsed and not for_files:
        raise UsageError("give at least one --shape RESOURCE=QTY,... or --for WORKLOAD")
    keys = [k.strip() for k in levels.split(",")] if levels else None
    if keys is not None and (not all(keys) or len(set(keys)) != len(keys)):
        raise UsageError(f"--levels {levels!r}: expected distinct label keys, comma-separated")
    for path, kind in ((svg, "svg"), (html, "html")):
        if path is not None:  # before any work: a bad target costs no load
            from tasplan.output_file import check_output_file

            check_output_file(path, option=f"--{kind}", stdout=False)
    session = session or Session()
    loaded = session.load(for_files, clusters, check=_has_nodes)
    snapshot, edited = loaded.snapshot, loaded.edited
    if for_files:
        found = workload_shapes(snapshot)
        if not found:
            raise InputError(", ".join(map(str, for_files)), "no pending pods of a pod group to "
                             "take a shape from (expected PodGroups, Workloads, Jobs or pods "
                             "that reference a pod group)")
        parsed.extend(found)
    with session.status("counting…"):
        report = capacity(snapshot, parsed, keys)

    def renderables(target: int | None) -> list:
        from tasplan.report.capacity_tree import render_capacity
        from tasplan.report.whatif import render_what_if

        return [*render_what_if(edited.applied), *render_capacity(report, depth, target)]

    if svg is not None or html is not None:
        from tasplan.cli.pictures import write_capacity_pictures

        write_capacity_pictures(report, color_by, depth, edited.applied, svg, html)
    if not fmt.table:
        from tasplan.report.capacity_document import capacity_document

        sys.stdout.write(fmt.render_document(capacity_document(report, edited.applied)))
    else:
        warn(report.warnings)
        sys.stdout.write(render(renderables, stdout_width(width)))
    sys.stdout.flush()
    return ExitStatus.OK


def _has_nodes(snapshot: ClusterSnapshot) -> None:
    if not snapshot.nodes:
        raise UsageError("the cluster inputs have no nodes (give --cluster or --live)")
