"""Kueue Workload objects and workloads whose pods run, end to end through the loader and
``tasplan check --scheduler kueue -o json``: a pending Workload without its job (planned
from ``spec.podSets``), an admitted Workload (its pods go where its topology assignment
and the topology ungater send them, kubernetes-sigs/kueue ff69552e
``pkg/controller/tas/topology_ungater.go``), a Workload that lost its admission while its
pods run (admitted again whole), a job whose pods partly run without its Workload (held to
the rack they run in), and a plain-pod group (``kueue.x-k8s.io/pod-group-name``)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tasplan.cli.app import app
from tests.realworld.test_schemas import REPORT, errors

RACK = "example.com/rack"
HOST = "kubernetes.io/hostname"
# Rack r1: n1, n2; rack r2: n3, n4, n5; 4 CPUs each. Four 2-CPU pods with rack required:
# r1 holds exactly 4 (BestFit takes it), r2 holds 6.
RACKS = {"r1": ["n1", "n2"], "r2": ["n3", "n4", "n5"]}


def _node(name: str, rack: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {RACK: rack, HOST: name, "pool": "tas"}},
            "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


KUEUE = [
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology",
     "metadata": {"name": "topo"},
     "spec": {"levels": [{"nodeLabel": RACK}, {"nodeLabel": HOST}]}},
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
     "metadata": {"name": "tas"},
     "spec": {"nodeLabels": {"pool": "tas"}, "topologyName": "topo"}},
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
     "metadata": {"name": "cq"},
     "spec": {"namespaceSelector": {}, "resourceGroups": [{
         "coveredResources": ["cpu"],
         "flavors": [{"name": "tas", "resources": [{"name": "cpu", "nominalQuota": 100}]}]}]}},
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
     "metadata": {"name": "q", "namespace": "ml"}, "spec": {"clusterQueue": "cq"}},
]
TEMPLATE = {"spec": {"restartPolicy": "Never", "containers": [
    {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "2"}}}]}}
INDEX = "batch.kubernetes.io/job-completion-index"


def workload(name: str = "job-train-1", *, count: int = 4, owner: str | None = None,
             admission: dict | None = None, reserved: bool = False) -> dict:
    wl = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
          "metadata": {"name": name, "namespace": "ml"},
          "spec": {"queueName": "q", "podSets": [{
              "name": "main", "count": count, "template": copy.deepcopy(TEMPLATE),
              "topologyRequest": {"required": RACK, "podIndexLabel": INDEX}}]}}
    if owner:
        wl["metadata"]["ownerReferences"] = [
            {"apiVersion": "batch/v1", "kind": "Job", "name": owner, "uid": "u1"}]
    if admission is not None or reserved:
        wl["status"] = {"conditions": [
            {"type": "QuotaReserved", "status": "True" if reserved else "False",
             "reason": "r", "message": "m", "lastTransitionTime": "2026-01-01T00:00:00Z"},
            {"type": "Admitted", "status": "True" if reserved else "False",
             "reason": "r", "message": "m", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
        if admission is not None:
            wl["status"]["admission"] = admission
    return wl


def hosts_admission(*domains: tuple[str, int]) -> dict:
    """An admission on flavor tas with a hostname-level topology assignment (v1beta2)."""
    return {"clusterQueue": "cq", "podSetAssignments": [{
        "name": "main", "flavors": {"cpu": "tas"}, "count": sum(c for _, c in domains),
        "topologyAssignment": {"levels": [HOST], "slices": [{
            "domainCount": len(domains),
            "valuesPerLevel": [{"individual": {"roots": [d for d, _ in domains]}}],
            "podCounts": {"individual": [c for _, c in domains]}}]}}]}


def job(name: str = "train", *, parallelism: int = 4) -> dict:
    template = copy.deepcopy(TEMPLATE)
    template["metadata"] = {"annotations": {
        "kueue.x-k8s.io/podset-required-topology": RACK}}
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "namespace": "ml",
                         "labels": {"kueue.x-k8s.io/queue-name": "q"}},
            "spec": {"parallelism": parallelism, "completions": parallelism,
                     "completionMode": "Indexed", "template": template}}


def job_pod(i: int, node: str = "", *, job_name: str = "train", workload: str = "") -> dict:
    meta = {"name": f"{job_name}-{i}", "namespace": "ml",
            "labels": {"job-name": job_name, INDEX: str(i)},
            "annotations": {INDEX: str(i)},
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": job_name,
                                 "uid": "u1", "controller": True}]}
    if workload:
        meta["annotations"]["kueue.x-k8s.io/workload"] = workload
        meta["labels"]["kueue.x-k8s.io/podset"] = "main"
    spec = copy.deepcopy(TEMPLATE["spec"])
    status = {"phase": "Pending"}
    if node:
        spec["nodeName"] = node
        status = {"phase": "Running"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": status}


def check(tmp: Path, workloads: list[dict], cluster: list[dict] = (), *,
          not_ready: tuple[str, ...] = ()) -> dict:
    nodes = [_node(n, r) for r, names in RACKS.items() for n in names]
    for node in nodes:
        if node["metadata"]["name"] in not_ready:
            node["status"]["conditions"][0]["status"] = "False"
    (tmp / "cluster.json").write_text(json.dumps(
        {"apiVersion": "v1", "kind": "List", "items": [*nodes, *KUEUE, *cluster]}))
    (tmp / "in.json").write_text(json.dumps(
        {"apiVersion": "v1", "kind": "List", "items": workloads}))
    result = CliRunner().invoke(app, ["check", str(tmp / "in.json"), "-c",
                                      str(tmp / "cluster.json"), "--scheduler", "kueue",
                                      "-o", "json"])
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    assert errors(REPORT, doc) == []
    return doc


def nodes_of(group: dict) -> dict[str, str]:
    selected = next(p for p in group["placements"] if p["name"] == group["selected"])
    return {pod.split("/")[1]: node for pod, node in selected["assignments"].items()}


def notes(group: dict) -> dict[str, str]:
    return {n["code"]: n["message"] for n in group["notes"]}


def test_pending_workload_without_its_job_is_planned_from_its_pod_sets(tmp_path) -> None:
    doc = check(tmp_path, [workload()])
    (g,) = doc["groups"]
    assert (g["name"], g["kind"], g["schedulable"]) == ("ml/job-train-1", "Workload", True)
    assert g["workload"]["workloadObject"] == "ml/job-train-1"
    assert g["workload"]["podSets"][0] == {
        "name": "main", "count": 4, "pendingPods": 4, "mode": "required", "level": RACK,
        "implied": False, "slices": [], "podSetGroup": None}
    assert g["selected"] == "r1"  # BestFit: the rack that holds exactly 4
    assert sorted(nodes_of(g).values()) == ["n1", "n1", "n2", "n2"]
    assert "without its job in the inputs" in notes(g)["kueue-workload"]


def test_a_workload_whose_job_is_in_the_inputs_is_the_job_s_group(tmp_path) -> None:
    """The Job's group is the workload: no second group for its Workload object."""
    doc = check(tmp_path, [job(), workload(owner="train")])
    assert [g["name"] for g in doc["groups"]] == ["ml/train"]
    assert doc["groups"][0]["workload"]["workloadObject"] == "ml/job-train-1"


def test_admitted_workload_sends_its_pods_where_its_assignment_says(tmp_path) -> None:
    """Admitted on n3 and n4 (rack r2) while BestFit would now pick r1: the pods follow
    the admission, by rank, two per node, and no new placement is made."""
    admission = hosts_admission(("n3", 2), ("n4", 2))
    doc = check(tmp_path, [job(), workload(owner="train", admission=admission,
                                           reserved=True)])
    (g,) = doc["groups"]
    assert g["schedulable"] is True and g["workload"]["admitted"] is True
    assert nodes_of(g) == {"train-0": "n3", "train-1": "n3", "train-2": "n4",
                           "train-3": "n4"}
    assert "no new placement" in notes(g)["kueue-admitted"]


def test_admitted_workload_pods_already_bound_keep_their_slots(tmp_path) -> None:
    """Two pods of the admitted workload run on n3: the ungater gives the pending two the
    slots left (n4), not n3 again."""
    admission = hosts_admission(("n3", 2), ("n4", 2))
    pods = [job_pod(0, "n3", workload="job-train-1"), job_pod(1, "n3", workload="job-train-1"),
            job_pod(2), job_pod(3)]
    doc = check(tmp_path, [job(), workload(owner="train", admission=admission,
                                           reserved=True)], pods)
    (g,) = doc["groups"]
    assert (g["pendingPods"], g["scheduledPods"]) == (2, 2)
    assert nodes_of(g) == {"train-2": "n4", "train-3": "n4"}
    assert "(2 running)" in g["message"]


def test_admitted_workload_in_the_workload_inputs_without_its_job(tmp_path) -> None:
    """kubectl get workload -o yaml as the input: its pods are made from the template and
    follow its admission."""
    admission = hosts_admission(("n5", 1), ("n4", 1))
    doc = check(tmp_path, [workload(count=2, admission=admission, reserved=True)])
    (g,) = doc["groups"]
    assert sorted(nodes_of(g).values()) == ["n4", "n5"]
    assert g["workload"]["admitted"] is True


def test_admitted_workloads_of_the_cluster_hold_their_domains(tmp_path) -> None:
    """An admitted Workload in the cluster dump whose pods are not bound yet holds r1
    (4 pods on n1, n2): the new job goes to r2."""
    held = workload("job-other-1", admission=hosts_admission(("n1", 2), ("n2", 2)),
                    reserved=True)
    doc = check(tmp_path, [job()], [held])
    (g,) = doc["groups"]
    assert g["selected"] == "r2"
    assert "kueue-admitted-usage" in notes(g)


def test_workload_that_lost_its_admission_is_admitted_again_whole(tmp_path) -> None:
    """Its pods still run on r2 but its Workload holds no quota reservation: Kueue stops
    the job and admits it again: all 4 pods planned, on the tightest rack."""
    pods = [job_pod(i, n, workload="job-train-1") for i, n in enumerate(["n3", "n3", "n4"])]
    doc = check(tmp_path, [job(), workload(owner="train", admission=None)], pods)
    (g,) = doc["groups"]
    assert g["pendingPods"] == 4 and g["scheduledPods"] == 0
    assert g["selected"] == "r1"
    assert "admits it again whole" in notes(g)["kueue-evicted"]


def test_partly_running_job_without_its_workload_stays_in_its_rack(tmp_path) -> None:
    """Two pods run on n3 (rack r2); the inputs hold no Workload: Kueue admitted it in
    r2, so the two pending pods go to r2 too, not to r1, which BestFit would pick for a
    fresh 2-pod workload; the view counts all 4."""
    pods = [job_pod(0, "n3"), job_pod(1, "n3"), job_pod(2), job_pod(3)]
    doc = check(tmp_path, [job()], pods)
    (g,) = doc["groups"]
    assert g["schedulable"] is True and (g["pendingPods"], g["scheduledPods"]) == (2, 2)
    assert set(nodes_of(g).values()) <= {"n4", "n5"}
    assert g["workload"]["podSets"][0]["count"] == 4
    assert "rebuilt for all its pods" in notes(g)["kueue-running"]


def test_partly_running_job_does_not_leave_its_full_rack(tmp_path) -> None:
    """r2 is full but for n3's running pods: the pending pods cannot join them there,
    and Kueue would not move them to r1."""
    pods = [job_pod(0, "n3"), job_pod(1, "n3"), job_pod(2), job_pod(3)]
    filler = [dict(job_pod(i, n, job_name="other"), metadata={
        "name": f"other-{n}-{i}", "namespace": "ml"}) for n in ("n4", "n5") for i in (0, 1)]
    doc = check(tmp_path, [job()], [*pods, *filler])
    (g,) = doc["groups"]
    assert g["schedulable"] is False
    assert 'allows to fit only' in g["message"]


def group_pods(gate: str = "kueue.x-k8s.io/admission") -> list[dict]:
    """Four plain pods of one Kueue pod group, held by ``gate``."""
    pods = []
    for i in range(4):
        pod = job_pod(i)
        pod["metadata"] = {
            "name": f"worker-{i}", "namespace": "ml",
            "labels": {"kueue.x-k8s.io/queue-name": "q",
                       "kueue.x-k8s.io/pod-group-name": "grp"},
            "annotations": {"kueue.x-k8s.io/pod-group-total-count": "4",
                            "kueue.x-k8s.io/podset-required-topology": RACK}}
        pod["spec"]["schedulingGates"] = [{"name": gate}]
        pods.append(pod)
    return pods


def test_plain_pod_group_is_one_workload(tmp_path) -> None:
    """Pods labelled ``kueue.x-k8s.io/pod-group-name`` (Kueue's pod integration) form one
    workload: the group's pods as PodSet main, placed together in one rack."""
    doc = check(tmp_path, group_pods())
    (g,) = doc["groups"]
    assert g["name"] == "ml/grp" and g["scheduler"] == "kueue"
    assert g["workload"]["podSets"][0]["count"] == 4
    assert g["selected"] == "r1"
    assert sorted(nodes_of(g).values()) == ["n1", "n1", "n2", "n2"]


def test_explain_reports_the_search_s_domains_not_a_suggestion_trial_s(tmp_path) -> None:
    """Seven pods, rack required: r2 holds 6, r1 holds 4. The suggestions re-run the search
    on the same tree (a preferred request puts 1 pod in r1); the domain table must still
    say what the search found: r1 holds 4, short 3 pods' CPU (was 1/7, short 12 cpu)."""
    (tmp_path / "job.json").write_text(json.dumps(job(parallelism=7)))
    nodes = [_node(n, r) for r, names in RACKS.items() for n in names]
    (tmp_path / "c.json").write_text(json.dumps(
        {"apiVersion": "v1", "kind": "List", "items": [*nodes, *KUEUE]}))
    result = CliRunner().invoke(app, ["explain", str(tmp_path / "job.json"), "-c",
                                      str(tmp_path / "c.json"), "-o", "json"])
    assert result.exit_code == 1, result.output
    (g,) = json.loads(result.stdout)["groups"]
    assert [(d["name"], d["fit"], d["shortfall"]) for d in g["explanation"]["domains"]] == [
        ("r2", 6, {"cpu": "2"}), ("r1", 4, {"cpu": "6"})]


def _pod_set(wl: dict) -> dict:
    return wl["spec"]["podSets"][0]


@pytest.mark.parametrize(("damage", "field", "words"), [
    (lambda w: _pod_set(w)["template"].__setitem__("metadata", "x"),
     "spec.podSets[0].template.metadata", "expected a mapping"),
    (lambda w: _pod_set(w)["template"].__setitem__("metadata", {"annotations": {"a": 1}}),
     "spec.podSets[0].template.metadata.annotations.a", "expected a string"),
    (lambda w: w["spec"]["podSets"].append(copy.deepcopy(_pod_set(w))),
     "spec.podSets[1].name", "duplicate PodSet name 'main'"),
    (lambda w: _pod_set(w).__setitem__("name", "Main"),
     "spec.podSets[0].name", "expected a PodSet name"),
])
def test_a_workload_the_api_server_refuses_is_an_input_error(tmp_path, damage, field,
                                                             words) -> None:
    """Workload objects decode as strictly as the API server (PodSetReference pattern,
    podSets a map keyed by name, template metadata of strings): exit 2 naming the field,
    never a traceback."""
    wl = workload()
    damage(wl)
    (tmp_path / "w.json").write_text(json.dumps(wl))
    result = CliRunner().invoke(app, ["check", str(tmp_path / "w.json")])
    assert result.exit_code == 2, result.output
    assert f"{field}: {words}" in result.output


def unhealthy(admission: dict, node: str) -> dict:
    wl = workload(owner="train", admission=admission, reserved=True)
    wl["status"]["unhealthyNodes"] = [{"name": node}]
    return wl


def test_a_failed_node_is_replaced_inside_the_required_rack(tmp_path) -> None:
    """Admitted on n3 and n4 (rack r2, required); n4 fails (NotReady, in
    status.unhealthyNodes): Kueue replaces it inside r2 (n5), not in r1, which holds the
    two pods as tightly and comes first (a fresh placement would take n2), and the two
    pods of n4 are made again there; n3's keep running."""
    pods = [job_pod(i, ("n3", "n4")[i // 2], workload="job-train-1") for i in range(4)]
    filler = [dict(job_pod(i, "n1", job_name="other"), metadata={
        "name": f"other-{i}", "namespace": "ml"}) for i in (0, 1)]
    admission = hosts_admission(("n3", 2), ("n4", 2))
    doc = check(tmp_path, [job(), unhealthy(admission, "n4")], [*pods, *filler],
                not_ready=("n4",))
    (g,) = doc["groups"]
    assert (g["pendingPods"], g["scheduledPods"]) == (2, 2)
    assert nodes_of(g) == {"train-2": "n5", "train-3": "n5"}
    assert "replaces it inside the domain" in notes(g)["kueue-node-replacement"]


def test_a_failed_node_without_a_replacement_in_its_rack(tmp_path) -> None:
    """r2's other nodes are full: no replacement inside r2; Kueue's reason, and the note
    that it evicts the workload (fail fast)."""
    pods = [job_pod(i, ("n3", "n4")[i // 2], workload="job-train-1") for i in range(4)]
    filler = [dict(job_pod(i, "n5", job_name="other"), metadata={
        "name": f"other-{i}", "namespace": "ml"}) for i in (0, 1)]
    admission = hosts_admission(("n3", 2), ("n4", 2))
    doc = check(tmp_path, [job(), unhealthy(admission, "n4")], [*pods, *filler],
                not_ready=("n4",))
    (g,) = doc["groups"]
    assert g["schedulable"] is False
    assert g["message"].startswith("Kueue cannot replace unhealthy node n4 of Workload "
                                   "ml/job-train-1: ")
    assert "evicts the workload" in notes(g)["kueue-node-replacement"]


def test_a_snapshot_keeps_what_the_ungater_and_node_replacement_read(tmp_path) -> None:
    """The cluster through ``tasplan snapshot``: Workloads whole (admission, unhealthy
    nodes, owners), pods' ``kueue.x-k8s.io/workload`` and podset label, NotReady nodes:
    the same plan as from the dump."""
    pods = [job_pod(i, ("n3", "n4")[i // 2], workload="job-train-1") for i in range(4)]
    wl = unhealthy(hosts_admission(("n3", 2), ("n4", 2)), "n4")
    direct = check(tmp_path, [job()], [*pods, wl], not_ready=("n4",))
    snap = tmp_path / "snap.json"
    result = CliRunner().invoke(app, ["snapshot", "-c", str(tmp_path / "cluster.json"),
                                      "-f", str(snap)])
    assert result.exit_code == 0, result.output
    (tmp_path / "in.json").write_text(json.dumps(job()))
    result = CliRunner().invoke(app, ["check", str(tmp_path / "in.json"), "-c", str(snap),
                                      "--scheduler", "kueue", "-o", "json"])
    (g,) = json.loads(result.stdout)["groups"]
    assert nodes_of(g) == nodes_of(direct["groups"][0]) == {"train-2": "n5",
                                                             "train-3": "n5"}


def test_a_leader_worker_set_s_leader_and_workers_share_a_rack(tmp_path) -> None:
    """A LeaderWorkerSet queued in Kueue: per group a Workload of PodSets ``leader`` and
    ``worker``, both asking for one rack with ``podset-group-name`` (Kueue places the
    leader and its workers together). Size 4 of 2-CPU pods: r1 (exactly 4) holds the
    group, leader included."""
    annotations = {"kueue.x-k8s.io/podset-required-topology": RACK,
                   "kueue.x-k8s.io/podset-group-name": "g"}
    template = copy.deepcopy(TEMPLATE)
    template["metadata"] = {"annotations": annotations}
    lws = {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
           "metadata": {"name": "serve", "namespace": "ml",
                        "labels": {"kueue.x-k8s.io/queue-name": "q"}},
           "spec": {"replicas": 1, "leaderWorkerTemplate": {
               "size": 4, "leaderTemplate": template, "workerTemplate": template}}}
    doc = check(tmp_path, [lws])
    (g,) = doc["groups"]
    assert g["scheduler"] == "kueue" and g["schedulable"] is True
    assert [(ps["name"], ps["count"], ps["podSetGroup"])
            for ps in g["workload"]["podSets"]] == [("leader", 1, "g"), ("worker", 3, "g")]
    assert g["selected"] == "r1"
    assert sorted(nodes_of(g).values()) == ["n1", "n1", "n2", "n2"]


def test_explain_unschedulable_finds_a_suspended_job_whose_workload_waits(tmp_path) -> None:
    """A cluster dump (kubectl get jobs,workloads,...): a Job Kueue keeps suspended has no
    pod to be pending; its Workload without a quota reservation says it waits, so
    ``explain unschedulable`` explains it (7 pods, racks of 6 and 4)."""
    suspended = job(parallelism=7)
    suspended["spec"]["suspend"] = True
    nodes = [_node(n, r) for r, names in RACKS.items() for n in names]
    (tmp_path / "dump.json").write_text(json.dumps({
        "apiVersion": "v1", "kind": "List",
        "items": [*nodes, *KUEUE, suspended, workload(count=7, owner="train")]}))
    result = CliRunner().invoke(app, ["explain", "unschedulable", "-c",
                                      str(tmp_path / "dump.json"), "-o", "json"])
    assert result.exit_code == 1, result.output
    (g,) = json.loads(result.stdout)["groups"]
    assert (g["name"], g["scheduler"]) == ("ml/train", "kueue")
    assert g["message"] == 'topology "topo" allows to fit only 6 out of 7 pod(s)'


def test_a_pytorch_job_s_master_and_workers_are_kueue_s_pod_sets(tmp_path) -> None:
    """A training CRD queued in Kueue: a PyTorchJob's replica types are its PodSets
    (``master``, ``worker``), each template's annotations read; with
    ``podset-group-name`` the master and its 3 workers share one rack (r1, exactly 4)."""
    template = copy.deepcopy(TEMPLATE)
    template["metadata"] = {"annotations": {
        "kueue.x-k8s.io/podset-required-topology": RACK,
        "kueue.x-k8s.io/podset-group-name": "g"}}
    template["spec"]["containers"][0]["name"] = "pytorch"
    job = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
           "metadata": {"name": "ddp", "namespace": "ml",
                        "labels": {"kueue.x-k8s.io/queue-name": "q"}},
           "spec": {"pytorchReplicaSpecs": {
               "Master": {"replicas": 1, "template": template},
               "Worker": {"replicas": 3, "template": template}}}}
    doc = check(tmp_path, [job])
    (g,) = doc["groups"]
    assert g["scheduler"] == "kueue" and g["schedulable"] is True
    assert [(ps["name"], ps["count"], ps["level"]) for ps in g["workload"]["podSets"]] == [
        ("master", 1, RACK), ("worker", 3, RACK)]
    assert g["selected"] == "r1"
    assert sorted(nodes_of(g).values()) == ["n1", "n1", "n2", "n2"]


def test_an_admitted_plain_pod_group_follows_its_workload(tmp_path) -> None:
    """The pod group's Workload (owned by its pods) is admitted on n4 and n5 (rack r2):
    the pods, gated by ``kueue.x-k8s.io/topology``, go there, not to r1."""
    wl = workload("grp", admission=hosts_admission(("n4", 2), ("n5", 2)), reserved=True)
    wl["metadata"]["ownerReferences"] = [
        {"apiVersion": "v1", "kind": "Pod", "name": f"worker-{i}", "uid": f"u{i}"}
        for i in range(4)]
    doc = check(tmp_path, [*group_pods("kueue.x-k8s.io/topology"), wl])
    (g,) = doc["groups"]
    assert g["workload"]["workloadObject"] == "ml/grp" and g["workload"]["admitted"]
    assert sorted(nodes_of(g).values()) == ["n4", "n4", "n5", "n5"]


def test_a_job_names_its_prebuilt_workload(tmp_path) -> None:
    """``kueue.x-k8s.io/prebuilt-workload-name``: the Job's Workload is the one named (no
    owner reference); it is admitted on n3 and n4, so the pods go there."""
    prebuilt = job()
    prebuilt["metadata"]["labels"]["kueue.x-k8s.io/prebuilt-workload-name"] = "made-before"
    wl = workload("made-before", admission=hosts_admission(("n3", 2), ("n4", 2)),
                  reserved=True)
    doc = check(tmp_path, [prebuilt, wl])
    (g,) = doc["groups"]
    assert g["workload"]["workloadObject"] == "ml/made-before"
    assert sorted(nodes_of(g).values()) == ["n3", "n3", "n4", "n4"]


def test_a_workload_admitted_by_quota_alone_is_left_to_kube_scheduler(tmp_path) -> None:
    """Quota reserved, no admission detail (no topology assignment): Kueue admitted it
    without TAS; its running pods are not 'evicted', nothing is placed by Kueue."""
    pods = [job_pod(0, "n3", workload="job-train-1"), job_pod(1)]
    doc = check(tmp_path, [job(parallelism=2), workload(owner="train", count=2,
                                                         reserved=True)], pods)
    (g,) = doc["groups"]
    assert "kueue-evicted" not in notes(g)
    assert g["message"].startswith("Kueue admitted it (Workload ml/job-train-1) by quota "
                                   "alone")
