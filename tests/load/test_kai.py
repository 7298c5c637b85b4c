"""Decoding KAI's Topology and PodGroup, and the PodGroup webhook's rules.

The webhook tables mirror ``TestValidateSubGroups`` and ``TestValidatePodGroupSpec`` of
kai-scheduler/KAI-Scheduler ``pkg/apis/scheduling/v2alpha2/podgroup_webhook_test.go``
(last changed in 62c594bf, read at d5bc503a146317e51037d89775d77172c6d12f71), case by case.
"""

from __future__ import annotations

import pytest

from tasplan.errors import InputError
from tasplan.load.kai import decode_pod_group, decode_topology, validate_pod_group
from tasplan.model.kai import Constraint, KaiPodGroup, SubGroup
from tasplan.model.source import Source

SRC = Source("pg.yaml", workload=True)


def sg(name: str, parent: str | None = None, min_member: int | None = None,
       min_subgroup: int | None = None) -> SubGroup:
    return SubGroup(name, min_member, min_subgroup, parent, None)


def pg(subgroups=(), min_member=None, min_subgroup=None) -> KaiPodGroup:
    return KaiPodGroup("ns", "pg", min_member, min_subgroup, "", "", Constraint(),
                       tuple(subgroups), SRC)


LEAF_MIN_SUBGROUP = 'subgroup "{0}": minSubGroup cannot be set on a leaf SubGroup (no child ' \
                    'SubGroups)'
SUBGROUPS = [
    ("Valid DAG single root", [sg("a", min_subgroup=1), sg("b", "a", min_subgroup=1),
                               sg("c", "b", 1)], []),
    ("Valid DAG multiple roots", [sg("a", min_subgroup=1), sg("b", min_subgroup=1),
                                  sg("c", "a", 1), sg("d", "b", 1)], []),
    ("Missing parent", [sg("a", min_member=1), sg("b", "x", 1)],
     ["parent x of b was not found"]),
    ("Empty list", [], []),
    ("nil minMember on leaf subgroup", [sg("a")], ["subgroup a: minMember is required"]),
    ("parent subgroup may omit minMember when it has subgroup children",
     [sg("p"), sg("l", "p", 1)], []),
    ("leaf child still requires minMember when parent omits it", [sg("p"), sg("l", "p")],
     ["subgroup l: minMember is required"]),
    ("Duplicate subgroup names", [sg("a", min_member=1), sg("a", min_member=1)],
     ["duplicate subgroup name a"]),
    ("Cycle in graph (a -> b -> c -> a) - duplicate subgroup name",
     [sg("a", min_member=1), sg("b", "a", 1), sg("c", "b", 1), sg("a", "c", 1)],
     ["duplicate subgroup name a"]),
    ("Self-parent subgroup (cycle of length 1)", [sg("a", "a", 1)],
     ["cycle detected in subgroups"]),
    ("Cycle in graph (a -> b -> c -> a)", [sg("a", "c", 1), sg("b", "a", 1), sg("c", "b", 1)],
     ["cycle detected in subgroups"]),
    ("Multiple disjoint cycles", [sg("a", "b", 1), sg("b", "a", 1), sg("c", "d", 1),
                                  sg("d", "c", 1)], ["cycle detected in subgroups"]),
    ("Valid: mid-level SubGroup uses minSubGroup",
     [sg("parent", min_subgroup=2), sg("child-1", "parent", 4), sg("child-2", "parent", 4)], []),
    ("Invalid: leaf SubGroup uses minSubGroup", [sg("A", min_subgroup=1)],
     [LEAF_MIN_SUBGROUP.format("A"), "subgroup A: minMember is required"]),
    ("Invalid: mid-level SubGroup uses minMember",
     [sg("parent", min_member=2), sg("child-1", "parent", 4), sg("child-2", "parent", 4)],
     ['subgroup "parent": minMember cannot be set on a mid-level SubGroup (has child '
      'SubGroups); use minSubGroup instead']),
    ("Invalid: SubGroup has both minMember and minSubGroup",
     [sg("parent", min_member=2, min_subgroup=1), sg("child-1", "parent", 4)],
     ['subgroup "parent": minMember and minSubGroup are mutually exclusive']),
    ("Invalid: SubGroup minSubGroup exceeds child count",
     [sg("parent", min_subgroup=3), sg("child-1", "parent", 4), sg("child-2", "parent", 4)],
     ['subgroup "parent": minSubGroup (3) exceeds the number of direct child SubGroups (2)']),
    ("Valid: minSubGroup equals child count",
     [sg("parent", min_subgroup=2), sg("child-1", "parent", 4), sg("child-2", "parent", 4)], []),
    ("Invalid: minSubGroup = 0 on leaf SubGroup", [sg("A", min_subgroup=0)],
     [LEAF_MIN_SUBGROUP.format("A"), "subgroup A: minMember is required"]),
    ("Valid: 2-level hierarchy with minSubGroup at both levels",
     [sg("decode", min_subgroup=2), sg("decode-leaders", "decode", 1),
      sg("decode-workers", "decode", 4), sg("prefill", min_subgroup=2),
      sg("prefill-leaders", "prefill", 1), sg("prefill-workers", "prefill", 4)], []),
]

EIGHTS = [sg(n, min_member=8) for n in "abcd"]
SPECS = [
    ("Valid: minMember only, no subgroups", pg(min_member=4), []),
    ("Valid: minSubGroup with leaf subgroups using minMember",
     pg([sg(f"prefill-{i}", min_member=8) for i in range(4)], min_subgroup=3), []),
    ("Valid: minSubGroup equals subgroup count",
     pg([sg("a", min_member=4), sg("b", min_member=4)], min_subgroup=2), []),
    ("Valid: minSubGroup of 0 (no gang requirement)",
     pg([sg("a", min_member=4), sg("b", min_member=4)], min_subgroup=0), []),
    ("Invalid: both minMember and minSubGroup set on PodGroup",
     pg(EIGHTS[:3], min_member=24, min_subgroup=3),
     ["minMember and minSubGroup are mutually exclusive: set minMember (24) to schedule a "
      "fixed number of pods, or set minSubGroup to require a minimum number of child "
      "SubGroups, but not both"]),
    ("Invalid: minSubGroup exceeds root subgroup count", pg(EIGHTS, min_subgroup=5),
     ["minSubGroup (5) exceeds the number of direct child SubGroups (4)"]),
    ("Valid: 2-level hierarchy",
     pg([sg("decode", min_subgroup=2), sg("decode-leaders", "decode", 1),
         sg("decode-workers", "decode", 4), sg("prefill", min_subgroup=2),
         sg("prefill-leaders", "prefill", 1), sg("prefill-workers", "prefill", 4)],
        min_subgroup=2), []),
    ("Invalid: subgroup validation error propagates",
     pg([sg("leaf", min_subgroup=1)], min_subgroup=1),
     [LEAF_MIN_SUBGROUP.format("leaf"), "subgroup leaf: minMember is required"]),
    ("Valid: no subgroups, no minMember, no minSubGroup", pg(), []),
    ("Invalid: minSubGroup with no subgroups defined", pg(min_subgroup=1),
     ["minSubGroup (1) exceeds the number of direct child SubGroups (0)"]),
]


@pytest.mark.parametrize(("name", "subgroups", "want"), SUBGROUPS, ids=[c[0] for c in SUBGROUPS])
def test_validate_subgroups(name: str, subgroups: list, want: list[str]) -> None:
    assert [p.message for p in validate_pod_group(pg(subgroups))] == want


@pytest.mark.parametrize(("name", "group", "want"), SPECS, ids=[c[0] for c in SPECS])
def test_validate_pod_group_spec(name: str, group: KaiPodGroup, want: list[str]) -> None:
    assert [p.message for p in validate_pod_group(group)] == want


def test_create_rejects_what_update_warns() -> None:
    """``TestCreateRejectsWhatUpdateWarns``: minMember on a mid-level subgroup is refused on
    create (tasplan models creation: a hard problem)."""
    problems = validate_pod_group(pg([sg("parent", min_member=2), sg("child", "parent", 1)]))
    assert [(p.message, p.hard) for p in problems] == [
        ('subgroup "parent": minMember cannot be set on a mid-level SubGroup (has child '
         'SubGroups); use minSubGroup instead', True)]
    exceeds = validate_pod_group(pg(min_subgroup=1))
    assert [p.hard for p in exceeds] == [False]


def obj(spec: dict, **meta) -> dict:
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
            "metadata": {"name": "train", "namespace": "ml", **meta}, "spec": spec}


def test_decode_pod_group() -> None:
    group, problems = decode_pod_group(SRC, obj({
        "minMember": 4, "queue": "team-a", "priorityClassName": "train",
        "topologyConstraint": {"topology": "dc", "requiredTopologyLevel": "rack",
                               "preferredTopologyLevel": "host"},
        "subGroups": [{"name": "leader", "minMember": 1},
                      {"name": "workers", "minMember": 3,
                       "topologyConstraint": {"topology": "dc",
                                              "requiredTopologyLevel": "rack"}}]}))
    assert problems == []
    assert group.key == "ml/train" and group.min_member == 4 and group.queue == "team-a"
    assert group.constraint == Constraint("dc", "rack", "host")
    assert [s.name for s in group.subgroups] == ["leader", "workers"]
    assert group.subgroups[0].constraint is None
    assert group.subgroups[1].constraint == Constraint("dc", "rack")
    assert [path for path, _ in group.constraints()] == [
        "spec.topologyConstraint", "spec.subGroups[1].topologyConstraint"]


@pytest.mark.parametrize(("spec", "field", "text"), [
    ({"minMember": -1}, "spec.minMember", "expected an integer >= 0, got -1"),
    ({"minMember": "4"}, "spec.minMember", "expected an integer"),
    ({"minSubGroup": 2**31}, "spec.minSubGroup", "expected an integer <= 2147483647"),
    ({"preemptibility": "sometimes"}, "spec.preemptibility", "expected one of preemptible"),
    ({"subGroups": [{"minMember": 1}]}, "spec.subGroups[0].name", "required field is missing"),
    ({"subGroups": [{"name": "Workers"}]}, "spec.subGroups[0].name", "expected a DNS label"),
    ({"subGroups": [{"name": "w", "parent": "x_y"}]}, "spec.subGroups[0].parent",
     "expected a DNS label"),
    ({"topologyConstraint": {"topology": 3}}, "spec.topologyConstraint.topology",
     "expected a string"),
    ({"topologyConstraint": []}, "spec.topologyConstraint", "expected a mapping"),
])
def test_decode_pod_group_errors(spec: dict, field: str, text: str) -> None:
    with pytest.raises(InputError) as err:
        decode_pod_group(SRC, obj(spec))
    assert err.value.field == field and text in str(err.value)


def topology(levels: list) -> dict:
    return {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology",
            "metadata": {"name": "dc"}, "spec": {"levels": levels}}


def test_decode_topology() -> None:
    topo, problems = decode_topology(SRC, topology([
        {"nodeLabel": "topology.kubernetes.io/zone", "alias": "zone"},
        {"nodeLabel": "example.com/rack", "alias": "rack"},
        {"nodeLabel": "kubernetes.io/hostname"}]))
    assert problems == []
    assert topo.labels == ("topology.kubernetes.io/zone", "example.com/rack",
                           "kubernetes.io/hostname")
    assert topo.resolve("rack") == "example.com/rack"
    assert topo.resolve("example.com/rack") == "example.com/rack"


def test_topology_alias_rules() -> None:
    """``validateAliases``: unique aliases, none equal to a node label."""
    _, problems = decode_topology(SRC, topology([
        {"nodeLabel": "a/zone", "alias": "x"}, {"nodeLabel": "a/rack", "alias": "x"},
        {"nodeLabel": "a/host", "alias": "a/zone"}]))
    assert [p.message for p in problems] == [
        "invalid topology aliases: aliases must be unique within the topology; duplicated: [x]",
        "invalid topology aliases: an alias must not equal a nodeLabel; conflicting: [a/zone]"]


@pytest.mark.parametrize(("levels", "field", "text"), [
    ([], "spec.levels", "at least 1 level"),
    ([{"nodeLabel": f"l{i}"} for i in range(17)], "spec.levels", "at most 16"),
    ([{"nodeLabel": "a"}, {"nodeLabel": "a"}], "spec.levels[1].nodeLabel", "must be unique"),
    ([{"nodeLabel": "kubernetes.io/hostname"}, {"nodeLabel": "rack"}], "spec.levels",
     "only be used at the lowest level"),
    ([{"nodeLabel": "bad label"}], "spec.levels[0].nodeLabel", "expected a label key"),
    ([{"alias": "x"}], "spec.levels[0].nodeLabel", "required field is missing"),
])
def test_topology_errors(levels: list, field: str, text: str) -> None:
    with pytest.raises(InputError) as err:
        decode_topology(SRC, topology(levels))
    assert err.value.field == field and text in str(err.value)
