"""Preemption with DRA devices: the preemptor's re-run counts its own devices as every cycle
does; victims' devices stay in use, as upstream's preemption does not count them freed yet
(KEP-5690, docs/dra.md)."""

from __future__ import annotations

from dataclasses import replace

from tasplan.model.dra import AllocatedDevice, Allocation, NodeReach, PodClaim, ResourceClaim
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.plan.notes import Outcome
from tasplan.preemption.evaluator import NOT_ENOUGH
from tasplan.schedulers.planner import plan
from tests.builders import gang_pods, make_group, make_node, make_pod
from tests.dra.builders import (
    CLASS_A,
    DRIVER_A,
    SRC,
    claim,
    device,
    device_class,
    inputs,
    label_term,
    local_slice,
    request,
)
from tests.dra.test_plugin import ONE_GPU

CLASSES = (device_class(CLASS_A, DRIVER_A),)


def gpus(node: str, n: int):
    return local_slice(f"{node}-gpus", node, node, DRIVER_A,
                       *(device(f"gpu-{i}") for i in range(n)))


def held(name: str, gpu: str, node: str) -> ResourceClaim:
    """A claim the input has allocated: one GPU of ``node``."""
    return ResourceClaim("default", name, claim(request("gpu")), SRC,
                         Allocation((AllocatedDevice("gpu", DRIVER_A, node, gpu),),
                                    NodeReach(any_of=(label_term("kubernetes.io/hostname",
                                                                 node),))))


def preemptor(n: int, cpu: float = 1):
    group = make_group("train", min_count=n, key=None, priority=1000)
    pods = [replace(p, claims=(PodClaim("gpu", template_name="one-gpu"),))
            for p in gang_pods(group, n, cpu, priority=1000)]
    return group, pods


def test_victims_devices_stay_in_use() -> None:
    """n1's two GPUs are held by the claims of two running low-priority pods: evicting
    them frees cpu but, as upstream does not count devices freed yet (KEP-5690), no GPU, so
    preemption cannot help the one-GPU pod."""
    group, pods = preemptor(1)
    running = [replace(make_pod(f"old-{i}", 1, node="n1", priority=0),
                       claims=(PodClaim("gpu", claim_name=f"h{i}"),)) for i in range(2)]
    dra = inputs(CLASSES, [gpus("n1", 2)],
                 claims={("default", f"h{i}"): held(f"h{i}", f"gpu-{i}", "n1")
                         for i in range(2)},
                 templates={("default", "one-gpu"): ONE_GPU})
    snapshot = ClusterSnapshot((make_node("n1", 8),), (*running, *pods), (group,), dra=dra)
    result = plan(snapshot).groups[0]
    assert result.outcome == Outcome.UNSCHEDULABLE
    assert result.preemption_message == NOT_ENOUGH


def test_the_rerun_counts_the_preemptors_devices() -> None:
    """n1 and n2 have one GPU each; n2's CPUs are taken by a low-priority pod. The re-run
    without it places one pod on each node: the first pod holds n1's GPU, so the second
    cannot take n1 too, and the pod on n2 is a victim."""
    group, pods = preemptor(2, cpu=4)
    running = [make_pod("busy", 8, node="n2", priority=0)]
    dra = inputs(CLASSES, [gpus("n1", 1), gpus("n2", 1)],
                 templates={("default", "one-gpu"): ONE_GPU})
    snapshot = ClusterSnapshot((make_node("n1", 8), make_node("n2", 8)),
                               (*running, *pods), (group,), dra=dra)
    result = plan(snapshot).groups[0]
    assert result.outcome == Outcome.SCHEDULED_AFTER_PREEMPTION
    assert [v.pod for v in result.preemption.victims] == ["default/busy"]
    assert sorted(result.preemption.nominated.values()) == ["n1", "n2"]
