"""Framework runtime: plugin wiring, placement-generator merging, placement score
combination.

Upstream: kubernetes/kubernetes ``pkg/scheduler/framework/runtime/placement_merging_test.go``
TestRunPlacementGeneratePluginsMerge (@2c695178), ``framework.go`` RunPlacementScorePlugins
and getValidScoreWeights, ``schedule_one_podgroup_test.go``
TestPodGroupSchedulingPlacementAlgorithm_Scoring (reference §3.5).
"""

from __future__ import annotations

import pytest

from tasplan.errors import ProfileError
from tasplan.framework.profile import PluginRef, Profile
from tasplan.framework.registry import Registry
from tasplan.framework.runtime import Framework
from tasplan.framework.status import Code, PluginError, Status
from tasplan.framework.types import GroupContext, Placement, Scope
from tests.builders import make_group, make_node, make_pod, node_infos

NODES = ("n1", "n2", "n3", "n4")
IDX = {n: i for i, n in enumerate(NODES)}


def _pl(name: str, *nodes: str) -> Placement:
    return Placement(name, tuple(IDX[n] for n in nodes))


class FakeGenerator:
    def __init__(self, name, placements=None, *, return_parent=False, status=None):
        self.name = name
        self._placements = placements or []
        self._return_parent = return_parent
        self._status = status

    def generate_placements(self, ctx, parent, nodes):
        if self._status is not None:
            return [], self._status
        if self._return_parent:
            return [parent], None
        return list(self._placements), None


class FakeScorer:
    def __init__(self, name, scores, normalize=None):
        self.name = name
        self._scores = scores
        if normalize is not None:
            self.normalize_placement_scores = normalize

    def score_placement(self, ctx, placement, nodes, proposed):
        return self._scores[placement.name]


class FakeFilter:
    scope = Scope.STATIC

    def __init__(self, name):
        self.name = name

    def filter(self, state, pod, node):
        return None


class NoPoint:
    """A plugin that implements no extension point."""

    def __init__(self, name):
        self.name = name


def _framework(plugins, *, generate=(), score=(), filters=(), feasible=()):
    registry = Registry({p.name: (lambda args, p=p: p) for p in plugins})
    profile = Profile("test-scheduler", tuple(filters), (), tuple(generate), tuple(feasible),
                      tuple(score))
    return Framework(profile, registry)


def _ctx():
    group = make_group(min_count=None, key=None)
    return GroupContext(group, (make_pod("foo", group=group.key),), ())


def _nodes():
    return node_infos([make_node(n) for n in NODES])


def _generate(plugins):
    fw = _framework(plugins, generate=[p.name for p in plugins])
    parent = Placement("", tuple(range(len(NODES))))
    placements, status = fw.run_placement_generate(_ctx(), parent, _nodes())
    return parent, placements, status


def _named(placements):
    return {p.name: [NODES[i] for i in sorted(p.nodes)] for p in placements}


# upstream: placement_merging_test.go TestRunPlacementGeneratePluginsMerge
@pytest.mark.parametrize(
    ("plugins", "want"),
    [
        pytest.param([FakeGenerator("a", [_pl("a", "n1", "n2", "n3")]),
                      FakeGenerator("b", [_pl("b", "n2", "n3", "n4")])],
                     {"a/b": ["n2", "n3"]},
                     id="two single-placement plugins intersect"),
        pytest.param([FakeGenerator("a", [_pl("a1", "n1", "n2"), _pl("a2", "n3", "n4")]),
                      FakeGenerator("b", [_pl("b1", "n2", "n3")])],
                     {"a1/b1": ["n2"], "a2/b1": ["n3"]},
                     id="cross product drops empty intersections"),
        pytest.param([FakeGenerator("a", [_pl("a", "n1")]), FakeGenerator("b", [_pl("b", "n2")])],
                     {},
                     id="no overlap is unschedulable (no placement left)"),
        pytest.param([FakeGenerator("a", return_parent=True),
                      FakeGenerator("b", [_pl("b", "n2", "n3")])],
                     {"b": ["n2", "n3"]},
                     id="unconstrained plugin is skipped"),
        pytest.param([FakeGenerator("a", [_pl("a1", "n1"), _pl("a2", "n2", "n3")])],
                     {"a1": ["n1"], "a2": ["n2", "n3"]},
                     id="a single constraining plugin's placements are used verbatim"),
    ],
)
def test_generate_merge(plugins, want):
    _, placements, status = _generate(plugins)
    assert status is None
    assert _named(placements) == want


def test_generate_all_unconstrained_returns_input_placement():
    # upstream: "all unconstrained returns input placement"
    parent, placements, status = _generate([FakeGenerator("a", return_parent=True),
                                            FakeGenerator("b", return_parent=True)])
    assert status is None
    assert placements == [parent]


def test_generate_without_generators_returns_input_placement():
    fw = _framework([])
    parent = Placement("", (0, 1, 2, 3))
    assert fw.run_placement_generate(_ctx(), parent, _nodes()) == ([parent], None)


# upstream: placement_merging_test.go TestRunPlacementGeneratePluginsMerge (Error rows)
@pytest.mark.parametrize(
    "plugins",
    [
        pytest.param([FakeGenerator("a", [_pl("dup", "n1", "n2")]),
                      FakeGenerator("b", [_pl("dup", "n2", "n3")])],
                     id="duplicate placement names across plugins is an error"),
        pytest.param([FakeGenerator("a", [_pl("a", "n1", "n2")]),
                      FakeGenerator("b", [_pl("", "n2", "n3")])],
                     id="constrained placement without a name is an error"),
        pytest.param([FakeGenerator("a", [_pl("a/b", "n1", "n2")]),
                      FakeGenerator("b", [_pl("b", "n2", "n3")])],
                     id="placement name containing the separator is an error"),
        pytest.param([FakeGenerator("a", [_pl("x", "n1"), _pl("x", "n2")]),
                      FakeGenerator("b", [_pl("b", "n1", "n2")])],
                     id="duplicate placement names within one plugin is an error"),
    ],
)
def test_generate_invalid_names_are_an_error(plugins):
    _, placements, status = _generate(plugins)
    assert placements == []
    assert status is not None
    assert status.code == Code.ERROR


def test_generate_plugin_error_is_returned_with_plugin_name():
    _, placements, status = _generate([
        FakeGenerator("a", [_pl("a", "n1")]),
        FakeGenerator("b", status=Status(Code.ERROR, ("error for test",))),
    ])
    assert placements == []
    assert status == Status(Code.ERROR, ("error for test",), plugin="b")


# -- placement score combination ------------------------------------------------------------

P1, P2 = _pl("placement1", "n1"), _pl("placement2", "n2")


def _score(plugins_weights, candidates=(P1, P2)):
    plugins = [p for p, _ in plugins_weights]
    fw = _framework(plugins, score=[PluginRef(p.name, w) for p, w in plugins_weights])
    return fw.run_placement_score(_ctx(), [(c, []) for c in candidates], _nodes())


# reference §3.5: TestPodGroupSchedulingPlacementAlgorithm_Scoring
@pytest.mark.parametrize(
    ("a_scores", "b_scores", "want_parts", "want_totals"),
    [
        pytest.param({"placement1": 50, "placement2": 75}, {"placement1": 25, "placement2": 10},
                     [{"A": 50, "B": 50}, {"A": 75, "B": 20}], [100, 95],
                     id="plugin A w=1, plugin B w=2: placement1 wins 100 to 95"),
        pytest.param({"placement1": 75, "placement2": 50}, {"placement1": 10, "placement2": 25},
                     [{"A": 75, "B": 20}, {"A": 50, "B": 50}], [95, 100],
                     id="swapped inputs: placement2 wins"),
    ],
)
def test_weighted_placement_scores(a_scores, b_scores, want_parts, want_totals):
    parts = _score([(FakeScorer("A", a_scores), 1), (FakeScorer("B", b_scores), 2)])
    assert parts == want_parts
    assert [sum(p.values()) for p in parts] == want_totals


def test_normalize_runs_before_weighting():
    scorer = FakeScorer("N", {"placement1": 3, "placement2": 6},
                        normalize=lambda scores: [s * 100 // max(scores) for s in scores])
    assert _score([(scorer, 3)]) == [{"N": 150}, {"N": 300}]


@pytest.mark.parametrize(
    ("scores", "normalize"),
    [
        pytest.param({"placement1": 101, "placement2": 0}, None, id="raw score above 100"),
        pytest.param({"placement1": -1, "placement2": 0}, None, id="raw score below 0"),
        pytest.param({"placement1": 1, "placement2": 2}, lambda s: [x * 100 for x in s],
                     id="normalised score above 100"),
    ],
)
def test_score_outside_range_is_the_plugins_error(scores, normalize):
    """Upstream ``RunPlacementScorePlugins`` returns an Error status: the group's cycle
    fails with the plugin named, not the program."""
    with pytest.raises(PluginError) as info:
        _score([(FakeScorer("X", scores, normalize), 1)])
    assert info.value.status.plugin == "X" and "outside [0, 100]" in info.value.status.message


# upstream framework.go getValidScoreWeights: an unset or zero weight counts as 1
def test_zero_weight_counts_as_one():
    fw = _framework([FakeScorer("A", {})], score=[PluginRef("A", 0)])
    assert [s.weight for s in fw.placement_scores] == [1]
    assert _score([(FakeScorer("A", {"placement1": 40, "placement2": 60}), 0)]) == [
        {"A": 40}, {"A": 60}]


def test_negative_weight_is_a_profile_error():
    with pytest.raises(ProfileError):
        _framework([FakeScorer("A", {})], score=[PluginRef("A", -1)])


@pytest.mark.parametrize(
    "points",
    [
        pytest.param({"filters": ["Missing"]}, id="unknown filter plugin"),
        pytest.param({"generate": ["Missing"]}, id="unknown placement generator"),
        pytest.param({"score": [PluginRef("Missing")]}, id="unknown placement scorer"),
        pytest.param({"filters": ["Gen"]}, id="generator used as a filter"),
        pytest.param({"score": [PluginRef("Filt")]}, id="filter used as a placement scorer"),
        pytest.param({"generate": ["None"]}, id="plugin without any extension point"),
        pytest.param({"feasible": ["Gen"]}, id="generator used as placement feasible"),
    ],
)
def test_profile_errors(points):
    plugins = [FakeGenerator("Gen"), FakeFilter("Filt"), NoPoint("None")]
    with pytest.raises(ProfileError):
        _framework(plugins, **points)


def test_one_instance_per_plugin_across_extension_points():
    class Both(FakeGenerator):
        scope = Scope.STATIC

        def filter(self, state, pod, node):
            return None

    created = []

    def factory(args):
        created.append(Both("Both"))
        return created[-1]

    profile = Profile("s", ("Both",), (), ("Both",), (), ())
    fw = Framework(profile, Registry({"Both": factory}))
    assert len(created) == 1
    assert fw.filters == [created[0]]
    assert fw.placement_generators == [created[0]]
    assert fw.plugin("Both") is created[0]


def test_plugin_args_reach_the_factory():
    seen = {}

    def factory(args):
        seen.update(args)
        return FakeFilter("F")

    profile = Profile("s", ("F",), (), (), (), (), plugin_args={"F": {"k": 1}})
    Framework(profile, Registry({"F": factory}))
    assert seen == {"k": 1}


def test_registry_rejects_duplicate_names():
    registry = Registry({"A": lambda args: FakeFilter("A")})
    with pytest.raises(ValueError):
        registry.register("A", lambda args: FakeFilter("A"))
    assert "A" in registry
    assert list(registry) == ["A"]
