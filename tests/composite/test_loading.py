"""Loading CompositePodGroups, ``parentCompositePodGroupName`` and a Workload's
``compositePodGroupTemplates``; the API server's per-object checks (types.go markers of
scheduling.k8s.io/v1alpha3 CompositePodGroup and the Workload template-tree validation of
KEP-6012: depth 4, names unique across the tree, at most 8 per list)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tasplan.errors import InputError
from tasplan.load.loader import load_inputs
from tasplan.model.group import Policy
from tests.load.helpers import line_of, write

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "composite" / "train-2level.yaml"


def cpg(name: str, *, version: str = "v1alpha3", parent: str | None = None,
        spec: str = "schedulingPolicy: {gang: {minGroupCount: 2}}") -> str:
    parent_line = f"\n  parentCompositePodGroupName: {parent}" if parent else ""
    return f"""
apiVersion: scheduling.k8s.io/{version}
kind: CompositePodGroup
metadata: {{name: {name}, namespace: ml}}
spec:
  workloadRef: {{workloadName: wl, templateName: {name}-t}}{parent_line}
  {spec}
"""


def test_sample_tree_loads_with_template_fields() -> None:
    snap = load_inputs([SAMPLE], [REPO / "samples" / "cluster"])
    (root,) = snap.composites
    assert (root.key, root.policy, root.min_group_count) == ("ml/llm", Policy.GANG, 4)
    assert root.topology_key == "topology.example.com/block" and root.parent is None
    assert root.source.workload
    leaves = [g for g in snap.groups if g.parent == "ml/llm"]
    assert [g.key for g in leaves] == [f"ml/llm-replica-{i}" for i in range(4)]
    assert {g.topology_key for g in leaves} == {"topology.example.com/rack"}


@pytest.mark.parametrize("version", ["v1alpha3", "v1beta1"])
def test_every_served_version_loads(tmp_path: Path, version: str) -> None:
    path = write(tmp_path, "c.yaml", cpg("root", version=version) + "---" +
                 cpg("mid", version=version, parent="root"))
    snap = load_inputs([path])
    assert [(c.key, c.parent) for c in snap.composites] == [("ml/root", None),
                                                            ("ml/mid", "ml/root")]


def test_v1alpha2_has_no_composite(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", cpg("root", version="v1alpha2"))
    with pytest.raises(InputError, match=r"unsupported apiVersion.*CompositePodGroup"):
        load_inputs([path])


def test_composite_inherits_its_template(tmp_path: Path) -> None:
    """Fields a controller copies from the CompositePodGroupTemplate come from it when the
    object leaves them out."""
    path = write(tmp_path, "c.yaml", """
        apiVersion: scheduling.k8s.io/v1beta1
        kind: Workload
        metadata: {name: wl, namespace: ml}
        spec:
          compositePodGroupTemplates:
          - name: root-t
            schedulingPolicy: {gang: {minGroupCount: 3}}
            schedulingConstraints: {topology: [{key: block}]}
            priority: 7
            podGroupTemplates:
            - name: leaf-t
              schedulingPolicy: {gang: {minCount: 2}}
              schedulingConstraints: {topology: [{key: rack}]}
        ---
        apiVersion: scheduling.k8s.io/v1beta1
        kind: CompositePodGroup
        metadata: {name: root, namespace: ml}
        spec:
          workloadRef: {workloadName: wl, templateName: root-t}
        ---
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: leaf, namespace: ml}
        spec:
          parentCompositePodGroupName: root
          workloadRef: {workloadName: wl, templateName: leaf-t}
        """)
    snap = load_inputs([path])
    (root,) = snap.composites
    assert (root.min_group_count, root.topology_key, root.priority) == (3, "block", 7)
    (leaf,) = snap.groups
    assert (leaf.min_count, leaf.topology_key, leaf.parent) == (2, "rack", "ml/root")


@pytest.mark.parametrize(("spec", "field", "message"), [
    ("schedulingPolicy: {gang: {}}", "spec.schedulingPolicy.gang.minGroupCount",
     "required field is missing"),
    ("schedulingPolicy: {gang: {minGroupCount: 0}}", "spec.schedulingPolicy.gang.minGroupCount",
     ""),
    ("schedulingPolicy: {basic: {}, gang: {minGroupCount: 1}}", "spec.schedulingPolicy",
     "exactly one of basic or gang"),
    ("schedulingPolicy: {basic: {}}\n  schedulingConstraints: {topology: [{key: a}, {key: b}]}",
     "spec.schedulingConstraints.topology", "at most 1 item"),
    # priority is an int32, as on a PodGroup
    ("schedulingPolicy: {basic: {}}\n  priority: 2147483648", "spec.priority", ""),
    ("schedulingPolicy: {basic: {}}\n  preemptionPolicy: Sometimes", "spec.preemptionPolicy",
     "Never or PreemptLowerPriority"),
])
def test_composite_fields_are_checked(tmp_path: Path, spec: str, field: str,
                                      message: str) -> None:
    path = write(tmp_path, "c.yaml", cpg("root", spec=spec))
    with pytest.raises(InputError) as err:
        load_inputs([path])
    assert field in str(err.value) and message in str(err.value)
    assert f"{path}:" in str(err.value)


def test_composite_needs_a_workload_ref(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", """
        apiVersion: scheduling.k8s.io/v1alpha3
        kind: CompositePodGroup
        metadata: {name: root}
        spec:
          schedulingPolicy: {basic: {}}
        """)
    with pytest.raises(InputError, match=r"always refers"):
        load_inputs([path])


def test_pod_group_with_parent_needs_a_workload_ref(tmp_path: Path) -> None:
    """+k8s:dependentRequired("workloadRef") on parentCompositePodGroupName."""
    path = write(tmp_path, "c.yaml", """
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: leaf}
        spec:
          parentCompositePodGroupName: root
          schedulingPolicy: {basic: {}}
        """)
    with pytest.raises(InputError, match=r"spec\.workloadRef: required when"):
        load_inputs([path])


def _workload(templates: str) -> str:
    return """
apiVersion: scheduling.k8s.io/v1alpha3
kind: Workload
metadata: {name: wl, namespace: ml}
spec:
""" + templates


def test_template_tree_deeper_than_four_is_rejected(tmp_path: Path) -> None:
    level = "{name: c%d, schedulingPolicy: {basic: {}}, %s}"
    inner = "podGroupTemplates: [{name: leaf, schedulingPolicy: {basic: {}}}]"
    for i in (4, 3, 2, 1):
        inner = "compositePodGroupTemplates: [" + level % (i, inner) + "]"
    path = write(tmp_path, "w.yaml", _workload("  " + inner + "\n"))
    with pytest.raises(InputError, match="deeper than 4 levels"):
        load_inputs([path])
    ok = inner.replace("compositePodGroupTemplates: [{name: c4, schedulingPolicy: {basic: {}}, "
                       "podGroupTemplates: [{name: leaf, schedulingPolicy: {basic: {}}}]}]",
                       "podGroupTemplates: [{name: leaf, schedulingPolicy: {basic: {}}}]")
    path = write(tmp_path, "ok.yaml", _workload("  " + ok + "\n"))
    assert load_inputs([path]).groups == ()


def test_template_names_are_unique_across_the_tree(tmp_path: Path) -> None:
    path = write(tmp_path, "w.yaml", _workload("""
          compositePodGroupTemplates:
          - name: job
            schedulingPolicy: {basic: {}}
            podGroupTemplates:
            - name: job
              schedulingPolicy: {basic: {}}
        """))
    with pytest.raises(InputError, match="duplicate template name 'job'") as err:
        load_inputs([path])
    assert f"{path}:{line_of(path, '- name: job', 2)}" in str(err.value) or "podGroupTemplates[0]" \
        in str(err.value)


def test_composite_template_needs_children(tmp_path: Path) -> None:
    path = write(tmp_path, "w.yaml", _workload("""
          compositePodGroupTemplates:
          - name: job
            schedulingPolicy: {basic: {}}
        """))
    with pytest.raises(InputError, match="at least one of podGroupTemplates or "
                       "compositePodGroupTemplates"):
        load_inputs([path])


def test_both_template_lists_are_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, "w.yaml", _workload("""
          podGroupTemplates: [{name: a, schedulingPolicy: {basic: {}}}]
          compositePodGroupTemplates:
          - name: job
            schedulingPolicy: {basic: {}}
            podGroupTemplates: [{name: b, schedulingPolicy: {basic: {}}}]
        """))
    with pytest.raises(InputError, match="exactly one of podGroupTemplates or "
                       "compositePodGroupTemplates"):
        load_inputs([path])


def test_disruption_mode_is_read(tmp_path: Path) -> None:
    """``spec.disruptionMode`` ({all: {}} / {single: {}}) of a CompositePodGroup: all makes
    its subtree one preemption victim (upstream kubernetes#140634); default single."""
    path = write(tmp_path, "c.yaml",
                 cpg("root", spec="schedulingPolicy: {basic: {}}\n  disruptionMode: {all: {}}")
                 + "---" + cpg("mid", parent="root", spec="schedulingPolicy: {basic: {}}\n"
                                                          "  disruptionMode: {single: {}}")
                 + "---" + cpg("low", parent="mid"))
    snap = load_inputs([path])
    assert [c.disrupt_all for c in snap.composites] == [True, False, False]
    bad = write(tmp_path, "bad.yaml",
                cpg("x", spec="schedulingPolicy: {basic: {}}\n  disruptionMode: {}"))
    with pytest.raises(InputError, match=r"spec.disruptionMode.*exactly one of single or all"):
        load_inputs([bad])


def test_preemption_policy_is_read(tmp_path: Path) -> None:
    """``spec.preemptionPolicy`` of a CompositePodGroup (Never | PreemptLowerPriority)."""
    path = write(tmp_path, "c.yaml",
                 cpg("root", spec="schedulingPolicy: {basic: {}}\n  preemptionPolicy: Never"))
    assert [c.preemption_policy for c in load_inputs([path]).composites] == ["Never"]
    bad = write(tmp_path, "bad.yaml",
                cpg("x", spec="schedulingPolicy: {basic: {}}\n  preemptionPolicy: Sometimes"))
    with pytest.raises(InputError, match=r"spec.preemptionPolicy.*Never or PreemptLowerPriority"):
        load_inputs([bad])
