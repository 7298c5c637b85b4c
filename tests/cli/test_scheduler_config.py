"""``tasplan check --scheduler-config``: the bundled MostAllocated sample, profile
selection by schedulerName and one-line errors for a bad configuration."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_check import CLUSTER, SAMPLES, WORKLOADS, assert_one_line_error, invoke, write

MOST_ALLOCATED = SAMPLES / "scheduler-config" / "most-allocated.yaml"


def _check_json(*args):
    result = invoke("check", WORKLOADS / "pinned.yaml", "-c", CLUSTER, "-o", "json", *args)
    return result.exit_code, json.loads(result.stdout)


def test_most_allocated_sample_packs_gpu_a3_0():
    """Hand-computed (samples/README.md numbers): for resume-2, MostAllocated with gpu 5,
    cpu 1, memory 1 scores gpu-a3-0 (6/8 GPU, 28.2/96 cpu, 224.3Gi/1Ti) (75*5+29+21)/7 = 60
    against 41, 41 and 20; then gpu-a3-0 (8/8 GPU) scores 84 for resume-3. The default
    profile (LeastAllocated) spreads them to gpu-a3-3 and, on a tie, gpu-a3-1."""
    code, document = _check_json("--scheduler-config", MOST_ALLOCATED)
    assert code == 0
    (group,) = document["groups"]
    assert group["placements"][0]["assignments"] == {"ml/resume-2": "gpu-a3-0",
                                                     "ml/resume-3": "gpu-a3-0"}
    code, document = _check_json()
    assert document["groups"][0]["placements"][0]["assignments"] == {
        "ml/resume-2": "gpu-a3-3", "ml/resume-3": "gpu-a3-1"}


def test_pods_of_a_scheduler_without_profile_are_not_planned(tmp_path: Path):
    config = write(tmp_path, "packer.yaml", """
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: packer
        """)
    code, document = _check_json("--scheduler-config", config)
    assert code == 1
    (group,) = document["groups"]
    assert (group["schedulable"], group["placements"]) == (False, [])
    assert 'no scheduler profile "default-scheduler"' in group["message"]


def test_bad_scheduler_config_is_one_line_exit_2(tmp_path: Path):
    config = write(tmp_path, "bad.yaml", """
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          plugins:
            score:
              enabled:
              - name: NodeResourcesFit
              - name: ImageLocality
              - name: NodeResourceFit
        """)
    result = invoke("check", WORKLOADS / "pinned.yaml", "-c", CLUSTER,
                    "--scheduler-config", config)
    assert_one_line_error(result, "bad.yaml:10:", "KubeSchedulerConfiguration",
                          "profiles[0].plugins.score.enabled[2].name",
                          'unknown plugin "NodeResourceFit"')


def test_missing_scheduler_config(tmp_path: Path):
    result = invoke("check", WORKLOADS / "pinned.yaml", "-c", CLUSTER,
                    "--scheduler-config", tmp_path / "nope.yaml")
    assert_one_line_error(result, "nope.yaml")
