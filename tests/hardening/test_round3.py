"""Hardening round 3 (issue 25): inputs that are not files, symlink loops, numbers too long
for ``int()``; each one exit 2 with one line, never a traceback or a 4 GiB read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.hardening.test_inputs import CLUSTER, TRAIN, invoke, one_line_error

WORKLOAD_INPUTS = {
    "--what-if": lambda f: ("check", TRAIN, "-c", CLUSTER, "--what-if", f),
    "--scheduler-config": lambda f: ("check", TRAIN, "-c", CLUSTER, "--scheduler-config", f),
    "workload": lambda f: ("check", f, "-c", CLUSTER),
    "--cluster": lambda f: ("check", TRAIN, "-c", f),
    "lint": lambda f: ("lint", f),
    "capacity --for": lambda f: ("capacity", "-c", CLUSTER, "--for", f),
}


@pytest.mark.parametrize("option", sorted(WORKLOAD_INPUTS))
def test_every_input_refuses_devices_and_fifos(option: str, tmp_path: Path) -> None:
    """--what-if /dev/zero and --scheduler-config /dev/zero read up to 4 GiB (MemoryError
    under a memory cap); every input now gets the one regular-file check."""
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    for path in ("/dev/zero", str(fifo)):
        one_line_error(invoke(*WORKLOAD_INPUTS[option](path)), path, "not a regular file")


def test_a_symlink_loop_in_a_cluster_directory_names_its_links(tmp_path: Path) -> None:
    (tmp_path / "nodes.yaml").write_text((CLUSTER / "nodes.yaml").read_text())
    (tmp_path / "a.yaml").symlink_to("b.yaml")
    (tmp_path / "b.yaml").symlink_to("a.yaml")
    one_line_error(invoke("check", TRAIN, "-c", tmp_path),
                   "a.yaml: a symbolic link loop", "a.yaml -> b.yaml -> a.yaml")


def test_a_dangling_symlink_is_named_with_its_target(tmp_path: Path) -> None:
    link = tmp_path / "w.yaml"
    link.symlink_to(tmp_path / "gone.yaml")
    one_line_error(invoke("check", link, "-c", CLUSTER), "a broken symbolic link",
                   "gone.yaml")


@pytest.mark.parametrize("cpu", ["1" * 5000, "1e" + "1" * 5000, "1e" + "9" * 30])
def test_quantities_beyond_the_digit_limit(cpu: str, tmp_path: Path) -> None:
    """A 5,000-digit cpu quantity or exponent was Python's int-string ValueError (exit 3)."""
    pod = tmp_path / "pod.yaml"
    pod.write_text(f"""apiVersion: v1
kind: Pod
metadata: {{name: p}}
spec:
  containers: [{{name: c, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
""")
    err = one_line_error(invoke("check", pod, "-c", CLUSTER),
                         "spec.containers[0].resources.requests.cpu")
    assert len(err) < 400


def test_a_fifo_kubeconfig_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "config"
    os.mkfifo(fifo)
    one_line_error(invoke("check", TRAIN, "--live", "--kubeconfig", fifo),
                   "kubeconfig is not a regular file")
