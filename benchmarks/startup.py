#!/usr/bin/env python3
"""Start-up of the ``tasplan`` command: best CPU time (user + sys) and wall time of fresh
processes for ``--version``, ``--help``, ``check`` and ``lint`` of the bundled samples,
next to a bare ``python -c pass``. Run it from the repository root of the tree to measure
(``python -m tasplan`` imports the package of the current directory), with bytecode
cached (not under ``PYTHONDONTWRITEBYTECODE``: every start would compile the changed
modules). The issue's goals: ``--version`` ≤ 0.08 s, ``check`` of the samples ≤ 0.3 s.
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


def once(args: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("note: PYTHONDONTWRITEBYTECODE is set: changed modules compile on every start",
              file=sys.stderr)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; best of "
          f"{args.repeat}")
    for name, command in COMMANDS.items():
        runs = [once(command) for _ in range(args.repeat)]
        print(f"{name:45s} {min(r[0] for r in runs):6.3f} s CPU  "
              f"{min(r[1] for r in runs):6.3f} s wall")


if __name__ == "__main__":
    main()
