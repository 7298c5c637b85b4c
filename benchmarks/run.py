#!/usr/bin/env python3
"""Time tasplan against a raw ``orjson.loads`` of the same cluster snapshot.

For each size in ``--sizes`` (GPU node counts, default ``1000,5000``) the
snapshot and the 1,024-pod gang are generated with ``generate.py`` (into a
temporary directory, or reused from ``--cache-dir``), then timed, best of
``--repeat`` (3):

(a) ``orjson.loads`` of the cluster file, bytes already in memory. Reported
    twice: with the interpreter's GC as it is (the default state) and, for
    reference only, with the cyclic GC paused around the call -- millions of
    freshly allocated dicts/lists make the GC the dominant cost of a raw parse.
(b) load: ``tasplan.load_inputs(workloads=[gang], clusters=[cluster])``
(c) plan: ``tasplan.plan(inputs)``
(d) end-to-end = (b) + (c) of the same iteration.

``--explain`` adds the explain benchmark: 20 pending gangs (``generate.write_pending``) in the
same cluster, timed as ``check`` (load + plan) and as ``explain`` (load + plan + every
counterfactual), both through the library, best of ``--repeat``; the ratio is the budget the
explain issue sets (at most 3x).

Nothing is disabled around (b)/(c): the loader manages GC itself. The table
shows end-to-end / (a) for both flavours of (a). ``--json-out`` writes all
samples. ``--parse-only`` skips (b)-(d) (useful before tasplan exists).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def import_generate():
    sys.path.insert(0, str(HERE))
    try:
        return importlib.import_module("generate")
    finally:
        sys.path.remove(str(HERE))


def import_tasplan():
    """Import tasplan lazily; make the failure obvious if the API is not there yet."""
    try:
        tasplan = importlib.import_module("tasplan")
    except ImportError:
        for p in (REPO / "src", REPO):
            if str(p) not in sys.path:
                sys.path.insert(0, str(p))
        try:
            tasplan = importlib.import_module("tasplan")
        except ImportError as e:
            raise SystemExit(
                f"run.py: cannot import tasplan ({e}); install it (pip install -e .) "
                f"or run from the repository root. Use --parse-only for the orjson baseline alone."
            ) from e
    missing = [f for f in ("load_inputs", "plan") if not callable(getattr(tasplan, f, None))]
    if missing:
        raise SystemExit(
            f"run.py: tasplan ({getattr(tasplan, '__file__', '?')}) has no "
            f"{' / '.join('tasplan.' + m for m in missing)} yet; "
            f"use --parse-only for the orjson baseline alone."
        )
    return tasplan


def best(xs):
    return min(xs) if xs else None


def ensure_files(
    gen, workdir: Path, nodes: int, seed: int, gang_pods: int, args
) -> tuple[Path, Path, float | None]:
    cluster = workdir / f"cluster-{nodes}n-ppn{args.pods_per_node}-r{args.rack_size}-s{seed}.json"
    gang = workdir / f"gang-{gang_pods}-s{seed}.yaml"
    gen_s = None
    if not gang.exists():
        gen.write_gang(str(gang), gang_pods)
    if not cluster.exists():
        print(f"generating {cluster.name} ...", file=sys.stderr, flush=True)
        t = time.perf_counter()
        stats = gen.generate_cluster(
            nodes=nodes,
            pods_per_node=args.pods_per_node,
            rack_size=args.rack_size,
            racks_per_block=args.racks_per_block,
            seed=seed,
            out=str(cluster),
        )
        gen_s = time.perf_counter() - t
        gen.report(stats, gang_pods, per_rack=False, file=sys.stderr)
    return cluster, gang, gen_s


def time_orjson(data: bytes, repeat: int, pause_gc: bool) -> tuple[list[float], dict]:
    samples, counts = [], {}
    for _ in range(repeat):
        gc.collect()
        was = gc.isenabled()
        if pause_gc:
            gc.disable()
        try:
            t = time.perf_counter()
            doc = orjson.loads(data)
            samples.append(time.perf_counter() - t)
        finally:
            if pause_gc and was:
                gc.enable()
        if not counts:
            for it in doc.get("items", ()):
                k = it.get("kind")
                counts[k] = counts.get(k, 0) + 1
        del doc
    gc.collect()
    return samples, counts


def time_tasplan(tasplan, cluster: Path, gang: Path, repeat: int) -> dict:
    load_s, plan_s, e2e_s = [], [], []
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        inputs = tasplan.load_inputs(workloads=[str(gang)], clusters=[str(cluster)])
        t1 = time.perf_counter()
        result = tasplan.plan(inputs)
        t2 = time.perf_counter()
        load_s.append(t1 - t0)
        plan_s.append(t2 - t1)
        e2e_s.append(t2 - t0)
        del inputs, result
        # The loader may gc.freeze() what it loaded; release it before the next iteration so
        # repeats do not pile up uncollectable snapshots (this happens outside the timed region).
        gc.unfreeze()
        gc.collect()
    return {"load_s": load_s, "plan_s": plan_s, "e2e_s": e2e_s}


def time_explain(tasplan, cluster: Path, pending: Path, repeat: int) -> dict:
    from tasplan.explain.explainer import explain
    from tasplan.explain.selection import select

    check_s, explain_s, suggestions = [], [], 0
    for _ in range(repeat):
        for mode in ("check", "explain"):
            gc.collect()
            t = time.perf_counter()
            inputs = tasplan.load_inputs(workloads=[str(pending)], clusters=[str(cluster)])
            if mode == "check":
                result = tasplan.plan(inputs)
                check_s.append(time.perf_counter() - t)
            else:
                result = explain(select(inputs, [], unschedulable=True))
                explain_s.append(time.perf_counter() - t)
                suggestions = sum(len(e.suggestions) for e in result.explanations.values())
            del inputs, result
            gc.unfreeze()
            gc.collect()
    return {"check_s": check_s, "explain_s": explain_s, "suggestions": suggestions}


def fmt_x(x):
    return "-" if x is None else f"{x:.2f}x"


def fmt_s(x):
    return "-" if x is None else f"{x:.3f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--sizes", default="1000,5000", help="comma-separated node counts (e.g. 1000,5000,20000)"
    )
    ap.add_argument("--repeat", type=int, default=3, help="best of N (default 3)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pods-per-node", type=int, default=30)
    ap.add_argument("--rack-size", type=int, default=32)
    ap.add_argument("--racks-per-block", type=int, default=8)
    ap.add_argument("--gang-pods", type=int, default=1024)
    ap.add_argument("--cache-dir", help="keep/reuse generated inputs here instead of a temp dir")
    ap.add_argument("--json-out", help="write all samples as JSON")
    ap.add_argument(
        "--parse-only", action="store_true", help="only the orjson baseline; do not import tasplan"
    )
    ap.add_argument(
        "--explain", action="store_true", help="also time explain vs check on 20 pending gangs"
    )
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]

    tasplan = (
        None if args.parse_only else import_tasplan()
    )  # fail before spending minutes generating
    gen = import_generate()

    tmp = None
    if args.cache_dir:
        workdir = Path(args.cache_dir)
        workdir.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="tasplan-bench-")
        workdir = Path(tmp.name)

    results = []
    try:
        for n in sizes:
            cluster, gang, gen_s = ensure_files(gen, workdir, n, args.seed, args.gang_pods, args)
            data = cluster.read_bytes()
            parse, counts = time_orjson(data, args.repeat, pause_gc=False)
            parse_nogc, _ = time_orjson(data, args.repeat, pause_gc=True)
            size = len(data)
            del data
            gc.collect()
            row = {
                "nodes": n,
                "pods": counts.get("Pod", 0),
                "node_objects": counts.get("Node", 0),
                "file_bytes": size,
                "generate_s": gen_s,
                "orjson_loads_s": parse,
                "orjson_loads_gc_paused_s": parse_nogc,
            }
            if tasplan is not None:
                print(f"timing tasplan on {n} nodes ...", file=sys.stderr, flush=True)
                row.update(time_tasplan(tasplan, cluster, gang, args.repeat))
                if args.explain:
                    pending = workdir / "pending-20.json"
                    if not pending.exists():
                        gen.write_pending(str(pending))
                    print(f"timing explain on {n} nodes ...", file=sys.stderr, flush=True)
                    row.update(time_explain(tasplan, cluster, pending, args.repeat))
            results.append(row)
    finally:
        if tmp is not None:
            tmp.cleanup()

    hdr = (
        f"{'nodes':>6} {'pods':>8} {'file MB':>8} {'orjson s':>9} {'(gc off)':>9} {'load s':>8} "
        f"{'plan s':>8} {'e2e s':>8} {'e2e/orjson':>10} {'(gc off)':>9}"
    )
    print(hdr)
    print("-" * len(hdr))
    for r in results:
        p, pg = best(r["orjson_loads_s"]), best(r["orjson_loads_gc_paused_s"])
        e2e = best(r.get("e2e_s", []))
        r["best"] = {
            "orjson_loads_s": p,
            "orjson_loads_gc_paused_s": pg,
            "load_s": best(r.get("load_s", [])),
            "plan_s": best(r.get("plan_s", [])),
            "e2e_s": e2e,
            "e2e_over_orjson": e2e / p if e2e else None,
            "e2e_over_orjson_gc_paused": e2e / pg if e2e else None,
        }
        b = r["best"]
        print(
            f"{r['nodes']:>6} {r['pods']:>8} {r['file_bytes'] / 1e6:>8.1f} "
            f"{fmt_s(p):>9} {fmt_s(pg):>9} "
            f"{fmt_s(b['load_s']):>8} {fmt_s(b['plan_s']):>8} {fmt_s(e2e):>8} "
            f"{fmt_x(b['e2e_over_orjson']):>10} {fmt_x(b['e2e_over_orjson_gc_paused']):>9}"
        )

    if any("explain_s" in r for r in results):
        print(f"\n{'nodes':>6} {'check s':>8} {'explain s':>10} {'ratio':>6} {'suggestions':>11}")
        for r in results:
            if "explain_s" in r:
                c, e = best(r["check_s"]), best(r["explain_s"])
                r["best"].update({"check_s": c, "explain_s": e, "explain_over_check": e / c})
                print(f"{r['nodes']:>6} {c:>8.3f} {e:>10.3f} {fmt_x(e / c):>6} "
                      f"{r['suggestions']:>11}")

    if args.json_out:
        meta = {
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
            "machine": platform.machine(),
            "cpu_count": os.cpu_count(),
            "orjson": orjson.__version__,
            "repeat": args.repeat,
            "seed": args.seed,
            "gang_pods": args.gang_pods,
            "pods_per_node": args.pods_per_node,
            "rack_size": args.rack_size,
            "racks_per_block": args.racks_per_block,
            "parse_only": args.parse_only,
        }
        Path(args.json_out).write_text(
            json.dumps({"meta": meta, "results": results}, indent=2) + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
