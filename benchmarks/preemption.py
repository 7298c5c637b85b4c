#!/usr/bin/env python3
"""Time planning a 1,024-pod gang that fits only by evicting lower-priority pods (issue 28).

The benchmark gang (``--gang``, generate.py's ``--gang-out``) rewritten with ``--cpu`` per pod
(default 3.8: no rack of the generated clusters holds 1,024 such pods beside their running
pods) and priority ``--priority`` (default 1,000,000, above every generated pod) on the
PodGroup and on every pod, so kube-scheduler's workload-aware preemption must pick victims
in one rack. The cluster (``--cluster``; a tasplan snapshot loads fastest) is loaded once,
then ``plan()`` is timed ``--repeat`` times: CPU time (user + sys of the process, what the
shared machine's load does not inflate) and wall time, best and median. Run it under the
shared bench lock::

    flock /tmp/tasplan-bench.lock env -u PYTHONDONTWRITEBYTECODE .venv/bin/python \\
        benchmarks/preemption.py --cluster /work/bench-cache/c5000.snapshot.json \\
        --gang /work/bench-cache/gang5000.yaml
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import yaml


def write_gang(gang: Path, path: Path, cpu: str, priority: int) -> int:
    """The gang of ``gang`` with ``cpu`` per pod and ``priority``; returns its pod count."""
    docs = [d for d in yaml.load_all(gang.read_text(), Loader=yaml.CSafeLoader) if d]
    pods = 0
    for doc in docs:
        spec = doc.setdefault("spec", {})
        spec["priority"] = priority
        if doc.get("kind") == "Pod":
            pods += 1
            for container in spec["containers"]:
                resources = container.get("resources", {})
                for part in ("requests", "limits"):
                    if "cpu" in resources.get(part, {}):
                        resources[part]["cpu"] = cpu
    path.write_text(yaml.dump_all(docs, Dumper=yaml.CSafeDumper, sort_keys=False))
    return pods


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cluster", type=Path, required=True)
    ap.add_argument("--gang", type=Path, required=True)
    ap.add_argument("--cpu", default="3.8", help="cpu per gang pod (default 3.8)")
    ap.add_argument("--priority", type=int, default=1_000_000)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/tasplan-preemption-bench"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json-out", type=Path)
    args = ap.parse_args(argv)

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tasplan import load_inputs, plan

    args.workdir.mkdir(parents=True, exist_ok=True)
    gang = args.workdir / "gang-preempting.yaml"
    pods = write_gang(args.gang, gang, args.cpu, args.priority)
    start = time.perf_counter()
    snapshot = load_inputs([gang], [args.cluster])
    load = time.perf_counter() - start
    wall, cpu = [], []
    result = None
    for _ in range(args.repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = plan(snapshot)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    assert result is not None
    group = result.groups[0]
    victims = len(group.preemption.victims) if group.preemption else 0
    print(f"cluster: {len(snapshot.nodes):,} nodes, {len(snapshot.pods):,} pods; gang: "
          f"{pods:,} pods of cpu {args.cpu} at priority {args.priority:,}; load {load:.2f} s")
    print(f"plan cpu best {min(cpu):.3f} s, median {statistics.median(cpu):.3f} s; wall best "
          f"{min(wall):.3f} s, median {statistics.median(wall):.3f} s (of {args.repeat})")
    where = group.preemption.placement if group.preemption else None
    print(f"{group.outcome} in {where!r}: {victims:,} victims; "
          f"{group.preemption_message or group.message}")
    if args.json_out:
        args.json_out.write_text(json.dumps({
            "load_s": load, "plan_s": wall, "plan_cpu_s": cpu, "victims": victims,
            "outcome": str(group.outcome), "placement": where}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
