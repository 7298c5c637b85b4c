"""KAI behind the scheduler interface: claims, the shared state, KAI's own node checks on
top of kube-scheduler's filters, and what the report gets."""

from __future__ import annotations

from dataclasses import replace

from tasplan.model.group import PodGroup, Policy
from tasplan.model.kai import (
    Constraint,
    KaiInputs,
    KaiPodGroup,
    KaiTopology,
    Problem,
    TopologyLevel,
)
from tasplan.model.pod_affinity import LabelSelector, SpreadConstraint
from tasplan.model.selectors import Requirement
from tasplan.model.taints import Taint, Toleration
from tasplan.report.document import plan_document
from tasplan.schedulers.kube.scheduler import KUBE_SCHEDULER
from tasplan.schedulers.planner import plan
from tests.builders import WORKLOAD, make_group, make_node, make_pod, snapshot

GPU = "nvidia.com/gpu"
DC = KaiTopology("dc", (TopologyLevel("block", "block"), TopologyLevel("rack", "rack")),
                 WORKLOAD)


def nodes(racks: int = 3, per_rack: int = 2, **kw) -> list:
    return [make_node(f"n{r}{i}", 8, labels={"rack": f"r{r}", "block": "b"}, **{GPU: 8}, **kw)
            for r in range(racks) for i in range(per_rack)]


def kai_group(name: str = "train", n: int = 3, *, required: str = "", preferred: str = "",
              min_member: int | None = None, gpus: int = 8, priority: int = 0,
              subgroups=()) -> tuple[PodGroup, list, KaiPodGroup]:
    group = PodGroup(f"ml/{name}", "ml", Policy.GANG, n, None, "PodGroup",
                     "scheduling.run.ai/v2alpha2", WORKLOAD, priority, priority=priority,
                     planned=True)
    pods = [replace(make_pod(f"{name}-{i}", 1, namespace="ml", group=group.key,
                             priority=priority, **{GPU: gpus}),
                    scheduler_name="kai-scheduler") for i in range(n)]
    constraint = Constraint("dc", required, preferred) if required or preferred else Constraint()
    spec = KaiPodGroup("ml", name, n if min_member is None else min_member, None, "q", "",
                       constraint, tuple(subgroups), WORKLOAD)
    return group, pods, spec


def kai_snapshot(node_list, *groups, extra_pods=(), kube=(), problems=None):
    pods = [*extra_pods, *(p for _, ps, _ in groups for p in ps)]
    for g in kube:
        pods.extend(g[1])
    snap = snapshot(node_list, pods, [g for g, _, _ in groups] + [g for g, _ in kube])
    return replace(snap, kai=KaiInputs({"dc": DC}, {s.key: s for _, _, s in groups},
                                       problems or {}))


def by_key(result):
    return {g.group.key: g for g in result.groups}


def test_auto_claims_kai_pods_and_the_run_is_shared() -> None:
    """A KAI PodGroup of higher priority goes first; kube-scheduler's gang after it sees its
    pods (both in one rack each)."""
    g, pods, spec = kai_group(required="rack", n=2, priority=10)
    kube = make_group("kube", min_count=2, key="rack", priority=1)
    kube_pods = [make_pod(f"kube-{i}", 1, group=kube.key, priority=1, **{GPU: 8})
                 for i in range(2)]
    result = plan(kai_snapshot(nodes(2), (g, pods, spec), kube=[(kube, kube_pods)]))
    groups = by_key(result)
    assert groups["ml/train"].scheduler == "kai"
    assert groups["default/kube"].scheduler == KUBE_SCHEDULER
    assert [r.group.key for r in result.groups] == ["ml/train", "default/kube"]
    kai_nodes = set(groups["ml/train"].selected_placement.assignments.values())
    kube_nodes = set(groups["default/kube"].selected_placement.assignments.values())
    assert len(kai_nodes) == 2 and not kai_nodes & kube_nodes
    assert groups["ml/train"].selected == "b.r0" and groups["default/kube"].selected == "r1"
    notes = {n.code for n in groups["ml/train"].notes}
    assert {"scheduler-auto", "kai-offline"} <= notes


def test_named_kai_does_not_plan_pods_of_another_scheduler() -> None:
    kube = make_group("kube", min_count=2, key="rack")
    pods = [make_pod(f"kube-{i}", 1, group=kube.key) for i in range(2)]
    result = plan(snapshot(nodes(1), pods, [kube]), scheduler="kai")
    (group,) = result.groups
    assert group.outcome == "not-planned" and group.scheduler == "kai"
    assert 'KAI schedules pods of "kai-scheduler" only' in group.message


def test_unschedulable_lists_kais_reasons_per_domain() -> None:
    g, pods, spec = kai_group(required="rack", n=3)
    result = plan(kai_snapshot(nodes(2), (g, pods, spec)))
    (group,) = result.groups
    assert group.outcome == "unschedulable"
    assert group.message == (
        "Unable to schedule podgroup. <b.r0>: node-group b.r0 can allocate only 2 of 3 "
        "required pods. <b.r1>: node-group b.r1 can allocate only 2 of 3 required pods. "
        "topology dc, requirement rack couldn't be satisfied for job <ml/train>.")
    assert [(p.name, p.feasible, p.status) for p in group.placements] == [
        ("b.r0", False, "node-group b.r0 can allocate only 2 of 3 required pods"),
        ("b.r1", False, "node-group b.r1 can allocate only 2 of 3 required pods")]
    assert group.group.min_count == 3 and group.group.topology_key == "rack"


def test_taints_come_from_kube_filters_and_cordons_from_kai() -> None:
    """A cordoned node is out for KAI even when the pod tolerates the unschedulable taint;
    an untolerated taint rejects with kube-scheduler's reason; the next rack is tried."""
    node_list = nodes(2)
    node_list[0] = replace(node_list[0], unschedulable=True)
    node_list[1] = replace(node_list[1], taints=(Taint("gpu", "x", "NoSchedule"),))
    g, pods, spec = kai_group(required="rack", n=2)
    pods = [replace(p, tolerations=(Toleration("node.kubernetes.io/unschedulable",
                                               "Exists", "", "NoSchedule"),)) for p in pods]
    result = plan(kai_snapshot(node_list, (g, pods, spec)))
    (group,) = result.groups
    assert group.selected == "b.r1"
    first = group.placements[0]
    assert first.name == "b.r0" and not first.feasible
    assert "node is unschedulable" in first.status
    assert "untolerated taint" in first.status


def test_kai_has_no_pod_topology_spread() -> None:
    """A spread constraint kube-scheduler would enforce is not among KAI's filters."""
    g, pods, spec = kai_group(required="rack", n=2)
    spread = SpreadConstraint(1, "kubernetes.io/hostname", "DoNotSchedule",
                              LabelSelector((Requirement("app", "In", ("t",)),)))
    pods = [replace(p, labels={"app": "t"}, spread_constraints=(spread,)) for p in pods]
    small = [replace(n, allocatable={**n.allocatable, "nvidia.com/gpu": 16}) for n in nodes(1)]
    result = plan(kai_snapshot(small, (g, pods, spec)))
    (group,) = result.groups
    assert group.schedulable
    assert set(group.selected_placement.assignments.values()) == {"n00"}


def test_webhook_rejected_pod_group_is_an_error() -> None:
    g, pods, spec = kai_group(required="rack", n=2)
    problems = {("PodGroup", "ml/train"): (Problem("spec.subGroups[0].minMember",
                                                   "subgroup a: minMember is required"),)}
    result = plan(kai_snapshot(nodes(2), (g, pods, spec), problems=problems))
    (group,) = result.groups
    assert group.outcome == "error"
    assert group.message == ("KAI's admission webhook rejects PodGroup ml/train: "
                             "spec.subGroups[0].minMember: subgroup a: minMember is required")


def test_report_is_deterministic() -> None:
    g, pods, spec = kai_group(preferred="rack", n=3)
    snap = kai_snapshot(nodes(3), (g, pods, spec),
                        extra_pods=[make_pod("busy", 1, node="n00", **{GPU: 4})])
    first = plan_document(plan(snap))
    assert first == plan_document(plan(snap))
    (group,) = first["groups"]
    assert group["scheduler"] == "kai" and group["selected"] == "b"
    assert [p["name"] for p in group["placements"]] == ["b", "b.r0", "b.r1", "b.r2"]


def test_subgroups_get_their_own_domains_and_a_note() -> None:
    """Two subgroups of two pods, each required in one rack, inside one required block."""
    from tasplan.model.kai import SUBGROUP_LABEL, SubGroup
    subgroups = (SubGroup("a", 2, None, None, Constraint("dc", "rack")),
                 SubGroup("b", 2, None, None, Constraint("dc", "rack")))
    g, pods, spec = kai_group(n=4, required="block", subgroups=subgroups)
    spec = replace(spec, min_member=None)
    pods = [replace(p, labels={SUBGROUP_LABEL: "ab"[i // 2]}) for i, p in enumerate(pods)]
    (group,) = plan(kai_snapshot(nodes(3), (g, pods, spec))).groups
    assert group.schedulable and group.selected == "b"
    racks = {}
    for pod, node in group.selected_placement.assignments.items():
        racks.setdefault(pod.split("-")[-1] in "01", set()).add(node[:2])
    assert all(len(r) == 1 for r in racks.values())
    notes = {n.code: n.message for n in group.notes}
    assert notes["kai-subgroups"] == ("subgroups placed by their own constraints: a in 'b.r0', "
                                      "b in 'b.r1'")


def test_fewer_ready_pods_than_min_member_is_waiting() -> None:
    g, pods, spec = kai_group(required="rack", n=2, min_member=3)
    (group,) = plan(kai_snapshot(nodes(2), (g, pods, spec))).groups
    assert group.outcome == "waiting"
    assert "fewer pods than minMember are ready" in group.message


def test_without_a_pod_group_object_kai_plans_what_its_pod_grouper_makes() -> None:
    """minMember 1 and no constraint: the first pod is the gang, the rest follow one by one,
    bin-packed (both 4-GPU pods on one node)."""
    g, pods, _ = kai_group(n=2, gpus=4)
    snap = replace(snapshot(nodes(2), pods, [g]), kai=KaiInputs({"dc": DC}, {}))
    (group,) = plan(snap).groups
    assert group.schedulable and group.selected == "cluster"
    assert group.group.min_count == 1 and group.group.kind == "PodGroup"
    assert set(group.selected_placement.assignments.values()) == {"n00"}
    notes = {n.code: n.message for n in group.notes}
    assert notes["kai-podgrouper"].startswith("no scheduling.run.ai PodGroup ml/train in the "
                                              "inputs")
    assert "kai-elastic" in notes


def test_pods_being_deleted_get_a_note() -> None:
    g, pods, spec = kai_group(required="rack", n=1)
    leaving = replace(make_pod("leaving", 1, node="n00", **{GPU: 8}), deleting=True)
    (group,) = plan(kai_snapshot(nodes(2), (g, pods, spec), extra_pods=[leaving])).groups
    notes = {n.code: n.message for n in group.notes}
    assert notes["kai-releasing"].startswith("1 bound pod(s) are being deleted")
    assert "n00" not in group.selected_placement.assignments.values()
