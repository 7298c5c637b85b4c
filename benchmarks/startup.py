#!/usr/bin/env python3
"""Start-up of the ``tasplan`` command: best CPU time (user + sys) and wall time of fresh
processes for ``--version``, ``--help``, ``check`` and ``lint`` of the bundled samples,
next to a bare ``python -c pass``. Run it from the repository root of the tree to measure
(``python -m tasplan`` imports the package of the current directory), with bytecode
cached (not under ``PYTHONDONTWRITEBYTECODE``: every start would compile the changed
modules). The issue's goals: ``--version`` ≤ 0.08 s, ``check`` of the samples ≤ 0.3 s.

``--before TREE``: also run each command in another checkout (its ``.venv/bin/python``, from
its root), alternating with this one, so that both are measured in the same minutes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "tasplan --version": ["-m", "tasplan", "--version"],
    "tasplan --help": ["-m", "tasplan", "--help"],
    "check samples/workloads/ -c samples/cluster": [
        "-m", "tasplan", "check", "samples/workloads/", "--cluster", "samples/cluster"],
    "the same, -o json": [
        "-m", "tasplan", "check", "samples/workloads/", "--cluster", "samples/cluster",
        "-o", "json"],
    "lint samples/workloads/": ["-m", "tasplan", "lint", "samples/workloads/"],
}


def once(args: list[str], tree: str | None = None) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one fresh process (of ``tree``'s venv, from its root)."""
    python = os.path.join(tree, ".venv", "bin", "python") if tree else sys.executable
    start = time.perf_counter()
    proc = subprocess.Popen([python, *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, cwd=tree)
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--before", metavar="TREE", help="another checkout, run alternately")
    args = parser.parse_args()
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("note: PYTHONDONTWRITEBYTECODE is set: changed modules compile on every start",
              file=sys.stderr)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; best of "
          f"{args.repeat}")
    trees = [None] if args.before is None else [args.before, None]
    for name, command in COMMANDS.items():
        runs: dict[str | None, list[tuple[float, float]]] = {t: [] for t in trees}
        for _ in range(args.repeat):
            for tree in trees:
                runs[tree].append(once(command, tree))
        for tree in trees:
            label = name if args.before is None else \
                f"{name} ({'before' if tree else 'this tree'})"
            print(f"{label:58s} {min(r[0] for r in runs[tree]):6.3f} s CPU  "
                  f"{min(r[1] for r in runs[tree]):6.3f} s wall")


if __name__ == "__main__":
    main()
