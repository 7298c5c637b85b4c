#!/usr/bin/env python3
"""KAI and --compare benchmark: the 1,024-pod rack-level gang of ``generate.py`` planned by
KAI, and ``check --compare`` against ``check``, on a generated cluster.

The gang (a KEP-5732 PodGroup, required rack) is written as a KAI PodGroup (minMember 1024,
requiredTopologyLevel rack over a Topology of the cluster's block and rack labels, pods
asking for kai-scheduler) by KAI's own ``--compare`` translation, so both schedulers plan the
same intent. Timed, best of ``--repeat``, CPU (user+sys) and wall:

- load: ``load_inputs`` of the gang and the cluster;
- kube: ``plan`` (kube-scheduler, as ``check`` runs it);
- kai: ``plan(..., scheduler="kai")`` of the translated input (budget: 0.5 s);
- each comparing scheduler's part of it (translate the intents, plan the copy);
- compare: every comparing scheduler's run (``schedulers.compare``); the budget is
  check --compare of all schedulers at most 2x check, i.e. (load + kube + compare) /
  (load + kube).

    flock /tmp/tasplan-bench.lock .venv/bin/python benchmarks/kai.py \\
        --cluster /work/bench-cache/c5000.snapshot.json --gang /work/bench-cache/gang5000.yaml
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from collections.abc import Callable


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(fn: Callable[[], object], repeat: int) -> tuple[object, float, float]:
    """(last result, best CPU seconds, best wall seconds)."""
    best_cpu = best_wall = float("inf")
    out = None
    for _ in range(repeat):
        c, w = cpu(), time.perf_counter()
        out = fn()
        best_cpu = min(best_cpu, cpu() - c)
        best_wall = min(best_wall, time.perf_counter() - w)
    return out, best_cpu, best_wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cluster", required=True)
    parser.add_argument("--gang", required=True)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from tasplan.load.loader import load_inputs
    from tasplan.schedulers.compare import compare, comparers
    from tasplan.schedulers.kai.scheduler import KaiScheduler
    from tasplan.schedulers.kube.scheduler import KubeScheduler
    from tasplan.schedulers.planner import plan, target_for
    from tasplan.schedulers.registry import in_tree_schedulers

    snapshot, load_cpu, load_wall = timed(lambda: load_inputs([args.gang], [args.cluster]),
                                          args.repeat)
    native, kube_cpu, kube_wall = timed(lambda: plan(snapshot), args.repeat)
    intents = [KubeScheduler().intent(g, snapshot.pods_by_group[g.key], snapshot)
               for g in snapshot.groups if g.planned]
    kai_input, _ = KaiScheduler().translate(snapshot, intents)
    kai, kai_cpu, kai_wall = timed(lambda: plan(kai_input, scheduler="kai"), args.repeat)
    steps = [("load", load_cpu, load_wall), ("kube", kube_cpu, kube_wall),
             ("kai", kai_cpu, kai_wall)]
    # each comparing scheduler's part of --compare: translate, then plan the copy
    for name, scheduler in comparers(in_tree_schedulers()).items():
        def one(scheduler=scheduler, name=name):
            translated, _ = scheduler.translate(snapshot, intents)
            return plan(translated, scheduler=name, target=target_for(translated))
        run, c, w = timed(one, args.repeat)
        (result,) = run.groups
        print(f"compare row {name}: {result.outcome} in {result.selected!r}")
        steps.append((f"  {name}", c, w))
    _, cmp_cpu, cmp_wall = timed(lambda: compare(snapshot, native, plan, target_for),
                                 args.repeat)
    steps.append(("compare", cmp_cpu, cmp_wall))
    (group,) = kai.groups
    chosen = group.selected_placement
    print(f"nodes {len(snapshot.nodes)}, pods {len(snapshot.pods)}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"KAI: {group.outcome} in {group.selected!r}, "
          f"{chosen.placed if chosen else 0}/{group.pending} pods, "
          f"{len(group.placements)} domains listed")
    print(f"{'step':<16}{'cpu s':>9}{'wall s':>9}")
    for name, c, w in steps:
        print(f"{name:<16}{c:>9.3f}{w:>9.3f}")
    ratio = (load_cpu + kube_cpu + cmp_cpu) / (load_cpu + kube_cpu)
    print(f"check --compare / check (cpu): {ratio:.2f}x (budget 2x); "
          f"KAI beyond loading (cpu): {kai_cpu:.3f} s (budget 0.5 s)")

if __name__ == "__main__":
    main()
