#!/usr/bin/env python3
"""The pictures gallery (``docs/gallery/``): tasplan's maps and HTML reports of the samples
and of the 5,000-node benchmark cluster, rendered by headless Chromium to PNG.

    .venv/bin/python benchmarks/gallery.py --out docs/gallery \\
        --cluster-5k /work/bench-cache/c5000.snapshot.json \\
        --gang-5k /work/bench-cache/gang5000.yaml \\
        --cluster-250-racks /work/bench-cache/c5000-250racks.snapshot.json

Each picture is made by the tasplan command shown next to it in ``README.md`` (run in a
fresh process, as a user would), then loaded in Chromium; a page that logs an error or
asks the network for anything fails the run. Without ``--cluster-5k`` only the samples are
drawn (that is what ``tests/pictures/test_browser.py`` runs). The 5,000-node cluster is
``benchmarks/generate.py --nodes 5000`` (seed 0); its snapshot loads ~10x faster.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser import load

REPO = Path(__file__).resolve().parents[1]
GPU = ("--shape", "cpu=48,memory=256Gi,nvidia.com/gpu=8", "--tolerate", "nvidia.com/gpu")
NODE_5K = ("--shape", "cpu=96,memory=1024Gi,nvidia.com/gpu=8", "--tolerate", "nvidia.com/gpu")


@dataclass(frozen=True)
class Shot:
    name: str  # the PNG (and source) file name, without extension
    title: str
    args: tuple[str, ...]  # tasplan's arguments; OUT is replaced by the output file
    kind: str  # "svg" or "html"
    clip: int | None = None  # screenshot only the page's first rows (long reports)


def samples() -> list[Shot]:
    return [
        Shot("capacity-samples", "Where does a 4-pod, 8-GPU gang fit now? (the samples)",
             ("capacity", "-c", "samples/cluster", *GPU, "--gang", "4", "--svg", "OUT"), "svg"),
        Shot("capacity-samples-nodes", "Every node, free GPUs, one node drained (what-if)",
             ("capacity", "-c", "samples/cluster", *GPU, "--depth", "5", "--drain", "gpu-b2-0",
              "--color-by", "free:nvidia.com/gpu", "--svg", "OUT"), "svg"),
        Shot("check-train-rack", "check --html: the gang's placements on the map",
             ("check", "samples/workloads/train-rack.yaml", "-c", "samples/cluster",
              "--html", "OUT"), "html", clip=1100),
        Shot("explain-train-too-big", "explain --html: why a 5-pod gang does not fit",
             ("explain", "samples/workloads/train-too-big.yaml", "-c", "samples/cluster",
              "--cordon", "gpu-b3-0", "--html", "OUT"), "html", clip=1500),
    ]


def large(cluster: Path, gang: Path | None, racks250: Path | None) -> list[Shot]:
    shots = [Shot("capacity-5k", "5,000 nodes, 157 racks: which racks hold a 64-GPU gang "
                  "(8 whole nodes) now?",
                  ("capacity", "-c", str(cluster), *NODE_5K, "--gang", "8", "--svg", "OUT"),
                  "svg")]
    if racks250 is not None:
        shots.append(Shot("capacity-5k-250-racks", "5,000 nodes in 250 racks of 20, on one "
                          "screen", ("capacity", "-c", str(racks250), *NODE_5K, "--gang", "8",
                                     "--svg", "OUT"), "svg"))
    if gang is not None:
        shots.append(Shot("check-5k", "check --html of the 1,024-pod benchmark gang on 5,000 "
                          "nodes", ("check", str(gang), "-c", str(cluster), "--html", "OUT"),
                          "html", clip=1000))
    return shots


def shoot(shot: Shot, out: Path, work: Path) -> dict:
    source = work / f"{shot.name}.{shot.kind}"
    args = [str(source) if a == "OUT" else a for a in shot.args]
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "tasplan", *args], cwd=REPO,
                          capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1) or not source.exists():
        raise SystemExit(f"tasplan {shlex.join(args)} failed ({done.returncode}):\n"
                         f"{done.stderr}")
    png = out / f"{shot.name}.png"
    page = load(source, png, clip=(0, shot.clip) if shot.clip else None)
    if page.errors or page.foreign:
        raise SystemExit(f"{shot.name}: the page logged errors {page.errors} or asked the "
                         f"network for {page.foreign}")
    return {"name": shot.name, "tasplan_s": round(seconds, 2), "bytes": source.stat().st_size,
            "load_ms": round(page.load_ms), "width": page.width, "height": page.height}


def index(shots: list[Shot], out: Path) -> str:
    lines = ["# Gallery", "",
             "Made by `benchmarks/gallery.py` (headless Chromium, 1,400 CSS pixels wide); "
             "each picture shows the command that drew it. See [capacity.md](../capacity.md) "
             "for the map and [report-format.md](../report-format.md) for the HTML report. "
             "`c5000.snapshot.json` is `benchmarks/generate.py --nodes 5000` (157 racks of 32 "
             "in blocks of 8; zones alternate node by node), `gang5000.yaml` its `--gang-out`, "
             "`c5000-250racks.snapshot.json` the same with `--rack-size 20 --racks-per-block "
             "50`, each through `tasplan snapshot`.", ""]
    for shot in shots:
        shown = ["tasplan", *(f"{shot.name}.{shot.kind}" if a == "OUT" else
                              Path(a).name if a.startswith("/") else a for a in shot.args)]
        lines += [f"## {shot.title}", "", f"```sh\n{shlex.join(shown)}\n```", "",
                  f"![{shot.title}]({shot.name}.png)", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "gallery")
    ap.add_argument("--cluster-5k", type=Path, help="the 5,000-node benchmark cluster")
    ap.add_argument("--gang-5k", type=Path, help="its 1,024-pod benchmark gang (--gang-out)")
    ap.add_argument("--cluster-250-racks", type=Path, help="generate.py --nodes 5000 "
                    "--rack-size 20 --racks-per-block 50")
    args = ap.parse_args(argv)
    shots = samples() + (large(args.cluster_5k, args.gang_5k, args.cluster_250_racks)
                         if args.cluster_5k else [])
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tasplan-gallery-") as work:
        for shot in shots:
            print(shoot(shot, args.out, Path(work)), flush=True)
    if args.cluster_5k:  # the index names the 5k pictures: only a full run rewrites it
        (args.out / "README.md").write_text(index(shots, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
