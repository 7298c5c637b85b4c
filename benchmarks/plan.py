#!/usr/bin/env python3
"""The plan phase alone: CPU time (user + sys) of ``tasplan.plan`` on inputs loaded once.

Each round runs a fresh process per checkout (this tree, and ``--before TREE`` when given,
alternately, so both meet the same machine minutes): it loads ``--cluster`` with the
workloads (``-w``, repeatable), plans ``--repeat`` times and reports the best and median
plan CPU time, with the load average. The first plan of a process also pays for importing
the planner; it is reported apart (``first``). Run it under the shared bench lock::

    flock /tmp/tasplan-bench.lock env -u PYTHONDONTWRITEBYTECODE .venv/bin/python \\
        benchmarks/plan.py --cluster /work/bench-cache/c5000.snapshot.json \\
        -w /work/bench-cache/gang5000.yaml -w /work/bench-cache/gpu16.yaml --before ../main

The depth-3 tree of ``composite.py`` is a workload like any other (its ``tree.yaml``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def child(cluster: str, workloads: list[str], repeat: int) -> dict:
    from tasplan import load_inputs

    snapshot = load_inputs(workloads, [cluster])
    start = time.process_time()
    from tasplan import plan

    samples = []
    for _ in range(repeat):
        plan(snapshot)
        samples.append(time.process_time() - start)
        start = time.process_time()
    return {"first": samples[0], "plans": samples[1:] or samples}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cluster", required=True)
    ap.add_argument("-w", "--workload", action="append", default=[], required=True)
    ap.add_argument("--repeat", type=int, default=6, help="plans per process (default 6; "
                    "the first, with the planner's imports, is reported apart)")
    ap.add_argument("--rounds", type=int, default=3, help="processes per checkout (3)")
    ap.add_argument("--before", help="another checkout (its root) to time alternately")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.cluster, args.workload, args.repeat)))
        return 0
    trees = [("after", HERE.parent)] + ([("before", Path(args.before).resolve())]
                                        if args.before else [])
    for r in range(args.rounds):
        for name, root in reversed(trees):
            env = {**os.environ, "PYTHONPATH": str(root)}
            out = subprocess.run(
                [sys.executable, str(HERE / "plan.py"), "--child", "--cluster", args.cluster,
                 "--repeat", str(args.repeat), *(a for w in args.workload for a in ("-w", w))],
                env=env, cwd=root, check=True, capture_output=True, text=True).stdout
            got = json.loads(out)
            plans = got["plans"]
            load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
            print(f"round {r + 1} {name:6}: plan best {min(plans):.3f} s, median "
                  f"{statistics.median(plans):.3f} s (first {got['first']:.3f} s); "
                  f"load {load}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
