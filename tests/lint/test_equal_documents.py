"""Documents equal up to a name are checked once per class (issue 28): a stream's members
get their class's findings at their own lines, in the same order and bytes as when every
document is checked alone and as libyaml's reading gives them, in every format; names that
are findings themselves, cross-document rules and the handlers' kinds are never shared."""

from __future__ import annotations

import random
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasplan.lint import engine, lint, schema
from tasplan.lint.engine import LintOptions
from tasplan.lint.formats import RENDERERS
from tasplan.load import yaml_fast
from tasplan.load.yaml_dump import risky

from .test_big_streams import _read_both

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: ml
  labels:
    app: worker-{g}
{top}spec:
{extra}  containers:
  - name: trainer
    image: registry.example.com/trainer:{g}
"""

WORKLOAD = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: {name}
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      gang:
        minCount: {count}
"""

OTHERS = [
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  a: b\n",
    # a handler's kind (Volcano): its checks read names, so it is never shared
    "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: {name}\nspec:\n"
    "  minAvailable: 1\n  tasks:\n  - name: t\n    replicas: 1\n    template:\n      spec:\n"
    "        containers: [{{name: c, image: x}}]\n",
    "apiVersion: v1\nkind: PodList\nitems:\n- metadata:\n    name: {name}\n  spec:\n"
    "    containers: [{{name: c, image: x}}]\n",
]

NAMES = ["p-{i}", "p-{i}", "p-{i}", "same", "Bad", "a.b", "x" * 70, "x.y" + "z" * 60,
         "''", "123", "'0755'", "-p", "p-", "q{i}", "\"p-{i}\""]
TOPS = ["", "", "", "spek: 1\n"]
EXTRAS = ["", "", "", "  nodeSelector: [x]\n",
          "  schedulingGroup:\n    podGroupName: nowhere\n", "  priority: high\n"]


def _stream(rng: random.Random, count: int) -> str:
    docs = []
    for i in range(count):
        name = rng.choice(NAMES).format(i=i)
        roll = rng.random()
        if roll < 0.6:
            docs.append(POD.format(name=name, g=rng.randrange(3), top=rng.choice(TOPS),
                                  extra=rng.choice(EXTRAS)))
        elif roll < 0.8:
            docs.append(WORKLOAD.format(name=name, count=rng.choice([1, 2, 0, "x"])))
        else:
            docs.append(rng.choice(OTHERS).format(name=name))
    return "---\n" + "---\n".join(docs)


def _all_formats(paths, options) -> dict[str, str]:
    return {name: render(lint(paths, options)) for name, render in RENDERERS.items()}


@pytest.mark.parametrize("seed", range(6))
def test_classes_report_as_every_document_alone_and_as_libyaml(seed, tmp_path,
                                                               monkeypatch) -> None:
    """Repeated, near-repeated and equal-after-normalisation documents, with findings in
    repeated ones and names that are findings: byte-identical reports in every format."""
    rng = random.Random(seed)
    path = tmp_path / "stream.yaml"
    path.write_text(_stream(rng, 150))
    assert yaml_fast.documents(path.read_bytes()) is not None  # the fast path is taken
    options = [LintOptions(), LintOptions(strict=True, kube_version="1.35")][seed % 2]
    keys: list = []
    real_key = engine._class_key
    monkeypatch.setattr(engine, "_class_key",
                        lambda m, shapes: keys.append(k := real_key(m, shapes)) or k)
    shared = _all_formats([path], options)
    assert len({k for k in keys if k is not None}) < len(keys) / 2  # classes were shared
    monkeypatch.setattr(engine, "_class_key", lambda m, shapes: None)
    alone = _all_formats([path], options)
    monkeypatch.setattr(yaml_fast, "documents", lambda data: None)
    plain = _all_formats([path], options)
    assert shared == alone == plain
    assert '"rule": "TP103"' in shared["json"] and '"rule": "TP108"' in shared["json"]


def test_a_finding_in_every_member_is_at_each_members_line(tmp_path) -> None:
    text = "".join("---\n" + POD.format(name=f"p-{i}", g=0, top="spek: 1\n", extra="")
                   for i in range(50))
    path = tmp_path / "s.yaml"
    path.write_text(text)
    found = [(f.rule.id, f.line, f.column, f.document, f.resource)
             for f in lint([path]).findings]
    assert found == [("TP108", 13 * i + 9, 1, i, f"Pod ml/p-{i}") for i in range(50)]


def test_names_that_are_findings_are_not_shared(tmp_path) -> None:
    """A class whose first member has a good name does not lend it to a bad one."""
    names = ["good", "Bad", "good-2", "a.b", "x" * 254, "ok", "x" * 64]
    path = tmp_path / "s.yaml"
    path.write_text("".join("---\n" + POD.format(name=n, g=0, top="", extra="")
                            for n in names))
    found = [(f.rule.id, f.document, f.message) for f in lint([path]).findings]
    assert [(rule, doc) for rule, doc, _ in found] == [("TP103", 1), ("TP103", 4)]
    assert "'Bad'" in found[0][2] and "(254 chars)" in found[1][2]


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="az09-._/%A", max_size=70))
def test_plain_names_pass_every_format(name) -> None:
    if schema.plain_name(name):
        assert all(check(name) for check in schema.FORMAT_CHECKS.values())


def _meta(name_schema=None, **meta_keywords) -> dict:
    name = {"type": "string", "format": "k8s-long-name"} if name_schema is None \
        else name_schema
    return {"type": "object", "properties": {"metadata": {
        "type": "object", "properties": {"name": name}, **meta_keywords}}}


@pytest.mark.parametrize(("node", "free"), [
    (_meta(), True),
    (_meta({"allOf": [{"type": "string"}, {"format": "k8s-short-name"}]}), True),
    (_meta(required=["name"], additionalProperties=False), True),
    (_meta({"type": "string", "const": "cluster"}), False),
    (_meta({"enum": ["a", "b"]}), False),
    (_meta({"type": "string", "pattern": "^a"}), False),
    (_meta({"type": "string", "maxLength": 10}), False),
    (_meta({"format": "not-ours"}), False),
    (_meta(minProperties=1), False),  # its message quotes the mapping, name included
    (_meta(patternProperties={"^n": {"const": "x"}}), False),
    ({"anyOf": [_meta(), _meta({"const": "x"})]}, False),
    ({"if": _meta({"const": "x"}), "then": {"required": ["spec"]}}, False),
    ({"additionalProperties": _meta()["properties"]["metadata"]}, True),
    ({"additionalProperties": {"properties": {"name": {"const": "x"}}}}, False),
    ({"properties": {"metadata": True}}, True),
    ({"$ref": "#/$defs/meta"}, False),
])
def test_name_free_walks_every_keyword_that_reaches_the_name(node, free) -> None:
    assert schema._name_free(node, 0) is free


def test_shipped_schemas_read_names_only_through_formats() -> None:
    """So every kind with a schema shares classes across plain names (the speed-up); a
    schema that starts reading names otherwise turns sharing off for its kind alone."""
    assert all(schema.name_free(key) for key in schema.kinds())
    assert schema.name_free(("v1", "ConfigMap"))  # no schema: nothing reads the name


# Reading by shapes (yaml_fast._by_shape): a stream whose documents repeat is read one
# distinct shape at a time; each document is its shape with its plain name swapped back.

def _repeated(flaw: str | None = None, where: int = 0, count: int = 200) -> bytes:
    docs = [f"kind: Pod\nmetadata:\n  name: p{i}\n  namespace: ml\nspec: {{}}\n"
            for i in range(count)]
    if flaw is not None:
        docs[where] = flaw
    return ("---\n" + "---\n".join(docs)).encode()


def test_repeated_documents_are_read_by_shape() -> None:
    data = _repeated()
    roots = yaml_fast.documents(data)
    assert isinstance(roots, yaml_fast.Roots) and len(set(roots.shapes)) == 1
    assert roots == yaml_fast._chunked(data)
    assert [r["metadata"]["name"] for r in roots] == [f"p{i}" for i in range(200)]


@pytest.mark.parametrize("flaw", [
    "a: 1\na: 2\n",                       # duplicate key
    "metadata:\n  name: p1\n  name: p2\n",  # a duplicate name key in the shape
    "metadata:\n  name: p1\nmetadata: {}\n",
    "a: \"x\\u0000y\"\n",                 # NUL
    "a: yes\n",                           # a YAML 1.1 word: libyaml reads it
    "metadata:\n  name: yes\n",           # one as the name: never swapped
    "metadata:\n  name: null\n",
    "metadata:\n  name: p1 # c\n",
    "metadata:\n  name: p1  \n",
    "metadata:\n  name: tasplan-shape-name\n",  # the placeholder itself
    "x: \"a\nmetadata:\n  name: p1\n  b\"\n",    # a line inside a quoted scalar
    "x: [\nmetadata:\n  name: p1\n]\n",
    "x: |\n metadata:\n  name: p1\n",
    "a: &x [1]\nb: *x\n",                 # anchors
    "a: !!str 1\n",                       # tags
    "a: " + "[" * 300 + "]" * 300 + "\n",  # nesting beyond the limit
    "a: 99999999999999999999\n",          # beyond int64
    "a: [\n",                             # a syntax error
    "# only a comment\n",                 # a null document
    "",
])
@pytest.mark.parametrize("where", [0, 100, 199])
def test_strictness_of_reading_by_shape(flaw, where, tmp_path, monkeypatch) -> None:
    """A flaw in one document of a repeating stream, or in all of them: read (or refused)
    as libyaml reads it, on the workload reader and in lint, in every format."""
    for data in (_repeated(flaw, where), _repeated(None).replace(
            b"spec: {}\n", b"spec: {}\n" + flaw.encode()) if flaw.startswith("a") else b""):
        if not data:
            continue
        fast, plain = _read_both(data, monkeypatch)
        assert fast == plain
        path = tmp_path / "w.yaml"
        path.write_bytes(data)
        shared = _all_formats([path], LintOptions())
        with monkeypatch.context() as m:
            m.setattr(yaml_fast, "documents", lambda data: None)
            assert shared == _all_formats([path], LintOptions())


@pytest.mark.parametrize("last", ["data:\n  x: |+\n    text", "data:\n  x: |+\n    text\n\n",
                                  "metadata:\n  name: p7", "a: b"])
def test_the_last_document_keeps_its_end(last, monkeypatch) -> None:
    """The file's last document may end without a line break (a ``|+`` scalar keeps it)."""
    data = _repeated() + b"---\n" + last.encode()
    fast, plain = _read_both(data, monkeypatch)
    assert fast == plain


PIECES = ["---", "--- x", "----", "a: 1", "# c", "", "  b: 2", "-", "---x", "c: ---"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12), st.booleans())
def test_split_at_markers_as_the_regex_splits(lines, newline_at_end) -> None:
    data = "\n".join(lines).encode() + (b"\n" if newline_at_end and lines else b"")
    assert yaml_fast.split_markers(data) == yaml_fast._MARKER.split(data)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="az09-_.A :#'\"", max_size=20))
def test_a_swapped_name_is_read_as_the_string_it_is(name) -> None:
    """``shape`` swaps only names that every reader reads as their own text."""
    import yaml

    piece = f"metadata:\n  name: {name}\n".encode()
    masked, swapped = yaml_fast.shape(piece)
    if swapped is not None:
        assert swapped == name
        assert masked == b"metadata:\n  name: tasplan-shape-name\n"
        assert yaml.safe_load(piece) == {"metadata": {"name": name}}
        assert not risky(piece)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12), st.booleans())
def test_spans_by_finds_are_the_regex_spans(lines, newline_at_end) -> None:
    """Text or bytes alike (lint composes a finding's document from the file's bytes)."""
    text = "\n".join(lines) + ("\n" if newline_at_end and lines else "")
    fast = yaml_fast.spans(text)
    assert yaml_fast.spans(text.encode()) == fast
    with mock.patch.object(yaml_fast, "_spans_by_find", lambda *args: None):
        assert fast == yaml_fast.spans(text) == yaml_fast.spans(text.encode())
