"""The planner's shortcuts (per-class caches, heap selection, capacity counting) must make
exactly the decisions of the plain per-pod algorithm: every filter on every node of the
placement, every score on every feasible node, normalise, weigh, take the best (ties to the
smallest node name), assume, and re-check PlacementFeasible after each pod."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.status import Code
from tasplan.framework.types import CycleState, GroupContext
from tasplan.model.pod_affinity import (
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
    LabelSelector,
    PodAffinity,
    PodAffinityTerm,
    SpreadConstraint,
    WeightedPodAffinityTerm,
)
from tasplan.model.selectors import Requirement
from tasplan.model.taints import PREFER_NO_SCHEDULE, Taint, Toleration
from tasplan.plugins.defaults import default_profile
from tasplan.plugins.registry import in_tree_registry
from tasplan.schedulers.planner import plan
from tests.builders import make_group, make_node, make_pod, snapshot

GI = 1024**3
SOFT = Taint("soft", "x", PREFER_NO_SCHEDULE)


def reference(fw: Framework, ctx: GroupContext, infos: list[NodeInfo], members: list[int]):
    """(placed, feasible, assignments) of one placement, the slow and obvious way."""
    nodes = [infos[i] for i in members]
    remaining, scheduled = len(ctx.pending), len(ctx.scheduled)
    status = fw.run_placement_feasible(ctx, remaining, scheduled)
    assigned: dict[str, str] = {}
    undo = []
    for pod in ctx.pending:
        if status.code == Code.UNSCHEDULABLE:
            break
        # Cluster-wide summaries from scratch for every pod, over every node of the cluster.
        state = CycleState()
        skipped = set()
        for plugin in fw.cluster_state:
            summary = plugin.prepare(pod, infos)
            if summary is None:
                skipped.add(plugin.name)
            state[plugin.name] = summary
        feasible = []
        for info in nodes:
            if all(f.name in skipped or f.filter(state, pod, info) is None
                   for f in fw.filters):
                feasible.append(info)
        remaining -= 1
        if feasible:
            totals = [0] * len(feasible)
            for entry in fw.scores:
                if entry.plugin.name in skipped or (
                        entry.pre_score is not None and not entry.pre_score(state, pod)):
                    continue
                raw = [entry.plugin.score(state, pod, info) for info in feasible]
                if entry.normalize is not None:
                    entry.normalize(state, pod, raw, feasible)
                totals = [t + entry.weight * r for t, r in zip(totals, raw, strict=True)]
            best = max(range(len(feasible)), key=lambda k: (totals[k], [-ord(c) for c in
                                                                       feasible[k].name]))
            best = min((k for k in range(len(feasible)) if totals[k] == totals[best]),
                       key=lambda k: feasible[k].name)
            feasible[best].add_pod(pod)
            undo.append((pod, feasible[best]))
            assigned[pod.key] = feasible[best].name
            scheduled += 1
        status = fw.run_placement_feasible(ctx, remaining, scheduled)
    if status.code == Code.WAIT:
        status = status.__class__(Code.UNSCHEDULABLE)
    for pod, info in reversed(undo):
        info.remove_pod(pod)
    return len(assigned), status.success, assigned


HOSTNAME = "kubernetes.io/hostname"
# A pod (anti-)affinity term: kind, topology key, the class whose "app" label it selects.
term_spec = st.tuples(st.sampled_from(["required", "anti", "preferred", "preferred_anti"]),
                      st.sampled_from([HOSTNAME, "rack"]), st.integers(0, 2))


def pod_affinity(terms) -> PodAffinity | None:
    parts: dict[str, list] = {"required": [], "anti": [], "preferred": [], "preferred_anti": []}
    for kind, key, target in terms:
        term = PodAffinityTerm(LabelSelector((Requirement("app", "In", (f"a{target}",)),)), key,
                               frozenset({"default"}))
        parts[kind].append(WeightedPodAffinityTerm(3 + 4 * target, term)
                           if kind.startswith("preferred") else term)
    if not terms:
        return None
    return PodAffinity(tuple(parts["required"]), tuple(parts["preferred"]),
                       tuple(parts["anti"]), tuple(parts["preferred_anti"]))


node_spec = st.tuples(
    st.integers(1, 8),  # cpu cores
    st.integers(1, 8),  # memory GiB
    st.integers(1, 6),  # pod slots
    st.booleans(),  # PreferNoSchedule taint
    st.integers(0, 3),  # cpu already used (cores)
    st.lists(term_spec, max_size=1),  # the background pod's affinity (symmetry)
    st.sampled_from([None, 0, 1, 2]),  # the background pod's "app" class
)
# A topology spread constraint over the group's pods (app=a0..a2): key ("zone" is only on
# some nodes), DoNotSchedule or not, maxSkew, minDomains.
spread_spec = st.one_of(st.none(), st.tuples(
    st.sampled_from(["kubernetes.io/hostname", "rack", "zone"]), st.booleans(),
    st.integers(1, 2), st.sampled_from([None, 4])))
# mCPU, GiB, tolerate, pod (anti-)affinity, spread constraint
pod_spec = st.tuples(st.integers(0, 3000), st.integers(0, 3), st.booleans(),
                     st.lists(term_spec, max_size=2), spread_spec)
GROUP_APPS = LabelSelector((Requirement("app", "In", ("a0", "a1", "a2")),))


def _spread(spec) -> tuple[SpreadConstraint, ...]:
    if spec is None:
        return ()
    key, hard, skew, min_domains = spec
    return (SpreadConstraint(skew, key, DO_NOT_SCHEDULE if hard else SCHEDULE_ANYWAY,
                             GROUP_APPS, min_domains if hard else None),)


# A class with no terms whose pods follow a pod of the group with anti-affinity to it (the
# class must not be skipped) or with required affinity to it (scored, hardPodAffinityWeight).
@example(racks=[[(1, 1, 1, False, 0, [], None), (1, 1, 2, False, 0, [], None)]],
         classes=[(0, 0, False, [], None), (0, 0, False, [("anti", HOSTNAME, 0)], None)],
         counts=[2, 1, 1], min_count=1, interleave=True)
@example(racks=[[(1, 1, 3, True, 0, [], None), (1, 1, 1, True, 0, [], None)]],
         classes=[(0, 0, False, [], None), (0, 0, False, [("required", HOSTNAME, 0)], None)],
         counts=[2, 1, 1], min_count=1, interleave=True)
@pytest.mark.slow
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    racks=st.lists(st.lists(node_spec, min_size=1, max_size=4), min_size=1, max_size=3),
    classes=st.lists(pod_spec, min_size=1, max_size=3),
    counts=st.lists(st.integers(1, 6), min_size=3, max_size=3),
    min_count=st.integers(1, 8),
    interleave=st.booleans(),
)
def test_planner_matches_the_plain_per_pod_algorithm(racks, classes, counts, min_count,
                                                     interleave):
    nodes, pods = [], []
    for r, rack in enumerate(racks):
        for k, (cpu, mem, slots, soft, used, terms, app) in enumerate(rack):
            name = f"n{r}{k}"
            labels = {"rack": f"r{r}", **({"zone": f"z{k % 2}"} if k < 2 else {})}
            nodes.append(make_node(name, cpu, labels=labels, pods=slots,
                                   taints=(SOFT,) if soft else (), memory=mem * GI))
            if used:
                pods.append(replace(make_pod(f"bg-{name}", min(used, cpu), node=name),
                                    labels={} if app is None else {"app": f"a{app}"},
                                    pod_affinity=pod_affinity(terms)))
    total = sum(counts[: len(classes)])
    group = make_group(min_count=min(min_count, total))
    # Interleaved classes: a class's pods may follow pods of a class whose terms reach it.
    order = sorted((i, c) for c in range(len(classes)) for i in range(counts[c])) \
        if interleave else [(i, c) for c in range(len(classes)) for i in range(counts[c])]
    for i, c in order:
        milli, mem, tolerate, terms, spread = classes[c]
        tol = (Toleration("soft", "Exists", "", PREFER_NO_SCHEDULE),) if tolerate else ()
        pods.append(replace(make_pod(f"p{c}-{i}", milli / 1000, group=group.key,
                                     memory=mem * GI, tolerations=tol),
                            labels={"app": f"a{c}"}, pod_affinity=pod_affinity(terms),
                            spread_constraints=_spread(spread)))
    snap = snapshot(nodes, pods, [group])
    result = plan(snap, all_assignments=True).groups[0]

    fw = Framework(default_profile(), in_tree_registry())
    fw.bind_snapshot(snap)
    infos = [NodeInfo(n, i, snap.node_usage(n.name)) for i, n in enumerate(snap.nodes)]
    pending = tuple(sorted((p for p in pods if p.group and not p.node_name),
                           key=lambda p: (-p.priority, p.order)))
    ctx = GroupContext(group, pending, ())
    by_rack: dict[str, list[int]] = {}
    for i, info in enumerate(infos):
        by_rack.setdefault(info.node.labels["rack"], []).append(i)
    expected = {name: reference(fw, ctx, infos, idx) for name, idx in by_rack.items()}

    got = {p.name: (p.placed, p.feasible, dict(p.assignments)) for p in result.placements}
    for name, (placed, feasible, assigned) in expected.items():
        assert got[name][:2] == (placed, feasible), name
        if feasible:
            assert got[name][2] == assigned, name
    if any(f for _, f, _ in expected.values()):
        assert result.selected in expected and expected[result.selected][1]
