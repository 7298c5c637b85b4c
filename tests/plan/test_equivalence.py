"""The planner's shortcuts (per-class caches, heap selection, capacity counting) must make
exactly the decisions of the plain per-pod algorithm: every filter on every node of the
placement, every score on every feasible node, normalise, weigh, take the best (ties to the
smallest node name), assume, and re-check PlacementFeasible after each pod."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.status import Code
from tasplan.framework.types import CycleState, GroupContext
from tasplan.model.pod_affinity import (
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
    LabelSelector,
    SpreadConstraint,
)
from tasplan.model.selectors import Requirement
from tasplan.model.taints import PREFER_NO_SCHEDULE, Taint, Toleration
from tasplan.plan.planner import plan
from tasplan.plugins.defaults import default_profile
from tasplan.plugins.registry import in_tree_registry
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


node_spec = st.tuples(
    st.integers(1, 8),  # cpu cores
    st.integers(1, 8),  # memory GiB
    st.integers(1, 6),  # pod slots
    st.booleans(),  # PreferNoSchedule taint
    st.integers(0, 3),  # cpu already used (cores)
)
# A topology spread constraint over pods labelled app=a: key ("zone" is only on some nodes),
# DoNotSchedule or not, maxSkew, minDomains.
spread_spec = st.one_of(st.none(), st.tuples(
    st.sampled_from(["kubernetes.io/hostname", "rack", "zone"]), st.booleans(),
    st.integers(1, 2), st.sampled_from([None, 4])))
# mCPU, GiB, tolerate, spread constraint
pod_spec = st.tuples(st.integers(0, 3000), st.integers(0, 3), st.booleans(), spread_spec)
APP_A = LabelSelector((Requirement("app", "In", ("a",)),))


def _spread(spec) -> tuple[SpreadConstraint, ...]:
    if spec is None:
        return ()
    key, hard, skew, min_domains = spec
    return (SpreadConstraint(skew, key, DO_NOT_SCHEDULE if hard else SCHEDULE_ANYWAY, APP_A,
                             min_domains if hard else None),)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    racks=st.lists(st.lists(node_spec, min_size=1, max_size=4), min_size=1, max_size=3),
    classes=st.lists(pod_spec, min_size=1, max_size=2),
    counts=st.lists(st.integers(1, 6), min_size=2, max_size=2),
    min_count=st.integers(1, 8),
    background_app=st.lists(st.booleans(), min_size=12, max_size=12),
)
def test_planner_matches_the_plain_per_pod_algorithm(racks, classes, counts, min_count,
                                                      background_app):
    nodes, pods = [], []
    for r, rack in enumerate(racks):
        for k, (cpu, mem, slots, soft, used) in enumerate(rack):
            name = f"n{r}{k}"
            labels = {"rack": f"r{r}", **({"zone": f"z{k % 2}"} if k < 2 else {})}
            nodes.append(make_node(name, cpu, labels=labels, pods=slots,
                                   taints=(SOFT,) if soft else (), memory=mem * GI))
            if used:
                bg = make_pod(f"bg-{name}", min(used, cpu), node=name)
                if background_app[(r * 4 + k) % 12]:
                    bg = replace(bg, labels={"app": "a"})
                pods.append(bg)
    total = sum(counts[: len(classes)])
    group = make_group(min_count=min(min_count, total))
    for c, (milli, mem, tolerate, spread) in enumerate(classes):
        tol = (Toleration("soft", "Exists", "", PREFER_NO_SCHEDULE),) if tolerate else ()
        for i in range(counts[c]):
            pods.append(replace(
                make_pod(f"p{c}-{i}", milli / 1000, group=group.key, memory=mem * GI,
                         tolerations=tol),
                labels={"app": "a"}, spread_constraints=_spread(spread)))
    snap = snapshot(nodes, pods, [group])
    result = plan(snap, all_assignments=True).groups[0]

    fw = Framework(default_profile(), in_tree_registry())
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
