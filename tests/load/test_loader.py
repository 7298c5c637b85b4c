"""Workload and cluster inputs -> ClusterSnapshot (tasplan.load_inputs): decoding of Nodes,
Pods, PriorityClasses, Workloads, PodGroups and Jobs, and the InputErrors bad objects give
(file, line, field path, what was expected)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tasplan import InputError, JobOverrides, load_inputs, plan
from tasplan.model.group import Policy
from tasplan.model.taints import Taint, Toleration
from tests.load.helpers import line_of, write

Gi = 1024**3

NODES = """
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    labels: {rack: r1}
  status:
    allocatable: {cpu: "8", memory: 32Gi, pods: "110", nvidia.com/gpu: "2"}
- apiVersion: v1
  kind: Node
  metadata:
    name: n2
    labels: {rack: r1}
  status:
    allocatable: {cpu: "8", memory: 32Gi, pods: "110", nvidia.com/gpu: "2"}
- apiVersion: v1
  kind: Node
  metadata:
    name: n3
    labels: {rack: r2}
  status:
    allocatable: {cpu: "8", memory: 32Gi, pods: "110", nvidia.com/gpu: "2"}
"""


def error_of(workloads: list[Path], clusters: list[Path] = (), **kw) -> InputError:
    with pytest.raises(InputError) as info:
        load_inputs(workloads, clusters, **kw)
    return info.value


def pods_by_key(snapshot) -> dict:
    return {p.key: p for p in snapshot.pods}


def groups_by_key(snapshot) -> dict:
    return {g.key: g for g in snapshot.groups}


# --------------------------------------------------------------------------- Nodes


def test_node_decoding(tmp_path: Path) -> None:
    path = write(tmp_path, "node.yaml", """
        apiVersion: v1
        kind: Node
        metadata:
          name: gpu-0
          labels:
            topology.example.com/rack: rack-1
            node-role.example.com/system: ""
        spec:
          unschedulable: true
          taints:
          - key: nvidia.com/gpu
            value: present
            effect: NoSchedule
          - key: node.kubernetes.io/unschedulable
            effect: NoSchedule
        status:
          allocatable:
            cpu: "95"
            memory: 1024Gi
            nvidia.com/gpu: "8"
            pods: "110"
            ephemeral-storage: "3454934592487"
            hugepages-1Gi: "0"
          capacity:
            cpu: "96"
            memory: 1081081856Ki
        """)
    snapshot = load_inputs([], [path])
    (node,) = snapshot.nodes
    assert node.name == "gpu-0"
    assert node.labels == {"topology.example.com/rack": "rack-1",
                           "node-role.example.com/system": ""}
    assert node.allocatable == {
        "cpu": 95_000,
        "memory": 1024 * Gi,
        "nvidia.com/gpu": 8,
        "pods": 110,
        "ephemeral-storage": 3454934592487,
        "hugepages-1Gi": 0,
    }
    assert node.taints == (Taint("nvidia.com/gpu", "present", "NoSchedule"),
                           Taint("node.kubernetes.io/unschedulable", "", "NoSchedule"))
    assert node.unschedulable is True
    assert node.source.path == str(path) and node.source.workload is False


@pytest.mark.parametrize(("cpu", "milli"), [("500m", 500), ("1.5", 1500), (4, 4000),
                                            ("95", 95_000), ("0.1", 100)])
def test_node_cpu_is_millicores(tmp_path: Path, cpu: object, milli: int) -> None:
    path = write(tmp_path, "node.yaml", f"""
        apiVersion: v1
        kind: Node
        metadata: {{name: n1}}
        status:
          allocatable: {{cpu: {cpu!r}, memory: "1Gi", pods: "10"}}
        """.replace("'", '"'))
    (node,) = load_inputs([], [path]).nodes
    assert node.allocatable["cpu"] == milli
    assert node.allocatable["memory"] == Gi


def test_node_without_allocatable_uses_capacity(tmp_path: Path) -> None:
    path = write(tmp_path, "node.yaml", """
        apiVersion: v1
        kind: Node
        metadata: {name: n1}
        status:
          capacity: {cpu: "4", memory: 16Gi, pods: "110", nvidia.com/gpu: "1"}
        """)
    (node,) = load_inputs([], [path]).nodes
    assert node.allocatable == {"cpu": 4000, "memory": 16 * Gi, "pods": 110,
                                "nvidia.com/gpu": 1}
    assert node.unschedulable is False
    assert node.taints == ()


def test_nodes_are_sorted_by_name(tmp_path: Path) -> None:
    path = write(tmp_path, "nodes.yaml", """
        apiVersion: v1
        kind: Node
        metadata: {name: zeta}
        status: {allocatable: {pods: "1"}}
        ---
        apiVersion: v1
        kind: Node
        metadata: {name: alpha}
        status: {allocatable: {pods: "1"}}
        """)
    assert [n.name for n in load_inputs([], [path]).nodes] == ["alpha", "zeta"]


def test_node_without_pods_slots_warns(tmp_path: Path) -> None:
    path = write(tmp_path, "node.yaml", """
        apiVersion: v1
        kind: Node
        metadata: {name: n1}
        status: {allocatable: {cpu: "4"}}
        """)
    snapshot = load_inputs([], [path])
    assert any("n" in w and "allocatable pods" in w for w in snapshot.warnings)


def test_bad_quantity_in_allocatable(tmp_path: Path) -> None:
    path = write(tmp_path, "node.yaml", """
        apiVersion: v1
        kind: Node
        metadata:
          name: n1
        status:
          allocatable:
            memory: 1Gi
            cpu: "ninety"
            pods: "110"
        """)
    err = error_of([], [path])
    assert err.field == "status.allocatable.cpu"
    assert err.line == line_of(path, 'cpu: "ninety"') == 8
    assert err.obj == "Node n1"
    assert "ninety" in str(err)
    assert "quantity" in str(err)
    assert str(err).startswith(f"{path}:8: Node n1: status.allocatable.cpu: expected ")


def test_bad_quantity_in_a_node_list_item(tmp_path: Path) -> None:
    path = write(tmp_path, "nodes.yaml", """
        apiVersion: v1
        kind: List
        items:
        - apiVersion: v1
          kind: Node
          metadata: {name: good}
          status:
            allocatable: {cpu: "1", pods: "1"}
        - apiVersion: v1
          kind: Node
          metadata: {name: bad}
          status:
            allocatable:
              cpu: "1"
              memory: 12XB
        """)
    err = error_of([], [path])
    assert err.field == "items[1].status.allocatable.memory"
    assert err.line == line_of(path, "memory: 12XB")
    assert "12XB" in str(err)


def test_bad_quantity_in_capacity_fallback(tmp_path: Path) -> None:
    path = write(tmp_path, "node.yaml", """
        apiVersion: v1
        kind: Node
        metadata: {name: n1}
        ---
        apiVersion: v1
        kind: Node
        metadata: {name: n2}
        status:
          capacity:
            cpu: 1x
        """)
    err = error_of([], [path])
    assert err.field == "status.capacity.cpu"
    assert err.line == line_of(path, "cpu: 1x") == 10
    assert err.obj == "Node n2"


def test_bad_taint_effect(tmp_path: Path) -> None:
    path = write(tmp_path, "node.yaml", """
        apiVersion: v1
        kind: Node
        metadata: {name: n1}
        spec:
          taints:
          - key: a
            effect: NoSchedule
          - key: b
            effect: NoScheduel
        """)
    err = error_of([], [path])
    assert err.field == "spec.taints[1].effect"
    assert err.line == line_of(path, "effect: NoScheduel")
    assert "NoSchedule or PreferNoSchedule or NoExecute" in str(err)
    assert "'NoScheduel'" in str(err)


def test_taint_without_key(tmp_path: Path) -> None:
    path = write(tmp_path, "node.yaml", """
        apiVersion: v1
        kind: Node
        metadata: {name: n1}
        spec:
          taints:
          - effect: NoSchedule
        """)
    err = error_of([], [path])
    assert err.field == "spec.taints[0].key"
    assert "required field is missing" in str(err)


@pytest.mark.parametrize(("value", "got"), [("3", "a number"), ("true", "a boolean"),
                                            ("[a]", "a list"), ("null", "null")])
def test_label_value_not_a_string(tmp_path: Path, value: str, got: str) -> None:
    path = write(tmp_path, "node.yaml", f"""
        apiVersion: v1
        kind: Node
        metadata:
          name: n1
          labels:
            ok: "yes"
            gpus: {value}
        """)
    err = error_of([], [path])
    assert err.field == "metadata.labels.gpus"
    assert f"expected a string, got {got}" in str(err)
    assert err.line == line_of(path, "gpus:")


def test_unschedulable_not_a_boolean(tmp_path: Path) -> None:
    path = write(tmp_path, "node.yaml", """
        apiVersion: v1
        kind: Node
        metadata: {name: n1}
        spec:
          unschedulable: "yes"
        """)
    err = error_of([], [path])
    assert err.field == "spec.unschedulable"
    assert "expected true or false, got 'yes'" in str(err)
    assert err.line == 5


# --------------------------------------------------------------------------- Pods


def test_pod_requests_with_limits_only_container(tmp_path: Path) -> None:
    path = write(tmp_path, "pod.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: ml}
        spec:
          containers:
          - name: a
            resources:
              requests: {cpu: 500m, memory: 1Gi}
          - name: b
            resources:
              limits: {cpu: "1", nvidia.com/gpu: "2", memory: 512Mi}
          - name: c
        """)
    (pod,) = load_inputs([path]).pods
    assert pod.key == "ml/p"
    assert pod.requests == {"cpu": 1500, "memory": Gi + 512 * 1024**2, "nvidia.com/gpu": 2}
    assert pod.node_name == "" and pod.phase == "Pending"
    assert pod.group is None
    assert pod.priority == 0
    assert pod.source.workload is True


def test_pod_defaults(tmp_path: Path) -> None:
    path = write(tmp_path, "pod.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          nodeName: n1
          containers: [{name: c}]
        """)
    (pod,) = load_inputs([], [path]).pods
    assert pod.namespace == "default"
    assert pod.phase == "Running"
    assert pod.bound and not pod.terminal
    assert pod.requests == {}


def test_pod_uid_and_start_time(tmp_path: Path) -> None:
    """What preemption orders victims by (upstream MoreImportantVictim): kept as given; an
    unquoted YAML timestamp is the same text to the API server's YAML reader."""
    path = write(tmp_path, "pods.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: quoted, uid: 6c1f-aa}
        spec: {nodeName: n1, containers: [{name: c}]}
        status: {startTime: "2026-03-01T10:00:00Z"}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: unquoted}
        spec: {nodeName: n1, containers: [{name: c}]}
        status: {startTime: 2026-03-01T12:00:00+02:00}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: unset}
        spec: {nodeName: n1, containers: [{name: c}]}
        status: {startTime: null}
        """)
    pods = pods_by_key(load_inputs([], [path]))
    assert (pods["default/quoted"].uid, pods["default/quoted"].start_time) == \
        ("6c1f-aa", "2026-03-01T10:00:00Z")
    assert pods["default/unquoted"].start_time == "2026-03-01T12:00:00+02:00"
    assert (pods["default/unset"].uid, pods["default/unset"].start_time) == ("", "")


@pytest.mark.parametrize(("value", "got"), [
    ('"2026-02-29T00:00:00Z"', "'2026-02-29T00:00:00Z'"),  # not a leap year
    ('"2026-03-01 10:00:00Z"', "'2026-03-01 10:00:00Z'"),  # RFC 3339 needs the T
    ("2026-03-01", "'2026-03-01'"),  # no time, no zone: time.Parse(RFC3339) refuses it
    ('""', "''"),
    ("5", "a number"),
])
def test_pod_start_time_must_be_rfc3339(tmp_path: Path, value: str, got: str) -> None:
    path = write(tmp_path, "pod.yaml", f"""
        apiVersion: v1
        kind: Pod
        metadata: {{name: p, namespace: ml}}
        spec: {{nodeName: n1, containers: [{{name: c}}]}}
        status:
          startTime: {value}
        """)
    err = error_of([], [path])
    assert err.field == "status.startTime" and err.obj == "Pod ml/p"
    assert err.line == line_of(path, "startTime")
    assert f'expected an RFC 3339 timestamp such as "2026-01-02T15:04:05Z", got {got}' in \
        str(err)


def test_pod_bad_quantity(tmp_path: Path) -> None:
    path = write(tmp_path, "pod.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: ml}
        spec:
          containers:
          - name: a
            resources:
              requests:
                cpu: lots
        """)
    err = error_of([path])
    assert err.field == "spec.containers[0].resources.requests.cpu"
    assert err.line == line_of(path, "cpu: lots")
    assert err.obj == "Pod ml/p"


def test_pod_group_references(tmp_path: Path) -> None:
    path = write(tmp_path, "pods.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: a, namespace: serving}
        spec:
          schedulingGroup: {podGroupName: web}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: b}
        spec:
          schedulingGroup: {podGroupName: web}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: c, namespace: ml}
        spec:
          workloadRef: {name: legacy, podGroup: workers}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: d, namespace: ml}
        spec:
          workloadRef: {name: legacy, podGroup: workers, podGroupReplicaKey: r1}
        """)
    snapshot = load_inputs([path])
    refs = {p.key: p.group for p in snapshot.pods}
    assert refs == {"serving/a": "serving/web", "default/b": "default/web",
                    "ml/c": "ml/legacy/workers", "ml/d": "ml/legacy/workers/r1"}


def test_scheduling_group_without_name(tmp_path: Path) -> None:
    path = write(tmp_path, "pod.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: a, namespace: ml}
        spec:
          schedulingGroup:
            podGroup: web
        """)
    err = error_of([path])
    assert err.field == "spec.schedulingGroup.podGroupName"
    assert "required field is missing" in str(err)
    # the mapping that lacks the field: its key line or its first line
    assert err.line in (line_of(path, "schedulingGroup:"), line_of(path, "podGroup: web"))


PRIORITY_CLASSES = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: 10
preemptionPolicy: Never
"""


def _pod(name: str, spec: str = "") -> str:
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: ns}}
spec:
  containers: [{{name: c}}]
{spec}
---"""


def test_priority_class_resolution(tmp_path: Path) -> None:
    classes = write(tmp_path, "pc.yaml", PRIORITY_CLASSES)
    pods = write(tmp_path, "pods.yaml", "".join([
        _pod("high", "  priorityClassName: high"),
        _pod("low", "  priorityClassName: low"),
        _pod("none"),
        _pod("system", "  priorityClassName: system-cluster-critical"),
        _pod("node", "  priorityClassName: system-node-critical"),
        _pod("explicit", "  priority: 7\n  priorityClassName: high"),
    ]))
    snapshot = load_inputs([pods], [classes])
    assert {p.name: p.priority for p in snapshot.pods} == {
        "high": 1000, "low": 10, "none": 0, "system": 2_000_000_000,
        "node": 2_000_001_000, "explicit": 7}
    assert {p.name: p.priority_class_name for p in snapshot.pods}["high"] == "high"
    assert snapshot.priority_classes["low"].preemption_policy == "Never"
    assert snapshot.priority_classes["high"].preemption_policy == "PreemptLowerPriority"


def test_missing_priority_class(tmp_path: Path) -> None:
    pods = write(tmp_path, "pods.yaml", _pod("a") + _pod("b", "  priorityClassName: urgent"))
    err = error_of([pods])
    assert err.field == "spec.priorityClassName"
    assert err.obj == "Pod ns/b"
    assert "urgent" in str(err)
    assert "no PriorityClass" in str(err)
    assert err.line == line_of(pods, "priorityClassName: urgent")


def test_global_default_priority_class(tmp_path: Path) -> None:
    classes = write(tmp_path, "pc.yaml", PRIORITY_CLASSES + """
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: default-prio}
value: 500
globalDefault: true
""")
    pods = write(tmp_path, "pods.yaml", _pod("none") + _pod("low", "  priorityClassName: low"))
    snapshot = load_inputs([pods], [classes])
    assert {p.name: p.priority for p in snapshot.pods} == {"none": 500, "low": 10}


def test_priority_class_value_must_be_an_integer(tmp_path: Path) -> None:
    classes = write(tmp_path, "pc.yaml", """
        apiVersion: scheduling.k8s.io/v1
        kind: PriorityClass
        metadata: {name: x}
        value: "1000"
        """)
    err = error_of([], [classes])
    assert err.field == "value"
    assert "expected an integer, got '1000'" in str(err)
    assert err.line == 4


@pytest.mark.parametrize(("phase", "terminal"), [("Succeeded", True), ("Failed", True),
                                                 ("Running", False), ("Pending", False)])
def test_pod_phase(tmp_path: Path, phase: str, terminal: bool) -> None:
    path = write(tmp_path, "pod.yaml", f"""
        apiVersion: v1
        kind: Pod
        metadata: {{name: p}}
        spec:
          nodeName: n1
          containers: [{{name: c, resources: {{requests: {{nvidia.com/gpu: "8"}}}}}}]
        status:
          phase: {phase}
        """)
    (pod,) = load_inputs([], [path]).pods
    assert pod.phase == phase
    assert pod.terminal is terminal


def test_tolerations(tmp_path: Path) -> None:
    path = write(tmp_path, "pod.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          tolerations:
          - key: nvidia.com/gpu
            operator: Exists
            effect: NoSchedule
          - key: team
            value: ml
          - operator: Exists
        """)
    (pod,) = load_inputs([path]).pods
    assert pod.tolerations == (Toleration("nvidia.com/gpu", "Exists", "", "NoSchedule"),
                               Toleration("team", "Equal", "ml", ""),
                               Toleration("", "Exists", "", ""))


def test_bad_toleration_operator(tmp_path: Path) -> None:
    path = write(tmp_path, "pod.yaml", """
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
          namespace: ml
        spec:
          tolerations:
          - key: nvidia.com/gpu
            operator: Equals
            value: present
        """)
    err = error_of([path])
    assert err.field == "spec.tolerations[0].operator"
    assert err.line == line_of(path, "operator: Equals") == 9
    assert "expected Equal or Exists, got 'Equals'" in str(err)
    assert str(err) == (f"{path}:9: Pod ml/p: spec.tolerations[0].operator: "
                        "expected Equal or Exists, got 'Equals'")


def test_bad_toleration_operator_in_a_pod_list(tmp_path: Path) -> None:
    path = write(tmp_path, "pods.yaml", """
        apiVersion: v1
        kind: PodList
        items:
        - metadata: {name: a}
          spec: {}
        - metadata: {name: b}
          spec:
            tolerations:
            - key: x
              effect: NoSchedule
            - key: y
              operator: exists
        """)
    err = error_of([path])
    assert err.field == "items[1].spec.tolerations[1].operator"
    assert err.line == line_of(path, "operator: exists")


def test_pod_labels_must_be_a_string_map(tmp_path: Path) -> None:
    """Pod labels are read later (Job pod adoption): a list there must be an InputError,
    not an AttributeError from the planner."""
    path = write(tmp_path, "pods.yaml", """
        apiVersion: batch/v1
        kind: Job
        metadata: {name: j, namespace: ns}
        spec:
          template:
            spec:
              containers: [{name: c}]
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
          namespace: ns
          labels: [a, b]
        spec:
          nodeName: n1
        """)
    err = error_of([path])
    assert err.field == "metadata.labels"
    assert "expected a mapping, got a list" in str(err)
    assert err.line == line_of(path, "labels: [a, b]")


# --------------------------------------------------------------------------- kinds


@pytest.mark.parametrize(("text", "missing"), [
    ("kind: Pod\nmetadata: {name: p}\n", "apiVersion"),
    ("apiVersion: v1\nmetadata: {name: p}\n", "kind"),
    ("apiVersion: v1\nkind: ''\nmetadata: {name: p}\n", "kind"),
    ("apiVersion: 1\nkind: Pod\nmetadata: {name: p}\n", "apiVersion"),
])
def test_object_without_kind_or_api_version(tmp_path: Path, text: str, missing: str) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: ok}\n---\n" + text)
    err = error_of([path])
    assert err.field == missing
    assert "apiVersion and kind" in str(err)
    assert err.line is not None and err.line >= 5


def test_list_item_without_kind(tmp_path: Path) -> None:
    path = write(tmp_path, "list.yaml", """
        apiVersion: v1
        kind: List
        items:
        - apiVersion: v1
          kind: Pod
          metadata: {name: a}
        - apiVersion: v1
          metadata: {name: b}
        """)
    err = error_of([path])
    assert err.field == "items[1].kind"
    assert err.line == line_of(path, "- apiVersion: v1", 2)


def test_unknown_kinds_are_ignored_and_counted(tmp_path: Path) -> None:
    path = write(tmp_path, "misc.yaml", """
        apiVersion: v1
        kind: Secret
        metadata: {name: a}
        ---
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: d}
        spec: {replicas: 3}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: c}
        data: {a: b}
        ---
        apiVersion: v1
        kind: List
        items:
        - apiVersion: v1
          kind: Secret
          metadata: {name: b}
        - apiVersion: v1
          kind: Pod
          metadata: {name: p}
        """)
    snapshot = load_inputs([path])
    assert dict(snapshot.ignored) == {("v1", "ConfigMap"): 1, ("apps/v1", "DaemonSet"): 1,
                                      ("v1", "Secret"): 2}
    assert [p.name for p in snapshot.pods] == ["p"]
    assert list(snapshot.ignored) == sorted(snapshot.ignored)


def test_unsupported_workload_version(tmp_path: Path) -> None:
    path = write(tmp_path, "wl.yaml", """
        apiVersion: scheduling.k8s.io/v1alpha9
        kind: Workload
        metadata: {name: w, namespace: ml}
        spec: {}
        """)
    err = error_of([path])
    assert err.field == "apiVersion"
    assert err.line == 1
    assert "scheduling.k8s.io/v1alpha9" in str(err)
    for version in ("v1alpha1", "v1alpha2", "v1alpha3", "v1beta1"):
        assert f"scheduling.k8s.io/{version}" in str(err)
    assert "Workload ml/w" in str(err)


@pytest.mark.parametrize(("api_version", "kind"), [("v2", "Pod"), ("batch/v2", "Job"),
                                                   ("scheduling.k8s.io/v1alpha1", "PodGroup")])
def test_unsupported_versions_of_used_kinds(tmp_path: Path, api_version: str,
                                            kind: str) -> None:
    path = write(tmp_path, "x.yaml", f"""
        apiVersion: {api_version}
        kind: {kind}
        metadata: {{name: x}}
        """)
    err = error_of([path])
    assert err.field == "apiVersion"
    assert "supported:" in str(err)


# --------------------------------------------------------------------------- groups


WORKLOAD_V1ALPHA2 = """
apiVersion: scheduling.k8s.io/v1alpha2
kind: Workload
metadata: {name: train, namespace: ml}
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      gang: {minCount: 3}
    schedulingConstraints:
      topology:
      - key: rack
    priorityClassName: high
  - name: ps
    schedulingPolicy:
      basic: {}
"""


def test_v1alpha2_pod_group_inherits_template(tmp_path: Path) -> None:
    classes = write(tmp_path, "pc.yaml", PRIORITY_CLASSES)
    path = write(tmp_path, "wl.yaml", WORKLOAD_V1ALPHA2 + """
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: train-workers-0, namespace: ml}
spec:
  podGroupTemplateRef:
    workload: {workloadName: train, podGroupTemplateName: workers}
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: train-workers-1, namespace: ml}
spec:
  podGroupTemplateRef:
    workload: {workloadName: train, podGroupTemplateName: workers}
  schedulingPolicy:
    gang: {minCount: 2}
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: train-ps-0, namespace: ml}
spec:
  podGroupTemplateRef:
    workload: {workloadName: train, podGroupTemplateName: ps}
  schedulingConstraints:
    topology:
    - key: block
""")
    groups = groups_by_key(load_inputs([path], [classes]))
    assert set(groups) == {"ml/train-workers-0", "ml/train-workers-1", "ml/train-ps-0"}
    g0 = groups["ml/train-workers-0"]
    assert (g0.policy, g0.min_count, g0.topology_key) == (Policy.GANG, 3, "rack")
    assert (g0.kind, g0.api_version) == ("PodGroup", "scheduling.k8s.io/v1alpha2")
    assert g0.priority == 1000 and g0.priority_class_name == "high"
    g1 = groups["ml/train-workers-1"]
    assert (g1.policy, g1.min_count, g1.topology_key) == (Policy.GANG, 2, "rack")
    ps = groups["ml/train-ps-0"]
    assert (ps.policy, ps.min_count, ps.topology_key) == (Policy.BASIC, 1, "block")
    assert all(g.planned for g in groups.values())


def test_v1alpha2_pod_group_with_missing_template_and_no_policy(tmp_path: Path) -> None:
    path = write(tmp_path, "pg.yaml", """
        apiVersion: scheduling.k8s.io/v1alpha2
        kind: PodGroup
        metadata: {name: g, namespace: ml}
        spec:
          podGroupTemplateRef:
            workload: {workloadName: nowhere, podGroupTemplateName: workers}
        """)
    err = error_of([path])
    assert err.field == "spec.schedulingPolicy"
    assert "nowhere/workers" in str(err)


def test_v1beta1_pod_group_with_workload_ref(tmp_path: Path) -> None:
    path = write(tmp_path, "wl.yaml", """
        apiVersion: scheduling.k8s.io/v1beta1
        kind: Workload
        metadata: {name: train, namespace: ml}
        spec:
          podGroupTemplates:
          - name: workers
            schedulingPolicy:
              gang: {minCount: 4}
            schedulingConstraints:
              topology:
              - key: topology.example.com/rack
        ---
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: train-workers-0, namespace: ml}
        spec:
          workloadRef: {workloadName: train, templateName: workers}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: w0, namespace: ml}
        spec:
          schedulingGroup: {podGroupName: train-workers-0}
        """)
    snapshot = load_inputs([path])
    (group,) = snapshot.groups
    assert group.key == "ml/train-workers-0"
    assert (group.policy, group.min_count, group.topology_key) == (
        Policy.GANG, 4, "topology.example.com/rack")
    assert group.api_version == "scheduling.k8s.io/v1beta1"
    assert [p.key for p in snapshot.pods_by_group["ml/train-workers-0"]] == ["ml/w0"]


def test_v1beta1_workload_ref_missing_template_name(tmp_path: Path) -> None:
    path = write(tmp_path, "pg.yaml", """
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: g, namespace: ml}
        spec:
          workloadRef:
            workloadName: train
          schedulingPolicy: {basic: {}}
        """)
    err = error_of([path])
    assert err.field == "spec.workloadRef.templateName"
    assert err.line in (line_of(path, "workloadRef:"), line_of(path, "workloadName: train"))


def test_pod_group_with_two_topology_items(tmp_path: Path) -> None:
    path = write(tmp_path, "pg.yaml", """
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: g, namespace: ml}
        spec:
          schedulingPolicy:
            gang: {minCount: 2}
          schedulingConstraints:
            topology:
            - key: rack
            - key: block
        """)
    err = error_of([path])
    assert err.field == "spec.schedulingConstraints.topology"
    assert "expected at most 1 item, got 2" in str(err)
    assert err.line == line_of(path, "- key: rack")
    assert err.obj == "PodGroup ml/g"


def test_gang_without_min_count(tmp_path: Path) -> None:
    path = write(tmp_path, "pg.yaml", """
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: g, namespace: ml}
        spec:
          schedulingPolicy:
            gang: {}
        """)
    err = error_of([path])
    assert err.field == "spec.schedulingPolicy.gang.minCount"
    assert "required field is missing" in str(err)
    assert err.line == line_of(path, "gang: {}")


@pytest.mark.parametrize(("policy", "message"), [
    ("{basic: {}, gang: {minCount: 2}}", "exactly one of basic or gang"),
    ("{}", "exactly one of basic or gang"),
    ("{gang: {minCount: 0}}", "expected an integer >= 1, got 0"),
    ("{gang: {minCount: two}}", "expected an integer, got 'two'"),
])
def test_bad_scheduling_policy(tmp_path: Path, policy: str, message: str) -> None:
    path = write(tmp_path, "pg.yaml", f"""
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {{name: g, namespace: ml}}
        spec:
          schedulingPolicy: {policy}
        """)
    err = error_of([path])
    assert err.field.startswith("spec.schedulingPolicy")
    assert message in str(err)
    assert err.line == 5


def test_v1alpha1_workload_groups_per_replica_key(tmp_path: Path) -> None:
    pods = "".join(f"""
---
apiVersion: v1
kind: Pod
metadata: {{name: w-{key}-{i}, namespace: ml}}
spec:
  workloadRef: {{name: legacy, podGroup: workers, podGroupReplicaKey: {key}}}
""" for key in ("r0", "r1") for i in range(2))
    path = write(tmp_path, "wl.yaml", """
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata: {name: legacy, namespace: ml}
spec:
  podGroups:
  - name: workers
    policy:
      gang: {minCount: 2}
  - name: driver
    policy:
      basic: {}
""" + pods)
    snapshot = load_inputs([path])
    groups = groups_by_key(snapshot)
    assert set(groups) == {"ml/legacy/workers/r0", "ml/legacy/workers/r1",
                           "ml/legacy/driver"}
    for key in ("ml/legacy/workers/r0", "ml/legacy/workers/r1"):
        g = groups[key]
        assert (g.policy, g.min_count, g.topology_key, g.kind) == (Policy.GANG, 2, None,
                                                                  "Workload")
        assert g.api_version == "scheduling.k8s.io/v1alpha1"
        assert len(snapshot.pods_by_group[key]) == 2
    assert groups["ml/legacy/driver"].policy == Policy.BASIC
    assert [p.name for p in snapshot.pods_by_group["ml/legacy/workers/r1"]] == [
        "w-r1-0", "w-r1-1"]


def test_v1alpha1_workload_without_min_count(tmp_path: Path) -> None:
    path = write(tmp_path, "wl.yaml", """
        apiVersion: scheduling.k8s.io/v1alpha1
        kind: Workload
        metadata: {name: legacy, namespace: ml}
        spec:
          podGroups:
          - name: workers
            policy:
              gang: {}
        """)
    err = error_of([path])
    assert err.field == "spec.podGroups[0].policy.gang.minCount"
    assert err.line == line_of(path, "gang: {}")


def test_v1alpha1_pods_naming_an_undeclared_pod_group_warn(tmp_path: Path) -> None:
    path = write(tmp_path, "wl.yaml", """
        apiVersion: scheduling.k8s.io/v1alpha1
        kind: Workload
        metadata: {name: legacy, namespace: ml}
        spec:
          podGroups:
          - name: workers
            policy: {basic: {}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: ml}
        spec:
          workloadRef: {name: legacy, podGroup: typo}
        """)
    snapshot = load_inputs([path])
    assert "ml/legacy/typo" not in groups_by_key(snapshot)
    assert any("typo" in w for w in snapshot.warnings)


# --------------------------------------------------------------------------- Jobs


def _job(scheduling: str = "", parallelism: int = 2, completions: int | None = None,
         name: str = "finetune") -> str:
    completions_line = f"\n  completions: {completions}" if completions is not None else ""
    return f"""
apiVersion: batch/v1
kind: Job
metadata: {{name: {name}, namespace: ml}}
spec:
  parallelism: {parallelism}{completions_line}
{scheduling}
  template:
    metadata:
      labels: {{app: ft}}
    spec:
      restartPolicy: Never
      tolerations:
      - {{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}}
      containers:
      - name: trainer
        resources:
          requests: {{cpu: "1", nvidia.com/gpu: "1"}}
"""


GANG_SCHEDULING = """
  scheduling:
    schedulingPolicy:
      gang: {}
    schedulingConstraints:
      topology:
      - key: rack
"""


def test_job_with_gang_scheduling_defaults_min_count_to_parallelism(tmp_path: Path) -> None:
    path = write(tmp_path, "job.yaml", _job(GANG_SCHEDULING, parallelism=3, completions=2))
    snapshot = load_inputs([path])
    (group,) = snapshot.groups
    assert group.key == "ml/finetune"
    assert (group.policy, group.min_count, group.topology_key) == (Policy.GANG, 3, "rack")
    assert (group.kind, group.api_version) == ("Job", "batch/v1")
    assert group.planned
    pods = snapshot.pods_by_group["ml/finetune"]
    assert [p.key for p in pods] == ["ml/finetune-0", "ml/finetune-1"]
    for pod in pods:
        assert pod.synthesised
        assert pod.requests == {"cpu": 1000, "nvidia.com/gpu": 1}
        assert pod.labels["batch.kubernetes.io/job-name"] == "finetune"
        assert pod.labels["app"] == "ft"
        assert pod.tolerations == (Toleration("nvidia.com/gpu", "Exists", "", "NoSchedule"),)
        assert not pod.bound


def test_job_pods_are_parallelism_without_completions(tmp_path: Path) -> None:
    path = write(tmp_path, "job.yaml", _job(GANG_SCHEDULING, parallelism=4))
    snapshot = load_inputs([path])
    assert snapshot.groups[0].min_count == 4
    assert [p.name for p in snapshot.pods] == [f"finetune-{i}" for i in range(4)]


def test_job_with_explicit_min_count(tmp_path: Path) -> None:
    scheduling = GANG_SCHEDULING.replace("gang: {}", "gang: {minCount: 2}")
    path = write(tmp_path, "job.yaml", _job(scheduling, parallelism=5, completions=10))
    snapshot = load_inputs([path], jobs=JobOverrides(min_count=4, topology_key="block"))
    (group,) = snapshot.groups
    # .spec.scheduling wins over the command-line overrides
    assert (group.policy, group.min_count, group.topology_key) == (Policy.GANG, 2, "rack")
    assert len(snapshot.pods) == 5


def test_plain_job_with_overrides_is_a_gang(tmp_path: Path) -> None:
    path = write(tmp_path, "job.yaml", _job(parallelism=3))
    snapshot = load_inputs([path], jobs=JobOverrides(min_count=2, topology_key="rack"))
    (group,) = snapshot.groups
    assert (group.policy, group.min_count, group.topology_key) == (Policy.GANG, 2, "rack")
    assert len(snapshot.pods_by_group["ml/finetune"]) == 3


def test_plain_job_without_overrides_is_basic(tmp_path: Path) -> None:
    path = write(tmp_path, "job.yaml", _job(parallelism=2))
    snapshot = load_inputs([path])
    (group,) = snapshot.groups
    assert (group.policy, group.min_count, group.topology_key) == (Policy.BASIC, 1, None)
    assert group.key == "ml/finetune"
    assert [p.name for p in snapshot.pods] == ["finetune-0", "finetune-1"]


def test_job_with_running_pods_synthesises_only_the_difference(tmp_path: Path) -> None:
    nodes = write(tmp_path, "nodes.yaml", NODES)
    running = "".join(f"""
---
apiVersion: v1
kind: Pod
metadata:
  name: finetune-{i}
  namespace: ml
  labels: {{batch.kubernetes.io/job-name: finetune}}
spec:
  nodeName: n{i + 1}
  containers:
  - name: trainer
    resources:
      requests: {{cpu: "1", nvidia.com/gpu: "1"}}
status:
  phase: Running
""" for i in range(2)) + """
---
apiVersion: v1
kind: Pod
metadata:
  name: finetune-old
  namespace: ml
  labels: {job-name: finetune}
spec:
  nodeName: n1
  containers: [{name: trainer}]
status:
  phase: Failed
---
apiVersion: v1
kind: Pod
metadata:
  name: finetune-x
  namespace: other
  labels: {batch.kubernetes.io/job-name: finetune}
spec:
  nodeName: n1
status:
  phase: Running
"""
    cluster_pods = write(tmp_path, "pods.yaml", running)
    job = write(tmp_path, "job.yaml", _job(GANG_SCHEDULING, parallelism=4, completions=4))
    snapshot = load_inputs([job], [nodes, cluster_pods])

    members = snapshot.pods_by_group["ml/finetune"]
    assert sorted(p.name for p in members) == ["finetune-0", "finetune-1", "finetune-2",
                                               "finetune-3", "finetune-old"]
    synthesised = sorted(p.name for p in members if p.synthesised)
    assert synthesised == ["finetune-2", "finetune-3"]
    assert pods_by_key(snapshot)["other/finetune-x"].group is None

    result = plan(snapshot)
    (group,) = result.groups
    assert group.scheduled == 2
    assert group.pending == 2


def test_duplicate_objects_later_workload_input_wins(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", """
        apiVersion: v1
        kind: Node
        metadata: {name: n1}
        status: {allocatable: {cpu: "4", pods: "110"}}
        ---
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: g, namespace: ml}
        spec:
          schedulingPolicy: {gang: {minCount: 2}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: ml}
        spec:
          nodeName: n1
          containers: [{name: c, resources: {requests: {cpu: "1"}}}]
        """)
    workload = write(tmp_path, "what-if.yaml", """
        apiVersion: v1
        kind: Node
        metadata: {name: n1}
        status: {allocatable: {cpu: "64", pods: "110"}}
        ---
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: g, namespace: ml}
        spec:
          schedulingPolicy: {gang: {minCount: 3}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: ml}
        spec:
          schedulingGroup: {podGroupName: g}
          containers: [{name: c, resources: {requests: {cpu: "2"}}}]
        """)
    snapshot = load_inputs([workload], [cluster])
    (node,) = snapshot.nodes
    assert node.allocatable["cpu"] == 64_000
    assert node.source.path == str(workload)
    (group,) = snapshot.groups
    assert group.min_count == 3 and group.source.path == str(workload)
    (pod,) = snapshot.pods
    assert (pod.requests, pod.node_name, pod.group) == ({"cpu": 2000}, "", "ml/g")
    assert len(snapshot.warnings) == 3
    for kind, name in (("Node", "n1"), ("PodGroup", "ml/g"), ("Pod", "ml/p")):
        (warning,) = [w for w in snapshot.warnings if w.startswith(f"{kind} {name} ")]
        assert "more than once" in warning
        assert warning.index(str(workload)) < warning.index(str(cluster))


def test_pods_referencing_a_missing_pod_group(tmp_path: Path) -> None:
    path = write(tmp_path, "pods.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: a, namespace: ml}
        spec:
          schedulingGroup: {podGroupName: ghost}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: b, namespace: ml}
        spec:
          schedulingGroup: {podGroupName: ghost}
        """)
    snapshot = load_inputs([path])
    assert snapshot.groups == ()
    (warning,) = [w for w in snapshot.warnings if "no Nodes" not in w]
    assert "2 pod(s)" in warning and "ml/ghost" in warning and "not in the inputs" in warning


def test_planned_flag(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", """
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: world, namespace: ml}
        spec: {schedulingPolicy: {basic: {}}}
        ---
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: extended, namespace: ml}
        spec: {schedulingPolicy: {gang: {minCount: 2}}}
        ---
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: bound-only, namespace: ml}
        spec: {schedulingPolicy: {basic: {}}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: running, namespace: ml}
        spec:
          nodeName: n1
          schedulingGroup: {podGroupName: extended}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: pending-in-cluster, namespace: ml}
        spec:
          schedulingGroup: {podGroupName: world}
        """)
    workload = write(tmp_path, "workload.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: new, namespace: ml}
        spec:
          schedulingGroup: {podGroupName: extended}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: bound, namespace: ml}
        spec:
          nodeName: n1
          schedulingGroup: {podGroupName: bound-only}
        ---
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: mine, namespace: ml}
        spec: {schedulingPolicy: {basic: {}}}
        """)
    snapshot = load_inputs([workload], [cluster])
    assert {g.key: g.planned for g in snapshot.groups} == {
        "ml/world": False, "ml/extended": True, "ml/bound-only": False, "ml/mine": True}


def test_progress_callback_names_every_file(tmp_path: Path) -> None:
    a = write(tmp_path, "d/a.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n")
    b = write(tmp_path, "w.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
    seen: list[str] = []
    load_inputs([b], [tmp_path / "d"], progress=seen.append)
    assert seen == [f"reading {a}", f"reading {b}"]


def test_json_input_errors_have_lines(tmp_path: Path) -> None:
    path = tmp_path / "nodes.json"
    path.write_text("""{
  "apiVersion": "v1",
  "kind": "List",
  "items": [
    {
      "apiVersion": "v1",
      "kind": "Node",
      "metadata": {"name": "n1"},
      "status": {
        "allocatable": {
          "cpu": "abc"
        }
      }
    }
  ]
}
""")
    err = error_of([], [path])
    assert err.field == "items[0].status.allocatable.cpu"
    assert err.line == 11


@pytest.mark.parametrize("status", ["[a]", "Running"])
def test_pod_status_must_be_a_mapping(tmp_path: Path, status: str) -> None:
    path = write(tmp_path, "pod.yaml", f"""
        apiVersion: v1
        kind: Pod
        metadata: {{name: p, namespace: ml}}
        status: {status}
        spec:
          nodeName: n1
        """)
    err = error_of([path])
    assert err.field == "status"
    assert "expected a mapping" in str(err)
    assert err.line == 4


def test_job_template_labels_must_be_a_mapping(tmp_path: Path) -> None:
    path = write(tmp_path, "job.yaml", """
        apiVersion: batch/v1
        kind: Job
        metadata: {name: ft, namespace: ml}
        spec:
          template:
            metadata:
              labels: [a]
            spec:
              containers: [{name: c}]
        """)
    err = error_of([path])
    assert err.field == "spec.template.metadata.labels"
    assert "expected a mapping, got a list" in str(err)
    assert err.line == 7


def test_job_template_errors_name_the_job(tmp_path: Path) -> None:
    """The error is in the Job's pod template: it must name the Job in the file, not a
    pod name tasplan made up."""
    path = write(tmp_path, "job.yaml", """
        apiVersion: batch/v1
        kind: Job
        metadata: {name: ft, namespace: ml}
        spec:
          parallelism: 2
          template:
            spec:
              tolerations:
              - key: a
                operator: Equals
              containers: [{name: c}]
        """)
    err = error_of([path])
    assert err.field == "spec.template.spec.tolerations[0].operator"
    assert err.line == line_of(path, "operator: Equals") == 10
    assert err.obj == "Job ml/ft"
    assert "ft-0" not in str(err)


def test_pod_group_with_missing_priority_class(tmp_path: Path) -> None:
    path = write(tmp_path, "pg.yaml", """
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: g, namespace: ml}
        spec:
          schedulingPolicy: {gang: {minCount: 2}}
          priorityClassName: nope
        """)
    err = error_of([path])
    assert err.field == "spec.priorityClassName"
    assert err.obj == "PodGroup ml/g"
    assert "nope" in str(err)
    assert err.line == 6
    assert "pod;" not in str(err)  # it is a PodGroup, not a pod, that would be rejected


def test_inputs_without_nodes_are_warned_about(tmp_path):
    path = tmp_path / "pg.yaml"
    path.write_text(
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
        "metadata: {name: pg, namespace: ml}\n"
        "spec: {schedulingPolicy: {gang: {minCount: 1}}}\n")
    snap = load_inputs([path])
    assert any(w.startswith("the inputs contain no Nodes") for w in snap.warnings)


def test_job_overrides_do_not_apply_to_jobs_with_their_own_scheduling(tmp_path: Path) -> None:
    path = write(tmp_path, "job.yaml", """
        apiVersion: batch/v1
        kind: Job
        metadata: {name: ft, namespace: ml}
        spec:
          parallelism: 2
          scheduling: {schedulingPolicy: {gang: {minCount: 2}}}
          template:
            spec:
              containers: [{name: c, resources: {requests: {cpu: "1"}}}]
        """)
    snapshot = load_inputs([path], jobs=JobOverrides(min_count=1, topology_key="rack"))
    (group,) = snapshot.groups
    assert (group.min_count, group.topology_key) == (2, None)
    assert ("Job ml/ft has scheduling of its own; --gang and --topology-key do not apply to it"
            in snapshot.warnings)
