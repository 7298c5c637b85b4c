"""A finding in one item of a kubectl ``kind: List`` (``kubectl get pods -o yaml``: one
document) is placed by composing that item alone (``ManifestFile.item``): differential
tests against composing the whole document, and against libyaml reading the whole file."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

from tasplan.lint import lint, reader
from tasplan.lint.formats import RENDERERS
from tasplan.load import yaml_fast

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
try:
    import lint as bench  # benchmarks/lint.py: the kubectl dump's Pods
    from generate import kubectl_yaml
finally:
    sys.path.remove(str(ROOT / "benchmarks"))

PODS = 7
FLAWED = {0: "bad name", PODS // 2: "unknown field", PODS - 1: "wrong type"}


@pytest.fixture(scope="module")
def pods() -> list[dict]:
    items = bench.kubectl_pods(PODS)
    items[0]["metadata"]["name"] = "Bad_Name"
    items[PODS // 2]["spek"] = {}
    items[PODS - 1]["metadata"]["namespace"] = ["ml"]
    return items


def _block(pod: dict, indent: str) -> list[str]:
    return kubectl_yaml(pod, indent + "  ", indent + "- ")


def _list(pods: list[dict], *, indent: str = "", flow: set[int] = frozenset(),
          comments: bool = False, items_last: bool = False, end: str = "\n") -> str:
    """The Pods as one List: items block-style (``flow``: those on one line, flow-style),
    ``indent`` under ``items:``, comments between them, ``items`` as the last key (its
    last item then ends the file, ``end`` after it)."""
    lines = ["items:"]
    for k, pod in enumerate(pods):
        if comments and k:
            lines += ["", "# the next pod", f"{indent}  # indented"]
        lines += [f"{indent}- {orjson.dumps(pod).decode()}"] if k in flow else \
            _block(pod, indent)
    head = ["apiVersion: v1"] if items_last else ["apiVersion: v1", *lines]
    tail = ["kind: List", "metadata:", '  resourceVersion: ""']
    return "\n".join(head + tail + (lines if items_last else [])) + end


LAYOUTS = {
    "kubectl": {},
    "indented": {"indent": "  "},
    "flow and block": {"flow": {0, 2, PODS - 1}},
    "indented flow": {"indent": "    ", "flow": {1, PODS // 2}},
    "comments": {"comments": True},
    "last in the file": {"items_last": True},
    "last, no line break": {"items_last": True, "end": ""},
    "last, indented, flow, no line break": {"items_last": True, "end": "", "indent": "  ",
                                            "flow": {PODS - 1}},
}


def _reports(path: Path, monkeypatch) -> tuple[dict, dict, dict, int]:
    """Every format's report: items composed alone, the whole List composed, the whole
    file read by libyaml; and how many findings were placed in an item composed alone."""
    alone = 0
    item = reader.ManifestFile.item

    def counted(self, document, k, obj):
        nonlocal alone
        found = item(self, document, k, obj)
        alone += found is not None
        return found

    def report() -> dict:
        return {name: render(lint([path])) for name, render in RENDERERS.items()}

    with monkeypatch.context() as m:
        m.setattr(reader.ManifestFile, "item", counted)
        fast = report()
    with monkeypatch.context() as m:
        m.setattr(reader.ManifestFile, "item", lambda self, document, k, obj: None)
        whole = report()
    with monkeypatch.context() as m:
        m.setattr(yaml_fast, "documents", lambda data: None)
        plain = report()
    return fast, whole, plain, alone


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_findings_in_items_placed_as_by_the_whole_list(layout, pods, tmp_path,
                                                       monkeypatch) -> None:
    text = _list(pods, **LAYOUTS[layout])
    path = tmp_path / "pods.yaml"
    path.write_text(text)
    assert yaml_fast.documents(text.encode()) is not None  # read fast: items composed alone
    fast, whole, plain, alone = _reports(path, monkeypatch)
    assert fast == whole == plain
    assert alone  # the items were composed alone
    findings = lint([path]).findings
    assert {f.item for f in findings} == set(FLAWED)
    bad = next(f for f in findings if f.item == 0 and f.rule.id == "TP103")
    assert text.splitlines()[bad.line - 1][bad.column - 1:].lstrip('"').startswith(
        "Bad_Name")


def test_a_list_after_other_documents(pods, tmp_path, monkeypatch) -> None:
    """The List as the third document of a stream: its items' lines count the documents
    before it."""
    path = tmp_path / "pods.yaml"
    path.write_text("# pods\n---\n" + "\n".join(kubectl_yaml(pods[1])) + "\n---\n" +
                    _list(pods))
    fast, whole, plain, alone = _reports(path, monkeypatch)
    assert fast == whole == plain and alone
    assert {(f.document, f.item) for f in lint([path]).findings} >= {(1, 0), (1, PODS - 1)}


POD = "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: {}\n"


@pytest.mark.parametrize("text", [
    # items without their kind take the List's (PodList): not the item as read
    "apiVersion: v1\nkind: PodList\nitems:\n- metadata:\n    name: ok\n"
    "- metadata:\n    name: Bad_Name\n",
    # a flow sequence of items
    "apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Pod, metadata: "
    "{name: Bad_Name}}]\n",
    # a multi-line plain scalar whose second line looks like an entry
    "apiVersion: v1\nkind: List\nitems:\n" + POD.format("a") + "  x: a\n    - b\n" +
    POD.format("Bad_Name"),
])
def test_unusual_lists_placed_as_by_the_whole_list(text, tmp_path, monkeypatch) -> None:
    path = tmp_path / "list.yaml"
    path.write_text(text)
    assert yaml_fast.documents(text.encode()) is not None
    fast, whole, plain, _ = _reports(path, monkeypatch)
    assert fast == whole == plain
    assert any(f.rule.id == "TP103" for f in lint([path]).findings)


@pytest.mark.parametrize(("text", "expected"), [
    (b"items:\n- a\n- b\n", [(7, 11), (11, 15)]),
    (b"kind: List\nitems:  # pods\n\n  # first\n  - a\n  # c\n  - b\nkind: x\n",
     [(37, 49), (49, 55)]),
    (b"items:\n- a\n-\n  b: 1\n-", [(7, 11), (11, 20), (20, 21)]),
    (b"items:\n- a\n-b: 1\n", [(7, 11)]),  # a column-0 key ends the sequence
    (b"items: []\n", None),
    (b"items:\nkind: List\n", None),
    (b"kind: List\n", None),
    (b"items:\n  - a\n  -b\n", None),
])
def test_item_spans(text, expected) -> None:
    assert yaml_fast.item_spans(text, 0, len(text)) == expected


def test_item_spans_of_a_later_document() -> None:
    text = b"items:\n- a\n---\nkind: List\nitems:\n- b\n"
    first, second = yaml_fast.spans(text)
    assert yaml_fast.item_spans(text, *first) == [(7, 11)]
    assert yaml_fast.item_spans(text, *second) == [(33, len(text))]
    text = b"items:\n- a\n---\nkind: List\n"  # not the first document's items
    assert yaml_fast.item_spans(text, *yaml_fast.spans(text)[1]) is None
