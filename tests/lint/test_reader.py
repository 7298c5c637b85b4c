"""Reading files safely, with positions: never a traceback or a hang."""

from __future__ import annotations

import pytest

from tasplan.errors import InputError
from tasplan.lint import lint
from tasplan.lint.reader import parse, read_bytes


def _rules(tmp_path, name: str, data: bytes) -> list[tuple[str, int | None, str]]:
    path = tmp_path / name
    path.write_bytes(data)
    return [(f.rule.id, f.line, f.message) for f in lint([path]).findings]


def test_binary_file_is_a_finding(tmp_path) -> None:
    assert _rules(tmp_path, "x.yaml", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR") == [
        ("TP001", 3, "binary file (NUL byte at offset 8), not YAML or JSON")]


def test_invalid_utf8_is_a_finding(tmp_path) -> None:
    assert _rules(tmp_path, "x.yaml", "name: caf\xe9\n".encode("latin-1")) == [
        ("TP001", 1, "not UTF-8 text (invalid byte at offset 9)")]
    assert _rules(tmp_path, "y.yaml", b"a: 1\nb: 2\nname: caf\xe9\n") == [
        ("TP001", 3, "not UTF-8 text (invalid byte at offset 19)")]


def test_file_over_the_size_limit_is_a_finding(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TASPLAN_MAX_INPUT_BYTES", "100")
    [(rule, _, message)] = _rules(tmp_path, "x.yaml", b"a: b\n" * 30)
    assert rule == "TP001"
    assert message.startswith("file is larger than the limit of 100 bytes")


def _pods(n: int, last: bytes = b"") -> bytes:
    return b"".join(b"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p%06d}\nspec:\n"
                    b"  containers: [{name: c, image: x}]\n" % i for i in range(n)) + last


def test_large_yaml_is_linted_with_positions_of_its_document(tmp_path, monkeypatch) -> None:
    """YAML over the composing limit (4 MiB) that rapidyaml reads exactly is linted: only
    the document with the finding is composed by libyaml, its lines counted from the file's
    start. YAML that needs libyaml throughout is refused at once over that limit, naming
    it; every YAML file over lint's limit (64 MiB) too. JSON (orjson) has neither limit."""
    from tasplan.lint.reader import DEFAULT_COMPOSE_LIMIT, DEFAULT_YAML_LIMIT

    size = len(_pods(1))
    n = DEFAULT_COMPOSE_LIMIT // size + 1
    bad = (b"---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: Bad\n"
           b"spec: {containers: [{name: c, image: x}]}\n")
    findings = _rules(tmp_path, "big.yaml", _pods(n, bad))
    assert [(rule, line) for rule, line, _ in findings] == [("TP103", 6 * n + 5)]
    # An anchor: rapidyaml's reading is not proven to be Kubernetes', libyaml would compose.
    [(rule, _, message)] = _rules(tmp_path, "anchored.yaml", _pods(n, b"---\na: &x 1\n"))
    assert rule == "TP001"
    assert "over lint's limit of 4.0 MiB for YAML that rapidyaml cannot read" in message
    assert DEFAULT_YAML_LIMIT == 64 * 2**20
    monkeypatch.setenv("TASPLAN_LINT_MAX_YAML_BYTES", str(10 * size))
    assert _rules(tmp_path, "small.yaml", _pods(10)) == []
    [(rule, _, message)] = _rules(tmp_path, "over.yaml", _pods(11))
    assert rule == "TP001" and "TASPLAN_LINT_MAX_YAML_BYTES" in message
    assert _rules(tmp_path, "list.json", b'{"kind": "List", "items": []}' + b" " * 20_000) == []


def test_positions_of_each_document_match_composing_the_whole_file() -> None:
    """The documents' own compositions (YAML rapidyaml read) give the lines and columns the
    whole file's would: comments before the first document, an empty document, blocks."""
    data = (b"# header\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\n---\n"
            b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: b\n  labels:\n    x: |\n"
            b"      text\n---\nkind: List\nitems:\n- kind: Pod\n  metadata: {name: c}\n")
    manifests, problem = parse("x.yaml", data)
    assert problem is None and manifests[0].file.split
    whole, _ = parse("x.yaml", data)
    whole[0].file.split = False  # the whole file composed, as before
    paths = [("metadata", "name"), ("kind",), ("metadata", "labels", "x"), ("nope",)]
    for mine, theirs in zip(manifests, whole, strict=True):
        for path in paths:
            assert mine.locate(path) == theirs.locate(path), (mine.name, path)
    assert [m.locate(("metadata", "name")) for m in manifests] == [(5, 18), (11, 9), (19, 20)]


def test_deep_nesting_is_a_finding_or_parses(tmp_path) -> None:
    """libyaml nests iteratively; whatever depth, the result is findings, not a crash."""
    findings = _rules(tmp_path, "x.yaml", b"a: 1\nb: " + b"[" * 100_000 + b"]" * 100_000 + b"\n")
    assert findings and all(rule in ("TP001", "TP002") for rule, _, _ in findings)
    assert all(line == 2 for rule, line, _ in findings if rule == "TP001")


def test_documents_before_a_syntax_error_are_still_linted(tmp_path) -> None:
    data = (b"apiVersion: v1\nkind: Pod\nmetadata: {name: Bad}\nspec: {containers: [{name: c}]}\n"
            b"---\nkey: [unclosed\n")
    assert sorted(r for r, _, _ in _rules(tmp_path, "x.yaml", data)) == ["TP001", "TP103"]


def test_unreadable_path_raises_input_error(tmp_path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        read_bytes(tmp_path)  # a directory is not a file
    with pytest.raises(InputError, match="cannot read"):
        read_bytes(tmp_path / "absent.yaml")


def test_json_positions_come_from_composing_it_as_yaml() -> None:
    data = b'{"apiVersion": "v1", "kind": "Pod",\n "metadata": {"name": "p"},\n "spec": {}}'
    [m], problem = parse("x.json", data)
    assert problem is None
    assert m.locate(("metadata", "name")) == (2, 23)
    assert m.locate(("spec", "containers")) == (3, 2)  # missing: the key of its parent


def test_list_items_locate_inside_the_list() -> None:
    data = b"kind: PodList\napiVersion: v1\nitems:\n- metadata: {name: a}\n- metadata: {name: b}\n"
    manifests, _ = parse("x.yaml", data)
    assert [(m.kind, m.name, m.item) for m in manifests] == [("Pod", "a", 0), ("Pod", "b", 1)]
    assert manifests[1].locate(("metadata", "name")) == (5, 20)
    assert manifests[1].locate(("metadata", "name"), key=True) == (5, 14)


def test_empty_documents_are_skipped() -> None:
    assert parse("x.yaml", b"---\n---\n# only a comment\n") == ([], None)


FAST_CONSTRUCT_CASES = [
    "a: 1\nb: [x, 'y', 010, 0x1F, 1.5, true, yes, on, ~, null]\nc: {d: {e: []}}\n",
    "!!str 123\n",
    "base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n",  # merge key: the full constructor
    "a: 1\na: 2\n",  # duplicate key: the full constructor's error
    "1: int key\n",
    "!!map 'x'\n",
    "t: 2024-01-01\nbin: !!binary aGVsbG8=\n",
]


@pytest.mark.parametrize("text", FAST_CONSTRUCT_CASES)
def test_fast_construct_matches_pyyaml(text: str) -> None:
    """lint builds plain documents itself; every value (and every error) is the one
    PyYAML's constructor gives."""
    from tasplan.lint import reader

    def value(construct) -> object:
        loader = reader._Loader(text)
        try:
            return construct(loader, loader.get_single_node())
        except Exception as exc:  # the error itself is compared
            return (type(exc).__name__, str(exc))
        finally:
            loader.dispose()

    assert repr(value(reader._construct)) == repr(
        value(lambda loader, node: loader.construct_document(node)))
