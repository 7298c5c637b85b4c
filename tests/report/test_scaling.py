"""Output that scales to a fleet (issue 26): a gang at kubernetes.io/hostname on a large
cluster has one placement per node. The table shows the best ten and says what it left out
("and 15 more placements (15 tied)"), ``--all-placements`` lists every one, JSON always does;
names are in natural order (node-2 before node-10); FREE columns only for what the group
requests (cpu, memory and its own resources, not every extended resource a node lists)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from tasplan.cli.app import app
from tasplan.model.topology import natural_key

HOST = "kubernetes.io/hostname"


def cluster(tmp_path: Path, n: int, cpu: int = 4, small: tuple[int, ...] = ()) -> Path:
    """Nodes node-1 .. node-n, each with 11 RDMA-like extended resources (as a kwok GPU node
    lists them) and 8 GPUs; the ``small`` ones have 1 cpu."""
    extra = "".join(f"      example.com/sriov_rdma_{i}: '1'\n" for i in range(11))
    nodes = "".join(
        f"- apiVersion: v1\n  kind: Node\n  metadata:\n    name: node-{i}\n"
        f"    labels: {{{HOST}: node-{i}, rack: rack-{(i - 1) // 5 + 1}}}\n"
        f"  status:\n    allocatable:\n      cpu: '{1 if i in small else cpu}'\n"
        f"      memory: 64Gi\n"
        f"      pods: '110'\n      nvidia.com/gpu: '8'\n{extra}"
        for i in range(1, n + 1))
    path = tmp_path / "cluster.yaml"
    path.write_text(f"apiVersion: v1\nkind: List\nitems:\n{nodes}")
    return path


def job(tmp_path: Path, pods: int, cpu: int = 1, gpu: int = 0) -> Path:
    gpus = f"            nvidia.com/gpu: '{gpu}'\n" if gpu else ""
    path = tmp_path / "job.yaml"
    path.write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: pair, namespace: ml}\n"
        f"spec:\n  parallelism: {pods}\n  completions: {pods}\n  template:\n    spec:\n"
        "      restartPolicy: Never\n      containers:\n      - name: c\n        image: x\n"
        f"        resources:\n          requests:\n            cpu: '{cpu}'\n{gpus}")
    return path


def run(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def rows(out: str) -> list[str]:
    """Placement (or domain) names of the table rows, in order."""
    return re.findall(r"^\s*(?:[▶=]?\d+\s+)?(node-\d+)\s", out, re.M)


def test_top_ten_placements_and_what_the_rest_are(tmp_path: Path) -> None:
    args = ("check", job(tmp_path, 2), "-c", cluster(tmp_path, 25), "--gang", "2",
            "--topology-key", HOST)
    out = run(*args)
    # natural order: every node ties, so the name decides (node-1, node-2, ... node-10)
    assert rows(out) == [f"node-{i}" for i in range(1, 11)]
    assert "and 15 more placements (15 tied): --all-placements lists every one" in out
    assert "SCHEDULABLE: all 2 pending pods fit in node-1" in out
    everything = run(*args, "--all-placements")
    assert rows(everything) == [f"node-{i}" for i in range(1, 26)]
    assert "more placements" not in everything
    document = json.loads(run(*args, "-o", "json"))
    assert len(document["groups"][0]["placements"]) == 25


def test_what_the_hidden_rows_are_counted_by_kind(tmp_path: Path) -> None:
    """Nodes with 1 cpu cannot hold the pair: infeasible rows are counted apart."""
    nodes = cluster(tmp_path, 12, small=(3, 11, 12))
    out = run("check", job(tmp_path, 2), "-c", nodes, "--gang", "2", "--topology-key", HOST)
    assert "and 2 more placements (2 infeasible): --all-placements lists every one" in out
    # feasible first, then the infeasible closest first: node-3 holds one pod
    assert rows(out) == ["node-1", "node-2", *(f"node-{i}" for i in range(4, 11)), "node-3"]


def test_random_ties_note_names_five_and_counts_the_rest(tmp_path: Path) -> None:
    out = run("check", job(tmp_path, 2), "-c", cluster(tmp_path, 25), "--gang", "2",
              "--topology-key", HOST)
    note = next(line for line in out.splitlines() if "[random-ties]" in line)
    assert "placements 'node-1', 'node-2', 'node-3', 'node-4', 'node-5' and 20 more tie" in note


def test_free_columns_only_for_what_the_group_requests(tmp_path: Path) -> None:
    nodes = cluster(tmp_path, 3)
    cpu_only = run("check", job(tmp_path, 2), "-c", nodes, "--gang", "2",
                   "--topology-key", HOST)
    header = next(line for line in cpu_only.splitlines() if "PLACEMENT" in line)
    assert "FREE CPU" in header and "FREE MEM" in header
    assert "GPU" not in header and "RDMA" not in header.upper()
    gpus = run("check", job(tmp_path, 2, gpu=1), "-c", nodes, "--gang", "2",
               "--topology-key", HOST)
    header = next(line for line in gpus.splitlines() if "PLACEMENT" in line)
    assert "FREE GPU" in header and "RDMA" not in header.upper()


def test_explain_shows_the_closest_domains_then_counts_the_rest(tmp_path: Path) -> None:
    """A 3-pod gang of 3-cpu pods on 4-cpu nodes fits nowhere at hostname: 25 domains."""
    args = ("explain", job(tmp_path, 3, cpu=3), "-c", cluster(tmp_path, 25), "--gang", "3",
            "--topology-key", HOST)
    out = run(*args)
    assert rows(out)[:10] == [f"node-{i}" for i in range(1, 11)]
    assert "and 15 more domains: --all-placements lists every one" in out
    assert len(set(rows(run(*args, "--all-placements")))) == 25


def test_natural_key() -> None:
    names = ["node-10", "node-2", "node-1", "rack-b10", "rack-b9", "node-02", "a", ""]
    assert sorted(names, key=natural_key) == [
        "", "a", "node-1", "node-02", "node-2", "node-10", "rack-b9", "rack-b10"]


def test_capacity_lists_domains_in_natural_order(tmp_path: Path) -> None:
    document = json.loads(run("capacity", "-c", cluster(tmp_path, 60), "--shape", "cpu=1",
                              "--levels", f"rack,{HOST}", "-o", "json"))
    racks = [d["name"] for d in document["domains"] if d["level"] == "rack"]
    assert racks == [f"rack-{i}" for i in range(1, 13)]
