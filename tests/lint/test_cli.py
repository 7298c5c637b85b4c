"""``tasplan lint`` as CI runs it: exit codes, stdin file lists, --summary, errors."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from tasplan.cli.app import app
from tests.lint.helpers import FIXTURES, REPO

GOOD = str(FIXTURES / "good")
BAD = str(FIXTURES / "bad")


@pytest.fixture(autouse=True)
def _at_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def run(*args: str, stdin: str | None = None):
    return CliRunner().invoke(app, ["lint", *args], input=stdin, env={"COLUMNS": "200"})


def test_clean_input_exits_0_and_prints_no_findings() -> None:
    result = run(GOOD, "--strict")
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == "8 files, 21 resources, no findings\n"


def test_error_findings_exit_1() -> None:
    result = run(f"{BAD}/TP105-exactly-one-of.yaml")
    assert result.exit_code == 1
    assert result.stdout.startswith(f"{BAD}/TP105-exactly-one-of.yaml:8:5: error TP105: ")


def test_warnings_exit_0_unless_strict() -> None:
    path = f"{BAD}/TP201-unresolved-reference.yaml"
    assert run(path).exit_code == 0
    assert run(path, "--strict").exit_code == 1


def test_missing_file_exits_2_with_one_line() -> None:
    result = run(GOOD, "no/such/file.yaml", "-o", "sarif")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == "error: no/such/file.yaml: no such file or directory\n"


def test_bad_cluster_exits_2() -> None:
    result = run(GOOD, "--cluster", f"{BAD}/TP001-invalid-yaml.yaml")
    assert result.exit_code == 2
    assert "invalid YAML" in result.stderr


def test_file_names_on_stdin() -> None:
    names = f"{GOOD}/job.json\n\n{BAD}/TP106-out-of-range.yaml\n"
    result = run("-", "-o", "json", stdin=names)
    assert result.exit_code == 1
    assert '"files": 2' in result.stdout


def test_empty_stdin_is_a_usage_error() -> None:
    result = run("-", stdin="")
    assert result.exit_code == 2
    assert result.stderr == "error: no file names on stdin\n"


def test_summary_goes_to_stdout_for_text_and_stderr_otherwise() -> None:
    line = "8 file(s), 21 resource(s) checked, 1 skipped (Service 1): 0 error(s), 0 warning(s)\n"
    assert run(GOOD, "--summary").stdout == line
    result = run(GOOD, "--summary", "-o", "github")
    assert (result.stdout, result.stderr) == ("", line)


def test_with_cluster_exit_1_on_never_fits() -> None:
    result = run("samples/workloads/train-too-big.yaml", "-c", "samples/cluster")
    assert result.exit_code == 1
    assert " error TP302: PodGroup ml/big-workers: " in result.stdout


def test_directory_and_its_file_are_linted_once() -> None:
    result = run(GOOD, f"{GOOD}/job.json", "--summary")
    assert result.stdout.startswith("8 file(s)")


def test_kube_version_accepts_only_what_that_release_serves() -> None:
    """--kube-version 1.37 serves scheduling.k8s.io/v1alpha3 and v1beta1 (v1alpha2 was
    removed for v1alpha3); 1.36 serves v1alpha2 only."""
    good_v1beta1 = f"{GOOD}/train-v1beta1.yaml"
    good_v1alpha2 = f"{GOOD}/v1alpha2.yaml"
    assert run(good_v1beta1, "--kube-version", "1.37").exit_code == 0
    result = run(good_v1alpha2, "--kube-version", "1.37")
    assert result.exit_code == 1
    assert "error TP003" in result.stdout
    assert "'scheduling.k8s.io/v1alpha2' is not served by Kubernetes 1.37" in result.stdout
    assert "served by Kubernetes 1.36" in result.stdout
    assert run(good_v1alpha2, "--kube-version", "1.36").exit_code == 0
    assert run(good_v1beta1, "--kube-version", "9.9").exit_code == 2


def test_a_clean_run_says_what_it_read_on_stderr() -> None:
    """Without --summary a clean run printed nothing at all (issue 26)."""
    result = run(GOOD)
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == "8 files, 21 resources, no findings\n"
    one = run(f"{GOOD}/job.json")
    assert one.stderr == "1 file, 1 resource, no findings\n"
    assert run(GOOD, "-o", "json").stderr == ""  # a document on stdout says it already


@pytest.mark.parametrize("output", ["text", "json", "sarif", "github", "junit"])
def test_file_level_findings_are_anchored_at_line_1(output: str, tmp_path, monkeypatch
                                                     ) -> None:
    """A size refusal has no position of its own: line 1, so every format anchors it."""
    monkeypatch.setenv("TASPLAN_MAX_INPUT_BYTES", "100")
    big = tmp_path / "big.yaml"
    big.write_bytes(b"a: b\n" * 30)
    result = run(str(big), "-o", output)
    assert result.exit_code == 1
    anchors = {"text": f"{big}:1:1: error TP001: ", "json": '"line": 1,',
               "sarif": '"startLine": 1', "github": f"file={big},line=1,col=1",
               "junit": f"{big}:1:1"}
    assert anchors[output] in result.stdout, result.stdout
