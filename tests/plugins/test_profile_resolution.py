"""Profile resolution: v1 defaults merged with a configured profile, multiPoint expansion,
score / placementScore weights, unmodelled upstream plugins, name errors.

Upstream sources: ``pkg/scheduler/framework/runtime/framework_test.go``
TestNewFrameworkMultiPointExpansion (mirrored case by case with a registry of fake plugins,
so the defaults contribute nothing tasplan runs), ``apis/config/v1/default_plugins.go``
mergePluginSet and getDefaultPlugins for the cases on the real default profile.
"""

from __future__ import annotations

import pytest

from tasplan.errors import ProfileError
from tasplan.framework.profile import PluginRef, PluginSet
from tasplan.framework.registry import Registry
from tasplan.framework.types import Scope
from tasplan.plugins import names as n
from tasplan.plugins.defaults import default_profile, resolve_profile

# -- upstream TestNewFrameworkMultiPointExpansion ----------------------------------------------

TEST = "TestPlugin"  # every point tasplan runs
SCORE1, SCORE2, NORMALIZE1 = "ScorePlugin1", "ScorePlugin2", "ScoreWithNormalizePlugin1"
PLACEMENT_SCORE1 = "PlacementScorePlugin1"


class _Score:
    scope = Scope.NODE

    def __init__(self, name):
        self.name = name

    def score(self, state, pod, node):
        return 0


class _PlacementScore:
    def __init__(self, name):
        self.name = name

    def score_placement(self, ctx, placement, nodes, proposed):
        return 0


class _Everything(_Score):
    def filter(self, state, pod, node):
        return None

    def generate_placements(self, ctx, parent, nodes):
        return [parent], None

    def placement_feasible(self, ctx, remaining, scheduled):
        return None

    def score_placement(self, ctx, placement, nodes, proposed):
        return 0


FAKES = Registry({
    TEST: lambda args: _Everything(TEST),
    SCORE1: lambda args: _Score(SCORE1),
    SCORE2: lambda args: _Score(SCORE2),
    NORMALIZE1: lambda args: _Score(NORMALIZE1),
    PLACEMENT_SCORE1: lambda args: _PlacementScore(PLACEMENT_SCORE1),
})


def _ps(*enabled, disabled=()):
    refs = tuple(PluginRef(e, 0) if isinstance(e, str) else PluginRef(*e) for e in enabled)
    return PluginSet(refs, tuple(disabled))


def _points(profile):
    return {
        "filter": list(profile.filter),
        "score": [(r.name, r.weight) for r in profile.score],
        "placementGenerate": list(profile.placement_generate),
        "placementFeasible": list(profile.placement_feasible),
        "placementScore": [(r.name, r.weight) for r in profile.placement_score],
    }


def _want(filter=(), score=(), generate=(), feasible=(), placement_score=()):
    return {"filter": list(filter), "score": list(score), "placementGenerate": list(generate),
            "placementFeasible": list(feasible), "placementScore": list(placement_score)}


ALL_TEST = dict(filter=[TEST], generate=[TEST], feasible=[TEST])


@pytest.mark.parametrize(
    ("plugins", "want"),
    [
        pytest.param({"multiPoint": _ps((TEST, 5))},
                     _want(**ALL_TEST, score=[(TEST, 5)], placement_score=[(TEST, 5)]),
                     id="plugin expansion"),
        pytest.param({"multiPoint": _ps(TEST), "score": _ps(disabled=[TEST]),
                      "placementScore": _ps(disabled=[TEST])},
                     _want(**ALL_TEST), id="disable MultiPoint plugin at some extension points"),
        pytest.param({"multiPoint": _ps(TEST, SCORE1, PLACEMENT_SCORE1)},
                     _want(**ALL_TEST, score=[(TEST, 1), (SCORE1, 1)],
                           placement_score=[(TEST, 1), (PLACEMENT_SCORE1, 1)]),
                     id="Multiple MultiPoint plugins"),
        pytest.param({"multiPoint": _ps(SCORE1), "score": _ps(disabled=["*"])},
                     _want(), id="disable MultiPoint extension ('*' at score)"),
        pytest.param({"multiPoint": _ps(NORMALIZE1, TEST, SCORE1),
                      "score": _ps(SCORE1, TEST)},
                     _want(**ALL_TEST, score=[(SCORE1, 1), (TEST, 1), (NORMALIZE1, 1)],
                           placement_score=[(TEST, 1)]),
                     id="Reorder MultiPoint plugins (specified extension takes precedence)"),
        pytest.param({"multiPoint": _ps(TEST, SCORE1),
                      "score": _ps(NORMALIZE1, SCORE1, TEST)},
                     _want(**ALL_TEST, score=[(SCORE1, 1), (TEST, 1), (NORMALIZE1, 1)],
                           placement_score=[(TEST, 1)]),
                     id="Reorder MultiPoint plugins (specified extension only takes precedence "
                        "when it exists in MultiPoint)"),
        pytest.param({"multiPoint": _ps(TEST, SCORE1),
                      "score": _ps((SCORE1, 5), (TEST, 3)),
                      "placementScore": _ps((TEST, 2))},
                     _want(**ALL_TEST, score=[(SCORE1, 5), (TEST, 3)],
                           placement_score=[(TEST, 2)]),
                     id="Override MultiPoint plugins weights"),
        pytest.param({"multiPoint": _ps(n.PRIORITY_SORT, n.DEFAULT_BINDER, SCORE1,
                                        PLACEMENT_SCORE1, disabled=["*"])},
                     _want(score=[(SCORE1, 1)], placement_score=[(PLACEMENT_SCORE1, 1)]),
                     id="disable and enable MultiPoint plugins with '*'"),
        pytest.param({"multiPoint": _ps(SCORE1, disabled=[SCORE1])},
                     _want(score=[(SCORE1, 1)]),
                     id="disable and enable MultiPoint plugin by name (enabled wins)"),
        pytest.param({"multiPoint": _ps(TEST, SCORE1, PLACEMENT_SCORE1),
                      "score": _ps((SCORE1, 5), (SCORE2, 5), (TEST, 3)),
                      "placementScore": _ps((TEST, 2), (PLACEMENT_SCORE1, 6))},
                     _want(**ALL_TEST, score=[(SCORE1, 5), (TEST, 3), (SCORE2, 5)],
                           placement_score=[(TEST, 2), (PLACEMENT_SCORE1, 6)]),
                     id="Override MultiPoint plugins weights and avoid a plugin being loaded "
                        "multiple times"),
    ],
)
def test_multi_point_expansion(plugins, want):
    assert _points(resolve_profile(plugins=plugins, registry=FAKES)) == want


def test_multi_point_already_registered_error():
    """upstream row "Expect 'already registered' error"."""
    with pytest.raises(ProfileError, match="twice in multiPoint") as exc:
        resolve_profile(plugins={"multiPoint": _ps(TEST, TEST)}, registry=FAKES)
    assert exc.value.field == "plugins.multiPoint.enabled[1].name"


# -- the real default profile -------------------------------------------------------------------

DEFAULT_FILTER = [n.NODE_UNSCHEDULABLE, n.NODE_NAME, n.TAINT_TOLERATION, n.NODE_AFFINITY,
                  n.NODE_PORTS, n.NODE_RESOURCES_FIT, n.POD_TOPOLOGY_SPREAD,
                  n.INTER_POD_AFFINITY, n.DYNAMIC_RESOURCES]
DEFAULT_SCORE = [(n.TAINT_TOLERATION, 3), (n.NODE_AFFINITY, 2), (n.NODE_RESOURCES_FIT, 1),
                 (n.POD_TOPOLOGY_SPREAD, 2), (n.INTER_POD_AFFINITY, 2), (n.DYNAMIC_RESOURCES, 1),
                 (n.NODE_RESOURCES_BALANCED_ALLOCATION, 1)]
DEFAULT_PLACEMENT = dict(generate=[n.TOPOLOGY_PLACEMENT_GENERATOR], feasible=[n.GANG_SCHEDULING],
                         placement_score=[(n.NODE_RESOURCES_FIT, 1), (n.POD_GROUP_PODS_COUNT, 1)])


def test_default_profile():
    """getDefaultPlugins with the TAS gates, restricted to what tasplan runs; everything else
    enabled by default is listed as unmodelled, in multiPoint order."""
    profile = default_profile()
    assert _points(profile) == _want(filter=DEFAULT_FILTER, score=DEFAULT_SCORE,
                                     **DEFAULT_PLACEMENT)
    assert profile.scheduler_name == "default-scheduler"
    assert profile.unmodelled == (
        n.SCHEDULING_GATES, n.PRIORITY_SORT, n.VOLUME_RESTRICTIONS, n.NODE_VOLUME_LIMITS,
        n.VOLUME_BINDING, n.VOLUME_ZONE,
        n.DEFAULT_PREEMPTION, n.IMAGE_LOCALITY, n.DEFAULT_BINDER,
        n.NODE_DECLARED_FEATURES)


def test_modelled_once_registered():
    """A plugin counts as modelled as soon as the registry has it (PodTopologySpread here:
    weight 2 from the default multiPoint list, filter after NodeResourcesFit), and as
    unmodelled while it has not."""
    from tasplan.framework.registry import Registry
    from tasplan.plugins.registry import in_tree_registry

    base = in_tree_registry()
    without = Registry({name: (lambda args, name=name: base.create(name, args))
                        for name in base if name != n.POD_TOPOLOGY_SPREAD})
    profile = default_profile(registry=without)
    assert n.POD_TOPOLOGY_SPREAD not in profile.filter
    assert n.POD_TOPOLOGY_SPREAD in profile.unmodelled
    without.register(n.POD_TOPOLOGY_SPREAD, lambda args: _FilterScore(n.POD_TOPOLOGY_SPREAD))
    profile = default_profile(registry=without)
    assert profile.filter[profile.filter.index(n.NODE_RESOURCES_FIT) + 1] == \
        n.POD_TOPOLOGY_SPREAD
    assert (n.POD_TOPOLOGY_SPREAD, 2) in [(r.name, r.weight) for r in profile.score]
    assert n.POD_TOPOLOGY_SPREAD not in profile.unmodelled


class _FilterScore(_Score):
    def filter(self, state, pod, node):
        return None


@pytest.mark.parametrize(
    ("plugins", "want"),
    [
        pytest.param({"multiPoint": _ps((n.TAINT_TOLERATION, 5))},
                     _want(filter=DEFAULT_FILTER,
                           score=[(n.TAINT_TOLERATION, 5), *DEFAULT_SCORE[1:]],
                           **DEFAULT_PLACEMENT),
                     id="multiPoint entry replaces the default in place, weight included"),
        pytest.param({"multiPoint": _ps(n.TAINT_TOLERATION)},
                     _want(filter=DEFAULT_FILTER,
                           score=[(n.TAINT_TOLERATION, 1), *DEFAULT_SCORE[1:]],
                           **DEFAULT_PLACEMENT),
                     id="re-enabling a default without a weight resets it to 1"),
        pytest.param({"multiPoint": _ps(disabled=[n.NODE_PORTS])},
                     _want(filter=[f for f in DEFAULT_FILTER if f != n.NODE_PORTS],
                           score=DEFAULT_SCORE, **DEFAULT_PLACEMENT),
                     id="multiPoint disabled by name"),
        pytest.param({"filter": _ps(disabled=[n.NODE_PORTS])},
                     _want(filter=[f for f in DEFAULT_FILTER if f != n.NODE_PORTS],
                           score=DEFAULT_SCORE, **DEFAULT_PLACEMENT),
                     id="filter disabled by name"),
        pytest.param({"score": _ps((n.NODE_RESOURCES_FIT, 5))},
                     _want(filter=DEFAULT_FILTER,
                           score=[(n.NODE_RESOURCES_FIT, 5),
                                  *(e for e in DEFAULT_SCORE if e[0] != n.NODE_RESOURCES_FIT)],
                           **DEFAULT_PLACEMENT),
                     id="score entry overrides multiPoint: runs first, its own weight; the "
                        "placementScore weight stays multiPoint's"),
        pytest.param({"score": _ps((n.NODE_RESOURCES_FIT, 3), disabled=["*"])},
                     _want(filter=DEFAULT_FILTER, score=[(n.NODE_RESOURCES_FIT, 3)],
                           **DEFAULT_PLACEMENT),
                     id="score disabled '*' keeps only the score entries"),
        pytest.param({"placementScore": _ps((n.POD_GROUP_PODS_COUNT, 5))},
                     _want(filter=DEFAULT_FILTER, score=DEFAULT_SCORE,
                           generate=[n.TOPOLOGY_PLACEMENT_GENERATOR],
                           feasible=[n.GANG_SCHEDULING],
                           placement_score=[(n.POD_GROUP_PODS_COUNT, 5),
                                            (n.NODE_RESOURCES_FIT, 1)]),
                     id="placementScore weight (website example shape)"),
        pytest.param({"multiPoint": _ps(n.PRIORITY_SORT, n.DEFAULT_BINDER,
                                        n.NODE_RESOURCES_FIT, n.TOPOLOGY_PLACEMENT_GENERATOR,
                                        n.GANG_SCHEDULING, disabled=["*"])},
                     _want(filter=[n.NODE_RESOURCES_FIT], score=[(n.NODE_RESOURCES_FIT, 1)],
                           generate=[n.TOPOLOGY_PLACEMENT_GENERATOR],
                           feasible=[n.GANG_SCHEDULING],
                           placement_score=[(n.NODE_RESOURCES_FIT, 1)]),
                     id="multiPoint disabled '*' drops every default"),
    ],
)
def test_merge_with_defaults(plugins, want):
    assert _points(resolve_profile(plugins=plugins)) == want


def test_unmodelled_lists_only_what_stays_enabled():
    profile = resolve_profile(plugins={
        "multiPoint": _ps(n.NODE_RESOURCES_FIT, n.IMAGE_LOCALITY, disabled=["*"]),
        "queueSort": _ps(n.PRIORITY_SORT),
        "preEnqueue": _ps(n.SCHEDULING_GATES),
        "bind": _ps(n.DEFAULT_BINDER),
    })
    assert profile.unmodelled == (n.IMAGE_LOCALITY, n.PRIORITY_SORT, n.DEFAULT_BINDER,
                                  n.SCHEDULING_GATES)


def test_plugin_args_reach_the_plugins():
    args = {n.NODE_RESOURCES_FIT: {"scoringStrategy": {"type": "MostAllocated"}}}
    profile = resolve_profile(plugin_args=args)
    assert profile.plugin_args == args


@pytest.mark.parametrize(
    ("plugins", "field", "message"),
    [
        pytest.param({"score": _ps(n.NODE_RESOURCES_FIT, n.IMAGE_LOCALITY, "Bogus")},
                     "plugins.score.enabled[2].name", "unknown plugin", id="unknown plugin"),
        pytest.param({"multiPoint": _ps("EBSLimits")}, "plugins.multiPoint.enabled[0].name",
                     "was removed", id="plugin removed from v1"),
        pytest.param({"preFilter": _ps("Nope")}, "plugins.preFilter.enabled[0].name",
                     "unknown plugin", id="unknown plugin at a point tasplan does not run"),
        pytest.param({"score": _ps(n.NODE_PORTS)}, "plugins.score.enabled[0].name",
                     "does not extend score", id="filter-only plugin as a score plugin"),
        pytest.param({"placementScore": _ps(n.TAINT_TOLERATION)},
                     "plugins.placementScore.enabled[0].name", "does not extend placementScore",
                     id="node scorer as a placement scorer"),
        pytest.param({"filter": _ps(n.DEFAULT_BINDER)}, "plugins.filter.enabled[0].name",
                     "does not extend filter", id="unmodelled binder as a filter"),
        pytest.param({"filter": _ps(n.NODE_PORTS, n.NODE_PORTS)},
                     "plugins.filter.enabled[1].name", "twice", id="enabled twice at a point"),
        pytest.param({"bogusPoint": _ps()}, "plugins.bogusPoint", "unknown extension point",
                     id="unknown extension point"),
        pytest.param({"queueSort": _ps(disabled=["*"])}, "plugins.queueSort",
                     "only one queue sort plugin required", id="no queue sort plugin"),
        pytest.param({"bind": _ps(disabled=[n.DEFAULT_BINDER])}, "plugins.bind",
                     "at least one bind plugin", id="no bind plugin"),
        pytest.param({"score": _ps(n.PRIORITY_SORT)}, "plugins.score.enabled[0].name",
                     "does not extend score", id="queue sort plugin as a score plugin"),
    ],
)
def test_profile_errors(plugins, field, message):
    with pytest.raises(ProfileError, match=message) as exc:
        resolve_profile(plugins=plugins)
    assert exc.value.field == field


def test_bad_plugin_args_name_the_plugin():
    with pytest.raises(ProfileError) as exc:
        resolve_profile(plugin_args={n.NODE_RESOURCES_FIT: {"scoringStrategy": {"type": "X"}}})
    assert exc.value.field == "NodeResourcesFit.args.scoringStrategy.type"
