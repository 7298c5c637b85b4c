"""Deferred node choice (``tree_cycle.DEFER``, issue 28) must change nothing: when every
pending pod of a tree is of one class and every leaf's domain is cut by the same topology
keys, the leaves' counted winners are placed in node order while the tree is planned, and
nodes are chosen pod by pod only for the tree that is bound (``_Run.choose_nodes``).

Random trees made for it (one pod shape for every leaf, one key chain; uneven leaf sizes,
minCount and basic policies, minGroupCount below the children, busy and tainted nodes that
tie or fill, depth 1 to 3, trees that do not fit and composites that fail inside a tree that
fits: those fall back to the plain run) are planned three ways: the plain algorithm (no
reuse), reuse without deferral, reuse with deferral. The JSON documents must be equal."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tasplan.plan import group_cycle, pod_cycle
from tasplan.plan import tree_cycle as algorithm
from tasplan.report.document import plan_document
from tasplan.schedulers.planner import plan
from tests.composite.test_reuse import build, node_spec

# A leaf: pods, minCount (None: basic). Shape and keys are the tree's (see ``_tree``).
leaf_spec = st.tuples(st.integers(1, 5), st.one_of(st.none(), st.integers(1, 5)))
mid_spec = st.tuples(st.one_of(st.none(), st.integers(1, 4)),
                     st.lists(leaf_spec, min_size=1, max_size=4))
root_spec = st.tuples(st.one_of(st.none(), st.integers(1, 4)),
                      st.lists(st.one_of(leaf_spec, mid_spec), min_size=1, max_size=4))


def _tree(root, root_key, mid_key, leaf_key, cpu, tolerates):
    """``build``'s tree spec: every leaf with the same pod shape and key."""
    def leaf(spec):
        pods, min_count = spec
        return (pods, cpu, min_count, leaf_key, tolerates, 0, None)

    min_groups, children = root
    kids = [(mid_key, child[0], [leaf(s) for s in child[1]]) if isinstance(child[1], list)
            else leaf(child) for child in children]
    return (root_key, min_groups, kids)


def documents(snap, monkeypatch) -> list:
    """Plain (no reuse, counting after filtering every node), reuse, reuse + deferral."""
    out = []
    for memo, defer in ((False, False), (True, False), (True, True)):
        monkeypatch.setattr(algorithm, "MEMO", memo)
        monkeypatch.setattr(algorithm, "DEFER", defer)
        monkeypatch.setattr(pod_cycle, "FAST_CAPACITY", memo)
        out.append(plan_document(plan(snap)))
    return out


# The busiest shape: three identical inner composites over racks that fill and tie.
@example(blocks=[[[(2, 2, False, 0, None)] * 2, [(2, 2, False, 1, None)] * 2]] * 2,
         root=(3, [(2, [(2, 2), (2, None)])] * 3), keys=("zone", "block", "rack"),
         shape=(1, True))
# A composite that fails inside a tree that fits (minGroupCount 1 of 2): plain fallback.
@example(blocks=[[[(1, 1, False, 0, None)]], [[(4, 4, False, 0, None)] * 2]],
         root=(1, [(2, [(3, 3), (3, 3)]), (1, [(1, 1)])]), keys=(None, "block", "rack"),
         shape=(1, False))
@pytest.mark.slow
@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(blocks=st.lists(st.lists(st.lists(node_spec, min_size=1, max_size=3), min_size=1,
                                max_size=3), min_size=1, max_size=3),
       root=root_spec,
       keys=st.tuples(st.sampled_from(["zone", "block", None]),
                      st.sampled_from(["block", None]),
                      st.sampled_from(["rack", "kubernetes.io/hostname"])),
       shape=st.tuples(st.integers(1, 3), st.booleans()))
def test_deferred_node_choice_gives_the_plain_plan(blocks, root, keys, shape,
                                                   monkeypatch) -> None:
    snap = build(blocks, _tree(root, *keys, *shape), placed_terms=False)
    plain, reused, deferred = documents(snap, monkeypatch)
    assert reused == plain
    assert deferred == plain


def test_deferral_happens_and_simulates_only_the_bound_leaves(monkeypatch) -> None:
    """Four identical inner composites over three blocks: with deferral the leaves' nodes
    are chosen pod by pod once per bound leaf (8), not once per leaf evaluated; the plan is
    the same."""
    blocks = [[[(4, 4, False, 0, None)] * 2] * 2] * 3
    leaf = (2, 1, 2, "rack", True, 0, None)
    snap = build(blocks, (None, 4, [("block", 2, [leaf, leaf])] * 4), placed_terms=False)
    in_cycles: list[str] = []  # winners a group cycle chose nodes for, pod by pod
    real = group_cycle._Cycle.simulate

    def simulate(self, placement, mode, keep=False):
        if mode == group_cycle.Count.NEVER:
            in_cycles.append(placement.name)
        return real(self, placement, mode, keep)

    afterwards: list[str] = []  # winners ``choose_nodes`` chose nodes for
    real_after = algorithm.simulate_placement

    def simulate_after(fw, ctx, placement, *a, **kw):
        afterwards.append(placement.name)
        return real_after(fw, ctx, placement, *a, **kw)

    monkeypatch.setattr(group_cycle._Cycle, "simulate", simulate)
    monkeypatch.setattr(algorithm, "simulate_placement", simulate_after)
    docs, counts = [], []
    for defer in (False, True):
        monkeypatch.setattr(algorithm, "DEFER", defer)
        docs.append(plan_document(plan(snap)))
        counts.append((len(in_cycles), len(afterwards)))
        in_cycles.clear()
        afterwards.clear()
    assert docs[0] == docs[1]
    leaves = [g for g in docs[1]["groups"] if g["kind"] == "PodGroup"]
    assert len(leaves) == 8 and all(g["schedulable"] for g in leaves)
    plain_cycles, plain_after = counts[0]
    assert plain_after == 0 and plain_cycles > 8
    assert counts[1] == (0, 8)


def test_a_tree_of_two_pod_shapes_is_not_deferred(monkeypatch) -> None:
    blocks = [[[(4, 4, False, 0, None)] * 2] * 2]
    snap = build(blocks, (None, 2, [("block", 2, [(2, 1, 2, "rack", True, 0, None),
                                                  (2, 2, 2, "rack", True, 0, None)])]),
                 placed_terms=False)
    seen = []
    real = algorithm._Run.__init__

    def init(self, *a, **kw):
        real(self, *a, **kw)
        seen.append(self.deferring)

    monkeypatch.setattr(algorithm._Run, "__init__", init)
    plain, _, deferred = documents(snap, monkeypatch)
    assert deferred == plain
    assert seen == [False, False, False]
