"""lint names schema violations itself (``schema_check.Namer``) instead of asking
jsonschema: differential tests against jsonschema's ``iter_errors`` (the same errors, in the
same order: keyword, value, instance, schema, path, and the message where lint shows it) on
every manifest of the lint corpus, their systematic mutations and objects generated from
every kind's schema, and byte-identical lint reports in every output format on the lint
fixtures, the benchmark corpus and generated invalid documents."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tasplan.lint import schema
from tasplan.lint.engine import lint
from tasplan.lint.formats import RENDERERS
from tasplan.lint.schema_check import _NAMED, Compiler, Namer, Unsupported
from tests.lint.test_schema_check import VALUES, _corpus, _mutations

ROOT = Path(__file__).resolve().parents[2]
KEYS = sorted(schema.kinds())
SHOWN = (None, "minLength", "pattern", "not")  # keywords whose message lint shows


def _raw(error: Any) -> tuple:
    return (error.validator, repr(error.validator_value), repr(error.instance),
            tuple(error.absolute_path), repr(error.schema),
            error.message if error.validator in SHOWN else "")


def _both(key: tuple[str, str], obj: Any) -> tuple[list, list]:
    named = schema.named(key, obj)
    assert named is not None, key
    return ([_raw(e) for e in schema.validator(key).iter_errors(obj)],
            [_raw(e) for e in named])


# ------------------------------------------------------------- objects from the schemas

def _branches(node: dict) -> list[dict]:
    """``node`` and the subschemas that apply to the same instance."""
    out = [node]
    for keyword in ("allOf", "anyOf", "oneOf"):
        for sub in node.get(keyword, ()):
            if isinstance(sub, dict):
                out += _branches(sub)
    for keyword in ("then", "else"):
        if isinstance(node.get(keyword), dict):
            out += _branches(node[keyword])
    return out


def _value(node: Any, rng: random.Random, depth: int) -> Any:
    """An instance shaped by ``node``: mostly what it asks for, sometimes not (a wrong type,
    an edge value, a missing or unknown field, a bad format or enum value)."""
    if not isinstance(node, dict) or depth > 7:
        return rng.choice(VALUES)
    if rng.random() < 0.06:
        return rng.choice(VALUES)
    nodes = _branches(node)
    for n in nodes:
        if "const" in n:
            return n["const"] if rng.random() < 0.9 else "other"
        if "enum" in n:
            return rng.choice(n["enum"]) if rng.random() < 0.85 else "Other"
    types = [t for n in nodes for t in ([n["type"]] if isinstance(n.get("type"), str)
                                        else n.get("type", []))]
    props = {k: v for n in nodes for k, v in n.get("properties", {}).items()}
    kind = types[0] if types else ("object" if props else rng.choice(["string", "integer"]))
    if kind == "object":
        required = {r for n in nodes for r in n.get("required", ())}
        out = {}
        for name, sub in props.items():
            if (name in required and rng.random() < 0.95) or rng.random() < 0.35:
                out[name] = _value(sub, rng, depth + 1)
        extra = [n["additionalProperties"] for n in nodes
                 if isinstance(n.get("additionalProperties"), dict)]
        if extra:
            for i in range(rng.randrange(3)):
                out[rng.choice(["a", "b/c", "Bad_Key", f"k{i}"])] = _value(extra[0], rng,
                                                                           depth + 1)
        if rng.random() < 0.05:
            out["unknownField"] = 1
        return out
    if kind == "array":
        items = next((n["items"] for n in nodes if "items" in n), {})
        low = max([n.get("minItems", 0) for n in nodes] or [0])
        return [_value(items, rng, depth + 1) for _ in range(rng.randrange(max(low - 1, 0),
                                                                            low + 4))]
    if kind == "string":
        formats = [n["format"] for n in nodes if "format" in n]
        good = {"k8s-short-name": "rack-a", "k8s-long-name": "a.b-c",
                "k8s-label-key": "example.com/rack", "k8s-path-segment-name": "x"}
        if formats and rng.random() < 0.8:
            return good.get(formats[0], "x")
        return rng.choice(["x", "", "Bad_Name", "a" * 70, "-a", "a/b/c", ".."])
    if kind in ("integer", "number"):
        low = next((n["minimum"] for n in nodes if "minimum" in n), None)
        high = next((n["maximum"] for n in nodes if "maximum" in n), None)
        picks = [0, 1, 5, -1, 2**31, 2.5]
        picks += [v for v in (low, high) if v is not None]
        picks += [v + d for v in (low, high) if v is not None for d in (-1, 1)]
        return rng.choice(picks)
    if kind == "boolean":
        return rng.choice([True, False, "true"])
    return rng.choice(VALUES)


def _generated(key: tuple[str, str], count: int, seed: int) -> list[dict]:
    rng = random.Random(f"{seed}:{key}")
    top = schema.schema_of(key)
    out = []
    for _ in range(count):
        obj = _value(top, rng, 0)
        if isinstance(obj, dict):
            obj["apiVersion"], obj["kind"] = key
        out.append(obj)
    return out


# ----------------------------------------------------------------------------- tests

def test_every_compiled_keyword_is_named() -> None:
    compiled = {m[1:].replace("dollar_", "$") for m in vars(Compiler)
                if m.startswith("_") and not m.startswith("__")}
    assert compiled == set(_NAMED)


@pytest.mark.slow
def test_named_as_jsonschema_names_them_on_the_corpus_and_its_mutations(tmp_path) -> None:
    objects = _corpus(tmp_path)
    seen: set = set()
    errors = 0
    for i, obj in enumerate(objects):
        key = (obj["apiVersion"], obj["kind"])
        for changed in [obj, *(_mutations(obj) if i % 30 == 0 else ())]:
            expected, got = _both(key, changed)
            assert got == expected, changed
            errors += len(expected)
            seen.update(e[0] for e in expected)
    assert errors > 3000
    assert seen >= {"type", "required", "additionalProperties", "format", "minimum",
                    "enum", "oneOf", "minItems"}


@pytest.mark.slow
@pytest.mark.parametrize("key", KEYS, ids="/".join)
def test_named_as_jsonschema_names_them_on_objects_of_every_schema(key) -> None:
    invalid = 0
    for obj in _generated(key, 100, seed=0):
        expected, got = _both(key, obj)
        assert got == expected, obj
        invalid += bool(expected)
    assert invalid >= 30  # the generator makes invalid objects of every kind


def test_every_keyword_of_the_schemas_is_named_somewhere() -> None:
    """Across the generated objects of all kinds, every keyword lint shows a finding for
    occurs in jsonschema's errors, and the namer agrees on each object (quick variant)."""
    seen = set()
    for key in KEYS:
        for obj in _generated(key, 25, seed=1):
            expected, got = _both(key, obj)
            assert got == expected, obj
            seen.update(e[0] for e in expected)
    # (``not`` and ``const`` occur only under oneOf, if and apiVersion/kind: the synthetic
    # schema below names them)
    assert seen >= {"type", "required", "additionalProperties", "format", "minItems",
                    "maxItems", "minLength", "minimum", "maximum", "enum", "oneOf"}


SYNTHETIC = {
    "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "urn:synthetic",
    "type": "object", "required": ["a"],
    "properties": {
        "a": {"type": ["string", "null"], "minLength": 2, "pattern": "^[a-z]",
              "format": "k8s-short-name"},
        "b": {"not": {"type": "integer"}, "const": "x"},
        "c": {"anyOf": [{"required": ["p"]}, {"required": ["q"]}], "propertyNames":
              {"minLength": 2}, "additionalProperties": {"type": "integer", "maximum": 3}},
        "d": {"type": "array", "items": {"$ref": "#/$defs/node"}, "minItems": 1,
              "maxItems": 2},
        "e": {"if": {"type": "string"}, "then": {"enum": ["u", None]},
              "else": {"type": "number", "minimum": 0}},
        "f": False,
        "g": {"oneOf": [{"required": ["p"]}, {"required": ["q"]}], "allOf": [
            {"properties": {"p": {"type": "boolean"}}}, {"required": ["r"]}]},
    },
    "additionalProperties": False,
    "$defs": {"node": {"type": "object", "properties": {"kids": {
        "type": "array", "items": {"$ref": "urn:synthetic#/$defs/node"}}, "n": {"const": 1}},
        "additionalProperties": False}},
}
PIECES = [None, 0, 1, 2.0, -1, 7, True, "", "a", "ab", "Ab", "x", "u", "Bad_Name", [],
          [{}], [{"n": 1}, {"n": 2}, {"kids": [{"kids": [{"n": True}]}]}], {}, {"p": 1},
          {"q": 2, "zz": 9}, {"p": True, "q": 1, "r": 0}, {"y": 1}]


def test_synthetic_schema_is_named_as_jsonschema_names_it() -> None:
    """Every keyword the namer knows (const, not, pattern, a false schema, a recursive
    ``$ref``, ...), on a hand-written schema and 3,000 random instances."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    registry = Registry().with_resource("urn:synthetic", Resource.from_contents(SYNTHETIC))
    reference = Draft202012Validator(SYNTHETIC, registry=registry,
                                     format_checker=schema._format_checker())
    namer = Namer(Compiler(registry, schema._Formats()))
    rng = random.Random(3)
    seen = set()
    for _ in range(3000):
        obj = {k: rng.choice(PIECES) for k in "abcdefgh" if rng.random() < 0.6}
        expected = [_raw(e) for e in reference.iter_errors(obj)]
        assert [_raw(e) for e in namer.errors(SYNTHETIC, obj, "urn:synthetic")] == expected
        seen.update(e[0] for e in expected)
    assert seen >= {None, "type", "required", "additionalProperties", "format", "minItems",
                    "maxItems", "minLength", "pattern", "minimum", "maximum", "enum",
                    "const", "not", "anyOf", "oneOf"}


def _reports(paths: list[Path]) -> dict[str, str]:
    report = lint(paths)
    return {name: render(report) for name, render in RENDERERS.items()}


def test_lint_reports_are_byte_identical_to_jsonschemas(tmp_path, monkeypatch) -> None:
    """Every output format, on the lint fixtures, the benchmark corpus and a file of
    generated invalid documents of every kind: the same bytes as with jsonschema naming
    the violations."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    _corpus(corpus)
    generated = tmp_path / "generated.yaml"
    generated.write_text(yaml.safe_dump_all(
        [o for key in KEYS for o in _generated(key, 6, seed=2) if isinstance(o, dict)]))
    paths = [ROOT / "tests/lint/fixtures/bad", ROOT / "tests/lint/fixtures/good", corpus,
             generated]
    ours = _reports(paths)
    assert ours["json"].count('"rule": "TP1') > 100
    monkeypatch.setattr(schema, "named", lambda key, obj: None)
    assert _reports(paths) == ours


def test_what_the_namer_cannot_say_is_left_to_jsonschema() -> None:
    """``items: false`` compiles but is not named, nor is a keyword the compiler leaves
    out: ``Unsupported``, and jsonschema names the object."""
    compiler = Compiler(schema._schemas()[0], None)
    namer = Namer(compiler)
    with pytest.raises(Unsupported):
        namer.errors({"type": "array", "items": False}, [1], "urn:t")
    with pytest.raises(Unsupported):
        namer.errors({"uniqueItems": True}, [1], "urn:t")


def test_validate_asks_jsonschema_when_the_namer_cannot_say(monkeypatch) -> None:
    key = ("scheduling.k8s.io/v1beta1", "PodGroup")
    obj = {"apiVersion": key[0], "kind": key[1], "metadata": {"name": "Bad_Name"},
           "spec": {"schedulingPolicy": {"gang": {"minCount": 0}}}}
    expected = [v for e in schema.validator(key).iter_errors(obj) for v in schema._translate(e)]
    assert {v.rule for v in expected} >= {"TP103", "TP106"}
    assert schema.validate(obj, *key) == expected

    def cannot(*args: object) -> None:
        raise Unsupported("x")

    monkeypatch.setattr(Namer, "errors", cannot)
    assert schema.named(key, obj) is None
    assert schema.validate(obj, *key) == expected


def test_deep_objects_fall_back_to_jsonschema() -> None:
    """An object nested past the recursion limit: the predicate and the namer give up,
    jsonschema's answer is lint's (as before the namer)."""
    key = ("scheduling.k8s.io/v1beta1", "PodGroup")
    deep: Any = 1
    for _ in range(sys.getrecursionlimit()):
        deep = {"x": deep}
    obj = {"apiVersion": key[0], "kind": key[1], "metadata": {"name": "a"}, "spec": deep}
    try:
        found = schema.validate(obj, *key)
    except RecursionError:
        pytest.skip("jsonschema too gives up on this depth")
    assert found


@pytest.mark.parametrize("meta", ["true", "x", "[a]", "7"])
def test_a_producer_whose_metadata_is_not_a_mapping_is_a_finding(tmp_path, meta) -> None:
    """Found by the generated documents: lint's expansion check added the namespace to a
    Job's metadata assuming a mapping (an internal error, exit 3); the schema's TP101 is
    the finding, as ``check`` says "metadata: expected a mapping"."""
    path = tmp_path / "job.yaml"
    path.write_text(f"apiVersion: batch/v1\nkind: Job\nmetadata: {meta}\nspec: {{}}\n")
    found = {(f.rule.id, f.path) for f in lint([path]).findings}
    assert ("TP101", "metadata") in found
