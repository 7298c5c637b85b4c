"""Bound pods kept as records (``model.bound_pods``) against the plain path that builds a
Pod each (``typed.LAZY``, ``pod_table.LAZY`` False), on generated clusters (kubectl JSON
and tasplan snapshots, JSON and binary) with the pods that must not stay
records mixed in: the same snapshot (pods in order, per-node usage, unknown nodes,
nominations, groups, warnings), the same errors, and byte-identical ``check``, ``explain``
and ``capacity`` JSON, preemption included."""

from __future__ import annotations

import copy
import json
import random
from dataclasses import fields
from pathlib import Path

import pytest

from tasplan import InputError, plan
from tasplan.capacity.shapes import parse_shape
from tasplan.capacity.view import capacity
from tasplan.explain.explainer import explain
from tasplan.load import documents, pod_table, typed
from tasplan.load.loader import load_inputs, used_kind
from tasplan.model.bound_pods import LazyPods, NodePods
from tasplan.model.pod import Pod
from tasplan.report.capacity_document import capacity_document
from tasplan.report.document import plan_document
from tasplan.report.serialize import to_json
from tasplan.snapshot import format as snapshot_format
from tasplan.snapshot.prune import prune
from tasplan.snapshot.write import write_snapshot
from tests.load.test_typed import _generate

RACK = "topology.example.com/rack"


@pytest.fixture(scope="module")
def items(tmp_path_factory) -> list[dict]:
    path = tmp_path_factory.mktemp("lazy") / "cluster.json"
    _generate(path, nodes=24)
    return json.loads(path.read_bytes())["items"]


def _fields(pod: Pod) -> tuple:
    return tuple(getattr(pod, f.name) for f in fields(Pod))


def _state(snapshot) -> tuple:
    usage = {name: (dict(u.requested), u.non_zero_cpu, u.non_zero_memory, len(u.pods),
                    [_fields(p) for p in u.pods], u.ports, [p.key for p in u.affinity_pods])
             for name, u in snapshot.usage.items()}
    return ([_fields(p) for p in snapshot.pods], len(snapshot.pods), usage,
            dict(snapshot.unknown_nodes), [p.key for p in snapshot.nominated],
            snapshot.groups, snapshot.warnings, sorted(snapshot.pod_namespaces),
            {k: [p.key for p in v] for k, v in snapshot.pods_by_group.items()})


def _reports(snapshot) -> tuple[str, ...]:
    planned = plan(snapshot, all_assignments=True)
    explained = explain(snapshot, all_assignments=True)
    shapes = [parse_shape("cpu=4,memory=8Gi", (), 4), parse_shape("nvidia.com/gpu=8")]
    return (to_json(plan_document(planned)),
            to_json(plan_document(explained.plan, explained.explanations)),
            to_json(capacity_document(capacity(snapshot, shapes))))


def _load(monkeypatch, lazy: bool, workloads: list[Path], clusters: list[Path]):
    monkeypatch.setattr(documents, "STRICT_TYPED_BYTES", 0)  # small files typed too
    monkeypatch.setattr(typed, "LAZY", lazy)
    try:
        return load_inputs(workloads, clusters), None
    except InputError as exc:
        return None, str(exc)


def _bound(rng: random.Random, items: list[dict], nodes: list[str]) -> dict:
    """A bound pod, now and then of a kind that must be built (or an unusual record)."""
    pod = copy.deepcopy(rng.choice([i for i in items if i["kind"] == "Pod"
                                    and i["spec"].get("nodeName")]))
    meta, spec = pod["metadata"], pod["spec"]
    meta["name"] = f"extra-{rng.randrange(10**9)}"
    spec["nodeName"] = rng.choice(nodes)
    kind = rng.randrange(12)
    if kind == 0:
        pod["status"]["phase"] = rng.choice(["Succeeded", "Failed"])
    elif kind == 1:
        spec["nodeName"] = "gone-node"  # bound to a node missing from the snapshot
    elif kind == 2:
        spec["schedulingGroup"] = {"podGroupName": "train"}
    elif kind == 3:
        meta.setdefault("labels", {})["scheduling.x-k8s.io/pod-group"] = "cos"
    elif kind == 4:
        meta.setdefault("annotations", {})["kueue.x-k8s.io/workload"] = "wl"
    elif kind == 5:
        spec["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8000 + kind}]
    elif kind == 6:
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "kubernetes.io/hostname",
             "labelSelector": {"matchLabels": {"app": "x"}}}]}}
    elif kind == 7:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    elif kind == 8:
        meta["namespace"] = f"ns-{rng.randrange(3)}"
    elif kind == 9:
        pod["status"]["phase"] = "Unknown"
    return pod


def _cluster(rng: random.Random, items: list[dict]) -> list[dict]:
    nodes = [i["metadata"]["name"] for i in items if i["kind"] == "Node"]
    out = [copy.deepcopy(i) for i in items]
    for _ in range(rng.randrange(1, 30)):
        out.insert(rng.randrange(len(out) + 1), _bound(rng, items, nodes))
    if rng.random() < 0.3:  # a pending pod nominated to a node
        pending = _bound(rng, items, nodes)
        pending["status"] = {"phase": "Pending", "nominatedNodeName": pending["spec"].pop(
            "nodeName")}
        out.append(pending)
    return out


def _flaw(rng: random.Random, cluster: list[dict], other: list[dict]) -> str:
    """Now and then something only the plain path may judge: a repeated name (in one file,
    across two, a workload pod replacing a cluster pod), a bad name or namespace."""
    pods = [i for i in cluster if i["kind"] == "Pod"]
    kind = rng.randrange(8)
    if kind == 0:
        cluster.append(copy.deepcopy(rng.choice(pods)))
    elif kind == 1:
        other.append(copy.deepcopy(rng.choice(pods)))
    elif kind == 2:
        rng.choice(pods)["metadata"]["name"] = "bad\tname"
    elif kind == 3:
        rng.choice(pods)["metadata"]["namespace"] = "Bad_NS"
    else:
        return ""
    return ("repeat", "repeat-across", "name", "namespace")[kind]


def _workload(rng: random.Random, pods: int = 0, cpu: str = "") -> list[dict]:
    pods = pods or rng.choice([2, 4, 16])
    high = not cpu and rng.random() < 0.5  # enough priority to evict
    docs: list[dict] = [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "high"}, "value": 1000000},
        {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
         "metadata": {"name": "train", "namespace": "ml"},
         "spec": {"schedulingPolicy": {"gang": {"minCount": pods}},
                  "schedulingConstraints": {"topology": [{"key": RACK}]}}}]
    cpu = cpu or rng.choice(["2", "30", "60"])
    for i in range(pods):
        docs.append({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": f"train-{i}", "namespace": "ml"},
                     "spec": {"schedulingGroup": {"podGroupName": "train"},
                              **({"priorityClassName": "high"} if high else {}),
                              "tolerations": [{"key": "nvidia.com/gpu",
                                               "operator": "Exists"}],
                              "containers": [{"name": "w", "image": "i", "resources": {
                                  "requests": {"cpu": cpu, "memory": "8Gi"}}}]}})
    return docs


def _write(path: Path, items: list[dict]) -> Path:
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


@pytest.mark.parametrize("seed", range(12))
def test_lazy_and_plain_pods_give_the_same_snapshot_and_reports(
        seed: int, items: list[dict], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    lazy_runs = 0
    for k in range(3):
        cluster = _cluster(rng, items)
        second: list[dict] = []
        flaw = _flaw(rng, cluster, second) if k and rng.random() < 0.5 else ""
        clusters = [_write(tmp_path / f"c{k}.json", cluster)]
        if second or rng.random() < 0.3:
            clusters.append(_write(tmp_path / f"d{k}.json", [*second, _bound(
                rng, items, [i["metadata"]["name"] for i in items if i["kind"] == "Node"])]))
        work = _workload(rng)
        if k and rng.random() < 0.3:  # a what-if: a workload pod replaces a cluster pod
            work.append(copy.deepcopy(next(i for i in cluster if i["kind"] == "Pod")))
        workloads = [_write(tmp_path / f"w{k}.json", work)]
        fast, fast_error = _load(monkeypatch, True, workloads, clusters)
        plain, plain_error = _load(monkeypatch, False, workloads, clusters)
        assert fast_error == plain_error, flaw
        if fast is None:
            continue
        lazy_runs += isinstance(fast.pods, LazyPods)
        assert k or lazy_runs, "a load with nothing unusual keeps its plain pods as records"
        assert _reports(fast) == _reports(plain)
        assert _state(fast) == _state(plain)
        # The plan read the snapshot as it is; the loads above built nothing more than
        # what the reports read: a fresh load plans alike from its records.
        again, _ = _load(monkeypatch, True, workloads, clusters)
        assert _reports(again) == _reports(plain)


def test_records_are_built_only_when_read(items: list[dict], tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A check that fits without evictions builds the Pods of the nodes it places pods on
    only (the Statement adds pods to their lists), and a node's pods are the same objects
    as the snapshot's, in its order."""
    cluster = _write(tmp_path / "c.json", items)
    workload = _write(tmp_path / "w.json", _workload(random.Random(1), 4, "1")[1:])
    snapshot, _ = _load(monkeypatch, True, [workload], [cluster])
    assert isinstance(snapshot.pods, LazyPods)
    (store,) = snapshot.pods.stores
    result = plan(snapshot, all_assignments=True).groups[0]
    assert result.schedulable
    placed = set(next(p for p in result.placements if p.name == result.selected)
                 .assignments.values())
    built = {p.node_name for p in store._pods or () if p is not None}
    assert built <= placed and len(placed) < len(snapshot.nodes)
    usage = next(u for u in snapshot.usage.values() if isinstance(u.pods, NodePods))
    on_node = list(usage.pods)
    assert on_node and all(p.node_name == on_node[0].node_name for p in on_node)
    everything = list(snapshot.pods)
    assert [p for p in everything if p.node_name == on_node[0].node_name
            and not p.terminal] == on_node
    assert all(any(p is q for q in everything) for p in on_node)


def test_a_lazy_nodes_copy_counts_without_building(items: list[dict], tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``NodeInfo.with_copies`` (the capacity cursor copies every node) keeps the node's own
    pods unbuilt; read, the copy's pods are the node's then the copies."""
    from tasplan.framework.node_info import NodeInfo

    snapshot, _ = _load(monkeypatch, True, [], [_write(tmp_path / "c.json", items)])
    (store,) = snapshot.pods.stores
    node = next(n for n in snapshot.nodes if isinstance(snapshot.node_usage(n.name).pods,
                                                        NodePods))
    info = NodeInfo(node, 0, snapshot.node_usage(node.name))
    extra = store.make(store.records[0], 10**6)
    clone = info.with_copies(extra, 3)
    assert clone.pod_count == info.pod_count + 3 > 3
    assert store._pods is None
    assert clone.pods == [*info.pods, extra, extra, extra]
    assert info.pods == list(snapshot.node_usage(node.name).pods)


def _snapshot_files(tmp_path: Path, items: list[dict], k: int) -> tuple[Path, Path]:
    """``items`` as a tasplan snapshot, JSON and binary (as ``tasplan snapshot`` writes)."""
    document = snapshot_format.encode(
        [prune(o) for o in items if used_kind(o)],
        snapshot_format.Origin(taken_at="2026-01-01T00:00:00Z", duration_seconds=0.0,
                               tasplan_version="test"))
    as_json, as_binary = tmp_path / f"s{k}.json", tmp_path / f"s{k}.tsnap"
    write_snapshot(document, as_json)
    write_snapshot(document, as_binary)
    return as_json, as_binary


def _table_flaw(rng: random.Random, path: Path) -> str:
    """A JSON snapshot whose table has a flaw in one row: the errors must agree."""
    document = json.loads(path.read_bytes())
    table = document["pods"]
    row = rng.randrange(len(table["name"]))
    kind = rng.randrange(5)
    if kind == 0:
        table["nodeName"][row] = 7
    elif kind == 4:
        table["metadata"][table["meta"][row]] = None
    elif kind == 1:
        table["specs"][table["spec"][row]]["priorityClassName"] = "no-such-class"
        table["specs"][table["spec"][row]].pop("priority", None)
    elif kind == 2:
        table["name"][row] = table["name"][(row + 1) % len(table["name"])]
    else:
        table["specs"][table["spec"][row]]["containers"][0]["resources"] = {
            "requests": {"cpu": "lots"}}
    path.write_bytes(json.dumps(document).encode())
    return ("node", "class", "repeat", "quantity", "null metadata")[kind]


@pytest.mark.parametrize("seed", range(10))
def test_lazy_and_plain_snapshot_tables_agree(seed: int, items: list[dict], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot's pod table (JSON and binary) read with plain bound rows as records and
    with a Pod each: the same snapshot, errors and reports."""
    rng = random.Random(seed)
    for k in range(2):
        cluster = _cluster(rng, items)
        as_json, as_binary = _snapshot_files(tmp_path, cluster, k)
        flaw = _table_flaw(rng, as_json) if k else ""
        workloads = [_write(tmp_path / f"w{k}.json", _workload(rng))]
        for snapshot_file in (as_json, as_binary):
            monkeypatch.setattr(pod_table, "LAZY", True)
            fast, fast_error = _load(monkeypatch, True, workloads, [snapshot_file])
            monkeypatch.setattr(pod_table, "LAZY", False)
            plain, plain_error = _load(monkeypatch, False, workloads, [snapshot_file])
            assert fast_error == plain_error, flaw
            if fast is None:
                continue
            assert k or isinstance(fast.pods, LazyPods)
            assert _reports(fast) == _reports(plain)
            assert _state(fast) == _state(plain)
