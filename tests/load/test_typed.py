"""The typed reader (``tasplan.load.typed``) against the dict path it replaces for JSON Lists
and snapshots: the same Nodes and Pods, field for field, on generated dumps and on pods
written to exercise every field the loader reads, and the same errors for bad input."""

from __future__ import annotations

import copy
import json
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasplan import InputError, JobOverrides
from tasplan.load import typed
from tasplan.load.document import Document
from tasplan.load.documents import read_documents
from tasplan.load.loader import assemble
from tasplan.model.bound_pods import Run
from tasplan.model.pod import Pod

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _generate(path: Path, nodes: int) -> None:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import generate
    finally:
        sys.path.remove(str(BENCHMARKS))
    generate.generate_cluster(nodes=nodes, out=str(path))


def _pod_fields(pod: Pod) -> tuple:
    return tuple(getattr(pod, f.name) for f in fields(Pod))


def _state(docs: list) -> tuple:
    snapshot = assemble(docs, JobOverrides())
    return (snapshot.nodes, [_pod_fields(p) for p in snapshot.pods], snapshot.warnings,
            snapshot.priority_classes, snapshot.namespaces, snapshot.ignored)


def _expanded(docs: list) -> list:
    """``docs`` with each Run (bound pods kept as records) as one Document per pod."""
    out = []
    for d in docs:
        if isinstance(d.model, Run):
            pods = [d.model.store.make(r, 0) for r in
                    d.model.store.records[d.model.start:d.model.end]]
            out.extend(Document(p.source, d.obj, p) for p in pods)
        else:
            out.append(d)
    return out


def _dict_path(path: Path) -> list:
    return list(read_documents(path, workload=False))


def _assert_same(path: Path, *, chunk_bytes: int | None = None) -> int:
    """Both readers agree on ``path``; returns how many objects the typed one decoded."""
    if chunk_bytes is None:
        docs = typed.read_json_cluster(str(path), path.read_bytes(), workload=False)
    else:
        docs = typed.read_json_stream(path, workload=False, chunk_bytes=chunk_bytes)
    assert docs is not None
    assert _state(docs) == _state(_dict_path(path))
    return typed.typed_objects(docs)


def _same_error(path: Path) -> InputError:
    with pytest.raises(InputError) as expected:
        assemble(_dict_path(path), JobOverrides())
    with pytest.raises(InputError) as got:
        assemble(list(read_documents(path, workload=False, typed=True)), JobOverrides())
    assert str(got.value) == str(expected.value)
    return got.value


# --------------------------------------------------------------------------- generated dumps


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("typed") / "cluster.json"
    _generate(path, nodes=40)
    return path


def test_generated_dump_whole_and_streamed(generated: Path) -> None:
    decoded = _assert_same(generated)
    assert decoded == len(json.loads(generated.read_bytes())["items"])  # all typed
    assert _assert_same(generated, chunk_bytes=64 * 1024) == decoded


def test_generated_dump_in_kubectl_four_space_indent(generated: Path, tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps(json.loads(generated.read_bytes()), indent=4))
    assert _assert_same(path, chunk_bytes=64 * 1024) > 0


def test_compact_json_is_read_whole(generated: Path, tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(json.dumps(json.loads(generated.read_bytes())).encode())
    assert typed.read_json_stream(path, workload=False, chunk_bytes=1024) is None
    assert _assert_same(path) > 0


# --------------------------------------------------------------------------- hand-written pods

RESOURCES = {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"memory": "2Gi"}}


def _pod(name: str, node: str = "n1", **spec) -> dict:
    body = {"containers": [{"name": "c", "image": "x", "resources": RESOURCES}],
            "priority": 0, **spec}
    if node:
        body["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ns", "labels": {"app": name}},
            "spec": body, "status": {"phase": "Running" if node else "Pending"}}


def _node(name: str, **status) -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "spec": {},
            "status": status or {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}}


def _objects() -> list[dict]:
    ports = [{"containerPort": 80, "hostPort": 8080, "protocol": "UDP", "hostIP": "10.0.0.1"},
             {"containerPort": 81}]
    sidecar = {"name": "s", "restartPolicy": "Always",
               "resources": {"requests": {"cpu": "1", "memory": "128Mi"}}}
    init = {"name": "i", "resources": {"limits": {"cpu": "3"}}}
    deleting = _pod("deleting")
    deleting["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    nominated = _pod("nominated", node="", tolerations=[{"operator": "Exists"}])
    nominated["status"]["nominatedNodeName"] = "n2"
    no_namespace = _pod("no-namespace")
    del no_namespace["metadata"]["namespace"]
    odd_labels = _pod("odd-labels")
    odd_labels["metadata"]["labels"]["replicas"] = "3"  # a number is refused (issue 25)
    succeeded = _pod("succeeded")
    succeeded["status"]["phase"] = "Succeeded"
    no_phase = _pod("no-phase")
    del no_phase["status"]
    claims = _pod("claims", resourceClaims=[{"name": "gpu", "resourceClaimTemplateName": "t"}])
    claims["status"]["resourceClaimStatuses"] = [{"name": "gpu", "resourceClaimName": "claims-gpu"}]
    # Victim order reads both (upstream MoreImportantVictim); offsets and fractions too.
    started = _pod("started")
    started["metadata"]["uid"] = "0b9c6a58-2f5e-4c1e-9d7a-1f2e3d4c5b6a"
    started["status"]["startTime"] = "2026-03-01T10:00:00.25+02:00"
    two_a = {"name": "a", "resources": RESOURCES,
             "ports": [{"containerPort": 1, "hostPort": 7070}]}
    two_b = {"name": "b", "resources": {"requests": {"cpu": "1"}},
             "ports": [{"containerPort": 2, "hostPort": 7071, "protocol": "UDP"}]}
    tainted = _node("n2", allocatable={"cpu": "4", "memory": 1024**3, "pods": 10},
                    images=[{"names": ["x"], "sizeBytes": 1}])
    tainted["spec"] = {"unschedulable": True,
                       "taints": [{"key": "gpu", "effect": "NoSchedule"},
                                  {"key": "k", "value": "v", "effect": "NoExecute"}]}
    return [
        _node("n1"),
        tainted,
        _node("n3", capacity={"cpu": "2", "pods": "5"}),
        _node("n4", allocatable=None, capacity={"cpu": "2"}, images=[]),
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "high"}, "value": 1000},
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}},
        _pod("plain"),
        _pod("host-ports", containers=[{"name": "c", "resources": RESOURCES, "ports": ports}]),
        # Same resources, other ports: the requests cache must not mix them up.
        _pod("other-ports", containers=[{"name": "c", "resources": RESOURCES,
                                         "ports": [{"containerPort": 80, "hostPort": 9090}]}]),
        _pod("anti-affinity", affinity={"podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchLabels": {"app": "plain"}},
                "topologyKey": "kubernetes.io/hostname"}]}}),
        _pod("node-affinity-only", affinity={"nodeAffinity": {}, "podAffinity": {}}),
        deleting,
        nominated,
        _pod("overhead", overhead={"cpu": "250m", "memory": "64Mi"}),
        _pod("init-and-sidecar", initContainers=[sidecar, init]),
        _pod("pod-level", resources={"limits": {"cpu": "4", "memory": "8Gi"}}),
        _pod("limits-only", containers=[{"name": "c", "resources": {"limits": {"cpu": "2"}}}]),
        _pod("null-quantity", containers=[{"name": "c", "resources": {"requests": {
            "cpu": None, "memory": "1Gi"}}}]),
        _pod("no-resources", containers=[{"name": "c"}, {"name": "d", "resources": None}]),
        _pod("class-priority", priority=None, priorityClassName="high"),
        _pod("group", schedulingGroup={"podGroupName": "g"}),
        _pod("legacy-group", workloadRef={"name": "w", "podGroup": "pg",
                                          "podGroupReplicaKey": "0"}),
        no_namespace,
        odd_labels,
        succeeded,
        no_phase,
        claims,
        started,
        # Two-container pods take the requests cache's short key: containers in the other
        # order give other host ports, an explicit null ports list the same as none.
        _pod("two-containers", containers=[two_a, two_b]),
        _pod("two-containers-swapped", containers=[two_b, two_a]),
        _pod("two-containers-null-ports", containers=[{**two_a, "ports": None}, two_b]),
        _pod("pending", node=""),
    ]


def _write_list(path: Path, objects: list[dict], kind: str = "List") -> Path:
    path.write_text(json.dumps({"apiVersion": "v1", "items": objects, "kind": kind,
                                "metadata": {"resourceVersion": ""}}, indent=4))
    return path


def test_hand_written_pods_decode_identically(tmp_path: Path) -> None:
    path = _write_list(tmp_path / "c.json", _objects())
    decoded = _assert_same(path)
    # Nodes and bound pods are typed; affinity, DRA claims, class-resolved priority,
    # pending pods and the other kinds take the dict path.
    assert decoded == 4 + 26 - 5
    assert _assert_same(path, chunk_bytes=512) == decoded


def test_requests_cache_key_forms_do_not_mix(tmp_path: Path) -> None:
    """The requests cache's keys: one container's resources bytes alone, two containers'
    pair of bytes, and the tuple forms (ports, restartPolicy, init containers, overhead).
    Pods whose resources are byte-identical but which differ in any of those get their own
    requests and host ports, as the dict path gives them."""
    small = {"requests": {"cpu": "1"}}
    port = [{"containerPort": 2, "hostPort": 7071}]
    variants = {
        "one": [{"name": "a", "resources": RESOURCES}],
        "one-port": [{"name": "a", "resources": RESOURCES, "ports": port}],
        "one-null-ports": [{"name": "a", "resources": RESOURCES, "ports": None}],
        "two": [{"name": "a", "resources": RESOURCES}, {"name": "b", "resources": small}],
        "two-swapped": [{"name": "b", "resources": small}, {"name": "a", "resources": RESOURCES}],
        "two-same": [{"name": "a", "resources": RESOURCES}, {"name": "b", "resources": RESOURCES}],
        "two-second-port": [{"name": "a", "resources": RESOURCES},
                            {"name": "b", "resources": small, "ports": port}],
        "three": [{"name": "a", "resources": RESOURCES}, {"name": "b", "resources": small},
                  {"name": "c", "resources": small}],
    }
    objects = [_node("n1")]
    for round_ in range(2):  # the second round hits the cache of the first
        for name, containers in variants.items():
            objects.append(_pod(f"{name}-{round_}", containers=containers))
        objects.append(_pod(f"init-{round_}", initContainers=[{"name": "i", "resources": small}]))
        objects.append(_pod(f"overhead-{round_}", overhead={"cpu": "1"}))
    path = _write_list(tmp_path / "c.json", objects)
    assert _assert_same(path) == len(objects)
    pods = {p.name: p for p in assemble(typed.read_json_cluster(
        str(path), path.read_bytes(), workload=False), JobOverrides()).pods}
    assert pods["one-0"].requests == {"cpu": 500, "memory": 1024**3}
    assert pods["one-port-1"].host_ports and not pods["one-1"].host_ports
    assert pods["two-1"].requests == pods["two-swapped-0"].requests == {
        "cpu": 1500, "memory": 1024**3}
    assert pods["two-same-1"].requests == {"cpu": 1000, "memory": 2 * 1024**3}
    assert pods["three-0"].requests["cpu"] == 2500


def test_node_list_items_may_omit_kind(tmp_path: Path) -> None:
    nodes = [{k: v for k, v in _node(f"n{i}").items() if k != "kind"} for i in range(3)]
    path = _write_list(tmp_path / "nodes.json", nodes, kind="NodeList")
    assert _assert_same(path) == 3


def test_snapshot_decodes_identically(tmp_path: Path, generated: Path) -> None:
    from tasplan.cli.live import LiveOptions
    from tasplan.cli.snapshot import run_snapshot

    # (A snapshot's pod table requires string labels of every pod.)
    objects = [o for o in _objects() if o["metadata"]["name"] != "odd-labels"]
    cluster = _write_list(tmp_path / "c.json", objects)
    for source in (cluster, generated):
        out = tmp_path / f"{source.stem}.snapshot.json"
        run_snapshot(str(out), [source], LiveOptions(quiet=True), False)
        assert _assert_same(out) > 0


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("change", [
    lambda o: o[7]["spec"]["containers"][0]["resources"]["requests"].update(cpu="lots"),
    lambda o: o[7]["spec"].update(priority=1.5),
    lambda o: o[7]["spec"].update(priority=2**64),
    lambda o: o[7]["spec"].update(schedulingGroup={}),
    lambda o: o[7]["spec"]["containers"][0].update(ports=[{"hostPort": 0.5}]),
    lambda o: o[7]["metadata"].update(name=""),
    lambda o: o[0]["spec"].update(unschedulable=None),
    lambda o: o[0]["spec"].update(taints=[{"key": "k", "effect": "Sometimes"}]),
    lambda o: o[0]["status"]["allocatable"].update(cpu=None),
    lambda o: o[0]["metadata"]["labels"].update(zone=1),
    lambda o: o.append(3),
    lambda o: o[7].update(status={"startTime": "2026-02-29T00:00:00Z"}),
    lambda o: o[7].update(status={"startTime": 1767225600}),
    lambda o: o[7]["metadata"].update(uid=7),
    lambda o: o[7].update(status={"startTime": ""}),
    lambda o: o.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
                        "spec": {"priority": "high"}}) or o[7].update(
        status={"startTime": "2026-13-01T00:00:00Z"}),
], ids=["quantity", "float-priority", "huge-priority", "group-name", "host-port",
        "pod-name", "unschedulable", "taint-effect", "allocatable", "node-label", "not-object",
        "start-time-day", "start-time-number", "uid", "start-time-empty",
        "start-time-month-item-by-item"])
def test_errors_are_the_dict_paths(tmp_path: Path, change) -> None:
    objects = copy.deepcopy(_objects())
    change(objects)
    path = _write_list(tmp_path / "c.json", objects)
    error = _same_error(path)
    assert error.source == str(path)


def test_invalid_json_and_utf8_are_the_dict_paths_errors(tmp_path: Path) -> None:
    path = _write_list(tmp_path / "c.json", _objects())
    text = path.read_bytes()
    for i, bad in enumerate((text.replace(b'"plain"', b'"pl\xffain"'),
                             text.replace(b'"ns"', b'"ns",', 1), text + b"x")):
        broken = tmp_path / f"bad{i}.json"
        broken.write_bytes(bad)
        assert typed.read_json_cluster(str(broken), bad, workload=False) is None
        assert "invalid JSON" in str(_same_error(broken)) or "UTF-8" in str(_same_error(broken))


def test_a_split_that_is_not_an_item_boundary_falls_back(tmp_path: Path) -> None:
    """A nested object formatted at the items' indentation: the piece does not decode, so
    the file is read whole (and identically)."""
    objects = _objects()
    text = json.dumps({"apiVersion": "v1", "items": objects, "kind": "List"}, indent=4)
    marker = '"spec": {},'
    trap = ('"spec": {"x": [\n        {\n        "a": 1\n        },\n        {\n'
            '        "b": 2\n        }\n    ]},')
    assert marker in text
    path = tmp_path / "c.json"
    path.write_text(text.replace(marker, trap, 1))
    assert typed.read_json_stream(path, workload=False, chunk_bytes=1) is None
    assert _state(list(read_documents(path, workload=False, typed=True))) == _state(
        _dict_path(path))


def test_generated_names_skip_the_names_of_typed_pods(tmp_path: Path) -> None:
    """A workload pod with ``generateName: plain-`` next to a typed cluster pod named
    ``plain-00000``: both readers give it the next free name (the typed Document carries
    its name in the model, not in ``obj``)."""
    objects = _objects()
    objects[7]["metadata"]["name"] = "plain-00000"
    cluster = _write_list(tmp_path / "c.json", objects)
    workload = tmp_path / "w.json"
    pending = _pod("x", node="")
    pending["metadata"] = {"generateName": "plain-", "namespace": "ns"}
    workload.write_text(json.dumps(pending))
    docs = typed.read_json_cluster(str(cluster), cluster.read_bytes(), workload=False)
    assert docs is not None and any(d.model is not None and d.model.name == "plain-00000"
                                    for d in _expanded(docs))
    work = list(read_documents(workload, workload=True))
    names = [sorted(p.name for p in assemble(d + work, JobOverrides()).pods
                    if p.name.startswith("plain-")) for d in (docs, _dict_path(cluster))]
    assert names[0] == names[1] == ["plain-00000", "plain-00001"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([b"\\", b"\\\\", b"0", b"x00", b"u0000", b"U00000000", b"ud8",
                                 b"uDa", b"U0000d9", b"u0026", b"a", b"\"", b"x" * 40]),
                max_size=60), st.integers(min_value=0, max_value=3))
def test_risky_escape_is_the_regex_search(parts, pad) -> None:
    """The backslash-to-backslash scan answers as one regex search of the whole text, on
    sparse and on backslash-dense texts (where it hands over to the regex)."""
    from tasplan.load.strict import _RISKY_ESCAPE, risky_escape

    data = b"".join(parts) + b" " * (pad * 4096)
    assert risky_escape(data) == (_RISKY_ESCAPE.search(data) is not None)
    assert risky_escape(bytearray(data)) == risky_escape(data)
