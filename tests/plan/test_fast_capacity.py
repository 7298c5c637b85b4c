"""Counting without filtering every node first (``pod_cycle.FAST_CAPACITY``, issue 28) must
change nothing: a filtering-only ``ClassCursor`` asks a filter whose capacity is 0 exactly
where it rejects (``capacity_exact``: NodeResourcesFit, NodePorts) only for its capacity,
runs every other filter in profile order, and filters a node fully only for a diagnosis.

Random nodes (cordoned, tainted, full, with host ports taken, with pods nominated to them)
and a random pod class, in the default profile and with an extra counting filter that is
not exact (its capacity may be positive where it rejects, it may answer with an error
status) placed first or last among the filters: the cursor's capacities, its saturated
diagnosis and any error it raises must be those of the cursor that filters every node
first; and whole plans (JSON, with and without ``--all``) must be byte-identical."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tasplan.framework.node_info import NodeInfo
from tasplan.framework.runtime import Framework
from tasplan.framework.statement import Statement
from tasplan.framework.status import Code, PluginError, Status, unschedulable
from tasplan.framework.types import Scope
from tasplan.model.pod import HostPort
from tasplan.model.taints import NO_SCHEDULE, Taint, Toleration
from tasplan.plan import pod_cycle
from tasplan.plan.pod_cycle import ClassCursor, GroupCache
from tasplan.plugins import names
from tasplan.plugins.defaults import default_profile
from tasplan.plugins.registry import in_tree_registry
from tasplan.report.document import plan_document
from tasplan.schedulers.planner import plan
from tests.builders import make_group, make_node, make_pod, snapshot

GI = 1024**3
HARD = Taint("hard", "x", NO_SCHEDULE)
PORT = HostPort(8080)
QUOTA = "example.com/quota"


class Quota:
    """A counting filter that is not exact: a node's ``quota`` label is its capacity; the
    label ``deny`` rejects the node while its capacity still says 3; ``err`` answers with
    an error status."""

    name = "Quota"
    scope = Scope.NODE

    def filter(self, state, pod, node):
        mode = node.node.labels.get(QUOTA, "")
        if mode == "err":
            return Status(Code.ERROR, ("quota lookup failed",))
        if mode == "deny" or (mode.isdigit() and len(node.pods) >= int(mode)):
            return unschedulable("quota used up")
        return None

    def capacity(self, pod, node):
        mode = node.node.labels.get(QUOTA, "")
        if mode == "deny":
            return 3
        return max(int(mode) - len(node.pods), 0) if mode.isdigit() else 10**6


def framework(quota: str | None) -> Framework:
    """The default profile; ``quota``: the Quota filter "first" or "last" among filters."""
    registry = in_tree_registry()
    profile = default_profile()
    if quota is not None:
        registry.register(Quota.name, lambda args: Quota())
        filters = ((Quota.name, *profile.filter) if quota == "first"
                   else (*profile.filter, Quota.name))
        profile = replace(profile, filter=filters)
    return Framework(profile, registry)


# cpu cores, pod slots, cordoned, hard taint, cpu used (cores), bound pods, host port taken,
# nominated pod (cpu cores, higher priority), quota label
node_spec = st.tuples(st.integers(0, 8), st.integers(0, 6), st.booleans(), st.booleans(),
                      st.integers(0, 4), st.integers(0, 3), st.booleans(),
                      st.sampled_from([*[None] * 12, 0, 1, 3]),
                      st.sampled_from(["", "", "", "", "0", "1", "1", "2", "2", "deny", "deny",
                                       "deny", "err"]))
# milli-cpu, memory GiB, tolerates the hard taint, host port
pod_spec = st.tuples(st.integers(0, 3000), st.integers(0, 2), st.booleans(), st.booleans())


def _cluster(specs, pod, quota: bool):
    nodes, bound, nominated = [], [], []
    for k, (cpu, slots, cordoned, hard, used, extra, port, nom, mode) in enumerate(specs):
        name = f"n{k}"
        labels = {"rack": f"r{k % 2}", **({QUOTA: mode} if quota and mode else {})}
        nodes.append(replace(make_node(name, cpu, labels=labels, pods=slots,
                                       taints=(HARD,) if hard else (), memory=4 * GI),
                             unschedulable=cordoned))
        for j in range(extra):
            used_cpu = used if j == 0 else 0
            bg = make_pod(f"bg-{name}-{j}", used_cpu, node=name)
            bound.append(replace(bg, host_ports=(PORT,)) if port and j == 0 else bg)
        if nom is not None:
            nominated.append(replace(make_pod(f"nom-{name}", nom, priority=1000,
                                              tolerations=(Toleration("hard", "Exists"),)),
                                     nominated_node_name=name))
    milli, mem, tolerates, port = pod
    tol = (Toleration("hard", "Exists"),) if tolerates else ()
    gang = make_pod("p", milli / 1000, memory=mem * GI, tolerations=tol, group="default/pg")
    return nodes, bound, nominated, replace(gang, host_ports=(PORT,) if port else ())


def _infos(nodes, bound, nominated):
    infos = [NodeInfo(n, i) for i, n in enumerate(nodes)]
    by_name = {info.name: info for info in infos}
    for pod in bound:
        by_name[pod.node_name].add_pod(pod)
    for pod in nominated:
        by_name[pod.nominated_node_name].nominated.append(pod)
    return infos


def _answers(fw, pod, infos, monkeypatch, fast: bool):
    monkeypatch.setattr(pod_cycle, "FAST_CAPACITY", fast)
    statement = Statement(fw.reservers)
    group = GroupCache(infos, statement)
    try:  # counting alone (a placement that fits asks no more), then the diagnosis
        cursor = ClassCursor(fw, pod, infos, statement, group, group.of(pod.signature()),
                             scoring=False)
        capacity = cursor.capacity()
    except PluginError as exc:
        return ("error", exc.status)
    if capacity is None:
        return None
    try:
        diagnosis = cursor.saturated_diagnosis(capacity)
    except PluginError as exc:
        return capacity, ("error", exc.status)
    return capacity, diagnosis.message, diagnosis.statuses


@example(specs=[(4, 2, False, False, 0, 0, False, None, "deny"),
                (4, 3, False, False, 0, 1, False, None, "1")],
         pod=(1000, 0, False, False), quota="last")
@example(specs=[(4, 2, False, False, 0, 0, False, None, "deny"),
                (4, 2, False, True, 0, 0, False, None, "err")],
         pod=(1000, 0, False, False), quota="first")
@example(specs=[(4, 2, False, True, 0, 0, False, None, "err"),
                (4, 3, False, False, 1, 1, True, 1, "1")],
         pod=(1000, 0, False, True), quota="last")
@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(specs=st.lists(node_spec, min_size=1, max_size=6), pod=pod_spec,
       quota=st.sampled_from([None, "first", "last"]))
def test_counting_answers_as_filtering_first(specs, pod, quota, monkeypatch) -> None:
    nodes, bound, nominated, gang = _cluster(specs, pod, quota is not None)
    fw = framework(quota)
    infos = _infos(nodes, bound, nominated)
    plain = _answers(fw, gang, infos, monkeypatch, fast=False)
    fast = _answers(fw, gang, _infos(nodes, bound, nominated), monkeypatch, fast=True)
    assert fast == plain


def test_the_exact_filters_are_the_ones_whose_capacity_decides() -> None:
    fw = framework("last")
    exact = {f.name for f in fw.filters if id(f) in fw.capacity_exact}
    counting = {f.name for f in fw.filters if id(f) in fw.counting}
    assert exact == {names.NODE_RESOURCES_FIT, names.NODE_PORTS}
    assert counting == exact | {names.DYNAMIC_RESOURCES, Quota.name}


def test_a_full_node_is_diagnosed_as_filtering_says(monkeypatch) -> None:
    """Counting skips NodeResourcesFit's filter, yet the diagnosis names its reasons."""
    nodes, bound, nominated, gang = _cluster(
        [(2, 6, False, False, 2, 1, False, None, ""), (3, 6, False, False, 0, 0, False, None, ""),
         (4, 6, False, True, 0, 0, False, None, "")], (1000, 0, False, False), quota=False)
    fw = framework(None)
    capacity, message, statuses = _answers(fw, gang, _infos(nodes, bound, nominated),
                                           monkeypatch, fast=True)
    assert capacity == [0, 3, 0]
    assert statuses["n0"].reasons == ("Insufficient cpu",)
    assert statuses["n1"].reasons == ("Insufficient cpu",)
    assert statuses["n2"].plugin == names.TAINT_TOLERATION
    assert message.startswith("0/3 nodes are available")


def _documents(snap, monkeypatch, fast: bool) -> list[dict]:
    monkeypatch.setattr(pod_cycle, "FAST_CAPACITY", fast)
    return [plan_document(plan(snap, all_assignments=a)) for a in (False, True)]


@pytest.mark.slow
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(specs=st.lists(node_spec, min_size=1, max_size=8), pod=pod_spec,
       pods=st.integers(1, 8), min_count=st.one_of(st.none(), st.integers(1, 8)),
       key=st.sampled_from(["rack", None]))
def test_plans_are_byte_identical(specs, pod, pods, min_count, key, monkeypatch) -> None:
    nodes, bound, nominated, gang = _cluster(specs, pod, quota=False)
    group = make_group(min_count=min(min_count, pods) if min_count else None, key=key)
    members = [replace(gang, name=f"p-{i}", order=gang.order + i, group=group.key)
               for i in range(pods)]
    snap = snapshot(nodes, [*bound, *nominated, *members], [group])
    assert _documents(snap, monkeypatch, True) == _documents(snap, monkeypatch, False)
