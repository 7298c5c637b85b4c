"""Large YAML streams (issue 28): the fast reading of a many-document file -- one rapidyaml
parse of the whole stream, the scan once per distinct line, positions composed only for the
documents with findings -- and lint's fast exits give what the plain paths give: the same
objects as libyaml, the same strictness, and byte-identical reports in every format, lines
and columns included, with findings at random documents of generated streams."""

from __future__ import annotations

import itertools
import random
import re
import sys
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasplan.errors import InputError, StrictError
from tasplan.lint import expansion, lint, reader
from tasplan.lint.engine import LintOptions
from tasplan.lint.formats import RENDERERS
from tasplan.load import yaml_dump, yaml_fast
from tasplan.load.documents import parse_bytes
from tasplan.load.intents import find_intents
from tasplan.load.yaml_dump import risky
from tasplan.model.scheduling_keys import KEYS, Status, Where

from .test_schema_check import _corpus

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
try:
    import lint as bench  # benchmarks/lint.py: the benchmark's own documents
finally:
    sys.path.remove(str(ROOT / "benchmarks"))


def _reports(paths, monkeypatch) -> tuple[dict, dict]:
    """Every format's report, read fast and read by libyaml (document by document)."""
    fast = {name: render(lint(paths)) for name, render in RENDERERS.items()}
    with monkeypatch.context() as m:
        m.setattr(yaml_fast, "documents", lambda data: None)
        plain = {name: render(lint(paths)) for name, render in RENDERERS.items()}
    return fast, plain


def _read_both(data: bytes, monkeypatch) -> tuple:
    """The workload reader's documents (or its error) for ``data``, read fast and read by
    libyaml."""
    def read():
        try:
            return parse_bytes("w.yaml", data, ".yaml")
        except InputError as exc:
            return str(exc)

    fast = read()
    with monkeypatch.context() as m:
        m.setattr(yaml_fast, "documents", lambda data: None)
        plain = read()
    return fast, plain


# A finding each, placed into random documents of a generated stream.
FLAWS = {
    "bad name": lambda doc: doc.replace("name: p-", "name: P_", 1),
    "warned label": lambda doc: doc.replace(
        "    app.kubernetes.io/part-of", "    kueue.x-k8s.io/priority-class: high\n"
        "    app.kubernetes.io/part-of", 1),
    "unknown field": lambda doc: doc.replace("spec:\n", "spek: {}\nspec:\n", 1),
    "wrong type": lambda doc: doc.replace("  namespace: ml", "  namespace: [ml]", 1),
    "missing containers": lambda doc: doc.replace("spec:\n  containers:", "spec:\n  x:", 1),
    "duplicate object": lambda doc: re.sub(r"name: p-\d+", "name: p-000001", doc, count=1),
    "pod group reference": lambda doc: doc.replace(
        "spec:\n", "spec:\n  schedulingGroup:\n    podGroupName: nowhere\n", 1),
    "kueue annotation": lambda doc: doc.replace(
        "  labels:", "  annotations:\n    kueue.x-k8s.io/podset-required-topology: ''\n"
        "  labels:", 1),
}


def _stream(pods: int, flawed: dict[int, str]) -> str:
    docs = [bench.BIG_POD.format(name=f"p-{i:06d}", g=i % 7) for i in range(pods)]
    for i, flaw in flawed.items():
        docs[i] = FLAWS[flaw](docs[i])
    return "".join(docs)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_generated_streams_report_identically_on_both_paths(seed, tmp_path, monkeypatch):
    """Findings of every kind at random documents (a duplicate name included) of a
    2,000-document stream: the same reports, lines and columns, as libyaml's."""
    rng = random.Random(seed)
    flawed = {rng.randrange(2000): rng.choice(sorted(FLAWS)) for _ in range(12)}
    path = tmp_path / "stream.yaml"
    path.write_text(_stream(2000, flawed))
    assert yaml_fast.documents(path.read_bytes()) is not None  # the fast path ran
    monkeypatch.setattr(yaml_fast, "CHUNK_BYTES", 50_000)  # 12 chunks
    fast, plain = _reports([path], monkeypatch)
    assert fast == plain
    found = {f.document for f in lint([path], LintOptions(strict=True)).findings}
    assert all(i in found for i, flaw in flawed.items()
               if flaw != "duplicate object" or i > 1)  # p-000001 is itself


def test_a_finding_deep_in_a_stream_is_at_its_line(tmp_path, monkeypatch) -> None:
    """The benchmark's file, smaller: the last of 20,000 documents has the finding."""
    path = tmp_path / "big.yaml"
    line = bench.write_big(path, 20_000)
    report = lint([path])
    assert [(f.rule.id, f.line, f.column, f.document) for f in report.findings] == [
        ("TP103", line, 9, 19_999)]


@pytest.mark.parametrize("flaw", [
    "a: 1\na: 2\n",                       # duplicate key
    "a: \"x\\u0000y\"\n",                 # NUL
    "a: yes\n",                           # a YAML 1.1 word: libyaml reads it
    "a: &x [1]\nb: *x\n",                 # anchors
    "a: !!str 1\n",                       # tags
    "a: " + "[" * 300 + "]" * 300 + "\n",  # nesting beyond the limit
    "a: 99999999999999999999\n",          # beyond int64
])
@pytest.mark.parametrize("where", [0, 7, 19])
@pytest.mark.parametrize("aside", [False, True])
def test_strictness_in_any_document_of_a_stream(flaw, where, aside, tmp_path,
                                                 monkeypatch) -> None:
    """A flaw in one document of a stream is refused (or read) as libyaml's path does, on
    the workload reader and in lint, wherever the document is; ``aside``: the scan runs
    in a forked child, as it does for a large stream."""
    forks = []
    if aside:
        monkeypatch.setattr(yaml_fast, "PARALLEL_BYTES", 0)
        monkeypatch.setattr(yaml_fast, "aside", lambda fn: forks.append(fn) or
                            yaml_dump.aside(fn))
    docs = [f"kind: Pod\nmetadata:\n  name: p{i}\n" for i in range(20)]
    docs[where] = flaw
    data = "---\n".join(docs).encode()
    fast, plain = _read_both(data, monkeypatch)
    assert fast == plain
    assert bool(forks) == (aside and "[" * 300 not in flaw)  # too deep: refused before
    path = tmp_path / "w.yaml"
    path.write_bytes(data)
    fast_report, plain_report = _reports([path], monkeypatch)
    assert fast_report == plain_report


PIECES = ["---", "--- x", "----", "a: 1", "# c", "", "  b: 2", "-", "---x", "c: ---"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12), st.booleans())
def test_markers_removed_as_the_regex_removes_them(lines, newline_at_end) -> None:
    data = "\n".join(lines).encode() + (b"\n" if newline_at_end and lines else b"")
    body, count = yaml_fast._MARKER.subn(b"", data)
    first = yaml_fast._MARKER.search(data)
    assert yaml_fast.without_markers(data) == (
        body, count, len(data) if first is None else first.start())


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12), st.booleans(), st.data())
def test_markers_counted_as_the_regex_counts(lines, newline_at_end, draw) -> None:
    """``markers`` of a chunk (cut at a line start, as ``_chunks`` cuts) gives what the
    marker regex gives on the chunk alone."""
    data = "\n".join(lines).encode() + (b"\n" if newline_at_end and lines else b"")
    starts = [0, *(i + 1 for i, c in enumerate(data) if c == 10)]
    start = draw.draw(st.sampled_from(starts))
    end = draw.draw(st.sampled_from([*(s for s in starts if s >= start), len(data)]))
    chunk = data[start:end]
    count = len(yaml_fast._MARKER.findall(chunk))
    first = yaml_fast._MARKER.search(chunk)
    assert yaml_fast.markers(data, start, end) == (
        count, len(chunk) if first is None else first.start())


LINES = ["---", "--- yes", "a: 1", "a: yes", "b: on", "- x", "- 0755", "# note yes",
         "c: [1, 2]", "d: {e: f}", "  g: h", "k: |", "  text", "i: &anchor j", "l: 'q'",
         "m: 1e3", "", "n: \\u0000",
         "o: é", "p: 10:00:00", "? q", "r:", "s: ~", "t: \"a\\ud800\"", "u: [x,", "v: \t"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=40))
def test_the_scan_of_distinct_lines_is_the_scan(lines) -> None:
    """The scan of the distinct lines, marker lines left out, is the scan of the stream
    without its markers (what ``_chunked`` scanned before)."""
    data = "\n".join(lines).encode()
    assert yaml_fast.risky_lines(data) == risky(yaml_fast.without_markers(data)[0])


DOC_LINES = ["a: 1", "b: x", "c: [1, 2]", "d: {e: f}", "f:", "  g: h", "  - 1", "- x",
             "k: |", "  text", "# c", "", "null", "plain", "l: 'q'", "m: \"r\"", "n: 1.5"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(DOC_LINES), max_size=5), min_size=1, max_size=6),
       st.booleans())
def test_one_parse_of_the_stream_reads_each_document(docs, leading_marker) -> None:
    """The stream parsed at once gives the documents parsed one by one (when rapidyaml
    reads both), and the fast reading equals libyaml's."""
    import ryml

    data = ("---\n" if leading_marker else "") + "---\n".join(
        "".join(f"{line}\n" for line in doc) for doc in docs)
    raw = data.encode()
    _, markers, first = yaml_fast.without_markers(raw)
    expected = markers + (yaml_fast._BLANK.fullmatch(raw, 0, first) is None)
    tree = ryml.Tree()
    with yaml_fast.quiet_stderr():
        try:
            whole = (yaml_fast._stream(ryml, tree, raw, expected, single=not markers)
                     if expected else [])
        except StrictError:  # a duplicate key: so it is for the piece that has it
            whole = "refused"
        pieces = yaml_fast._one_by_one(ryml, tree, yaml_fast._MARKER.split(raw))
    if whole == "refused":
        assert pieces is None
    elif whole is not None and pieces is not None:
        assert whole == pieces
    fast = reader.parse("w.yaml", raw)
    with mock.patch.object(yaml_fast, "CHUNK_BYTES", 10):  # a chunk per few documents
        chunked = reader.parse("w.yaml", raw)
    with mock.patch.object(yaml_fast, "documents", lambda data: None):
        plain = reader.parse("w.yaml", raw)
    assert [(m.document, m.item, m.obj) for m in fast[0]] == \
        [(m.document, m.item, m.obj) for m in plain[0]]
    assert fast[1] == plain[1] == chunked[1]
    assert [(m.document, m.item, m.obj) for m in chunked[0]] == \
        [(m.document, m.item, m.obj) for m in plain[0]]


def test_warned_keys_are_never_skipped(tmp_path) -> None:
    """``_may_warn`` skips the walk only where it finds nothing TP220 warns about: every
    warned key, placed where the walk finds it, is seen; and on every manifest of the
    corpus a skipped object has no warned intent."""
    warned = [k for k in KEYS if all(s == Status.WARNED for s in k.planned.values())]
    assert warned
    for key in warned:
        kinds = key.kinds or ("Pod",)
        for kind_id in kinds:
            group, _, kind = kind_id.rpartition("/")
            obj = {"apiVersion": f"{group}/v1" if group else "v1", "kind": kind,
                   "metadata": {"name": "x"}, "spec": {}}
            if key.where == Where.FIELD:
                target = obj
                for part in key.key.lstrip("*").split("."):
                    target = target.setdefault(part, {})
            else:
                section = "labels" if key.where == Where.LABEL else "annotations"
                obj["metadata"][section] = {key.key: "v"}
            assert any(i.key is key for i in find_intents(obj, "x", kind_id)), key.key
            assert expansion._may_warn(obj, kind_id), key.key
    for obj in _corpus(tmp_path):
        version = obj.get("apiVersion", "")
        kind_id = f"{version.rsplit('/', 1)[0]}/{obj['kind']}" if "/" in version \
            else obj["kind"]
        found = [i for i in find_intents(obj, "x", kind_id)
                 if all(s == Status.WARNED for s in i.key.planned.values())]
        assert not found or expansion._may_warn(obj, kind_id)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([" ", "-", "?", ":", "\t", "- ", "x", " - x"]),
                          st.one_of(st.integers(0, 12), st.integers(60, 140)),
                          st.sampled_from(["", "a", "[", "{x: [", "]"])),
                max_size=8))
def test_nesting_bound_searches_lines_as_the_multiline_regex(lines) -> None:
    """``may_nest_deeper`` finds an indentation run after line breaks (and at the start)
    where it tried ``^`` at every offset: the same answer (long runs too, which the search
    of every 16th byte must not miss)."""
    from tasplan.load import nesting

    data = "\n".join(c * n + rest for c, n, rest in lines).encode()
    brackets = data.translate(nesting._BRACKETS, nesting._NOT_BRACKETS)
    for limit in (3, 6, 10, 70, 100, 131):
        flow = len(brackets)
        if flow > limit // 2:
            flow = max(itertools.accumulate(b - 1 for b in brackets), default=0)
        expected = flow >= limit or re.search(
            rb"^[ \t?:-]{%d,}" % (limit - flow), data, re.M) is not None
        assert nesting.may_nest_deeper(data, limit) == expected
