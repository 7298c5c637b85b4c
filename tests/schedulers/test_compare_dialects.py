"""check --compare: Kueue's and Volcano's dialects (``Scheduler.intent`` and
``Scheduler.translate``), read and written on small clusters of two blocks of racks."""

from __future__ import annotations

from dataclasses import replace

from tasplan.model.group import Expansion, PodSet, pairs
from tasplan.model.kueue import KueueInputs, ResourceFlavor, Topology
from tasplan.model.pod_affinity import LabelSelector
from tasplan.model.selectors import Requirement
from tasplan.model.topology import HOSTNAME
from tasplan.model.volcano import (
    HARD,
    MEMBER_HYPERNODE,
    MEMBER_NODE,
    SOFT,
    TASK_SPEC_KEY,
    HyperNode,
    Member,
    NetworkTopology,
    SubGroupPolicy,
    VolcanoInputs,
    VolcanoPodGroup,
)
from tasplan.plan.intent import Intent
from tasplan.schedulers.kueue import request as r
from tasplan.schedulers.kueue.gates import gates_for
from tasplan.schedulers.kueue.intent import read_intent as kueue_intent
from tasplan.schedulers.kueue.intent import translate as to_kueue
from tasplan.schedulers.planner import plan
from tasplan.schedulers.volcano.intent import _tree, tier_labels
from tasplan.schedulers.volcano.intent import read_intent as volcano_intent
from tasplan.schedulers.volcano.intent import translate as to_volcano
from tests.builders import WORKLOAD, make_group, make_node, make_pod, snapshot

GPU = "nvidia.com/gpu"
RACK, BLOCK = "topology.example.com/rack", "topology.example.com/block"
GATES = gates_for("0.20", ())


def nodes():
    """Blocks b0 (racks r0, r1) and b1 (racks r2, r3), two 8-GPU nodes per rack."""
    return [make_node(f"n{r}{i}", 8, labels={RACK: f"r{r}", BLOCK: f"b{r // 2}"}, **{GPU: 8})
            for r in range(4) for i in range(2)]


def group_of(name: str, n: int, *, key: str | None = RACK, min_count: int | None = None,
             expansions=(), scheduler: str = "default-scheduler"):
    group = replace(make_group(name, min_count=min_count or n, key=key, namespace="ml"),
                    expansions=tuple(expansions))
    pods = [replace(make_pod(f"{name}-{i}", 1, namespace="ml", group=group.key, **{GPU: 8}),
                    scheduler_name=scheduler) for i in range(n)]
    return group, pods


def snap(*groups, **fields):
    return replace(snapshot(nodes(), [p for _, ps in groups for p in ps],
                            [g for g, _ in groups]), **fields)


def kube_intent(group, **kw) -> Intent:
    return Intent(group, group.min_count, required=group.topology_key,
                  source="kube-scheduler", **kw)


def job(name: str, n: int, annotations: dict, pod_set: str = "main") -> Expansion:
    return Expansion("Job", f"ml/{name}", n, 0, "batch/v1", pod_sets=(PodSet(
        pod_set, n, tuple(f"{name}-{i}" for i in range(n)), annotations=pairs(annotations)),))


# -- Kueue -------------------------------------------------------------------------------


def test_kueue_reads_the_podset_level() -> None:
    required = group_of("req", 2, expansions=[job("req", 2, {r.REQUIRED: RACK})])
    preferred = group_of("pref", 2, expansions=[job("pref", 2, {r.PREFERRED: BLOCK})])
    plain = group_of("plain", 3, expansions=[job("plain", 3, {r.UNCONSTRAINED: "true"})])
    s = snap(required, preferred, plain)
    read = {g.key: kueue_intent(g, ps, s, GATES) for g, ps in (required, preferred, plain)}
    assert [(i.min_count, i.required, i.preferred, i.untranslatable)
            for i in read.values()] == [(2, RACK, None, ""), (2, None, BLOCK, ""),
                                        (3, None, None, "")]


def test_kueue_slices_and_podsets_placed_apart_do_not_translate() -> None:
    sliced = group_of("sliced", 4, expansions=[job("sliced", 4, {
        r.REQUIRED: BLOCK, r.SLICE_REQUIRED: RACK, r.SLICE_SIZE: "2"})])
    apart = ("apart", [Expansion("JobSet", "ml/apart", 4, 0, pod_sets=(
        PodSet("a", 2, ("apart-0", "apart-1"), annotations=pairs({r.REQUIRED: RACK})),
        PodSet("b", 2, ("apart-2", "apart-3"), annotations=pairs({r.REQUIRED: RACK}))))])
    together = ("together", [Expansion("LeaderWorkerSet", "ml/together", 3, 0, pod_sets=(
        PodSet("leader", 1, ("together-0",), annotations=pairs(
            {r.REQUIRED: RACK, r.GROUP_NAME: "g"})),
        PodSet("worker", 2, ("together-1", "together-2"), annotations=pairs(
            {r.REQUIRED: RACK, r.GROUP_NAME: "g"}))))])
    groups = [sliced, group_of(apart[0], 4, expansions=apart[1]),
              group_of(together[0], 3, expansions=together[1])]
    s = snap(*groups)
    why = [kueue_intent(g, ps, s, GATES).untranslatable for g, ps in groups]
    assert why == ["Kueue slices (podset-slice-required-topology)",
                   "Kueue places each of its 2 PodSets in a domain of its own", ""]


def test_kueue_writes_the_level_on_a_topology_it_makes() -> None:
    """Plain pods become one PodSet ``main`` with the level's annotation; without a TAS
    flavor in the inputs one is made over the cluster's levels (hostname last); the pods
    ask for the default scheduler (Kueue's ungater pins them) and Kueue places them."""
    kube = group_of("kube", 2, scheduler="kai-scheduler")
    gang = group_of("gang", 3, key=None, scheduler="kai-scheduler")
    s = snap(kube, gang)
    translated, reasons = to_kueue(s, [kube_intent(kube[0]), kube_intent(gang[0])])
    assert reasons == {}
    assert dict(translated.kueue.topologies) == {"tasplan-compare-1": Topology(
        "tasplan-compare-1", (BLOCK, RACK, HOSTNAME), WORKLOAD)}
    (flavor,) = translated.kueue.flavors.values()
    assert flavor.topology_name == "tasplan-compare-1" and not flavor.node_labels
    by_key = {g.key: g for g in translated.groups}
    assert [(ps.name, ps.pods, ps.annotations) for e in by_key["ml/kube"].expansions
            for ps in e.pod_sets] == [("main", ("kube-0", "kube-1"), ((r.REQUIRED, RACK),))]
    assert [ps.annotations for e in by_key["ml/gang"].expansions for ps in e.pod_sets] == [
        ((r.UNCONSTRAINED, "true"),)]
    assert {p.scheduler_name for p in translated.pods} == {"default-scheduler"}
    result = {g.group.key: g for g in plan(translated, scheduler="kueue").groups}
    assert result["ml/kube"].schedulable and result["ml/gang"].schedulable
    # nodes are named n<rack><i>: both pods in one rack
    assert len({n[:2] for n in result["ml/kube"].selected_placement.assignments.values()}) == 1


def test_kueue_uses_a_flavor_of_the_inputs_that_has_the_levels() -> None:
    kube = group_of("kube", 2, key=BLOCK)
    inputs = KueueInputs({"dc": Topology("dc", (BLOCK, RACK), WORKLOAD)},
                         {"gpu": ResourceFlavor("gpu", {}, (), (), "dc", WORKLOAD)})
    s = snap(kube, kueue=inputs)
    translated, reasons = to_kueue(s, [kube_intent(kube[0])])
    assert reasons == {} and translated.kueue.topologies == inputs.topologies
    assert translated.kueue.flavors == inputs.flavors


def test_kueue_refuses_part_of_a_workload_and_both_levels() -> None:
    part = group_of("part", 3, min_count=2)
    both = group_of("both", 2)
    s = snap(part, both)
    _, reasons = to_kueue(s, [kube_intent(part[0]),
                              Intent(both[0], 2, BLOCK, RACK, source="kai")])
    assert reasons == {
        "ml/part": "does not translate: Kueue admits a workload's 3 pods at once: a gang of "
                   "2 does not translate",
        "ml/both": "does not translate: Kueue takes a required or a preferred level per "
                   f"PodSet, not both ({BLOCK}, {RACK})"}


# -- Volcano -----------------------------------------------------------------------------


def by_label(key: str, value: str) -> Member:
    return Member(MEMBER_NODE, labels=LabelSelector((Requirement(key, "In", (value,)),)))


def hypernodes(**extra: HyperNode) -> dict[str, HyperNode]:
    """Tier 1: a HyperNode per rack (label selectors); tier 2 one per block (its racks)."""
    out = {f"rack-{i}": HyperNode(f"rack-{i}", 1, (by_label(RACK, f"r{i}"),), "rack")
           for i in range(4)}
    out.update({f"block-{b}": HyperNode(f"block-{b}", 2, tuple(
        Member(MEMBER_HYPERNODE, exact=f"rack-{i}") for i in (2 * b, 2 * b + 1)), "block")
        for b in range(2)})
    out.update(extra)
    return out


def test_volcano_tiers_are_read_as_the_labels_whose_domains_they_are() -> None:
    s = snap()
    assert tier_labels(_tree(hypernodes().values(), s), s) == {1: RACK, 2: BLOCK}
    # a tier-1 HyperNode over two racks: tier 1 is no label's domains any more
    odd = hypernodes(**{"rack-0": HyperNode("rack-0", 1, (Member(MEMBER_NODE, regex="^n[01]"),))})
    assert tier_labels(_tree(odd.values(), s), s) == {2: BLOCK}


def volcano_group(name: str, n: int, spec: VolcanoPodGroup | None, **kw):
    group, pods = group_of(name, n, key=None, **kw)
    return group, pods, spec


def test_volcano_reads_hard_soft_and_tier_names() -> None:
    cases = {
        "rack": (NetworkTopology(HARD, 1), (RACK, None, "")),
        "block": (NetworkTopology(HARD, 2), (BLOCK, None, "")),
        "named": (NetworkTopology(HARD, None, "block"), (BLOCK, None, "")),
        "top": (NetworkTopology(HARD, 3), (None, None, "")),  # the whole cluster
        "soft": (NetworkTopology(SOFT), (None, RACK, "")),
        "below": (NetworkTopology(HARD, 0), (None, None,
                                             "highestTierAllowed 0 is below every HyperNode "
                                             "tier")),
    }
    groups = [group_of(name, 2, key=None) for name in cases]
    s = snap(*groups, volcano=VolcanoInputs(hypernodes(), {
        f"ml/{name}": VolcanoPodGroup(f"ml/{name}", 2, network_topology=nt)
        for name, (nt, _) in cases.items()}))
    read = {g.key: volcano_intent(g, ps, s) for g, ps in groups}
    assert {k.split("/")[1]: (i.required, i.preferred, i.untranslatable)
            for k, i in read.items()} == {name: want for name, (_, want) in cases.items()}
    assert read["ml/rack"].levels == (BLOCK, RACK) and read["ml/rack"].min_count == 2


def test_volcano_partitions_and_task_minimums() -> None:
    g, pods = group_of("job", 4, key=None)
    pods = [replace(p, labels={TASK_SPEC_KEY: "master" if i == 0 else "worker"})
            for i, p in enumerate(pods)]
    policy = VolcanoPodGroup("ml/job", 4, sub_group_policies=(SubGroupPolicy("p", 2),))
    implied = VolcanoPodGroup("ml/job", 4, {"master": 1, "worker": 3})
    not_implied = VolcanoPodGroup("ml/job", 2, {"master": 1, "worker": 1})
    why = [volcano_intent(g, pods, replace(snap((g, pods)), volcano=VolcanoInputs(
        {}, {"ml/job": spec}))).untranslatable for spec in (policy, implied, not_implied)]
    assert why == ["Volcano subGroupPolicy (partitions with gangs and topologies of their "
                   "own)", "", "Volcano per-task minimums (minTaskMember)"]


def test_volcano_makes_a_hypernode_tree_from_the_level_labels() -> None:
    """No HyperNodes in the inputs: one per rack (tier 1, label selectors) and per block
    (tier 2, its racks); a required level is hard mode at its tier, a preferred one soft;
    the translated job plans in one rack."""
    rack = group_of("rack", 2)
    soft = group_of("soft", 2, key=None)
    s = snap(rack, soft)
    translated, reasons = to_volcano(s, [kube_intent(rack[0]),
                                         Intent(soft[0], 2, preferred=RACK, source="kai")])
    assert reasons == {}
    made = translated.volcano.hypernodes
    assert sorted((h.tier, h.name) for h in made.values()) == [
        (1, "r0"), (1, "r1"), (1, "r2"), (1, "r3"), (2, "b0"), (2, "b1")]
    assert made["r2"].members == (by_label(RACK, "r2"),)
    assert made["b1"].members == (Member(MEMBER_HYPERNODE, exact="r2"),
                                  Member(MEMBER_HYPERNODE, exact="r3"))
    specs = translated.volcano.podgroups
    assert specs["ml/rack"].network_topology == NetworkTopology(HARD, 1)
    assert specs["ml/soft"].network_topology == NetworkTopology(SOFT)
    assert {p.scheduler_name for p in translated.pods} == {"volcano"}
    result = {g.group.key: g for g in plan(translated, scheduler="volcano").groups}
    assert result["ml/rack"].schedulable and result["ml/rack"].selected in {"r0", "r1", "r2",
                                                                           "r3"}


def test_volcano_keeps_the_inputs_hypernodes_and_says_what_they_cannot_say() -> None:
    """With HyperNodes in the inputs, their tiers are used; a level none of them is, or a
    preferred level above the lowest tier (Volcano's walk starts at the lowest), does not
    translate."""
    rack = group_of("rack", 2)
    zone = group_of("zone", 2, key="topology.kubernetes.io/zone")
    pref = group_of("pref", 2, key=None)
    given = hypernodes()
    s = snap(rack, zone, pref, volcano=VolcanoInputs(given, {}))
    translated, reasons = to_volcano(s, [kube_intent(rack[0]), kube_intent(zone[0]),
                                         Intent(pref[0], 2, preferred=BLOCK, source="kai")])
    assert translated.volcano.hypernodes == given
    assert translated.volcano.podgroups["ml/rack"].network_topology == NetworkTopology(HARD, 1)
    assert reasons == {
        "ml/zone": "does not translate: no HyperNode tier has the topology.kubernetes.io/zone "
                   "domains",
        "ml/pref": "does not translate: Volcano's tier walk starts at its lowest tier "
                   f"({RACK}), not at the preferred {BLOCK}"}
    assert {g.key for g in translated.groups if not g.planned} == {"ml/zone", "ml/pref"}
