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


# ------------------------------------------------------------------ what-if and config files

WHATIF = "apiVersion: tasplan/v1\nkind: WhatIf\nedits:\n"


def what_if(tmp_path: Path, edits: str) -> Path:
    path = tmp_path / "whatif.yaml"
    path.write_text(WHATIF + edits)
    return path


@pytest.mark.parametrize(("edits", "needles"), [
    ("- {op: addNodes, count: 2.0, like: gpu-a1-0}\n",  # was a TypeError (exit 3)
     ("edits[0].count", "expected an integer, got 2.0")),
    ("- {op: addNodes, count: 1, like: gpu-a1-0, target: x}\n",  # was ignored
     ("edits[0].target", "target does not apply to addNodes")),
    ("- {op: cordon, target: gpu-a1-0, count: 3}\n",  # was ignored
     ("edits[0].count", "count does not apply to cordon")),
    ("- {op: cordon, target: gpu-a1-0, labels: {a: b}}\n",
     ("edits[0].labels", "labels does not apply to cordon")),
])
def test_what_if_fields_are_checked(tmp_path: Path, edits: str, needles: tuple) -> None:
    one_line_error(invoke("check", TRAIN, "-c", CLUSTER, "--what-if",
                          what_if(tmp_path, edits)), *needles)


def test_too_many_edits_are_refused_before_the_schema_runs(tmp_path: Path) -> None:
    """100,000 edits were refused only after the schema's item-by-item pass and a compose
    for the line (14-24 s): the count is checked first."""
    import time

    path = what_if(tmp_path, "- {op: cordon, target: x}\n" * 100_000)
    started = time.process_time()
    one_line_error(invoke("check", TRAIN, "-c", CLUSTER, "--what-if", path),
                   "expected at most 1000 edits, got 100,000")
    assert time.process_time() - started < 10


@pytest.mark.parametrize("op", ["cordon", "set", "evict", "drain"])
def test_a_long_target_is_quoted_short(tmp_path: Path, op: str) -> None:
    """A 100,000-character target was echoed in a 300 KB line; errors quote 60 characters."""
    err = one_line_error(invoke("check", TRAIN, "-c", CLUSTER, "--what-if",
                                what_if(tmp_path, f"- {{op: {op}, target: {'x' * 100_000}}}\n")))
    assert len(err) < 400 and "(100000 chars)" in err


@pytest.mark.parametrize("value", ["2147483648", "1" + "0" * 20, "٣", "1_0", "+", "0"])
def test_set_min_count_takes_int32_ascii_digits(value: str) -> None:
    """Python's int() takes '٣' and '1_0', and minCount is an int32 in the API."""
    one_line_error(invoke("check", TRAIN, "-c", CLUSTER, "--set",
                          f"ml/train-workers-0.minCount={value}"),
                   "minCount must be an integer from 1 to 2147483647")


def test_evict_priority_bound_takes_ascii_digits() -> None:
    one_line_error(invoke("check", TRAIN, "-c", CLUSTER, "--evict", "priority<٣"),
                   "priority bound", "is not an integer")


SCHEDULER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def test_score_weight_overflow_names_the_file_and_field(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(SCHEDULER + """profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      enabled:
      - {name: NodeResourcesFit, weight: 2147483647}
      - {name: TaintToleration, weight: 2147483647}
""")
    one_line_error(invoke("check", TRAIN, "-c", CLUSTER, "--scheduler-config", config),
                   "config.yaml:", "profiles[0].plugins.score", "would overflow")


def test_extenders_are_named_in_a_warning(tmp_path: Path) -> None:
    import json

    config = tmp_path / "config.yaml"
    config.write_text(SCHEDULER + "extenders:\n- {urlPrefix: 'http://x', filterVerb: f}\n")
    result = invoke("check", TRAIN, "-c", CLUSTER, "--scheduler-config", config, "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert any("does not call extenders" in w for w in json.loads(result.stdout)["warnings"])


def test_many_profiles_are_read_in_bounded_time(tmp_path: Path) -> None:
    """10,000 profiles took 21-37 s (isinstance against Protocols, per profile)."""
    import time

    from tasplan.plugins.config import load_scheduler_config

    config = tmp_path / "config.yaml"
    config.write_text(SCHEDULER + "profiles:\n" + "".join(
        f"- schedulerName: s{i}\n" for i in range(2_000)))
    started = time.process_time()
    assert len(load_scheduler_config(config).profiles) == 2_000
    assert time.process_time() - started < 5  # 0.4 s on an idle machine
