"""The Volcano core over tasplan's cluster model: the sample vcjob on the sample cluster."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import yaml

from tasplan.load.core_v1 import PriorityResolver
from tasplan.load.loader import load_inputs
from tasplan.load.producers import PodIndex, expand
from tasplan.load.volcano import decode_vcjob, volcano_inputs
from tasplan.model.source import Source
from tasplan.schedulers.volcano.cluster import plan_volcano

SAMPLES = Path(__file__).parents[3] / "samples"


def docs(path: Path) -> list[tuple[Source, dict]]:
    return [(Source(str(path), document=i, workload=True), obj)
            for i, obj in enumerate(yaml.safe_load_all(path.read_text())) if obj]


def sample_plan(job_text: str | None = None, tmp_path: Path | None = None):
    job = SAMPLES / "volcano" / "train-vcjob.yaml"
    if job_text is not None:
        job = tmp_path / "job.yaml"
        job.write_text(job_text)
    snapshot = load_inputs([], [SAMPLES / "cluster"])
    (source, obj), = docs(job)
    inputs = volcano_inputs([*docs(SAMPLES / "volcano" / "hypernodes.yaml"), (source, obj)])
    # The loader does not read vcjobs yet: expand the job's pods into the snapshot here.
    producer = decode_vcjob(source, obj)[0]
    pods = {(p.namespace, p.name): p for p in snapshot.pods}
    groups, _, _ = expand(producer, pods, PodIndex(pods),
                          PriorityResolver(snapshot.priority_classes), len(pods), 10_000)
    snapshot = replace(snapshot, pods=tuple(pods.values()),
                       groups=(*snapshot.groups, *groups), usage=None)
    return plan_volcano(snapshot, inputs, groups)


def test_sample_vcjob_lands_in_one_rack_tie_broken_by_name() -> None:
    plan = sample_plan()
    (out,) = plan.outcomes
    assert out.committed and out.hypernode == "rack-b1"
    assert {n for _, n in out.assignments} == {f"gpu-b1-{i}" for i in range(4)}
    # rack-b1 and rack-b3 are equally empty: Volcano picks one at random
    assert any("rack-b1, rack-b3" in t for t in plan.ties)
    fitting = [a.hypernode for a in out.attempts if a.fits]
    assert fitting == ["rack-b1", "rack-b3"]
    # the other racks lack the job's minResources (4 x 8 GPUs) and are never dry-run
    skipped = {a.hypernode: a.reason for a in out.attempts if a.gradient == -1}
    assert sorted(skipped) == ["rack-a1", "rack-a2", "rack-a3", "rack-b2"]
    assert skipped["rack-a3"] == ("not tried: its idle nvidia.com/gpu (28) is below the "
                                  "minResources nvidia.com/gpu (32)")
    assert "idle cpu (127200m) is below the minResources cpu (192)" in skipped["rack-a1"]


def test_five_workers_do_not_fit_a_rack_and_block_is_not_allowed(tmp_path: Path) -> None:
    text = (SAMPLES / "volcano" / "train-vcjob.yaml").read_text()
    plan = sample_plan(text.replace("minAvailable: 4", "minAvailable: 5")
                       .replace("replicas: 4", "replicas: 5"), tmp_path)
    (out,) = plan.outcomes
    assert not out.committed and not out.assignments
    # minResources (5 x 8 GPUs) pre-filters every rack: no HyperNode is dry-run
    assert len(out.attempts) == 6 and all(a.gradient == -1 for a in out.attempts)


def test_five_workers_fit_a_block_when_tier_two_is_allowed(tmp_path: Path) -> None:
    text = (SAMPLES / "volcano" / "train-vcjob.yaml").read_text()
    plan = sample_plan(text.replace("minAvailable: 4", "minAvailable: 5")
                       .replace("replicas: 4", "replicas: 5")
                       .replace("highestTierAllowed: 1", "highestTierAllowed: 2"), tmp_path)
    (out,) = plan.outcomes
    assert out.committed and out.hypernode in ("block-a", "block-b")
    assert len(out.assignments) == 5
