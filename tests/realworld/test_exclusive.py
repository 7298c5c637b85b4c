"""Exclusive topology placement as JobSet's and LWS's pod webhooks write it: each child Job
(LWS group) in a topology domain of its own.

Upstream: kubernetes-sigs/jobset 08dfbdfd682714a9ab929633eca8dc95315187e7
pkg/webhooks/pod_webhook.go (setExclusiveAffinities), pkg/controllers/jobset_controller.go
(labelAndAnnotateObject, addNamespacedJobNodeSelector, addTaintToleration);
kubernetes-sigs/lws 060ab4da17eea1f0865fcbd3236bb1075e2cea32 pkg/webhooks/pod_webhook.go
(SetExclusiveAffinities, genGroupUniqueKey).
"""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path

from tasplan import load_inputs, plan

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
CLUSTER = REPO / "samples" / "cluster"
RACK = "topology.example.com/rack"


def racks(snapshot, result) -> dict[str, set[str]]:
    """Child Job (pod name without its index) -> the racks its pods were placed in."""
    node_rack = {n.name: n.labels.get(RACK) for n in snapshot.nodes}
    (g,) = result.groups
    out: dict[str, set[str]] = {}
    for pod, node in g.selected_placement.assignments.items():
        out.setdefault(pod.rsplit("-", 1)[0], set()).add(node_rack[node])
    return out


def test_jobset_exclusive_topology_puts_each_child_job_in_a_rack_of_its_own() -> None:
    snapshot = load_inputs([FIXTURES / "jobset-exclusive.yaml"], [CLUSTER])
    result = plan(snapshot)
    placed = racks(snapshot, result)
    assert sorted(placed) == [f"ml/exclusive-placement-workers-{j}" for j in range(3)]
    assert all(len(r) == 1 for r in placed.values()), placed  # a Job's pods share a rack
    assert len(set().union(*placed.values())) == 3, placed     # and no rack is shared
    assert not [w for w in result.warnings if "exclusive-topology" in w]  # honoured


def test_without_the_annotation_jobs_share_racks(tmp_path) -> None:
    """The same JobSet without the annotation: the pods pack onto the fullest nodes, so
    two child Jobs share a rack (the annotation is what changes the plan)."""
    text = (FIXTURES / "jobset-exclusive.yaml").read_text()
    plain = text.replace("  annotations:\n    alpha.jobset.sigs.k8s.io/exclusive-topology: "
                         "topology.example.com/rack\n", "")
    assert plain != text
    path = tmp_path / "plain.yaml"
    path.write_text(plain)
    snapshot = load_inputs([path], [CLUSTER])
    placed = racks(snapshot, plan(snapshot))
    assert len(set().union(*placed.values())) < 3 or any(len(r) > 1 for r in placed.values())


def test_jobset_exclusive_pods_carry_the_webhook_terms_and_priority_label() -> None:
    snapshot = load_inputs([FIXTURES / "jobset-exclusive.yaml"], [CLUSTER])
    pod = next(p for p in snapshot.pods if p.name == "exclusive-placement-workers-1-2")
    job_key = hashlib.sha1(b"ml/exclusive-placement-workers-1").hexdigest()
    assert pod.labels["jobset.sigs.k8s.io/job-key"] == job_key
    assert pod.labels["jobset.sigs.k8s.io/priority"] == "0"  # the pod webhook's label
    (affinity,) = pod.pod_affinity.required
    (anti,) = pod.pod_affinity.required_anti
    assert affinity.topology_key == anti.topology_key == RACK
    assert [(r.key, r.operator, r.values) for r in affinity.selector.requirements] == [
        ("jobset.sigs.k8s.io/job-key", "In", (job_key,))]
    assert [(r.key, r.operator, r.values) for r in anti.selector.requirements] == [
        ("jobset.sigs.k8s.io/job-key", "Exists", ()),
        ("jobset.sigs.k8s.io/job-key", "NotIn", (job_key,)),
        ("jobset.sigs.k8s.io/priority", "In", ("0",))]
    # The annotation reaches the pods (and the PodSet other schedulers read).
    (group,) = snapshot.groups
    (pod_set,) = group.expansions[0].pod_sets
    assert pod_set.name == "workers" and pod_set.count == 9
    assert pod_set.annotation("alpha.jobset.sigs.k8s.io/exclusive-topology") == RACK


def test_jobset_node_selector_strategy_selects_the_nodes_labelled_per_job(tmp_path) -> None:
    """alpha.jobset.sigs.k8s.io/node-selector: the Job selects nodes labelled
    namespaced-job=<ns>_<job> and tolerates the no-schedule taint; no node carries the
    label here, so nothing fits, as upstream."""
    text = (FIXTURES / "jobset-exclusive.yaml").read_text().replace(
        "alpha.jobset.sigs.k8s.io/exclusive-topology: topology.example.com/rack",
        "alpha.jobset.sigs.k8s.io/exclusive-topology: topology.example.com/rack\n"
        "    alpha.jobset.sigs.k8s.io/node-selector: \"true\"")
    path = tmp_path / "js.yaml"
    path.write_text(text)
    snapshot = load_inputs([path], [CLUSTER])
    pod = next(p for p in snapshot.pods if p.name == "exclusive-placement-workers-2-0")
    assert pod.node_selector == {"alpha.jobset.sigs.k8s.io/namespaced-job":
                                 "ml_exclusive-placement-workers-2"}
    assert any(t.key == "alpha.jobset.sigs.k8s.io/no-schedule" for t in pod.tolerations)
    assert pod.pod_affinity is None
    assert not plan(snapshot).groups[0].schedulable


LWS = """\
    # Shaped like LWS's docs/examples/sample/lws-exclusive-placement.yaml
    apiVersion: leaderworkerset.x-k8s.io/v1
    kind: LeaderWorkerSet
    metadata:
      name: lws-exclusive
      namespace: serve
      annotations:
        leaderworkerset.sigs.k8s.io/exclusive-topology: topology.example.com/rack
    spec:
      replicas: 3
      leaderWorkerTemplate:
        size: 3
        workerTemplate:
          spec:
            tolerations:
            - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
            containers:
            - name: nginx
              image: nginx
              resources:
                requests: {cpu: "1", nvidia.com/gpu: "4"}
                limits: {nvidia.com/gpu: "4"}
    """


def test_lws_exclusive_topology_puts_each_group_in_a_rack_of_its_own(tmp_path) -> None:
    path = tmp_path / "lws.yaml"
    path.write_text(textwrap.dedent(LWS))
    snapshot = load_inputs([path], [CLUSTER])
    result = plan(snapshot)
    node_rack = {n.name: n.labels.get(RACK) for n in snapshot.nodes}
    chosen = {}
    for g in result.groups:
        assert g.schedulable
        chosen[g.group.key] = {node_rack[n] for n in g.selected_placement.assignments.values()}
    assert all(len(r) == 1 for r in chosen.values()), chosen
    assert len(set().union(*chosen.values())) == 3, chosen
    leader = next(p for p in snapshot.pods if p.name == "lws-exclusive-1")
    key = hashlib.sha1(b"serve/lws-exclusive-1").hexdigest()
    assert leader.labels["leaderworkerset.sigs.k8s.io/group-key"] == key
    (anti,) = leader.pod_affinity.required_anti
    assert [(r.key, r.operator) for r in anti.selector.requirements] == [
        ("leaderworkerset.sigs.k8s.io/group-key", "Exists"),
        ("leaderworkerset.sigs.k8s.io/group-key", "NotIn")]
