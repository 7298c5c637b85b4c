#!/usr/bin/env python3
"""Time ``tasplan lint`` on a generated corpus of manifests (no --cluster).

The corpus (default 1,000 manifests) is written to a temporary directory: one file per
training job, each a multi-document YAML with a v1beta1 Workload, its PodGroup and
pods written as ``kubectl get -o yaml`` shows them (about 60 lines each), plus a Job
with ``.spec.scheduling`` and a Service (skipped by lint) in some files, so every code
path a real repository exercises runs: parsing with marks, schema validation, the
semantic rules. Every eighth file has a deliberate error, so findings are located and
rendered too.

Reported, best of ``--repeat``, as wall and CPU time: (a) ``lint()`` in-process (parse,
validate, semantic), (b) the same plus rendering every format, (c) the CLI end-to-end in
a fresh process (``tasplan lint DIR -o json``), interpreter start-up and imports included.

``--before TREE``: (c) also for another checkout (its ``.venv/bin/python``, from its root),
alternating with this one run by run, so that both are measured in the same minutes.

``--big N``: instead, one YAML stream of N small Pods (about 300 bytes each: 200,000 make
the issue's 60 MB file) whose last Pod has an invalid name, linted end to end by the CLI;
reports MB/s and checks that the one finding is at the last Pod's line. ``--read``: time
reading it with positions in-process instead; ``--distinct``: no two Pods equal up to
their names (the stream's 100 variants otherwise).
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

POD = """\
---
apiVersion: v1
kind: Pod
metadata:
  name: {job}-{i}
  namespace: ml
  labels:
    app.kubernetes.io/name: {job}
    app.kubernetes.io/component: worker
  annotations:
    example.com/owner: team-{n}
spec:
  schedulingGroup:
    podGroupName: {job}-0
  priorityClassName: training-high
  restartPolicy: Never
  tolerations:
  - key: nvidia.com/gpu
    operator: Exists
    effect: NoSchedule
  nodeSelector:
    node.kubernetes.io/instance-type: gpu-8x
  containers:
  - name: trainer
    image: registry.example.com/ml/trainer:1.4.{n}
    command: ["torchrun", "--nnodes=4", "--nproc-per-node=8", "train.py"]
    env:
    - name: RANK
      value: "{i}"
    - name: MASTER_ADDR
      value: {job}-0
    ports:
    - containerPort: 29500
      name: rendezvous
    resources:
      requests:
        cpu: "{cpu}"
        memory: 256Gi
        nvidia.com/gpu: "8"
      limits:
        cpu: "{cpu}"
        memory: 256Gi
        nvidia.com/gpu: "8"
    volumeMounts:
    - name: data
      mountPath: /data
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: {job}-data
"""

HEAD = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: {job}
  namespace: ml
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      gang:
        minCount: {pods}
    schedulingConstraints:
      topology:
      - key: {key}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: {job}-0
  namespace: ml
spec:
  workloadRef:
    workloadName: {job}
    templateName: workers
  priorityClassName: training-high
  schedulingPolicy:
    gang:
      minCount: {pods}
  schedulingConstraints:
    topology:
    - key: {key}
"""

TAIL = """\
---
apiVersion: batch/v1
kind: Job
metadata:
  name: {job}-eval
  namespace: ml
spec:
  parallelism: 2
  completions: 2
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang: {{}}
    schedulingConstraints:
      topology:
      - key: topology.example.com/rack
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: eval
        image: registry.example.com/ml/eval:2.0
        resources:
          requests: {{cpu: "4", memory: 16Gi}}
---
apiVersion: v1
kind: Service
metadata:
  name: {job}
  namespace: ml
spec:
  clusterIP: None
  selector:
    app.kubernetes.io/name: {job}
"""


def write_corpus(directory: Path, manifests: int) -> int:
    """Files of 2 + 4 pods (+ Job and Service every other file) until ``manifests``."""
    written = n = 0
    while written < manifests:
        job = f"train-{n:04d}"
        # every 8th file has an invalid topology key (an error in the Workload and one in
        # the PodGroup)
        key = "topology.example.com/rack" if n % 8 else "topology.example.com/rack_"
        parts = [HEAD.format(job=job, pods=4, key=key)]
        parts += [POD.format(job=job, i=i, n=n % 10, cpu=32) for i in range(4)]
        count = 6
        if n % 2:
            parts.append(TAIL.format(job=job))
            count += 2
        (directory / f"{job}.yaml").write_text("".join(parts))
        written += count
        n += 1
    return written


BIG_POD = """\
---
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: ml
  labels:
    app.kubernetes.io/name: worker-{g}
    app.kubernetes.io/part-of: training
spec:
  containers:
  - name: trainer
    image: registry.example.com/ml/trainer:1.4.{g}
    resources:
      requests:
        cpu: "1"
        memory: 1Gi
"""


def write_big(path: Path, pods: int, distinct: bool = False) -> int:
    """One stream of ``pods`` Pods, the last named ``Bad`` (TP103); returns its line.
    ``distinct``: every Pod has its own labels and image (no two documents equal up to
    their names), instead of 100 variants."""
    parts = [BIG_POD.format(name=f"p-{i:06d}", g=i if distinct else i % 100)
             for i in range(pods - 1)]
    text = "".join(parts)
    path.write_text(text + BIG_POD.format(name="Bad", g=0))
    return text.count("\n") + 5


def read(pods: int, repeat: int, distinct: bool) -> None:
    """In-process: the stream read with positions (``reader.parse``, then the finding's
    line and column), as lint reads it; CPU time, best of ``repeat``."""
    from tasplan.lint.reader import parse

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.yaml"
        line = write_big(path, pods, distinct)
        data = path.read_bytes()

    def run() -> None:
        gc.disable()  # as lint() does
        manifests, problem = parse(str(path), data)
        gc.enable()
        assert problem is None and len(manifests) == pods
        assert manifests[-1].locate(("metadata", "name")) == (line, 9)

    _, cpu = best(repeat, run)
    kind = "distinct" if distinct else "repeating"
    print(f"{pods} Pods ({kind}), {len(data) / 1e6:.1f} MB read with positions: {cpu:.2f} s "
          f"CPU, {len(data) / 1e6 / cpu:.1f} MB/s (load average {os.getloadavg()[0]:.2f})")


def big(pods: int, repeat: int, distinct: bool = False) -> None:
    import json

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.yaml"
        line = write_big(path, pods, distinct)
        size = path.stat().st_size
        command = [sys.executable, "-m", "tasplan", "lint", str(path), "-o", "json"]
        out = subprocess.run(command, capture_output=True, check=False).stdout
        findings = [(f["rule"], f["line"]) for f in json.loads(out)["findings"]]
        assert findings == [("TP103", line)], findings
        wall, cpu = best(repeat, lambda: subprocess.run(command, capture_output=True,
                                                        check=False))
    print(f"{pods} Pods in one YAML stream, {size / 1e6:.1f} MB; finding at line {line}")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"CLI end-to-end (-o json): {wall:.2f} s wall / {cpu:.2f} s CPU, "
          f"{size / 1e6 / cpu:.1f} MB/s of CPU")


def best(repeat: int, fn) -> tuple[float, float]:
    """Best wall time and best CPU time (this process and its children) of ``repeat``
    runs. The machine is shared: CPU time shows the work when others load the cores."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = _cpu()
        start = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(_cpu() - before)
    return min(walls), min(cpus)


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifests", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", metavar="TREE", help="(c) for another checkout too")
    parser.add_argument("--big", type=int, metavar="PODS",
                        help="time one large YAML stream of PODS Pods instead")
    parser.add_argument("--distinct", action="store_true",
                        help="with --big: no two Pods equal up to their names")
    parser.add_argument("--read", action="store_true",
                        help="with --big: time reading with positions in-process instead")
    args = parser.parse_args()
    if args.big:
        if args.read:
            read(args.big, args.repeat, args.distinct)
        else:
            big(args.big, args.repeat, args.distinct)
        return

    from tasplan.lint import lint
    from tasplan.lint.formats import RENDERERS

    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        count = write_corpus(directory, args.manifests)
        files = len(list(directory.iterdir()))
        report = lint([directory])
        in_process = best(args.repeat, lambda: lint([directory]))

        def with_formats() -> None:
            r = lint([directory])
            for render in RENDERERS.values():
                render(r)

        rendered = best(args.repeat, with_formats)
        command = ["-m", "tasplan", "lint", str(directory), "-o", "json"]
        pythons = {"": (sys.executable, None)}
        if args.before:
            pythons["before"] = (os.path.join(args.before, ".venv", "bin", "python"),
                                 args.before)
        cli: dict[str, list[tuple[float, float]]] = {name: [] for name in pythons}
        for _ in range(args.repeat):  # the trees alternate run by run
            for name, (python, cwd) in pythons.items():
                cli[name].append(best(1, lambda python=python, cwd=cwd: subprocess.run(
                    [python, *command], capture_output=True, check=False, cwd=cwd)))
    print(f"corpus: {count} manifests in {files} files; "
          f"{len(report.findings)} findings ({report.summary_line()})")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores;"
          " best wall / best CPU seconds")
    print("(a) lint() in-process          {:6.3f} / {:6.3f}".format(*in_process))
    print("(b) lint() + all 5 formats     {:6.3f} / {:6.3f}".format(*rendered))
    for name, runs in cli.items():
        label = f"(c) CLI end-to-end (-o json){' ' + name if name else ''}"
        print(f"{label:30s} {min(r[0] for r in runs):6.3f} / {min(r[1] for r in runs):6.3f}"
              "   target < 0.5 s wall")


if __name__ == "__main__":
    main()
