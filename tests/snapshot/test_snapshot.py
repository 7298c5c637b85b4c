"""The snapshot format: pruning, the pod table, reloading through the loader, writing."""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

import pytest

from tasplan.errors import InputError
from tasplan.load.loader import load_inputs
from tasplan.snapshot.format import Origin, encode, expand_pod, to_list
from tasplan.snapshot.prune import prune
from tasplan.snapshot.write import write_snapshot

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "samples" / "cluster"
WORKLOADS = REPO / "samples" / "workloads"
ORIGIN = Origin("2026-01-01T00:00:00Z", 1.5, "0.1.0", server="https://k8s.example:6443",
                server_version="v1.37.0", context="prod", cluster="prod-cluster")

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {
    "name": "n1", "labels": {"rack": "r1"}, "annotations": {"a": "b"}, "uid": "u",
    "managedFields": [{"manager": "kubelet"}], "resourceVersion": "7"},
    "spec": {"taints": [{"key": "gpu", "effect": "NoSchedule"}], "podCIDR": "10.0.0.0/24"},
    "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
               "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
               "images": [{"names": ["img:1"], "sizeBytes": 10}],
               "conditions": [{"type": "Ready", "status": "True"}],
               "nodeInfo": {"kubeletVersion": "v1.37.0"}}}


def pod(name: str, node: str = "", **spec: object) -> dict:
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": name, "namespace": "ml", "labels": {"app": "train"},
        "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"},
        "managedFields": [{"manager": "kubectl"}], "uid": name},
        "spec": {"containers": [{"name": "c", "image": "img:1", "env": [{"name": "A"}],
                                 "resources": {"requests": {"cpu": "1", "memory": "1Gi"}},
                                 "ports": [{"containerPort": 80},
                                           {"containerPort": 81, "hostPort": 8081}]}],
                 "initContainers": [{"name": "side", "image": "s:1", "restartPolicy": "Always",
                                     "resources": {"requests": {"cpu": "500m"}}}],
                 "tolerations": [{"key": "gpu", "operator": "Exists"}],
                 "nodeSelector": {"rack": "r1"},
                 "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                     {"weight": 5, "preference": {"matchExpressions": [
                         {"key": "rack", "operator": "In", "values": ["r1"]}]}}]},
                     "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                         {"topologyKey": "rack", "labelSelector": {"matchLabels": {"a": "b"}}}]}},
                 "volumes": [{"name": "token", "projected": {"sources": []}},
                             {"name": "data", "persistentVolumeClaim": {"claimName": "d"}}],
                 "serviceAccountName": "sa", "dnsPolicy": "ClusterFirst",
                 "schedulerName": "default-scheduler", **spec},
        "status": {"phase": "Running" if node else "Pending", "podIP": "10.1.1.1",
                   "conditions": [{"type": "PodScheduled", "status": "False",
                                   "reason": "Unschedulable", "message": "0/3 nodes",
                                   "lastTransitionTime": "t"},
                                  {"type": "Ready", "status": "False"}],
                   "containerStatuses": [{"name": "c", "ready": False}]}}
    if node:
        obj["spec"]["nodeName"] = node
        obj["status"]["conditions"] = [{"type": "PodScheduled", "status": "True"}]
        obj["status"]["startTime"] = "2026-03-01T10:00:00Z"
    return obj


# ---------------------------------------------------------------------------------- prune


def test_prune_node_keeps_what_plugins_read() -> None:
    assert prune(NODE) == {"apiVersion": "v1", "kind": "Node",
                           "metadata": {"name": "n1", "labels": {"rack": "r1"}},
                           "spec": {"taints": [{"key": "gpu", "effect": "NoSchedule"}]},
                           "status": {"allocatable": NODE["status"]["allocatable"],
                                      "capacity": NODE["status"]["capacity"],
                                      "images": NODE["status"]["images"],
                                      # Kueue's TAS counts only Ready nodes
                                      "conditions": [{"type": "Ready", "status": "True"}]}}


def test_prune_pending_pod_keeps_scheduling_fields_and_last_verdict() -> None:
    out = prune(pod("p"))
    assert out["metadata"] == {"name": "p", "namespace": "ml", "labels": {"app": "train"},
                               "uid": "p"}
    spec = out["spec"]
    assert spec["containers"] == [{"name": "c", "image": "img:1", "resources": {
        "requests": {"cpu": "1", "memory": "1Gi"}},
        "ports": [{"containerPort": 81, "hostPort": 8081}]}]
    assert spec["initContainers"][0]["restartPolicy"] == "Always"
    assert spec["volumes"] == [{"name": "data", "persistentVolumeClaim": {"claimName": "d"}}]
    assert set(spec) == {"containers", "initContainers", "tolerations", "nodeSelector",
                         "affinity", "volumes", "schedulerName"}
    assert set(spec["affinity"]) == {"nodeAffinity", "podAntiAffinity"}
    assert out["status"] == {"phase": "Pending", "conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
         "message": "0/3 nodes"}]}


def test_prune_bound_pod_keeps_only_what_running_pods_contribute() -> None:
    out = prune(pod("p", node="n1"))
    spec = out["spec"]
    assert set(spec) == {"containers", "initContainers", "affinity", "volumes",
                         "schedulerName", "nodeName"}
    assert set(spec["affinity"]) == {"podAntiAffinity"}  # node affinity is moot once bound
    assert "image" not in spec["containers"][0]
    # Victims of equal priority are ordered by start time, then UID (MoreImportantVictim).
    assert out["status"] == {"phase": "Running", "startTime": "2026-03-01T10:00:00Z"}
    assert out["metadata"]["uid"] == "p"


# ------------------------------------------------------------------------------ pod table


def test_pods_of_one_controller_share_metadata_and_spec() -> None:
    doc = encode([prune(NODE), *(prune(pod(f"p{i}", node="n1")) for i in range(3)),
                  prune(pod("q"))], ORIGIN)
    table = doc["pods"]
    assert [i["kind"] for i in doc["items"]] == ["Node"]
    assert table["name"] == ["p0", "p1", "p2", "q"]
    assert table["meta"] == [0, 0, 0, 0] and table["spec"] == [0, 0, 0, 1]
    assert table["nodeName"] == ["n1", "n1", "n1", ""]
    assert table["phase"] == ["Running", "Running", "Running", "Pending"]
    assert table["uid"] == ["p0", "p1", "p2", "q"]
    assert table["startTime"] == ["2026-03-01T10:00:00Z"] * 3 + [""]
    assert table["extra"] == {"3": {"status": {"conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
         "message": "0/3 nodes"}]}}}
    assert expand_pod(table, 3) == prune(pod("q"))
    assert expand_pod(table, 0) == prune(pod("p0", node="n1"))
    assert doc["metadata"] == {
        "takenAt": "2026-01-01T00:00:00Z", "durationSeconds": 1.5, "tasplanVersion": "0.1.0",
        "server": "https://k8s.example:6443", "serverVersion": "v1.37.0", "context": "prod",
        "cluster": "prod-cluster", "namespace": "", "schedulingVersion": "", "inputs": []}


def _pods(snapshot) -> list[dict]:
    return [{f.name: getattr(p, f.name) for f in dataclasses.fields(p) if f.name != "source"}
            for p in snapshot.pods]


@pytest.mark.parametrize("as_list", [False, True])
def test_snapshot_reloads_to_the_same_model_as_the_files(tmp_path: Path, as_list: bool) -> None:
    """The pod table's shortcut (decode each distinct spec once) must give every field
    decode_pod gives: compared on the samples plus pods with every scheduling field."""
    extra = tmp_path / "extra.json"
    nominated = pod("nom")
    nominated["status"]["nominatedNodeName"] = "gpu-a1-0"
    deleting = pod("del", node="gpu-a1-1")
    deleting["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    # Same spec, different labels: matchLabelKeys reads each pod's own labels.
    spread = {"topologySpreadConstraints": [{
        "maxSkew": 1, "topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "train"}}, "matchLabelKeys": ["rev"]}]}
    s1, s2 = pod("s1", **spread), pod("s2", **spread)
    s1["metadata"]["labels"]["rev"], s2["metadata"]["labels"]["rev"] = "1", "2"
    plain = pod("plain", affinity={})  # no constraints: spread by the Service by default
    namespace = {"apiVersion": "v1", "kind": "Namespace",
                 "metadata": {"name": "ml", "labels": {"team": "ml"}}, "spec": {}}
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc",
               "namespace": "ml"}, "spec": {"selector": {"app": "train"}, "ports": []}}
    extra.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        prune(pod("p1")), prune(pod("p2")), prune(pod("b1", node="gpu-a1-0")),
        prune(pod("b2", node="gpu-a1-0", priority=7)), prune(nominated), prune(deleting),
        prune(s1), prune(s2), prune(plain), prune(namespace), prune(service)]}))
    inputs = [CLUSTER, WORKLOADS, extra]
    from tasplan.cli.snapshot import _from_files

    doc = _from_files(inputs, 0.0)
    out = tmp_path / ("s.list.json" if as_list else "s.json.gz")
    write_snapshot(to_list(doc) if as_list else doc, out)
    files = load_inputs([], inputs)
    snap = load_inputs([], [out])
    assert len(snap.pods) == len(files.pods) > 100
    assert _pods(snap) == _pods(files)
    assert [dataclasses.replace(n, source=None) for n in snap.nodes] == \
        [dataclasses.replace(n, source=None) for n in files.nodes]
    assert [g.key for g in snap.groups] == [g.key for g in files.groups]
    by_name = {p.name: p for p in snap.pods}
    assert by_name["nom"].nominated_node_name == "gpu-a1-0" and by_name["del"].deleting
    assert by_name["p1"].tolerations and by_name["p1"].host_ports
    assert by_name["s1"].spread_constraints != by_name["s2"].spread_constraints
    assert by_name["plain"].default_spread_selector is not None
    assert snap.namespaces == files.namespaces and snap.namespaces["ml"]["team"] == "ml"


def _table_file(tmp_path: Path, **changes: object) -> Path:
    doc = encode([prune(NODE), prune(pod("a", node="n1")), prune(pod("b", node="n1"))], ORIGIN)
    doc.update(changes.pop("top", {}))
    for column, value in changes.items():
        doc["pods"][column] = value
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(("changes", "message"), [
    ({"name": ["a", 5]}, "pods.name[1]: expected a string, got a number"),
    ({"spec": [0, 9]}, "pods.spec[1]: index 9 is out of range (pods.specs has 1 entries)"),
    ({"spec": [0, -1]}, "pods.spec[1]: index -1 is out of range"),
    ({"meta": [0, "x"]}, "pods.meta[1]: expected an index, got 'x'"),
    ({"phase": ["Running"]}, "pods: expected columns of equal length"),
    ({"uid": ["a"]}, "pods.uid: expected 2 entries (one per pod), got 1"),
    ({"uid": ["a", None]}, "pods.uid[1]: expected a string, got null"),
    ({"startTime": ["", "2026-02-30T00:00:00Z"]},
     "pods.startTime[1]: expected an RFC 3339 timestamp such as \"2026-01-02T15:04:05Z\", "
     "got '2026-02-30T00:00:00Z'"),
    ({"top": {"apiVersion": "tasplan/v9"}}, "unsupported snapshot version 'tasplan/v9' (this "
     "tasplan reads tasplan/v1)"),
])
def test_malformed_snapshot_is_one_clear_error(tmp_path: Path, changes: dict,
                                               message: str) -> None:
    path = _table_file(tmp_path, **changes)
    with pytest.raises(InputError) as err:
        load_inputs([], [path])
    assert str(err.value).startswith(str(path))
    assert message in str(err.value)


def test_a_table_without_the_uid_and_start_columns_still_loads(tmp_path: Path) -> None:
    """Columns added within tasplan/v1: snapshots written before them load, unset."""
    doc = json.loads(_table_file(tmp_path).read_text())
    assert [p.start_time for p in load_inputs([], [tmp_path / "snap.json"]).pods] == \
        ["2026-03-01T10:00:00Z"] * 2
    del doc["pods"]["uid"], doc["pods"]["startTime"]
    (tmp_path / "snap.json").write_text(json.dumps(doc))
    pods = load_inputs([], [tmp_path / "snap.json"]).pods
    assert [(p.uid, p.start_time) for p in pods] == [("", ""), ("", "")]


def test_corrupt_gzip_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.json.gz"
    path.write_bytes(b"\x1f\x8bnot really gzip")
    with pytest.raises(InputError, match="not a valid gzip file"):
        load_inputs([], [path])


def test_gzip_respects_the_size_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.json.gz"
    path.write_bytes(gzip.compress(b"{" + b" " * 10_000 + b"}"))
    monkeypatch.setenv("TASPLAN_MAX_INPUT_BYTES", "5000")
    with pytest.raises(InputError, match="decompressed input is larger than the limit"):
        load_inputs([], [path])


def test_directories_pick_up_gzip_snapshots(tmp_path: Path) -> None:
    write_snapshot(encode([prune(NODE)], ORIGIN), tmp_path / "a.json.gz")
    (tmp_path / "notes.txt.gz").write_bytes(gzip.compress(b"hello"))
    assert [n.name for n in load_inputs([], [tmp_path]).nodes] == ["n1"]


# ---------------------------------------------------------------------------------- write


def test_write_is_atomic_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "s.json"
    target.write_text("old")
    size = write_snapshot({"apiVersion": "tasplan/v1"}, target)
    assert target.read_bytes() == b'{"apiVersion":"tasplan/v1"}' and size == 27
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]  # no temp file left


def test_write_to_a_missing_directory_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot write"):
        write_snapshot({}, tmp_path / "nope" / "s.json")
    assert list(tmp_path.iterdir()) == []


def test_gzip_output_is_deterministic(tmp_path: Path) -> None:
    doc = encode([prune(NODE)], ORIGIN)
    write_snapshot(doc, tmp_path / "a.json.gz")
    write_snapshot(doc, tmp_path / "b.json.gz")
    assert (tmp_path / "a.json.gz").read_bytes() == (tmp_path / "b.json.gz").read_bytes()


# ------------------------------------------------------------------------------------ PDB


def test_pdbs_are_carried_into_the_model(tmp_path: Path) -> None:
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
           "metadata": {"name": "train", "namespace": "ml", "managedFields": []},
           "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": "train"}}},
           "status": {"disruptionsAllowed": 2, "currentHealthy": 4}}
    path = tmp_path / "s.json"
    write_snapshot(encode([prune(NODE), prune(pdb)], ORIGIN), path)
    [budget] = load_inputs([], [path]).disruption_budgets
    assert (budget.key, budget.min_available, budget.max_unavailable,
            budget.disruptions_allowed) == ("ml/train", "50%", None, 2)
    assert budget.selector.matches({"app": "train"}) and not budget.selector.matches({})
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: x}\n"
                   "spec: {maxUnavailable: true}\n")
    with pytest.raises(InputError, match=r"spec\.maxUnavailable: expected an integer or a "
                       r"percentage such as \"50%\", got a boolean"):
        load_inputs([], [bad])
