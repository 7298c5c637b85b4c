"""kubectl YAML dumps read through rapidyaml and the typed reader (``tasplan.load.yaml_dump``)
against the libyaml path they replace: the same objects on generated dumps, on hand-written
objects, on every scalar Kubernetes reads differently from rapidyaml's JSON (each one must
send the file to libyaml) and on random plain scalars; the same errors for bad input."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tasplan import InputError, JobOverrides
from tasplan.load import documents, typed, yaml_dump
from tasplan.load.documents import read_documents
from tasplan.load.loader import assemble
from tests.load.test_typed import BENCHMARKS, _expanded, _node, _objects, _pod, _state

sys.path.insert(0, str(BENCHMARKS))
try:
    import generate
finally:
    sys.path.remove(str(BENCHMARKS))


def _kubectl_yaml(objects: list[dict], kind: str = "List") -> str:
    top = {"apiVersion": "v1", "items": objects, "kind": kind,
           "metadata": {"resourceVersion": ""}}
    return "\n".join(generate.kubectl_yaml(top)) + "\n"


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _libyaml(path: Path) -> list:
    return list(read_documents(path, workload=False))


def _fast(path: Path, chunk_bytes: int = yaml_dump.CHUNK_BYTES) -> list | None:
    return yaml_dump.read_yaml_list(str(path), path.read_bytes(), workload=False,
                                    chunk_bytes=chunk_bytes)


def _same(docs: list, expected: list) -> bool:
    """The same objects: typed ones compared as the loader assembles them, the others (kept
    as dicts) as they are."""
    docs = _expanded(docs)
    return (len(docs) == len(expected)
            and [d.source for d in docs] == [d.source for d in expected]
            and all(d.obj == e.obj for d, e in zip(docs, expected, strict=True)
                    if d.model is None)
            and _state(docs) == _state(expected))


def _assert_same(path: Path, chunk_bytes: int = yaml_dump.CHUNK_BYTES,
                 expected: list | None = None) -> int:
    docs = _fast(path, chunk_bytes)
    assert docs is not None
    assert _same(docs, expected if expected is not None else _libyaml(path))
    return typed.typed_objects(docs)


@pytest.fixture()
def small_files_typed(monkeypatch):
    """Let ``read_documents`` take the fast path for files of any size."""
    monkeypatch.setattr(documents, "STRICT_TYPED_BYTES", 0)


# --------------------------------------------------------------------------- generated dumps


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> tuple[Path, Path, list]:
    """A generated dump as JSON and as kubectl YAML, and the YAML as libyaml reads it."""
    tmp = tmp_path_factory.mktemp("yaml_dump")
    json_path, yaml_path = tmp / "cluster.json", tmp / "cluster.yaml"
    generate.generate_cluster(nodes=40, out=str(json_path))
    generate.convert_to_yaml(str(json_path), str(yaml_path))
    return json_path, yaml_path, _libyaml(yaml_path)


def test_generated_dump_whole_and_in_pieces(generated) -> None:
    json_path, yaml_path, expected = generated
    decoded = _assert_same(yaml_path, expected=expected)
    assert decoded == sum(1 for _ in read_documents(json_path, workload=False))  # all typed
    assert _assert_same(yaml_path, 64 * 1024, expected) == decoded
    assert _assert_same(yaml_path, 1, expected) == decoded  # one item per piece
    mapped = yaml_dump.read_yaml_file(str(yaml_path), workload=False)  # a memory map
    assert mapped is not None and _same(mapped, expected)


def test_generated_dump_plans_as_its_json(generated, small_files_typed, tmp_path) -> None:
    """End to end: the report from the YAML dump is the JSON dump's, byte for byte."""
    import tasplan

    json_path, yaml_path, _ = generated
    gang = tmp_path / "gang.yaml"
    generate.write_gang(str(gang), 64)

    def report(cluster: Path) -> dict:
        doc = tasplan.plan_document(tasplan.plan(tasplan.load_inputs([gang], [cluster])))
        return doc

    assert report(yaml_path) == report(json_path)


def test_hand_written_objects_decode_identically(tmp_path: Path) -> None:
    path = _write(tmp_path / "c.yaml", _kubectl_yaml(_objects()))
    assert _assert_same(path) == 4 + 26 - 5
    assert _assert_same(path, chunk_bytes=1) == 4 + 26 - 5


def test_node_list_items_may_omit_kind(tmp_path: Path) -> None:
    nodes = [{k: v for k, v in _node(f"n{i}").items() if k != "kind"} for i in range(3)]
    path = _write(tmp_path / "nodes.yaml", _kubectl_yaml(nodes, kind="NodeList"))
    assert _assert_same(path) == 3


def test_read_documents_takes_the_fast_path_above_the_strict_size(tmp_path, monkeypatch):
    path = _write(tmp_path / "c.yaml", _kubectl_yaml(_objects()))
    docs = list(read_documents(path, workload=False, typed=True))
    assert not any(d.model for d in docs)  # small: libyaml, which also refuses duplicates
    monkeypatch.setattr(documents, "STRICT_TYPED_BYTES", 0)
    docs = list(read_documents(path, workload=False, typed=True))
    assert typed.typed_objects(docs) == 4 + 26 - 5


# ------------------------------------------------------------------- scalars and constructs

# (text written plain, whether rapidyaml's JSON reads it differently from Kubernetes: the
# scan must send the file to libyaml whatever the answer; where it is True the test also
# shows that without the scan the objects would differ.)
TRIGGERS = [
    *[(w, True) for w in ("on", "On", "ON", "off", "Off", "OFF", "yes", "Yes", "YES", "no",
                          "No", "NO", "True", "TRUE", "False", "FALSE", "~", "Null", "NULL")],
    *[(n, True) for n in ("0755", "-0755", "00", "0o17", "0x1F", "0b101", "1_000", "0e1",
                          ".inf", "-.inf", "+.inf", ".NaN", "nan", "inf", "2026-01-01",
                          "2026-01-01T10:00:00Z", "2026-1-2 3:04:05", "12345678901234567890")],
    (".5", False), ("+1", False), ("1e400", False), ("-.5e3", False),
    ("=", True), ("&anchor x", False), ("!!str 1", True), ("!custom x", True), ("@x", False),
]
KEY_TRIGGERS = ["on", "yes", "No", "1", "8080", "-1", "1.5", "true", "false", "null", "~",
                "2026-01-01", "<<", "0x1F"]


def _pending_with(annotation_line: str) -> str:
    """A List of a node, a bound pod and a pending pod (kept as a dict by both paths) whose
    annotations hold ``annotation_line`` verbatim (``key: value``)."""
    pending = _pod("pending", node="")
    pending["metadata"]["annotations"] = {"example.com/placeholder": "x"}
    text = _kubectl_yaml([_node("n1"), _pod("bound"), pending])
    assert "      example.com/placeholder: x\n" in text
    return text.replace("example.com/placeholder: x", annotation_line)


def _unchecked(path: Path, monkeypatch) -> list | None:
    with monkeypatch.context() as m:
        m.setattr(yaml_dump, "risky", lambda piece: False)
        return _fast(path)


def _check_trigger(path: Path, differs: bool, monkeypatch) -> None:
    assert _fast(path) is None, "the scan let a scalar Kubernetes reads differently through"
    if differs:
        unchecked = _unchecked(path, monkeypatch)
        try:
            expected = _libyaml(path)
        except InputError:
            expected = None  # libyaml refuses it; rapidyaml may not
        assert unchecked is None or expected is None or not _same(unchecked, expected)
    with monkeypatch.context() as m:  # and the file reads as libyaml reads it
        m.setattr(documents, "STRICT_TYPED_BYTES", 0)
        try:
            expected = _state(_libyaml(path))
        except InputError as exc:
            with pytest.raises(InputError) as got:
                _state(list(read_documents(path, workload=False, typed=True)))
            assert str(got.value) == str(exc)
        else:
            assert _state(list(read_documents(path, workload=False, typed=True))) == expected


@pytest.mark.parametrize(("text", "differs"), TRIGGERS, ids=[t for t, _ in TRIGGERS])
@pytest.mark.parametrize("where", ["value", "item", "flow", "next-line", "comment"])
def test_plain_scalars_read_otherwise_fall_back(tmp_path, monkeypatch, text, differs, where):
    line = {"value": f"example.com/v: {text}",
            "item": f"example.com/v:\n      - {text}",
            "flow": f"example.com/v: [a, {text}]",
            "next-line": f"example.com/v:\n        {text}",
            "comment": f"example.com/v: {text} # why"}[where]
    path = _write(tmp_path / "c.yaml", _pending_with(line))
    _check_trigger(path, differs and where != "item", monkeypatch)  # (a list annotation
    # is refused by both paths' loaders alike, so "item" only checks the fallback)


@pytest.mark.parametrize("key", KEY_TRIGGERS)
def test_keys_that_are_not_strings_fall_back(tmp_path, monkeypatch, key) -> None:
    path = _write(tmp_path / "c.yaml", _pending_with(f"{key}: x"))
    _check_trigger(path, key not in ("<<",), monkeypatch)


@pytest.mark.parametrize("text", [t for t, _ in TRIGGERS if t[0] not in "&!@="])
def test_the_same_scalars_quoted_are_strings(tmp_path, text) -> None:
    for quoted in (f'"{text}"', f"'{text}'"):
        path = _write(tmp_path / "c.yaml", _pending_with(f"example.com/v: {quoted}"))
        assert _assert_same(path) == 2
        assert _fast(path)[-1].obj["metadata"]["annotations"]["example.com/v"] == text


CONSTRUCTS = {
    "literal": "example.com/v: |\n        line one\n\n        line: three\n",
    "literal-strip": "example.com/v: |-\n        a\n          b\n",
    "literal-keep": "example.com/v: |+\n        a\n\n",
    "literal-indent": "example.com/v: |2-\n          indented\n        b\n",
    "plain-multiline": "example.com/v: one two\n        three\n\n        four",
    "double-escapes": r'example.com/v: "t\tq\"b\\s\/u\u00e9x\x41 \N\_e"',
    "double-folded": 'example.com/v: "a long\n        line \\\n        joined"',
    "single": "example.com/v: 'it''s # not a comment'",
    "single-multiline": "example.com/v: 'a\n        b\n\n        c'",
    "comment-lines": "example.com/v: x # note\n      # own line\n      example.com/w: z",
    "numbers": "example.com/v:\n      - 0\n      - -0\n      - 7\n      - -12\n      - 1.5\n"
               "      - -0.25\n      - 1e3\n      - 2.5E-3\n      - 1.",
    "null-and-bools": "example.com/v:\n      - null\n      - true\n      - false\n      - ''"
                      "\n      - []\n      - {}\n      example.com/w:",
    "unicode": "example.com/v: héllo wörld 日本 🚀",
    "colon-words": "example.com/v: http://x:80/a?b=no#frag",
    "dashes": "example.com/v: a-no-on - yes -1",
    "timestamps-inside": "example.com/v: at 10:00:00 and 2026",
}


@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_constructs_read_identically(tmp_path, name) -> None:
    path = _write(tmp_path / "c.yaml", _pending_with(CONSTRUCTS[name]))
    assert _assert_same(path) == 2


@pytest.mark.parametrize(("flow", "accepted"), [
    ('[1, "two", {k: v}]', True), ("[null, true, -1, 1.5]", True),
    ('{"a":1, "b":[true]}', True), ("[a: b, c]", True), ("[\n        a,\n        b]", True),
    ("[:]", False), ("{: v}", False), ("[a:]", False), ("{a:}", False), ("[? a]", False),
    ("[a, yes]", False), ("{on: 1}", False), ("[1, 0755]", False), ("{a: ~}", False)])
def test_flow_collections(tmp_path, monkeypatch, flow, accepted) -> None:
    """Read as libyaml reads them, except where YAML 1.2 reads more (``[:]`` is an empty
    key to rapidyaml, an error to libyaml) or a scalar is risky: those take libyaml."""
    path = _write(tmp_path / "c.yaml", _pending_with(f"example.com/v: {flow}"))
    if accepted:
        assert _assert_same(path) == 2
    else:
        _check_trigger(path, flow in ("[:]", "{: v}", "[a:]", "{a:}", "[a, yes]", "{on: 1}",
                                      "[1, 0755]", "{a: ~}"), monkeypatch)


def test_the_scan_in_a_child_process(generated, tmp_path, monkeypatch) -> None:
    """Large files are scanned by a forked child while rapidyaml converts: the same
    documents, the same refusals, and no child left behind either way."""
    import os

    monkeypatch.setattr(yaml_dump, "PARALLEL_BYTES", 0)
    forks = []
    real = yaml_dump._scan_aside
    monkeypatch.setattr(yaml_dump, "_scan_aside",
                        lambda *a: forks.append(real(*a)) or forks[-1])
    _, yaml_path, expected = generated
    assert _assert_same(yaml_path, 64 * 1024, expected) > 0
    assert _same(yaml_dump.read_yaml_file(str(yaml_path), workload=False), expected)
    risky_file = _write(tmp_path / "r.yaml", _pending_with("example.com/v: yes"))
    assert _fast(risky_file) is None
    broken = _write(tmp_path / "b.yaml", _pending_with("example.com/v: [x"))
    assert _fast(broken) is None  # rapidyaml refuses first: the child is killed
    assert len(forks) >= 4 and all(f is not None for f in forks)
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


@pytest.mark.slow
@given(st.lists(st.sampled_from(
    ["0", "1", "7", "9", "_", ".", "-", "+", "e", "E", "x", "o", "b", "n", "a", "N", "i", "f",
     "y", "s", "O", "T", "r", "u", "F", "l", "~", ":", "<", "=", "t"]), min_size=1, max_size=6))
@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_random_plain_scalars_never_read_otherwise(tmp_path_factory, chars) -> None:
    """Any plain token: the fast path either refuses the file or reads what libyaml reads
    (and refuses whatever libyaml refuses)."""
    token = "".join(chars)
    path = tmp_path_factory.mktemp("r") / "c.yaml"
    for line in (f"example.com/v: {token}", f"example.com/v: [{token}]", f"{token}: v"):
        _write(path, _pending_with(line))
        try:
            expected = _libyaml(path)
        except InputError:
            assert _fast(path) is None
            continue
        docs = _fast(path)
        assert docs is None or _same(docs, expected)


# --------------------------------------------------------------------------- layouts


@pytest.mark.parametrize("change", [
    lambda t: t.replace("items:\n- ", "items:\n  - ", 1),              # indented items
    lambda t: t.replace("kind: List", "kind: Pod"),                     # not a List
    lambda t: t + "---\nkind: List\nitems: []\n",                       # two documents
    lambda t: t.replace("      app: bound", "      app: &a bound"),     # anchor
    lambda t: t.replace("  name: bound", "  name: bound\r"),           # carriage return
    lambda t: t.replace("  name: bound", "  name:\tbound"),            # tab
    lambda t: t.replace("  name: bound", "  name: bou\x85nd"),         # NEL (a YAML 1.1 break)
    lambda t: t.replace("  name: bound", '  name: "bo\\0und"'),        # NUL escape
    lambda t: t.replace("  name: bound", "  name: >\n      bound"),    # folded block
    lambda t: t.replace("  name: bound", "  ? name\n  : bound"),       # complex key
], ids=["indented", "not-list", "documents", "anchor", "cr", "tab", "nel", "nul", "folded",
        "complex-key"])
def test_other_layouts_take_the_libyaml_path(tmp_path, monkeypatch, change) -> None:
    path = _write(tmp_path / "c.yaml", change(_kubectl_yaml([_node("n1"), _pod("bound")])))
    assert _fast(path) is None
    _check_trigger(path, False, monkeypatch)


def test_a_cut_inside_a_quoted_scalar_falls_back(tmp_path: Path, monkeypatch) -> None:
    """A double-quoted scalar whose second line starts with ``- `` at column 0 (libyaml
    does not check the indentation of quoted scalars): cutting there cannot go unnoticed."""
    text = _kubectl_yaml([_pod("a"), _pod("b")]).replace(
        "    app: a\n", '    app: "a\n- b"\n', 1)
    path = _write(tmp_path / "c.yaml", text)
    assert _fast(path, chunk_bytes=1) is None
    _check_trigger(path, False, monkeypatch)


@pytest.mark.parametrize("change", [
    lambda o: o[7]["spec"]["containers"][0]["resources"]["requests"].update(cpu="lots"),
    lambda o: o[7]["spec"].update(priority=2**64),
    lambda o: o[0]["spec"].update(taints=[{"key": "k", "effect": "Sometimes"}]),
    lambda o: o.append(3),
    lambda o: o[7].setdefault("status", {}).update(startTime="yesterday"),
], ids=["quantity", "huge-priority", "taint-effect", "not-object", "start-time"])
def test_errors_are_the_libyaml_paths(tmp_path, small_files_typed, change) -> None:
    objects = copy.deepcopy(_objects())
    change(objects)
    path = _write(tmp_path / "c.yaml", _kubectl_yaml(objects))
    with pytest.raises(InputError) as expected:
        assemble(_libyaml(path), JobOverrides())
    with pytest.raises(InputError) as got:
        assemble(list(read_documents(path, workload=False, typed=True)), JobOverrides())
    assert str(got.value) == str(expected.value)
    assert got.value.line == expected.value.line


def test_invalid_yaml_is_the_libyaml_paths_error(tmp_path, small_files_typed) -> None:
    text = _kubectl_yaml(_objects()).replace("  name: plain\n", "  name: [plain\n", 1)
    path = _write(tmp_path / "c.yaml", text)
    assert _fast(path) is None
    with pytest.raises(InputError) as got:
        list(read_documents(path, workload=False, typed=True))
    assert "invalid YAML" in str(got.value) and got.value.line is not None


def test_refusals_print_nothing(tmp_path, capfd) -> None:
    """rapidyaml prints its parse errors on file descriptor 2; a refusal is silent."""
    text = _kubectl_yaml(_objects()).replace("  name: plain\n", "  name: [plain\n", 1)
    assert _fast(_write(tmp_path / "c.yaml", text)) is None
    assert capfd.readouterr().err == ""
