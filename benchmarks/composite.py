#!/usr/bin/env python3
"""Time planning a CompositePodGroup tree on a large cluster (issue 11's target: a depth-3
tree with 64 leaf groups and 4,096 pods plans in under 2 s on the 5,000-node benchmark).

The tree: a root composite constrained to one zone (minGroupCount = all its children), 8
inner composites each constrained to one block (minGroupCount 8), each with 8 leaf PodGroups
of 64 identical pods (cpu 3, memory 40Gi, as the 1,024-pod benchmark gang) constrained to
one rack. The cluster is a ``generate.py`` dump (``--cluster``, e.g.
/work/bench-cache/c5000.json). Load is timed once, plan ``--repeat`` times (median and
best); ``--json-out`` writes the samples. Run under the shared bench lock:
``flock /tmp/tasplan-bench.lock ...``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

POD = """apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: bench}}
spec:
  schedulingGroup: {{podGroupName: {group}}}{priority}
  tolerations: [{{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}}]
  containers:
  - name: w
    image: registry.example.com/bench/worker:1
    resources: {{requests: {{cpu: "{cpu}", memory: 40Gi}}}}
"""


def _priority(priority: int | None, indent: str = "  ") -> str:
    return f"\n{indent}priority: {priority}" if priority is not None else ""


def composite(name: str, parent: str | None, min_groups: int, key: str,
              priority: int | None = None) -> str:
    parent_line = f"  parentCompositePodGroupName: {parent}\n" if parent else ""
    return (f"apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\n"
            f"metadata: {{name: {name}, namespace: bench}}\nspec:\n{parent_line}"
            f"  workloadRef: {{workloadName: tree, templateName: {name}}}\n"
            f"  schedulingPolicy: {{gang: {{minGroupCount: {min_groups}}}}}\n"
            f"  schedulingConstraints: {{topology: [{{key: {key}}}]}}"
            f"{_priority(priority)}\n")


def leaf(name: str, parent: str, pods: int, priority: int | None = None) -> str:
    return (f"apiVersion: scheduling.k8s.io/v1alpha3\nkind: PodGroup\n"
            f"metadata: {{name: {name}, namespace: bench}}\nspec:\n"
            f"  parentCompositePodGroupName: {parent}\n"
            f"  workloadRef: {{workloadName: tree, templateName: leaf}}\n"
            f"  schedulingPolicy: {{gang: {{minCount: {pods}}}}}\n"
            "  schedulingConstraints: {topology: [{key: topology.example.com/rack}]}"
            f"{_priority(priority)}\n")


def write_tree(path: Path, inner: int = 8, leaves: int = 8, pods: int = 64, *,
               cpu: str = "3", priority: int | None = None) -> int:
    """Writes the tree; returns its pod count. ``priority``: of every group and pod."""
    docs = [composite("root", None, inner, "topology.kubernetes.io/zone", priority)]
    n = 0
    for i in range(inner):
        mid = f"mid-{i}"
        docs.append(composite(mid, "root", leaves, "topology.example.com/block", priority))
        for j in range(leaves):
            group = f"leaf-{i}-{j}"
            docs.append(leaf(group, mid, pods, priority))
            for k in range(pods):
                docs.append(POD.format(name=f"{group}-{k:02d}", group=group, cpu=cpu,
                                       priority=_priority(priority)))
                n += 1
    path.write_text("---\n".join(docs))
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cluster", required=True, help="cluster dump (generate.py output)")
    ap.add_argument("--workdir", default="/tmp/tasplan-composite-bench")
    ap.add_argument("--inner", type=int, default=8, help="inner composites (default 8)")
    ap.add_argument("--leaves", type=int, default=8, help="leaves per inner composite (8)")
    ap.add_argument("--pods", type=int, default=64, help="pods per leaf (64)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cpu", default="3", help="cpu per pod (default 3; with --priority "
                    "1000000, 16 needs evictions on the 5,000-node dump)")
    ap.add_argument("--priority", type=int, help="priority of the tree (default none: 0); "
                    "1000000 lets it preempt the generated clusters' pods")
    ap.add_argument("--explain", action="store_true",
                    help="also time `explain` once (its suggestions re-plan the whole input)")
    ap.add_argument("--no-reuse", action="store_true",
                    help="plan without reusing equivalent work (tasplan.plan.tree_cycle"
                    ".MEMO: composites' and leaves' outcomes, shared leaf caches), for "
                    "comparison")
    ap.add_argument("--json-out")
    args = ap.parse_args(argv)

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tasplan import load_inputs, plan
    from tasplan.plan import tree_cycle as algorithm

    algorithm.MEMO = not args.no_reuse

    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    tree = work / "tree.yaml"
    pods = write_tree(tree, args.inner, args.leaves, args.pods, cpu=args.cpu,
                      priority=args.priority)
    start = time.perf_counter()
    snapshot = load_inputs([tree], [args.cluster])
    load = time.perf_counter() - start
    samples, cpu = [], []
    result = None
    for _ in range(args.repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = plan(snapshot)
        samples.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    assert result is not None
    root = next(c for c in result.composites if c.composite.parent is None)
    placed = sum(g.selected_placement.placed for g in result.groups
                 if g.schedulable and g.selected_placement is not None)
    print(f"cluster: {len(snapshot.nodes):,} nodes, {len(snapshot.pods):,} pods")
    print(f"tree: depth 3, {args.inner} inner composites, {args.inner * args.leaves} leaves, "
          f"{pods:,} pods")
    print(f"load {load:.2f} s; plan median {statistics.median(samples):.3f} s, best "
          f"{min(samples):.3f} s of {args.repeat} ({', '.join(f'{s:.3f}' for s in samples)})")
    # CPU time shows how much of a slow sample was other work on the shared machine.
    print(f"plan cpu median {statistics.median(cpu):.3f} s, best {min(cpu):.3f} s")
    print(f"root: {'SCHEDULABLE' if root.schedulable else 'UNSCHEDULABLE'} in "
          f"{root.selected!r}: {root.message}; {placed:,} pods placed")
    if root.preemption is not None or root.preemption_message:
        victims = len(root.preemption.victims) if root.preemption else 0
        print(f"preemption: {root.preemption_message} ({victims:,} victims, "
              f"{len(root.preemption.nominated) if root.preemption else 0:,} pods nominated)")
    explained = None
    if args.explain:
        from tasplan.explain.explainer import explain
        start = time.perf_counter()
        found = explain(snapshot).trees.get(root.composite.key)
        explained = time.perf_counter() - start
        kinds = [s.kind for s in found.suggestions] if found else []
        print(f"explain {explained:.2f} s: {', '.join(kinds) or 'no suggestion'}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({
            "load_s": load, "plan_s": samples, "plan_cpu_s": cpu, "pods": pods,
            "placed": placed, "explain_s": explained,
            "root": {"schedulable": root.schedulable, "selected": root.selected,
                     "message": root.message}}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
