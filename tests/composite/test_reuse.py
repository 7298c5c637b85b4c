"""The composite planner's reuse of equivalent work must change nothing: a composite's
evaluation in a domain reused for an equivalent composite in the same domain state, a
leaf's outcome for an equivalent leaf, and the leaves' shared filter caches and counted
placement outcomes (``algorithm.MEMO``, ``group_cycle.Reuse``). Random small trees on
random clusters are planned with reuse and without (the plain algorithm: every child of
every composite planned in every placement), and the JSON documents must be equal.

The cases cover what the reuse has to respect: pods already on the nodes (busy racks),
taints the leaves tolerate or not, placed pods whose (anti-)affinity terms select the
tree's pods by label (then leaves that differ only in labels are not alike), preferred
terms (scores), tree pods with affinity or spread constraints (reuse is then off),
minGroupCount below the number of children, basic policies, and depth 2 and 3."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tasplan.model.pod_affinity import (
    DO_NOT_SCHEDULE,
    LabelSelector,
    PodAffinity,
    PodAffinityTerm,
    SpreadConstraint,
    WeightedPodAffinityTerm,
)
from tasplan.model.selectors import Requirement
from tasplan.model.taints import NO_SCHEDULE, Taint, Toleration
from tasplan.plan import pod_cycle
from tasplan.plan import tree_cycle as algorithm
from tasplan.report.document import plan_document
from tasplan.schedulers.planner import plan
from tests.builders import make_node, make_pod
from tests.composite.helpers import composite, leaf, tree_snapshot

GPU = Taint("gpu", "x", NO_SCHEDULE)
TOLERATE = (Toleration("gpu", "Exists", "", NO_SCHEDULE),)


def _selects(app: int, key: str) -> PodAffinityTerm:
    return PodAffinityTerm(LabelSelector((Requirement("app", "In", (f"a{app}",)),)), key,
                           frozenset({"default"}))


# Node: cpu cores, pod slots, tainted, busy cores, the busy pod's terms (None, or (kind,
# topology key, app it selects)). Placed terms make placements be simulated pod by pod
# rather than counted: ``build`` drops them from half the clusters.
node_spec = st.tuples(
    st.integers(1, 6), st.integers(1, 4), st.booleans(), st.integers(0, 3),
    st.one_of(*[st.none()] * 3, st.tuples(st.sampled_from(["anti", "preferred"]),
                                           st.sampled_from(["kubernetes.io/hostname",
                                                            "rack"]),
                                           st.integers(0, 2))))
# Leaf: pods, cpu, minCount (None: basic), constraint key, tolerates, app label, own rule
# (None, "affinity" or "spread": reuse is then off for the whole tree).
leaf_spec = st.tuples(
    st.integers(1, 4), st.integers(1, 3), st.one_of(st.none(), st.integers(1, 4)),
    st.sampled_from(["rack", "kubernetes.io/hostname", None]), st.booleans(),
    st.integers(0, 2), st.sampled_from([None] * 8 + ["affinity", "spread"]))
# Composite: constraint key, minGroupCount (None: basic; clipped to the children).
mid_spec = st.tuples(st.sampled_from(["block", "rack", None]),
                     st.one_of(st.none(), st.integers(1, 4)),
                     st.tuples(st.lists(leaf_spec, min_size=1, max_size=3),
                               st.integers(0, 2)).map(lambda t: t[0] + t[0][-1:] * t[1]))
# Root: constraint key, minGroupCount, children (a leaf, or an inner composite); the last
# child is repeated 0-2 times, so equivalent siblings (what the reuse is for) are common.
root_spec = st.tuples(st.sampled_from(["zone", "block", None]),
                      st.one_of(st.none(), st.integers(1, 4)),
                      st.tuples(st.lists(st.one_of(leaf_spec, mid_spec), min_size=1,
                                         max_size=3), st.integers(0, 2)).map(
                          lambda t: t[0] + t[0][-1:] * t[1]))


def build(blocks, tree, placed_terms: bool = True):
    nodes, busy = [], []
    k = 0
    for b, racks in enumerate(blocks):
        for r, rack in enumerate(racks):
            for n, (cpu, slots, tainted, used, terms) in enumerate(rack):
                terms = terms if placed_terms else None
                name = f"b{b}r{r}n{n}"
                # Zones cut across blocks, as in the 5,000-node benchmark.
                labels = {"block": f"b{b}", "rack": f"b{b}r{r}", "zone": f"z{k % 2}"}
                k += 1
                nodes.append(make_node(name, cpu, labels=labels, pods=slots,
                                       taints=(GPU,) if tainted else ()))
                if used or terms:
                    pod = make_pod(f"busy-{name}", min(used, cpu), node=name,
                                   tolerations=TOLERATE)
                    if terms is not None:
                        kind, key, app = terms
                        affinity = (PodAffinity(required_anti=(_selects(app, key),))
                                    if kind == "anti" else PodAffinity(preferred=(
                                        WeightedPodAffinityTerm(5, _selects(app, key)),)))
                        pod = replace(pod, labels={"app": "busy"}, pod_affinity=affinity)
                    busy.append(pod)
    key, min_groups, children = tree
    composites = [composite("root", min_groups=_clip(min_groups, children), key=key)]
    leaves = []

    def add_leaf(spec, parent: str) -> None:
        pods, cpu, min_count, key, tolerates, app, rule = spec
        name = f"l{len(leaves)}"
        group, members = leaf(name, parent, min_count=min(min_count, pods) if min_count
                              else None, key=key, pods=pods, cpu=cpu)
        members = [replace(p, labels={"app": f"a{app}"},
                           tolerations=TOLERATE if tolerates else ()) for p in members]
        if rule == "affinity":
            members = [replace(p, pod_affinity=PodAffinity(
                preferred_anti=(WeightedPodAffinityTerm(7, _selects(app, "rack")),)))
                for p in members]
        elif rule == "spread":
            members = [replace(p, spread_constraints=(SpreadConstraint(
                1, "kubernetes.io/hostname", DO_NOT_SCHEDULE, LabelSelector((Requirement(
                    "app", "In", (f"a{app}",)),))),)) for p in members]
        leaves.append((group, members))

    for child in children:
        if len(child) == 3:  # an inner composite
            mid_key, mid_min, mid_leaves = child
            name = f"m{len(composites)}"
            composites.append(composite(name, min_groups=_clip(mid_min, mid_leaves),
                                        key=mid_key, parent="root"))
            for spec in mid_leaves:
                add_leaf(spec, name)
        else:
            add_leaf(child, "root")
    return tree_snapshot(nodes, composites, leaves, busy)


def _clip(min_groups, children):
    return None if min_groups is None else min(min_groups, len(children))


def documents(snap, monkeypatch, all_assignments: bool):
    """Plain (no reuse, counting after filtering every node), then reuse."""
    monkeypatch.setattr(algorithm, "MEMO", False)
    monkeypatch.setattr(pod_cycle, "FAST_CAPACITY", False)
    plain = plan_document(plan(snap, all_assignments=all_assignments))
    monkeypatch.setattr(algorithm, "MEMO", True)
    monkeypatch.setattr(pod_cycle, "FAST_CAPACITY", True)
    reused = plan_document(plan(snap, all_assignments=all_assignments))
    return plain, reused


SAME_LEAF = (2, 1, 2, "rack", True, 0, None)


# Three inner composites of identical leaves over the same blocks: the later ones meet
# domains the earlier ones left as they were (their evaluations are reused) and domains
# they filled (planned again); a placed pod repels app a1 from its rack, so leaves that
# differ only in that label must not share outcomes.
@example(blocks=[[[(2, 2, False, 1, None), (2, 2, True, 0, None)],
                  [(2, 2, False, 0, ("anti", "rack", 1)), (3, 2, False, 0, None)]],
                 [[(2, 2, False, 0, None), (2, 2, False, 0, None)],
                  [(2, 2, False, 2, None), (2, 3, False, 0, None)]]],
         tree=(None, 2, [("block", 2, [SAME_LEAF, SAME_LEAF]),
                         ("block", 2, [SAME_LEAF, (2, 1, 2, "rack", True, 1, None)]),
                         ("block", 1, [SAME_LEAF, SAME_LEAF, SAME_LEAF])]),
         placed_terms=True, all_assignments=False)
# Leaves and composites without a constraint take their parent's domain with its name: the
# same nodes under another name (a zone of one block) are another domain.
@example(blocks=[[[(1, 1, False, 0, None)]]],
         tree=("zone", None, [(1, 1, None, "rack", False, 0, None),
                              (1, 1, None, None, False, 0, None),
                              ("block", None, [(1, 1, None, "rack", False, 0, None),
                                               (1, 1, None, None, False, 0, None)])]),
         placed_terms=False, all_assignments=False)
@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(blocks=st.lists(st.lists(st.lists(node_spec, min_size=1, max_size=3), min_size=1,
                                max_size=3), min_size=1, max_size=3),
       tree=root_spec, placed_terms=st.booleans(), all_assignments=st.booleans())
def test_reuse_gives_the_plain_algorithms_plan(blocks, tree, placed_terms, all_assignments,
                                              monkeypatch) -> None:
    plain, reused = documents(build(blocks, tree, placed_terms), monkeypatch,
                              all_assignments)
    assert reused == plain


def test_equivalent_composites_are_evaluated_once_per_domain_state(monkeypatch) -> None:
    """The reuse happens: of four identical inner composites, the later ones plan leaves
    only in the blocks the earlier ones changed (and the plan is the same as without)."""
    blocks = [[[(4, 4, False, 0, None)] * 2] * 2] * 3
    tree = (None, 4, [("block", 2, [SAME_LEAF, SAME_LEAF])] * 4)
    snap = build(blocks, tree)
    calls = []
    real = algorithm._Run.default
    monkeypatch.setattr(algorithm._Run, "default",
                        lambda self, c, *a: calls.append(c.key) or real(self, c, *a))
    plain, reused = documents(snap, monkeypatch, False)
    assert reused == plain
    root = next(g for g in plain["groups"] if g["name"] == "default/root")
    assert root["schedulable"]
    inner = [k for k in calls if k != "default/root"]
    # Without reuse: 4 composites x 3 blocks in both runs' first half.
    assert len(inner) - 12 < 12
