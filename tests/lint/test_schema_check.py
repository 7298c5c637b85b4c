"""The compiled schema predicates (``tasplan.lint.schema_check``) against jsonschema: the
same verdict, valid or not, on every manifest of the samples, the lint fixtures and the
lint benchmark's corpus, and on systematic mutations of each (every field set to another
type, to an edge value, removed, or joined by an unknown sibling)."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

from tasplan.lint import schema
from tasplan.lint.reader import parse
from tasplan.lint.schema_check import Compiler, Unsupported

ROOT = Path(__file__).resolve().parents[2]
VALUES = [None, -1, 1.5, 2.0, 2**31, True, "", "Bad_Name", [], {"x": 1}]


def _corpus(tmp: Path) -> list[dict]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import lint as bench
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    bench.write_corpus(tmp, 40)
    files = [*sorted(tmp.iterdir()), *sorted((ROOT / "samples").rglob("*.yaml")),
             *sorted((ROOT / "tests/lint/fixtures").rglob("*.yaml"))]
    objects = []
    for file in files:
        manifests, _ = parse(str(file), file.read_bytes())
        objects += [m.obj for m in manifests if isinstance(m.obj, dict)
                    and (m.obj.get("apiVersion"), m.obj.get("kind")) in schema._schemas()[1]]
    return objects


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, (*prefix, i))


def _mutations(obj: dict):
    for path in list(_paths(obj))[1:]:
        parent = obj
        for part in path[:-1]:
            parent = parent[part]
        for value in VALUES:
            changed = copy.deepcopy(obj)
            target = changed
            for part in path[:-1]:
                target = target[part]
            target[path[-1]] = value
            yield changed
        if isinstance(parent, dict):
            removed = copy.deepcopy(obj)
            target = removed
            for part in path[:-1]:
                target = target[part]
            del target[path[-1]]
            yield removed
            extra = copy.deepcopy(obj)
            target = extra
            for part in path[:-1]:
                target = target[part]
            target["unknownField"] = 1
            yield extra


def _agree(obj: dict, key: tuple | None = None) -> bool:
    key = key or (obj.get("apiVersion"), obj.get("kind"))
    expected = not any(schema.validators()[key].iter_errors(obj))
    assert schema._checks()[key](obj) == expected, obj
    return expected


def test_every_schema_compiles() -> None:
    assert set(schema._checks()) == set(schema._schemas()[1])


def test_unknown_keywords_are_not_compiled() -> None:
    registry, _ = schema._schemas()
    with pytest.raises(Unsupported):
        Compiler(registry, None).compile({"type": "array", "uniqueItems": True}, "x")


@pytest.mark.slow
def test_same_verdicts_as_jsonschema(tmp_path: Path) -> None:
    objects = _corpus(tmp_path)
    assert len(objects) > 60
    valid = sum(_agree(o) for o in objects)
    assert 0 < valid < len(objects)  # both verdicts are exercised
    mutated = invalid = 0
    for obj in objects[::10]:
        key = (obj["apiVersion"], obj["kind"])
        for changed in _mutations(obj):
            mutated += 1
            invalid += not _agree(changed, key)
    assert invalid > mutated // 4


def test_without_jsonschemas_equality_const_and_enum_are_left_to_jsonschema(monkeypatch) -> None:
    """``equal`` is private to jsonschema: where a release lacks it, schemas comparing
    non-strings are not compiled (jsonschema validates them), string ones still are."""
    import tasplan.lint.schema_check as schema_check

    monkeypatch.setattr(schema_check, "_equal", lambda: None)
    compiler = Compiler(schema._schemas()[0], None)
    assert compiler.compile({"const": "x"}, "urn:t")("x")
    assert compiler.compile({"enum": ["a", "b"]}, "urn:t")("b")
    for keyword in ({"const": 1}, {"enum": [1, "a"]}):
        with pytest.raises(Unsupported):
            compiler.compile(keyword, "urn:t")
