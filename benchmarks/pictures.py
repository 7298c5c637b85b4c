#!/usr/bin/env python3
"""Time the pictures on a large cluster: the capacity map beyond loading, its size, and how
long Chromium takes to load and draw it.

    flock /tmp/tasplan-bench.lock .venv/bin/python benchmarks/pictures.py CLUSTER.json \\
        [--gang GANG.yaml] [--repeat 3]

The cluster is loaded once (timed apart). Then, best of ``--repeat``, CPU time (user+sys,
steadier than wall time on a shared machine) and wall time of:

* ``map``: ``capacity()`` with one whole-node GPU shape and a gang of 8 (a 64-GPU gang)
  plus the SVG map (the issue's budget: 2 s beyond loading, under 2 MB);
* ``map_nodes``: the same with every node drawn (``--depth`` to the hostname);
* ``check_html`` (with ``--gang``): ``plan_capacity()`` plus the HTML report of the planned
  gang (planning itself is not counted: it is ``check``'s cost, with or without --html).

Chromium's load (navigation start to load event) of each picture is reported when a
browser is found.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tasplan.capacity.shapes import parse_shape, parse_toleration
from tasplan.capacity.view import capacity, plan_capacity
from tasplan.load.loader import load_inputs
from tasplan.report.picture.capacity_page import capacity_svg
from tasplan.report.picture.measure import parse_measure

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser import find_chromium, load

SHAPE = "cpu=96,memory=1024Gi,nvidia.com/gpu=8"


def best(run: Callable[[], str], repeat: int) -> tuple[float, float, str]:
    """(CPU seconds, wall seconds, output) of the fastest of ``repeat`` runs."""
    samples = []
    for _ in range(repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        out = run()
        samples.append((time.process_time() - cpu, time.perf_counter() - wall, out))
    return min(samples, key=lambda s: s[0])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cluster", type=Path)
    ap.add_argument("--gang", type=Path, help="a workload to plan for check --html")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    start = time.perf_counter()
    snapshot = load_inputs([args.gang] if args.gang else [], [args.cluster])
    loaded = time.perf_counter() - start
    shape = parse_shape(SHAPE, (parse_toleration("nvidia.com/gpu"),), 8)

    def picture(depth: int | None) -> Callable[[], str]:
        def run() -> str:
            report = capacity(snapshot, [shape])
            return capacity_svg(report, parse_measure(None, report), depth)
        return run

    results: dict = {"cluster": str(args.cluster), "nodes": len(snapshot.nodes),
                     "pods": len(snapshot.pods), "load_s": round(loaded, 2),
                     "loadavg": os.getloadavg()[0]}
    pages = {}
    for name, run in (("map", picture(None)), ("map_nodes", picture(99))):
        cpu, wall, svg = best(run, args.repeat)
        results[name] = {"cpu_s": round(cpu, 3), "wall_s": round(wall, 3),
                         "bytes": len(svg.encode())}
        pages[name] = (svg, "svg")
    if args.gang:
        from tasplan.report.picture.plan_page import plan_html
        from tasplan.schedulers.planner import plan

        result = plan(snapshot)
        cpu, wall, html = best(lambda: plan_html(result, plan_capacity(snapshot)), args.repeat)
        results["check_html"] = {"cpu_s": round(cpu, 3), "wall_s": round(wall, 3),
                                 "bytes": len(html.encode())}
        pages["check_html"] = (html, "html")
    if find_chromium():
        with tempfile.TemporaryDirectory() as work:
            for name, (text, kind) in pages.items():
                path = Path(work) / f"{name}.{kind}"
                path.write_text(text)
                page = load(path, Path(work) / f"{name}.png")
                results[name]["chromium_load_ms"] = round(page.load_ms)
                results[name]["chromium_clean"] = not page.errors and not page.foreign
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
