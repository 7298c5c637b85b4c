#!/usr/bin/env python3
"""Live listing and snapshot reload at scale, against the loopback API server.

Given a generated cluster (``generate.py``; 5,000 nodes / ~150k pods by default):

1. **list**: a separate process serves it with the test suite's loopback API server
   (tests/live/apiserver.py; every page pre-rendered, so the server costs only socket
   writes) and this process times, best of ``--repeat``:
   - ``raw``: tasplan's path, ``Reader.list`` of nodes and pods (paginated GETs, raw JSON
     parsed with orjson), without and with pruning (what ``snapshot --live`` does);
   - ``live``: the whole ``read_cluster`` (discovery, every list, prune, encode);
   - ``typed``: the official client's typed path,
     ``CoreV1Api().list_pod_for_all_namespaces(limit=500, _continue=...)``, on the first
     ``--typed-pods`` pods only (it is far slower) and extrapolated per object.
2. **reload**: ``tasplan.load_inputs([], [file])`` of the kubectl JSON vs the snapshot
   written from it (plain, gzip, and ``--as-list``: the same pruned objects as a plain
   ``v1`` List), each in a fresh process, best of ``--repeat``.

Usage::

    .venv/bin/python benchmarks/live.py --cluster /tmp/c5000.json   # or --nodes 5000
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

SERVER = """
import sys, json, time, orjson
sys.path.insert(0, {repo!r})
from tests.live.apiserver import Cluster, serve
cluster = Cluster(token=None)
for obj in orjson.loads(open({path!r}, "rb").read())["items"]:
    cluster.add(obj)
cluster.scheduling_versions = ("v1",)
with serve(cluster) as url:
    import urllib.request
    for coll, items in cluster.objects.items():   # pre-render every page
        for limit in (500,):
            token = None
            while True:
                q = f"?limit={{limit}}" + (f"&continue={{token}}" if token else "")
                page = json.loads(urllib.request.urlopen(url + coll + q).read())
                token = page["metadata"].get("continue")
                if not token:
                    break
    cluster.requests.clear()
    print(url, flush=True)
    sys.stdin.read()
"""


def start_server(path: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-c", SERVER.format(repo=str(REPO), path=str(path))],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    url = proc.stdout.readline().strip()
    if not url:
        raise SystemExit("server failed to start")
    return proc, url


def connection(url: str, tmp: Path):
    from tasplan.live.config import connect

    cfg = tmp / "kubeconfig"
    cfg.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "bench",
        "clusters": [{"name": "bench", "cluster": {"server": url}}],
        "contexts": [{"name": "bench", "context": {"cluster": "bench", "user": "bench"}}],
        "users": [{"name": "bench", "user": {"token": "unused"}}]}))
    return connect(str(cfg))


def time_list(url: str, tmp: Path, repeat: int, typed_pods: int) -> dict:
    import gc

    from kubernetes import client

    from tasplan.live.cluster import read_cluster
    from tasplan.live.lister import Reader
    from tasplan.snapshot.prune import prune_node, prune_pod

    conn = connection(url, tmp)
    out: dict = {}
    for name, transform in (("raw", False), ("raw+prune", True)):
        best = None
        for _ in range(repeat):
            gc.collect()
            gc.disable()
            t = time.perf_counter()
            reader = Reader(conn)
            n = len(reader.list("/api/v1/nodes", kind="Node", api_version="v1",
                                resource="nodes", transform=prune_node if transform else None))
            n += len(reader.list("/api/v1/pods", kind="Pod", api_version="v1", resource="pods",
                                 transform=prune_pod if transform else None))
            elapsed = time.perf_counter() - t
            gc.enable()
            best = min(best or elapsed, elapsed)
        out[name] = {"objects": n, "seconds": best, "objects_per_s": n / best,
                     "mb": reader.bytes / 1e6}
    best = None
    for _ in range(repeat):
        t = time.perf_counter()
        document, _ = read_cluster(conn)
        elapsed = time.perf_counter() - t
        best = min(best or elapsed, elapsed)
    n = len(document["items"]) + len(document["pods"]["name"])
    out["live (read_cluster)"] = {"objects": n, "seconds": best, "objects_per_s": n / best}

    api = client.CoreV1Api(conn.api)
    t = time.perf_counter()
    n, token = 0, None
    while n < typed_pods:
        page = api.list_pod_for_all_namespaces(limit=500, _continue=token)
        n += len(page.items)
        token = page.metadata._continue
        if not token:
            break
    elapsed = time.perf_counter() - t
    out["typed (CoreV1Api, subset)"] = {"objects": n, "seconds": elapsed,
                                        "objects_per_s": n / elapsed}
    conn.close()
    return out


RELOAD = """
import sys, time
sys.path.insert(0, {repo!r})
import tasplan
t = time.perf_counter()
s = tasplan.load_inputs([], [{path!r}])
print(time.perf_counter() - t, len(s.nodes), len(s.pods), flush=True)
import os; os._exit(0)
"""


def time_reload(path: Path, repeat: int) -> tuple[float, int, int]:
    runs = []
    for _ in range(repeat):
        line = subprocess.run([sys.executable, "-c", RELOAD.format(repo=str(REPO),
                                                                   path=str(path))],
                              check=True, capture_output=True, text=True).stdout.split()
        runs.append((float(line[0]), int(line[1]), int(line[2])))
    return min(runs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cluster", type=Path, help="kubectl-shaped JSON from generate.py")
    ap.add_argument("--nodes", type=int, default=5000, help="generate this size otherwise")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--typed-pods", type=int, default=10_000)
    ap.add_argument("--skip-list", action="store_true")
    ap.add_argument("--skip-reload", action="store_true")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        cluster = args.cluster
        if cluster is None:
            cluster = tmp / "cluster.json"
            subprocess.run([sys.executable, str(HERE / "generate.py"), "--nodes",
                            str(args.nodes), "--out", str(cluster)], check=True)
        print(f"cluster: {cluster} ({cluster.stat().st_size / 1e6:,.0f} MB)")
        if not args.skip_list:
            proc, url = start_server(cluster)
            try:
                results = time_list(url, tmp, args.repeat, args.typed_pods)
            finally:
                proc.stdin.close()
                proc.wait()
            print("\nlisting from the loopback API server (best of", args.repeat, ")")
            for name, r in results.items():
                print(f"  {name:28} {r['objects']:>8,} objects {r['seconds']:8.2f} s "
                      f"{r['objects_per_s']:>10,.0f} objects/s")
            raw = results["raw"]["objects_per_s"]
            typed = results["typed (CoreV1Api, subset)"]["objects_per_s"]
            total = results["raw"]["objects"]
            print(f"  typed path extrapolated to {total:,} objects: {total / typed:,.0f} s; "
                  f"raw path is {raw / typed:,.1f}x faster")
        if not args.skip_reload:
            env = dict(os.environ)
            outputs = {tmp / "snapshot.json": [], tmp / "snapshot.json.gz": [],
                       tmp / "as-list.json": ["--as-list"]}
            for out, flags in outputs.items():
                subprocess.run([str(Path(sys.executable).parent / "tasplan"), "snapshot", "-q",
                                "-o", str(out), "-c", str(cluster), *flags], check=True,
                               env=env)
            print("\nreload: tasplan.load_inputs in a fresh process (best of", args.repeat, ")")
            base = time_reload(cluster, args.repeat)
            print(f"  kubectl JSON    {cluster.stat().st_size / 1e6:8,.0f} MB {base[0]:7.2f} s "
                  f"({base[1]:,} nodes, {base[2]:,} pods)")
            for path in outputs:
                t = time_reload(path, args.repeat)
                print(f"  {path.name:15} {path.stat().st_size / 1e6:8,.1f} MB {t[0]:7.2f} s "
                      f"({t[1]:,} nodes, {t[2]:,} pods)  {base[0] / t[0]:5.1f}x faster")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
