"""The recognised scheduling keys: found in the inputs, and a warning for every one the
plan does not honour (issue 21: Kueue's own TAS sample was planned across two hosts with
``warnings: []``)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tasplan import load_inputs, plan
from tasplan.cli.app import app

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "realworld" / "fixtures"
CLUSTER = REPO / "samples" / "cluster"


def test_kueue_tas_sample_job_is_warned_with_what_would_honour_it() -> None:
    result = plan(load_inputs([FIXTURES / "kueue-tas-job.yaml"], [CLUSTER]))
    topology = [w for w in result.warnings if "podset-required-topology" in w]
    assert topology == [
        "Job default/tas-sample-job spec.template.metadata.annotations"
        "[kueue.x-k8s.io/podset-required-topology] = 'kubernetes.io/hostname': Kueue's "
        "annotation (the PodSet must fit in one domain of this level) is not honoured by "
        "kube-scheduler; the plan ignores it; honoured by --scheduler kueue (Kueue TAS); "
        "approximate it with --gang 2 --topology-key kubernetes.io/hostname"]
    # One warning for the queue label, naming both Jobs that carry it.
    (queue,) = [w for w in result.warnings if "queue-name" in w]
    assert queue.startswith("Job default/tas-sample-job metadata.labels[kueue.x-k8s.io/"
                            "queue-name]; Job default/implicit-tas-job metadata.labels[")


def test_the_warning_is_in_the_json_report_too() -> None:
    out = CliRunner().invoke(app, ["check", str(FIXTURES / "kueue-tas-job.yaml"), "-c",
                                   str(CLUSTER), "-o", "json"])
    warnings = json.loads(out.stdout)["warnings"]
    assert any("podset-required-topology" in w for w in warnings)


def test_the_workaround_it_names_plans_one_host() -> None:
    """--gang 2 --topology-key kubernetes.io/hostname, as the warning says, puts both pods
    on one node."""
    from tasplan import JobOverrides

    snapshot = load_inputs([FIXTURES / "kueue-tas-job.yaml"], [CLUSTER],
                           jobs=JobOverrides(2, "kubernetes.io/hostname"))
    result = plan(snapshot)
    g = next(g for g in result.groups if g.group.key == "default/tas-sample-job")
    assert g.schedulable and len(set(g.selected_placement.assignments.values())) == 1


def test_kueue_keys_are_honoured_under_kueue() -> None:
    """With the sample Topology and TAS flavor in the inputs, auto plans the annotated Job
    with Kueue: its podset annotation and queue label are read, not warned (issue 22)."""
    kueue = REPO / "samples" / "kueue"
    result = plan(load_inputs([FIXTURES / "kueue-tas-job.yaml"],
                              [CLUSTER, kueue / "topology.yaml", kueue / "flavor.yaml"]))
    g = next(g for g in result.groups if g.group.key == "default/tas-sample-job")
    assert g.scheduler == "kueue" and g.schedulable
    assert len(set(g.selected_placement.assignments.values())) == 1  # one host, as asked
    assert not [w for w in result.warnings if "tas-sample-job" in w and "podset-" in w]
