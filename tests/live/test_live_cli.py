"""``check --live`` and ``snapshot --live`` end to end: the real ``kubernetes`` client
configuration against the loopback API server (tests/live/apiserver.py)."""

from __future__ import annotations

import gzip
import json
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from tasplan import load_inputs
from tasplan.cli.app import app
from tasplan.live import lister
from tests.live.apiserver import TOKEN, Cluster, serve, write_kubeconfig
from tests.live.conftest import REPO, SAMPLE_CLUSTER, SAMPLE_WORKLOADS

TRAIN = SAMPLE_WORKLOADS / "train-rack.yaml"


def invoke(*args: str | Path, env: dict | None = None):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200", **(env or {})})


def assert_one_line_error(result, *needles: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    err = result.stderr
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, err
    return err


# ------------------------------------------------------------------------------- happy path


def test_check_live_equals_check_on_the_same_objects_as_files(kubeconfig: Path,
                                                              cluster: Cluster) -> None:
    """The live path (raw lists -> pruned snapshot -> loader) plans exactly what the files
    give: the same JSON report, byte for byte."""
    live = invoke("check", TRAIN, "--live", "-o", "json")
    files = invoke("check", TRAIN, "-c", SAMPLE_CLUSTER, "-o", "json")
    assert live.exit_code == files.exit_code == 0, live.stderr
    assert live.stdout == files.stdout
    assert {r.method for r in cluster.requests} == {"GET"}


def test_explain_live_equals_explain_on_the_same_objects_as_files(kubeconfig: Path,
                                                                  cluster: Cluster) -> None:
    """explain reads a live cluster through the same path: same report, GETs only."""
    too_big = SAMPLE_WORKLOADS / "train-too-big.yaml"
    live = invoke("explain", too_big, "--live", "-o", "json")
    files = invoke("explain", too_big, "-c", SAMPLE_CLUSTER, "-o", "json")
    assert live.exit_code == files.exit_code == 1, live.stderr
    assert live.stdout == files.stdout
    assert json.loads(live.stdout)["groups"][0]["explanation"]["suggestions"]
    assert {r.method for r in cluster.requests} == {"GET"}


def test_every_request_is_a_get_and_lists_are_paginated(kubeconfig: Path, cluster: Cluster,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lister, "PAGE_SIZE", 7)
    result = invoke("check", TRAIN, "--live", "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert {r.method for r in cluster.requests} == {"GET"}
    pods = [r for r in cluster.requests if r.path == "/api/v1/pods"]
    n_pods = len(cluster.objects["/api/v1/pods"])
    assert len(pods) == -(-n_pods // 7)  # ceil: every page requested once
    assert all(r.query["limit"] == "7" for r in pods)
    assert [r.query.get("continue") for r in pods] == [None, *(str(7 * i)
                                                               for i in range(1, len(pods)))]
    document = json.loads(result.stdout)
    files = json.loads(invoke("check", TRAIN, "-c", SAMPLE_CLUSTER, "-o", "json").stdout)
    assert document == files


def test_expired_continue_token_restarts_the_list(kubeconfig: Path, cluster: Cluster,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lister, "PAGE_SIZE", 10)
    cluster.expire_once.add("/api/v1/pods")
    live = invoke("check", TRAIN, "--live", "-o", "json")
    files = invoke("check", TRAIN, "-c", SAMPLE_CLUSTER, "-o", "json")
    assert live.stdout == files.stdout  # no pod lost or counted twice
    pods = [r.query.get("continue") for r in cluster.requests if r.path == "/api/v1/pods"]
    # first page, the expired second page, then the whole list again from the start
    assert pods[:3] == [None, "10", None]


def test_snapshot_live_writes_gzip_with_origin_and_reloads(kubeconfig: Path, tmp_path: Path,
                                                           server: str) -> None:
    out = tmp_path / "cluster.json.gz"
    result = invoke("snapshot", "-o", out, "--live", "-q")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""  # --quiet
    document = json.loads(gzip.decompress(out.read_bytes()))
    meta = document["metadata"]
    assert (document["apiVersion"], document["kind"]) == ("tasplan/v1", "ClusterSnapshot")
    assert meta["server"] == server and meta["context"] == "test"
    assert meta["cluster"] == "test-cluster" and meta["serverVersion"] == "v1.37.0"
    assert meta["schedulingVersion"] == "scheduling.k8s.io/v1beta1"
    assert meta["durationSeconds"] >= 0 and meta["takenAt"].endswith("Z")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cluster.json.gz", "config"]
    assert TOKEN not in out.read_bytes().decode("latin-1")
    again = invoke("check", TRAIN, "-c", out, "-o", "json")
    files = invoke("check", TRAIN, "-c", SAMPLE_CLUSTER, "-o", "json")
    assert again.stdout == files.stdout


def test_namespace_limits_namespaced_lists(kubeconfig: Path, cluster: Cluster,
                                           tmp_path: Path) -> None:
    out = tmp_path / "ml.json"
    assert invoke("snapshot", "-o", out, "--live", "-n", "ml").exit_code == 0
    paths = {r.path for r in cluster.requests}
    assert "/api/v1/namespaces/ml/pods" in paths and "/api/v1/pods" not in paths
    assert "/api/v1/nodes" in paths  # nodes are cluster-scoped
    pods = json.loads(out.read_text())["pods"]
    namespaces = {m["namespace"] for m in pods["metadata"]}
    assert namespaces == {"ml"}


# ------------------------------------------------------------------------- kubeconfig rules


def test_kubeconfig_list_is_merged_and_context_selected(tmp_path: Path, server: str,
                                                        cluster: Cluster,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """KUBECONFIG=a:b: contexts from both files; the first file's current-context wins;
    --context picks another. Neither file changes by a byte."""
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    first = write_kubeconfig(tmp_path / "a", "http://127.0.0.1:1", context="broken",
                             cluster="nowhere", user="nobody", current=False)
    second = write_kubeconfig(tmp_path / "b", server, context="good")
    config = yaml.safe_load(first.read_text())
    config["current-context"] = "good"  # defined in the second file
    first.write_text(yaml.safe_dump(config))
    before = (first.read_bytes(), second.read_bytes())
    env = {"KUBECONFIG": f"{first}:{second}"}

    ok = invoke("check", TRAIN, "--live", "-o", "json", env=env)
    assert ok.exit_code == 0, ok.stderr
    bad = invoke("check", TRAIN, "--live", "--context", "broken", env=env)
    assert_one_line_error(bad, "cannot reach the API server", "http://127.0.0.1:1")
    missing = invoke("check", TRAIN, "--live", "--context", "nope", env=env)
    assert_one_line_error(missing, "context 'nope' not found", "broken", "good")
    assert (first.read_bytes(), second.read_bytes()) == before


def test_kubeconfig_flag_overrides_environment(tmp_path: Path, server: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "does-not-exist"))
    path = write_kubeconfig(tmp_path / "mine", server)
    result = invoke("check", TRAIN, "--live", "--kubeconfig", path, "-o", "json")
    assert result.exit_code == 0, result.stderr
    missing = invoke("check", TRAIN, "--live", "--kubeconfig", tmp_path / "nope")
    assert_one_line_error(missing, "kubeconfig file not found")


def test_exec_credential_plugin_token_is_used_and_never_persisted(
        tmp_path: Path, server: str, cluster: Cluster,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    plugin = tmp_path / "plugin.py"
    plugin.write_text(textwrap.dedent(f"""
        import json
        print(json.dumps({{"apiVersion": "client.authentication.k8s.io/v1",
                           "kind": "ExecCredential", "status": {{"token": "{TOKEN}",
                           "expirationTimestamp": "2999-01-01T00:00:00Z"}}}}))
    """))
    path = write_kubeconfig(tmp_path / "config", server, extra_user={"exec": {
        "apiVersion": "client.authentication.k8s.io/v1", "command": sys.executable,
        "args": [str(plugin)], "interactiveMode": "Never"}})
    before = path.read_bytes()
    result = invoke("check", TRAIN, "--live", "-o", "json", env={"KUBECONFIG": str(path)})
    assert result.exit_code == 0, result.stderr
    assert cluster.requests and all(r.headers.get("authorization") == f"Bearer {TOKEN}"
                                    for r in cluster.requests)
    assert path.read_bytes() == before


# --------------------------------------------------------------------------------- failures


def test_401_is_one_line_naming_the_request_and_never_the_token(
        tmp_path: Path, server: str, cluster: Cluster) -> None:
    wrong = "wrong-token-0123456789abcdef"
    path = write_kubeconfig(tmp_path / "config", server, token=wrong)
    result = invoke("check", TRAIN, "--live", env={"KUBECONFIG": str(path)})
    err = assert_one_line_error(result, "401 Unauthorized for get the server version", server)
    assert wrong not in err + result.stdout


def test_403_names_verb_resource_and_the_read_only_role(kubeconfig: Path,
                                                        cluster: Cluster) -> None:
    cluster.forbidden.add("/api/v1/pods")
    result = invoke("check", TRAIN, "--live")
    err = assert_one_line_error(result, "403 Forbidden: RBAC does not allow list on pods",
                                "samples/rbac/tasplan-reader.yaml",
                                'User "alice" cannot list resource "pods"')
    assert TOKEN not in err + result.stdout


def test_retry_after_is_honoured_then_succeeds(kubeconfig: Path, cluster: Cluster,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []
    monkeypatch.setattr(lister.time, "sleep", waits.append)
    cluster.failures["/api/v1/nodes"] = [(429, "2"), (503, None), (500, "1")]
    result = invoke("check", TRAIN, "--live", "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert waits == [2.0, 1.0, 1.0]  # Retry-After, backoff for attempt 2, Retry-After
    nodes = [r for r in cluster.requests if r.path == "/api/v1/nodes"]
    assert len(nodes) == 4


def test_retries_are_bounded(kubeconfig: Path, cluster: Cluster,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lister.time, "sleep", lambda s: None)
    cluster.failures["/api/v1/pods"] = [(503, "1")] * 10
    result = invoke("check", TRAIN, "--live")
    assert_one_line_error(result, "503 Service Unavailable for list pods, still after 5 "
                          "attempts", "fake failure 503")
    assert len([r for r in cluster.requests if r.path == "/api/v1/pods"]) == 5


def test_request_timeout(kubeconfig: Path, cluster: Cluster) -> None:
    cluster.delay = 2.0
    result = invoke("check", TRAIN, "--live", "--request-timeout", "300ms")
    assert_one_line_error(result, "no answer within 0.3s", "--request-timeout")


def test_unreachable_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_kubeconfig(tmp_path / "config", "https://user:pw@127.0.0.1:9/")
    result = invoke("check", TRAIN, "--live", env={"KUBECONFIG": str(path)})
    err = assert_one_line_error(result, "cannot reach the API server", "https://127.0.0.1:9")
    assert "pw" not in err and TOKEN not in err


def test_workload_api_not_enabled_is_a_clear_warning(kubeconfig: Path,
                                                     cluster: Cluster) -> None:
    cluster.scheduling_versions = ("v1",)
    result = invoke("check", TRAIN, "--live", "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert "warning: the Workload API (scheduling.k8s.io Workload and PodGroup) is not " \
        "enabled on this cluster" in result.stderr
    assert not [r for r in cluster.requests if "workloads" in r.path or "podgroups" in r.path]


def test_reads_each_object_once_through_the_newest_understood_version(
        kubeconfig: Path, cluster: Cluster, tmp_path: Path) -> None:
    cluster.scheduling_versions = ("v1", "v1alpha1", "v1alpha2", "v1beta1", "v2alpha9")
    assert invoke("snapshot", "-o", tmp_path / "s.json", "--live").exit_code == 0
    lists = sorted(r.path for r in cluster.requests if r.path.endswith(("workloads",
                                                                         "podgroups")))
    assert lists == ["/apis/scheduling.k8s.io/v1beta1/podgroups",
                     "/apis/scheduling.k8s.io/v1beta1/workloads"]


def test_live_flags_need_live(tmp_path: Path) -> None:
    result = invoke("check", TRAIN, "-c", SAMPLE_CLUSTER, "--context", "x",
                    "--request-timeout", "5s", "-n", "ml")  # -n has a meaning without --live
    assert_one_line_error(result, "--context, --request-timeout only apply with --live")


def test_tokens_never_appear_in_any_output(tmp_path: Path, server: str, cluster: Cluster,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Every failure path, with the token the server expects and a wrong one."""
    monkeypatch.setattr(lister.time, "sleep", lambda s: None)
    outputs = []
    for token in (TOKEN, "another-secret-token-abcdef"):
        path = write_kubeconfig(tmp_path / "config", server, token=token)
        env = {"KUBECONFIG": str(path)}
        for setup in ("ok", "forbidden", "failing", "expired"):
            cluster.forbidden = {"/api/v1/nodes"} if setup == "forbidden" else set()
            cluster.failures = {"/api/v1/pods": [(500, None)] * 5} if setup == "failing" \
                else {}
            cluster.expire_once = {"/api/v1/pods"} if setup == "expired" else set()
            for args in (("check", TRAIN, "--live", "-o", "json"),
                         ("snapshot", "-o", "-", "--live")):
                result = invoke(*args, env=env)
                outputs.append(result.stdout + result.stderr)
    text = "\n".join(outputs)
    assert "error: " in text  # the failure paths ran
    assert TOKEN not in text and "another-secret-token-abcdef" not in text
    assert {r.method for r in cluster.requests} == {"GET"}


def test_the_sample_cluster_role_grants_every_request_tasplan_makes(
        kubeconfig: Path, cluster: Cluster, tmp_path: Path) -> None:
    """samples/rbac: each list tasplan sends is allowed by the ClusterRole, and the role
    grants nothing beyond get/list."""
    role = next(yaml.safe_load_all((REPO / "samples/rbac/tasplan-reader.yaml").read_text()))
    granted = {(group, resource) for rule in role["rules"] for group in rule["apiGroups"]
               for resource in rule["resources"]}
    assert {v for rule in role["rules"] for v in rule["verbs"]} == {"get", "list"}
    assert invoke("snapshot", "-o", tmp_path / "s.json", "--live").exit_code == 0
    listed = set()
    for r in cluster.requests:
        if "limit" not in r.query:
            continue  # discovery and /version: allowed to every authenticated user
        parts = r.path.strip("/").split("/")
        group = "" if parts[0] == "api" else parts[1]
        listed.add((group, parts[-1]))
    assert listed == {("", "nodes"), ("", "pods"), ("scheduling.k8s.io", "priorityclasses"),
                      ("scheduling.k8s.io", "workloads"), ("scheduling.k8s.io", "podgroups"),
                      ("policy", "poddisruptionbudgets"), ("", "namespaces"), ("", "services"),
                      ("", "replicationcontrollers"), ("apps", "replicasets"),
                      ("apps", "statefulsets")}
    assert listed <= granted
    assert listed <= granted


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (openssl; skipped without it)."""
    import shutil
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("openssl not available")
    cert, key = tmp_path / "tls.crt", tmp_path / "tls.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


def test_tls_with_the_kubeconfig_ca_works_and_without_it_fails_clearly(
        tmp_path: Path, cluster: Cluster, certificate: tuple[Path, Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    with serve(cluster, tls=certificate) as url:
        trusted = write_kubeconfig(tmp_path / "trusted", url, ca=certificate[0])
        ok = invoke("check", TRAIN, "--live", "-o", "json", env={"KUBECONFIG": str(trusted)})
        assert ok.exit_code == 0, ok.stderr
        untrusted = write_kubeconfig(tmp_path / "untrusted", url)
        bad = invoke("check", TRAIN, "--live", env={"KUBECONFIG": str(untrusted)})
    err = assert_one_line_error(bad, "TLS failure talking to the API server",
                                "certificate verify failed", "certificate-authority")
    assert TOKEN not in err


def test_progress_reports_objects_and_bytes_per_page(kubeconfig: Path, cluster: Cluster,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from tasplan.live.cluster import read_cluster
    from tasplan.live.config import connect

    monkeypatch.setattr(lister, "PAGE_SIZE", 20)
    seen: list[lister.ListProgress] = []
    connection = connect()
    document, warnings = read_cluster(connection, progress=seen.append)
    connection.close()
    pages = len([r for r in cluster.requests if "limit" in r.query])
    assert len(seen) == pages and warnings == []
    assert [p.objects for p in seen] == sorted(p.objects for p in seen)
    total = sum(len(v) for v in cluster.objects.values())
    assert seen[-1].objects == total == len(document["items"]) + len(document["pods"]["name"])
    assert seen[-1].resource == "pods" and seen[-1].bytes > 0


@pytest.mark.parametrize(("text", "seconds"), [
    ("30", 30.0), ("30s", 30.0), ("2m", 120.0), ("1h", 3600.0), ("250ms", 0.25),
    ("0", None), (None, None)])
def test_request_timeout_accepts_kubectl_durations(text: str | None,
                                                   seconds: float | None) -> None:
    from tasplan.cli.live import parse_timeout

    assert parse_timeout(text) == seconds


def test_request_timeout_rejects_nonsense(kubeconfig: Path) -> None:
    result = invoke("check", TRAIN, "--live", "--request-timeout", "soon")
    assert_one_line_error(result, "--request-timeout: expected a duration such as 30s")


def test_live_reads_composite_pod_groups_and_snapshots_keep_them(
        kubeconfig: Path, cluster: Cluster, tmp_path: Path) -> None:
    """A live cluster serving scheduling.k8s.io/v1alpha3 compositepodgroups: the tree's
    CompositePodGroup, PodGroups and Workload come from the server, the pods from a file;
    the plan equals the all-files plan, and a snapshot keeps the CompositePodGroup."""
    import yaml as _yaml

    sample = REPO / "samples" / "composite" / "train-2level.yaml"
    objs = [o for o in _yaml.safe_load_all(sample.read_text())]
    pods = [o for o in objs if o["kind"] == "Pod"]
    cluster.scheduling_versions = ("v1", "v1alpha3")
    cluster.workload_resources = ("workloads", "podgroups", "compositepodgroups")
    cluster.add(*[o for o in objs if o["kind"] != "Pod"])
    pod_file = tmp_path / "pods.yaml"
    pod_file.write_text(_yaml.safe_dump_all(pods))
    live = invoke("check", pod_file, "--live", "-o", "json")
    files = invoke("check", sample, "-c", SAMPLE_CLUSTER, "-o", "json")
    assert live.exit_code == files.exit_code == 0, live.stderr
    live_doc, file_doc = json.loads(live.stdout), json.loads(files.stdout)
    assert live_doc["groups"] == file_doc["groups"]
    assert live_doc["groups"][0]["kind"] == "CompositePodGroup"
    assert any(r.path == "/apis/scheduling.k8s.io/v1alpha3/compositepodgroups"
               for r in cluster.requests)
    assert invoke("snapshot", "-o", tmp_path / "s.json", "--live").exit_code == 0
    kinds = [i["kind"] for i in json.loads((tmp_path / "s.json").read_text())["items"]]
    assert kinds.count("CompositePodGroup") == 1
    again = invoke("check", pod_file, "-c", tmp_path / "s.json", "-o", "json")
    assert json.loads(again.stdout)["groups"] == file_doc["groups"]


# ------------------------------------------------------------------------------------ DRA

DRA_SAMPLES = REPO / "samples" / "dra"


def _dra_cluster(cluster: Cluster) -> None:
    from tasplan.load.documents import expand_paths, read_documents
    cluster.objects.clear()
    cluster.add(*[d.obj for f in expand_paths(DRA_SAMPLES / "cluster")
                  for d in read_documents(f, workload=False)])
    cluster.resource_versions = ("v1",)


def test_check_live_reads_dra_objects_like_files(kubeconfig: Path, cluster: Cluster) -> None:
    """Devices, classes and claims are listed through resource.k8s.io/v1 (RBAC sample
    grants them) and plan exactly as the same objects in files."""
    _dra_cluster(cluster)
    workload = DRA_SAMPLES / "workloads" / "train-fabric.yaml"
    live = invoke("check", workload, "--live", "-o", "json")
    files = invoke("check", workload, "-c", DRA_SAMPLES / "cluster", "-o", "json")
    assert live.exit_code == files.exit_code == 0, live.stderr
    assert live.stdout == files.stdout
    assert json.loads(live.stdout)["groups"][0]["selected"] == "rack-3"
    role = next(yaml.safe_load_all((REPO / "samples/rbac/tasplan-reader.yaml").read_text()))
    granted = {(g, r) for rule in role["rules"] for g in rule["apiGroups"]
               for r in rule["resources"]}
    listed = {("resource.k8s.io", r.path.rsplit("/", 1)[-1]) for r in cluster.requests
              if r.path.startswith("/apis/resource.k8s.io/v1/") and "limit" in r.query}
    assert ("resource.k8s.io", "resourceslices") in listed and listed <= granted


def test_forbidden_dra_lists_are_a_warning(kubeconfig: Path, cluster: Cluster) -> None:
    """Without RBAC for resource.k8s.io the cluster is still read; the user is told."""
    _dra_cluster(cluster)
    cluster.forbidden = {"/apis/resource.k8s.io/v1/resourceslices"}
    result = invoke("check", DRA_SAMPLES / "workloads" / "train-fabric.yaml", "--live",
                    "-o", "json")
    assert "RBAC does not allow listing resourceslices.resource.k8s.io" in result.stderr
    assert result.exit_code == 1  # no devices: the gang cannot get its GPUs


def test_capacity_and_what_if_live_equal_files_and_snapshot(kubeconfig: Path,
                                                            cluster: Cluster,
                                                            tmp_path: Path) -> None:
    """``capacity`` and what-if edits read a live cluster, a snapshot of it and the same
    objects as files alike."""
    shape = ("--shape", "cpu=48,memory=256Gi,nvidia.com/gpu=8", "--tolerate", "nvidia.com/gpu",
             "--drain", "rack=rack-b1", "-o", "json")
    live = invoke("capacity", "--live", "-q", *shape)
    files = invoke("capacity", "-c", SAMPLE_CLUSTER, *shape)
    assert live.exit_code == 0, live.output
    assert json.loads(live.stdout) == json.loads(files.stdout)
    out = tmp_path / "snap.json.gz"
    assert invoke("snapshot", "-o", out, "--live", "-q").exit_code == 0
    again = invoke("capacity", "-c", out, *shape)
    assert json.loads(again.stdout) == json.loads(files.stdout)
    edits = ("--evict", "namespace=research", "--add-nodes", "2", "--like", "gpu-a1-0",
             "--in", "rack-z", "-o", "json")
    assert json.loads(invoke("check", TRAIN, "--live", "-q", *edits).stdout) == \
        json.loads(invoke("check", TRAIN, "-c", out, *edits).stdout)


KAI_OBJECTS = [
    {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": "dc"},
     "spec": {"levels": [{"nodeLabel": "topology.example.com/block", "alias": "block"},
                         {"nodeLabel": "topology.example.com/rack", "alias": "rack"}]}},
    {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
     "metadata": {"name": "train", "namespace": "ml"},
     "spec": {"minMember": 4, "topologyConstraint": {"topology": "dc",
                                                      "requiredTopologyLevel": "rack"}}},
]


def test_kai_objects_are_listed_when_served(kubeconfig: Path, cluster: Cluster,
                                            tmp_path: Path) -> None:
    """KAI's Topologies and PodGroups come with the cluster when the server serves them
    (RBAC sample grants them) and are kept in the snapshot; a forbidden list is a
    warning."""
    cluster.kai = True
    cluster.add(*KAI_OBJECTS)
    snapshot = tmp_path / "s.json"
    assert invoke("snapshot", "-o", snapshot, "--live").exit_code == 0
    from tasplan.load.loader import load_inputs

    loaded = load_inputs([], [snapshot])
    assert list(loaded.kai.topologies) == ["dc"] and list(loaded.kai.pod_groups) == ["ml/train"]
    role = next(yaml.safe_load_all((REPO / "samples/rbac/tasplan-reader.yaml").read_text()))
    granted = {(g, r) for rule in role["rules"] for g in rule["apiGroups"]
               for r in rule["resources"]}
    listed = {(r.path.split("/")[2], r.path.rsplit("/", 1)[-1]) for r in cluster.requests
              if "limit" in r.query and r.path.startswith(("/apis/kai.scheduler",
                                                           "/apis/scheduling.run.ai"))}
    assert listed == {("kai.scheduler", "topologies"), ("scheduling.run.ai", "podgroups")}
    assert listed <= granted
    cluster.forbidden = {"/apis/scheduling.run.ai/v2alpha2/podgroups"}
    result = invoke("snapshot", "-o", tmp_path / "t.json", "--live")
    assert result.exit_code == 0
    assert ("RBAC does not allow listing podgroups.scheduling.run.ai: KAI's Topologies and "
            "PodGroups are planned without it") in result.stderr


# ---------------------------------------------------------------------------------- Kueue

KUEUE_SAMPLES = REPO / "samples" / "kueue"


def _kueue_cluster(cluster: Cluster) -> list[dict]:
    """The sample cluster plus the sample Topology, flavor and queues, served through
    kueue.x-k8s.io/v1beta2; returns the Kueue objects."""
    from tasplan.load.documents import read_documents
    kueue = [d.obj for name in ("topology.yaml", "flavor.yaml", "queues.yaml")
             for d in read_documents(KUEUE_SAMPLES / name, workload=False)]
    cluster.add(*kueue)
    cluster.kueue_versions = ("v1beta2",)
    return kueue


def test_live_lists_kueue_objects_into_the_snapshot(kubeconfig: Path, cluster: Cluster,
                                                    tmp_path: Path) -> None:
    """Topologies, flavors and queues are read through kueue.x-k8s.io (the RBAC sample
    grants them) and kept by the snapshot."""
    _kueue_cluster(cluster)
    out = tmp_path / "s.json"
    result = invoke("snapshot", "-o", out, "--live", "-q")
    assert result.exit_code == 0, result.output
    snapshot = load_inputs([], [out])
    assert set(snapshot.kueue.topologies) == {"gpu-topology"}
    assert snapshot.kueue.flavors["h100"].topology_name == "gpu-topology"
    assert snapshot.kueue.local_queues["ml/team-ml"].cluster_queue == "training"
    role = next(yaml.safe_load_all((REPO / "samples/rbac/tasplan-reader.yaml").read_text()))
    granted = {(g, r) for rule in role["rules"] for g in rule["apiGroups"]
               for r in rule["resources"]}
    listed = {("kueue.x-k8s.io", r.path.rsplit("/", 1)[-1]) for r in cluster.requests
              if r.path.startswith("/apis/kueue.x-k8s.io/") and "limit" in r.query}
    assert ("kueue.x-k8s.io", "topologies") in listed and listed <= granted


def test_forbidden_kueue_lists_are_a_warning(kubeconfig: Path, cluster: Cluster,
                                             tmp_path: Path) -> None:
    _kueue_cluster(cluster)
    cluster.forbidden = {"/apis/kueue.x-k8s.io/v1beta2/workloads"}
    result = invoke("snapshot", "-o", tmp_path / "s.json", "--live", "-q")
    assert result.exit_code == 0, result.output
    assert "RBAC does not allow listing workloads.kueue.x-k8s.io" in result.stderr
    assert "Kueue's objects are planned without it" in result.stderr


def test_binary_snapshot_live_has_the_bytes_of_the_same_objects_as_files(
        kubeconfig: Path, tmp_path: Path) -> None:
    """``snapshot --live -f x.tsnap`` writes what ``snapshot -c`` of the same objects as
    files writes, byte for byte once the origin (server, time, inputs) is set aside; and
    the reports read from it are the files' reports."""
    from tasplan.load.documents import _binary_snapshot
    from tasplan.snapshot import binary

    live, files = tmp_path / "live.tsnap", tmp_path / "files.tsnap"
    assert invoke("snapshot", "-f", live, "--live", "-q").exit_code == 0
    # The files in the order the live read lists the kinds.
    in_order = [a for name in ("nodes", "priorityclasses", "poddisruptionbudgets", "pods")
                for a in ("-c", SAMPLE_CLUSTER / f"{name}.yaml")]
    assert invoke("snapshot", "-f", files, *in_order, "-q").exit_code == 0
    documents = [_binary_snapshot(str(p), p.read_bytes()) for p in (live, files)]
    assert documents[0]["metadata"]["server"] and not documents[1]["metadata"]["server"]
    for document in documents:
        document["metadata"] = {}
    assert binary.encode(documents[0]) == binary.encode(documents[1])
    assert invoke("check", TRAIN, "-c", live, "-o", "json").stdout == \
        invoke("check", TRAIN, "-c", SAMPLE_CLUSTER, "-o", "json").stdout
