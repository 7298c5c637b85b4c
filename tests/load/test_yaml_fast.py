"""The rapidyaml manifest reader (``tasplan.load.yaml_fast``) against the libyaml path: the
same documents, numbered the same way, for the stream shapes libyaml numbers specially
and for every manifest of the repository, in lint and in ``parse_bytes`` (every other
command); the same lint report, lines included, on the lint fixtures and the benchmark
corpus; refusals for what it must not read."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasplan.errors import InputError
from tasplan.lint import lint, reader
from tasplan.lint.formats import RENDERERS
from tasplan.load import yaml_fast as fast_reader
from tasplan.load.documents import parse_bytes

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted([*ROOT.joinpath("samples").rglob("*.yaml"),
                *ROOT.joinpath("tests/lint/fixtures").rglob("*.yaml")])


def _libyaml(label: str, data: bytes, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(fast_reader, "documents", lambda data: None)
        manifests, problem = reader.parse(label, data)
    return [(x.document, x.item, x.obj) for x in manifests], problem


def _fast(label: str, data: bytes):
    manifests, problem = reader.parse(label, data)
    return [(x.document, x.item, x.obj) for x in manifests], problem


@pytest.mark.parametrize("text", [
    "---\n---\na: 1\n", "# c\n---\na: 1\n", "a: 1\n---\n", "a: 1\n---", "---\n", "",
    "# only\n", "a: 1\n---\n# c\n", "---\na: 1\n---\n\n---\nb: 2\n", "null\n---\nb: 1\n",
    "- a\n- b\n", "plain\n", "kind: List\nitems:\n- {kind: Pod}\n"])
def test_documents_are_numbered_as_libyaml_numbers_them(text, monkeypatch) -> None:
    data = text.encode()
    assert fast_reader.documents(data) is not None
    assert _fast("f.yaml", data) == _libyaml("f.yaml", data, monkeypatch)


@pytest.mark.parametrize("text", [
    "a: 1\n--- \nb: 2\n", "a: 1\n...\n", "--- !tag\na: 1\n", "a: 1\na: 2\n", "a: yes\n",
    "a: &x 1\nb: *x\n", "\ufeffa: 1\n", "a: [:]\n", "a: [x\n", "%YAML 1.1\n---\na: 1\n"])
def test_refused_files_keep_libyamls_reading(text, monkeypatch) -> None:
    data = text.encode()
    assert fast_reader.documents(data) is None
    assert _fast("f.yaml", data) == _libyaml("f.yaml", data, monkeypatch)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_repository_manifests_read_identically(path: Path, monkeypatch) -> None:
    data = path.read_bytes()
    assert _fast(str(path), data) == _libyaml(str(path), data, monkeypatch)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_parse_bytes_reads_repository_manifests_identically(path: Path, monkeypatch) -> None:
    data = path.read_bytes()
    try:
        fast = parse_bytes(str(path), data, ".yaml")
    except InputError as exc:
        fast = str(exc)
    with monkeypatch.context() as m:
        m.setattr(fast_reader, "documents", lambda data: None)
        try:
            slow = parse_bytes(str(path), data, ".yaml")
        except InputError as exc:
            slow = str(exc)
    assert fast == slow


def test_parse_bytes_takes_the_fast_path(monkeypatch) -> None:
    """A workload file the scan allows never reaches libyaml."""
    import yaml

    def refuse(*args, **kwargs):
        raise AssertionError("libyaml was asked")

    monkeypatch.setattr(yaml, "load_all", refuse)
    docs = parse_bytes("w.yaml", b"kind: Pod\nmetadata:\n  name: p\n---\nkind: Pod\n", ".yaml")
    assert docs == [{"kind": "Pod", "metadata": {"name": "p"}}, {"kind": "Pod"}]


def test_most_repository_manifests_take_the_fast_path() -> None:
    fast = sum(fast_reader.documents(p.read_bytes()) is not None for p in FILES)
    assert fast > len(FILES) // 2


def _reports(paths, monkeypatch) -> tuple[dict, dict]:
    fast = {name: render(lint(paths)) for name, render in RENDERERS.items()}
    with monkeypatch.context() as m:
        m.setattr(fast_reader, "documents", lambda data: None)
        slow = {name: render(lint(paths)) for name, render in RENDERERS.items()}
    return fast, slow


def test_reports_with_lines_are_identical(tmp_path: Path, monkeypatch) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import lint as bench
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    bench.write_corpus(tmp_path, 60)
    texts = []
    for paths in ([tmp_path], [ROOT / "tests/lint/fixtures/bad"], [ROOT / "samples"]):
        fast, slow = _reports(paths, monkeypatch)
        assert fast == slow
        texts.append(fast["text"])
    assert re.search(r"train-0000\.yaml:\d+:\d+: error", texts[0])  # lines were composed


LINES = ["a: 1", "a: yes", "b: on", "- x", "- 0755", "# note yes", "c: [1, 2]", "d: {e: f}",
         "  g: h", "k: |", "  text", "--- x", "...", "i: &anchor j", "l: 'q'", "m: 1e3", "",
         "n: \\u0000", "o: é", "p: 10:00:00", "? q", "r:", "s: ~"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(LINES), max_size=4), min_size=1, max_size=5))
def test_one_scan_of_all_documents_is_the_scan_of_each(pieces) -> None:
    """``documents`` scans the non-blank documents joined: the scan's patterns never cross
    a line and each document starts one, so that is the scan of every document."""
    from tasplan.load.yaml_dump import risky

    docs = ["".join(f"{line}\n" for line in lines).encode() for lines in pieces]
    data = b"---\n".join(docs)
    split = fast_reader._MARKER.split(data)
    kept = [p for p in split if not fast_reader._BLANK.fullmatch(p)]
    assert risky(b"".join(kept)) == any(risky(p) for p in kept)
