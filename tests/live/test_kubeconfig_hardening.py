"""kubeconfig files as hostile input: every problem is exit 2 naming the file, no secret of
a user entry is ever printed, kubectl's merge rules hold, temporary credential files are
removed on every exit, and a failing exec plugin is an error (issue 16)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from tests.live.apiserver import Cluster, write_kubeconfig
from tests.live.test_live_cli import TRAIN, assert_one_line_error, invoke

SECRET = "SUPERSECRET-kubeconfig-123456"
HEAD = """\
apiVersion: v1
kind: Config
current-context: c
clusters: [{name: k, cluster: {server: "https://127.0.0.1:1"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
"""


@pytest.fixture(autouse=True)
def _no_in_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)


@pytest.mark.parametrize(("content", "needle"), [
    (b"\xff\xfe\x00garbage", "UTF-16"),
    (b"apiVersion: v1\n\tkind: Config\n", "invalid YAML"),
    (b"- a\n- b\n", "expected one mapping"),
    (b"", "the file is empty"),
    (b"a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
     b"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
     b"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
     b"g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n", "alias bomb"),
    (b"apiVersion: v1\nkind: Config\nusers: {u: 1}\n", "users: expected a list"),
    (b"apiVersion: v1\nkind: Config\ncurrent-context: [a]\n", "current-context"),
])
def test_broken_kubeconfig_files_name_the_file(tmp_path: Path, content: bytes,
                                               needle: str) -> None:
    path = tmp_path / "config"
    path.write_bytes(content)
    result = invoke("check", TRAIN, "--live", env={"KUBECONFIG": str(path)})
    assert_one_line_error(result, str(path), needle)


def test_device_as_kubeconfig_is_refused() -> None:
    result = invoke("check", TRAIN, "--live", "--kubeconfig", "/dev/zero")
    assert_one_line_error(result, "/dev/zero", "not a regular file")


@pytest.mark.parametrize("user", [
    f"[{{name: u, token: {SECRET}}}]",  # the client names the entry by its dict
    f"[{{name: u, user: {{token: {SECRET}, client-certificate-data: '!!!notbase64', "
    "client-key-data: abc}}]",
    f"[{{name: u, user: {{password: {SECRET}, username: 5}}}}]",
])
def test_client_errors_never_print_user_secrets(tmp_path: Path, user: str) -> None:
    path = tmp_path / "config"
    path.write_text(HEAD + f"users: {user}\n")
    result = invoke("check", TRAIN, "--live", env={"KUBECONFIG": str(path)})
    assert_one_line_error(result, str(path), "invalid kubeconfig")
    assert SECRET not in result.stdout + result.stderr


def test_first_files_current_context_wins_as_in_kubectl(tmp_path: Path, server: str,
                                                         cluster: Cluster) -> None:
    """The Python client's merger takes the last file's current-context."""
    first = write_kubeconfig(tmp_path / "a", server, context="good")
    second = write_kubeconfig(tmp_path / "b", "http://127.0.0.1:1", context="broken",
                              cluster="nowhere", user="nobody")
    result = invoke("check", TRAIN, "--live", "-o", "json",
                    env={"KUBECONFIG": f"{first}{os.pathsep}{second}"})
    assert result.exit_code == 0, result.stderr
    assert cluster.requests


def test_failing_exec_plugin_is_an_error_and_nothing_is_sent(tmp_path: Path, server: str,
                                                             cluster: Cluster) -> None:
    plugin = tmp_path / "plugin.py"
    plugin.write_text(f"import sys\nprint('boom {SECRET}', file=sys.stderr)\nsys.exit(1)\n")
    path = write_kubeconfig(tmp_path / "config", server, extra_user={"exec": {
        "apiVersion": "client.authentication.k8s.io/v1", "command": sys.executable,
        "args": [str(plugin)], "interactiveMode": "Never", "env": [
            {"name": "X", "value": SECRET}]}})
    result = invoke("check", TRAIN, "--live", env={"KUBECONFIG": str(path)})
    assert_one_line_error(result, "exec credential plugin", "failed")
    assert SECRET not in result.stdout + result.stderr
    assert cluster.requests == []


def test_temporary_certificate_files_are_removed_through_os_exit(tmp_path: Path) -> None:
    """The client writes client-key-data to a temp file and removes it at interpreter
    exit; tasplan ends through os._exit, so it removes them itself."""
    import base64

    data = base64.b64encode(b"-----BEGIN PRIVATE KEY-----\nnot a key\n").decode()
    path = tmp_path / "config"
    path.write_text(HEAD + yaml.safe_dump({"users": [{"name": "u", "user": {
        "client-certificate-data": data, "client-key-data": data}}]}))
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "KUBECONFIG": str(path), "TMPDIR": str(temp)}
    result = subprocess.run([sys.executable, "-m", "tasplan", "check", str(TRAIN), "--live",
                             "--request-timeout", "2"], env=env, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1
    assert list(temp.iterdir()) == []
    assert data not in result.stderr


def test_exit_hooks_run_through_os_exit(tmp_path: Path) -> None:
    marker = tmp_path / "gone"
    marker.write_text("x")
    code = textwrap.dedent(f"""
        import os
        from pathlib import Path
        from tasplan.stdio import on_exit, run_exit_hooks
        on_exit(lambda: Path({str(marker)!r}).unlink())
        run_exit_hooks()
        os._exit(0)
    """)
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    assert not marker.exists()
