"""Every strictness rule on every reader (issue 25): the hardening corpus runs through each
way tasplan reads a cluster file -- the dict JSON path (orjson), the typed JSON path
(msgspec, files over ``STRICT_TYPED_BYTES``), libyaml, rapidyaml, and rapidyaml into the
typed reader (kubectl YAML dumps). A reader either enforces the rule itself or hands the
file to one that does; none may accept what the API server refuses. Wave 2's lesson: a
fast path that skipped a rule of the slow one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tasplan.errors import InputError
from tasplan.load import documents, yaml_fast
from tasplan.load.loader import load_inputs

NODE = ('{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": '
        '{"kubernetes.io/hostname": "n1"}}, "status": {"allocatable": {"cpu": "4", '
        '"memory": "8Gi", "pods": "110"}}}')


def pod(*, meta: str = '"labels": {"app": "a"}', spec: str = "", extra: str = "") -> str:
    return ('{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": '
            f'"default", {meta}}}, "spec": {{"nodeName": "n1", "priority": 0, "containers": '
            f'[{{"name": "c", "resources": {{"requests": {{"cpu": "1"}}}}}}]{spec}}}'
            f'{extra}}}')


DEEP = "[" * 300 + "]" * 300
# name -> (a pod the API server refuses, words of the error)
CORPUS = {
    "duplicate key": (pod(meta='"labels": {"app": "a", "app": "b"}'), "duplicate key"),
    "NUL character": (pod(meta='"labels": {"app": "a\\u0000b"}'), "NUL"),
    "lone surrogate": (pod(meta='"labels": {"app": "a\\ud800b"}'),
                       ("surrogate", "invalid Unicode character escape")),
    "int beyond int64": (pod(spec=', "priority": 9223372036854775808').replace(
        '"priority": 0, ', ""), "out of range"),
    "5,000-digit number": (pod(spec=', "x": ' + "1" * 5000), ("digits", "infinity")),
    "nesting beyond the limit": (pod(spec=f', "x": {DEEP}'), "nested deeper"),
    "spec is a list": ('{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", '
                       '"namespace": "default"}, "spec": []}', "spec"),
    "label value not a string": (pod(meta='"labels": {"app": 1}'), "metadata.labels"),
    "5,000-digit quantity": (pod().replace('"cpu": "1"', '"cpu": "' + "1" * 5000 + '"'),
                             "digits"),
    "negative capacity": (NODE.replace('"cpu": "4"', '"cpu": "-4"'), "allocatable"),
    "snapshot inside a List": ('{"apiVersion": "tasplan/v1", "kind": "ClusterSnapshot", '
                               '"items": []}', "snapshot inside a List"),
}
# The documented exceptions (docs/limits.md): the typed readers of large dumps do not look
# for duplicate keys (a dump kubectl wrote cannot hold any), nor inside fields tasplan does
# not read (msgspec skips them: nesting there is bounded by msgspec's own limit).
UNCHECKED = {("duplicate key", "typed JSON"), ("duplicate key", "rapidyaml into typed"),
             ("nesting beyond the limit", "typed JSON"), ("5,000-digit number", "typed JSON")}


def listing(item: str) -> str:
    return ('{"apiVersion": "v1", "kind": "List", "metadata": {}, "items": [\n'
            + NODE + ",\n" + item + "\n]}\n")


READERS = {
    # name -> (suffix, STRICT_TYPED_BYTES, rapidyaml allowed)
    "dict JSON": (".json", None, True),
    "typed JSON": (".json", 0, True),
    "libyaml": (".yaml", None, False),
    "rapidyaml": (".yaml", None, True),
    "rapidyaml into typed": (".yaml", 0, True),
}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("case", sorted(CORPUS))
def test_every_rule_on_every_reader(case: str, reader: str, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    if (case, reader) in UNCHECKED:
        pytest.skip("documented (docs/limits.md): typed readers of large dumps skip duplicate "
                    "keys and fields tasplan does not read")
    suffix, strict_bytes, fast = READERS[reader]
    if strict_bytes is not None:
        monkeypatch.setattr(documents, "STRICT_TYPED_BYTES", strict_bytes)
    if not fast:
        monkeypatch.setattr(yaml_fast, "documents", lambda data: None)
    item, words = CORPUS[case]
    path = tmp_path / f"cluster{suffix}"
    path.write_text(listing(item))
    with pytest.raises(InputError) as info:
        load_inputs([], [path])
    assert any(w in str(info.value) for w in ((words,) if isinstance(words, str) else words)), \
        (reader, str(info.value))


def test_the_corpus_is_valid_without_its_flaw(tmp_path: Path) -> None:
    """The same List with a clean pod loads on every reader: the errors above are the
    flaws', not the harness's."""
    path = tmp_path / "cluster.json"
    path.write_text(listing(pod()))
    json.loads(path.read_text())
    snapshot = load_inputs([], [path])
    assert [n.name for n in snapshot.nodes] == ["n1"] and len(snapshot.pods) == 1
