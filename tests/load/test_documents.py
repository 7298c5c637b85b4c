"""Files and directories -> Kubernetes objects (tasplan.load.documents), and the errors
bad files must produce: an InputError naming the file, the line and the field, never a
traceback, a hang or an out-of-memory kill."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tasplan import InputError, load_inputs
from tasplan.load.documents import expand_paths, read_documents
from tests.load.helpers import line_of, write


def docs(path: Path, *, workload: bool = True) -> list:
    return list(read_documents(path, workload=workload))


def kinds(path: Path) -> list[tuple[str | None, str | None]]:
    return [(d.obj.get("kind"), (d.obj.get("metadata") or {}).get("name")) for d in docs(path)]


def load_error(path: Path) -> InputError:
    with pytest.raises(InputError) as info:
        docs(path)
    return info.value


# --------------------------------------------------------------------------- success


def test_single_yaml_document(tmp_path: Path) -> None:
    path = write(tmp_path, "pod.yaml", """
        apiVersion: v1
        kind: Pod
        metadata:
          name: p0
          namespace: ml
        """)
    (doc,) = docs(path)
    assert doc.obj == {"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": "p0", "namespace": "ml"}}
    assert doc.source.path == str(path)
    assert doc.source.document == 0
    assert doc.source.item is None
    assert doc.source.workload is True


def test_cluster_role_is_recorded(tmp_path: Path) -> None:
    path = write(tmp_path, "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p0}\n")
    (doc,) = docs(path, workload=False)
    assert doc.source.workload is False


def test_multi_document_yaml_skips_empty_documents(tmp_path: Path) -> None:
    path = write(tmp_path, "multi.yaml", """
        ---
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: a
        ---

        ---
        # only a comment
        ---
        apiVersion: v1
        kind: Node
        metadata:
          name: n1
        ---
        """)
    loaded = docs(path)
    assert [(d.obj["kind"], d.obj["metadata"]["name"]) for d in loaded] == [("Pod", "a"),
                                                                           ("Node", "n1")]
    # Document indexes count the empty documents too: they locate errors in the stream.
    assert [d.source.document for d in loaded] == [1, 4]


@pytest.mark.parametrize("text", ["", "\n\n", "# just a comment\n", "---\n", "---\n---\n...\n"])
def test_files_without_objects_are_empty(tmp_path: Path, text: str) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text(text)
    assert docs(path) == []


def test_json_object(tmp_path: Path) -> None:
    path = tmp_path / "node.json"
    path.write_text('{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}')
    (doc,) = docs(path)
    assert doc.obj == {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}


def test_json_list_is_flattened(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text("""{
      "apiVersion": "v1",
      "kind": "List",
      "items": [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}},
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "b"}}
      ]
    }""")
    loaded = docs(path)
    assert [(d.obj["kind"], d.obj["metadata"]["name"]) for d in loaded] == [("Pod", "a"),
                                                                           ("Node", "b")]
    assert [d.source.item for d in loaded] == [0, 1]
    assert [d.source.field_prefix() for d in loaded] == ["items[0]", "items[1]"]


def test_yaml_list_is_flattened(tmp_path: Path) -> None:
    path = write(tmp_path, "list.yaml", """
        apiVersion: v1
        kind: List
        items:
        - apiVersion: v1
          kind: Pod
          metadata: {name: a}
        - apiVersion: scheduling.k8s.io/v1
          kind: PriorityClass
          metadata: {name: high}
          value: 10
        metadata:
          resourceVersion: ""
        """)
    assert kinds(path) == [("Pod", "a"), ("PriorityClass", "high")]


def test_list_with_null_or_empty_items_is_empty(tmp_path: Path) -> None:
    path = write(tmp_path, "list.yaml", """
        apiVersion: v1
        kind: List
        items:
        ---
        apiVersion: v1
        kind: PodList
        items: []
        """)
    assert docs(path) == []


def test_typed_lists_give_their_items_kind_and_api_version(tmp_path: Path) -> None:
    """``kubectl get nodes -o json`` through some tools gives a NodeList whose items carry
    neither kind nor apiVersion: they must still load as Nodes / Pods."""
    nodes = write(tmp_path, "nodes.yaml", """
        apiVersion: v1
        kind: NodeList
        items:
        - metadata:
            name: n1
          status:
            allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
        - metadata:
            name: n2
          status:
            allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
        """)
    pods = tmp_path / "pods.json"
    pods.write_text("""{"apiVersion": "v1", "kind": "PodList", "items": [
      {"metadata": {"name": "p1", "namespace": "ns"},
       "spec": {"nodeName": "n1", "containers": [
         {"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}
    ]}""")
    assert [(d.obj["kind"], d.obj["apiVersion"]) for d in docs(nodes)] == [("Node", "v1")] * 2
    assert [(d.obj["kind"], d.obj["apiVersion"]) for d in docs(pods)] == [("Pod", "v1")]

    snapshot = load_inputs([], [nodes, pods])
    assert [n.name for n in snapshot.nodes] == ["n1", "n2"]
    assert snapshot.nodes[0].allocatable == {"cpu": 4000, "memory": 8 * 1024**3, "pods": 110}
    (pod,) = snapshot.pods
    assert (pod.key, pod.node_name, pod.requests) == ("ns/p1", "n1", {"cpu": 1000})


def test_typed_list_items_keep_their_own_kind(tmp_path: Path) -> None:
    path = write(tmp_path, "list.yaml", """
        apiVersion: v1
        kind: PodList
        items:
        - apiVersion: v1
          kind: Pod
          metadata: {name: a}
        """)
    assert kinds(path) == [("Pod", "a")]


def test_small_anchors_and_aliases_still_load(tmp_path: Path) -> None:
    path = write(tmp_path, "anchors.yaml", """
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
          labels: &labels
            app: web
            tier: front
          annotations: *labels
        spec:
          containers:
          - name: a
            resources: &res
              requests: {cpu: 500m}
          - name: b
            resources: *res
        """)
    (doc,) = docs(path)
    assert doc.obj["metadata"]["annotations"] == {"app": "web", "tier": "front"}
    assert doc.obj["spec"]["containers"][1]["resources"] == {"requests": {"cpu": "500m"}}


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    yaml_path = tmp_path / "bom.yaml"
    yaml_path.write_bytes(b"\xef\xbb\xbfapiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
    json_path = tmp_path / "bom.json"
    json_path.write_bytes(b'\xef\xbb\xbf{"apiVersion": "v1", "kind": "Pod"}')
    assert kinds(yaml_path) == [("Pod", "p")]
    assert kinds(json_path) == [("Pod", None)]


def test_yaml_flow_mapping_document(tmp_path: Path) -> None:
    """YAML flow style starts with ``{`` like JSON but is not JSON (unquoted keys)."""
    path = write(tmp_path, "flow.yaml", "{apiVersion: v1, kind: Pod, metadata: {name: p}}\n")
    assert kinds(path) == [("Pod", "p")]


def test_multi_document_yaml_starting_with_json_style_document(tmp_path: Path) -> None:
    path = write(tmp_path, "mixed.yaml", """
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}}
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: b
        """)
    assert kinds(path) == [("Pod", "a"), ("Pod", "b")]


# --------------------------------------------------------------------------- directories


def test_directory_is_read_recursively_in_name_order(tmp_path: Path) -> None:
    root = tmp_path / "in"
    for name in ["b.yaml", "a.json", "sub/c.yml", "sub/deeper/d.yaml", "z.txt",
                 "README.md", "notes.yaml.bak", "e.YAML"]:
        write(root, name, "{}\n")
    (root / "emptydir").mkdir()
    assert [p.relative_to(root).as_posix() for p in expand_paths(root)] == [
        "a.json", "b.yaml", "e.YAML", "sub/c.yml", "sub/deeper/d.yaml"]


def test_directory_objects_load_in_file_name_order(tmp_path: Path) -> None:
    root = tmp_path / "cluster"
    write(root, "b-nodes.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: b}\n")
    write(root, "a-nodes.json", '{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "z"}}')
    write(root, "ignored.txt", "this is not yaml: [")
    snapshot = load_inputs([], [root])
    # nodes are sorted by name in the snapshot; sources show the read order
    assert [(n.name, Path(n.source.path).name) for n in snapshot.nodes] == [
        ("b", "b-nodes.yaml"), ("z", "a-nodes.json")]


def test_empty_directory_is_fine(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert expand_paths(tmp_path / "empty") == []
    snapshot = load_inputs([tmp_path / "empty"], [tmp_path / "empty"])
    assert snapshot.nodes == () and snapshot.pods == () and snapshot.groups == ()


def test_single_file_path_is_returned_as_is(tmp_path: Path) -> None:
    path = write(tmp_path, "x.txt", "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n")
    # an explicitly named file is read whatever its suffix
    assert expand_paths(path) == [path]


def test_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(InputError) as info:
        expand_paths(missing)
    assert info.value.source == str(missing)
    assert "no such file or directory" in str(info.value)
    with pytest.raises(InputError):
        load_inputs([missing])


# --------------------------------------------------------------------------- errors


def test_malformed_yaml_reports_line(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.yaml", """
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
           bad: indent
        spec: {}
        """)
    err = load_error(path)
    assert err.line == 5
    assert err.field == ""
    assert "invalid YAML" in str(err)
    assert str(err).startswith(f"{path}:5: ")


def test_malformed_yaml_in_a_later_document_counts_lines_from_file_start(
        tmp_path: Path) -> None:
    path = write(tmp_path, "bad.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: a}
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: b
           bad: indent
        spec: {}
        """)
    err = load_error(path)
    assert err.line == line_of(path, "bad: indent") == 9
    assert "invalid YAML" in str(err)


def test_unclosed_flow_mapping_points_inside_the_file(tmp_path: Path) -> None:
    """The error must point at a line that exists: the unclosed ``{`` on line 5, not a line
    past the end of a 5-line file."""
    path = write(tmp_path, "bad.yaml", """
        apiVersion: v1
        kind: Pod
        metadata:
          name: x
          labels: {a: b
        """)
    assert len(path.read_text().splitlines()) == 5
    err = load_error(path)
    assert err.line == 5
    assert "invalid YAML" in str(err)


def test_tab_indentation_is_invalid_yaml(tmp_path: Path) -> None:
    path = tmp_path / "tab.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n\tname: x\n")
    err = load_error(path)
    assert err.line == 4
    assert "invalid YAML" in str(err)


def test_malformed_json_reports_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n  "apiVersion": "v1",\n  "kind": "Pod",\n  "metadata" {"name": "x"}\n}\n')
    err = load_error(path)
    assert err.line == 4
    assert "invalid JSON" in str(err)
    assert str(err).startswith(f"{path}:4: ")


def test_truncated_json(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"apiVersion": "v1",\n "kind": "Pod",\n "metadata": {"name": "x"')
    err = load_error(path)
    assert err.line == 3
    assert "invalid JSON" in str(err)


@pytest.mark.parametrize(("text", "got"), [
    ("- a\n- b\n", "got a list"),
    ("just a string\n", "got a string"),
    ("42\n", "got a number"),
    ("true\n", "got a boolean"),
])
def test_non_mapping_document(tmp_path: Path, text: str, got: str) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(text)
    err = load_error(path)
    assert "expected a Kubernetes object" in str(err)
    assert got in str(err)
    assert err.line == 1


def test_non_mapping_document_after_a_good_one_points_at_it(tmp_path: Path) -> None:
    path = write(tmp_path, "x.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: a}
        ---
        - not
        - an object
        """)
    err = load_error(path)
    assert "got a list" in str(err)
    assert err.line == 5


@pytest.mark.parametrize("text", ["[1, 2]", '"a string"', "3"])
def test_non_mapping_json(tmp_path: Path, text: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(text)
    err = load_error(path)
    assert "expected a Kubernetes object" in str(err)


def test_items_not_a_list(tmp_path: Path) -> None:
    path = write(tmp_path, "list.yaml", """
        apiVersion: v1
        kind: List
        metadata: {}
        items:
          a: 1
        """)
    err = load_error(path)
    assert err.field == "items"
    assert "expected a list, got a mapping" in str(err)
    assert err.line == line_of(path, "a: 1")


def test_list_item_not_a_mapping(tmp_path: Path) -> None:
    path = write(tmp_path, "list.yaml", """
        apiVersion: v1
        kind: List
        items:
        - apiVersion: v1
          kind: Pod
          metadata: {name: a}
        - 3
        """)
    err = load_error(path)
    assert err.field == "items[1]"
    assert "expected a Kubernetes object, got a number" in str(err)
    assert err.line == line_of(path, "- 3")


def test_non_utf8_yaml(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: caf\xe9\n")
    err = load_error(path)
    assert "UTF-8" in str(err)
    assert str(err).startswith(str(path))


def test_non_utf8_json(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "caf\xe9"}}')
    err = load_error(path)
    assert "UTF-8" in str(err)


def test_utf16_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "utf16.yaml"
    path.write_bytes("apiVersion: v1\nkind: Pod\n".encode("utf-16"))
    assert "UTF-8" in str(load_error(path))


def _alias_bomb(levels: int = 9, width: int = 9) -> str:
    lines = ["a: &a [" + ", ".join(['"lol"'] * width) + "]"]
    names = "abcdefghijklmnopqrstuvwxyz"
    for i in range(1, levels):
        lines.append(f"{names[i]}: &{names[i]} [" + ", ".join([f"*{names[i - 1]}"] * width)
                     + "]")
    return "\n".join(lines) + "\n"


def test_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(_alias_bomb())
    start = time.process_time()
    err = load_error(path)
    assert time.process_time() - start < 2
    assert "alias" in str(err).lower()
    assert err.line is not None and 1 <= err.line <= 9


def test_alias_bomb_inside_a_kubernetes_object(tmp_path: Path) -> None:
    body = "".join("  " + line + "\n" for line in _alias_bomb().splitlines())
    path = tmp_path / "pod.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n" + body)
    start = time.process_time()
    err = load_error(path)
    assert time.process_time() - start < 2
    assert "alias" in str(err).lower()


def test_alias_bomb_through_load_inputs(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(_alias_bomb())
    start = time.process_time()
    with pytest.raises(InputError, match=r"(?i)alias"):
        load_inputs([path])
    assert time.process_time() - start < 2


@pytest.mark.parametrize(("text", "field"), [
    ("a: " + "[" * 100_000 + "]" * 100_000 + "\n", "a"),  # flow collections
    ("- " * 60_000 + "x\n", "[0][0][0][0][0][0]…"),  # block sequences, compact on one line
    ("".join(f"{'  ' * i}k{i}:\n" for i in range(1200)), "k0.k1.k2.k3.k4.k5…"),  # block maps
    ('{"a": {"b": ' + "[" * 300 + "]" * 300 + "}}", "a.b"),  # JSON as YAML
])
def test_deep_nesting_is_an_error_not_a_crash(tmp_path: Path, text: str, field: str) -> None:
    """libyaml's composer recurses in C: 50,000 levels overflow the C stack and kill the
    process (a segfault, no traceback); PyYAML 6.0.4's libyaml refuses 1,000 levels without
    naming a field. One limit on every reader and version, with the field (nesting.py)."""
    path = tmp_path / "deep.yaml"
    path.write_text(text)
    err = load_error(path)
    assert "nested deeper than 250 levels" in str(err)
    assert err.field == field


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
@pytest.mark.parametrize(("depth", "ok"), [(250, True), (251, False)])
def test_nesting_limit_is_exact_on_every_reader(tmp_path: Path, suffix: str, depth: int,
                                                ok: bool) -> None:
    """250 collections (root included) read, 251 refused, as YAML (rapidyaml and libyaml
    paths) and as JSON (orjson encodes 254 levels: no TypeError below its limit)."""
    inner = "[" * (depth - 2) + "]" * (depth - 2)
    path = tmp_path / f"cm{suffix}"
    path.write_text('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, '
                    f'"data": {{"k": {inner}}}}}')
    if ok:
        assert kinds(path) == [("ConfigMap", "x")]
    else:
        err = load_error(path)
        assert err.field == "data.k" and "250 levels" in str(err)


def test_input_size_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASPLAN_MAX_INPUT_BYTES", "100")
    small = tmp_path / "small.yaml"
    small.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
    big = tmp_path / "big.yaml"
    big.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n" + "# padding\n" * 20)
    assert kinds(small) == [("Pod", "p")]
    err = load_error(big)
    assert "100 bytes" in str(err)
    assert "TASPLAN_MAX_INPUT_BYTES" in str(err)
    assert err.source == str(big)
    with pytest.raises(InputError, match="100 bytes"):
        load_inputs([small], [big])


def test_deeply_nested_flow_lists(tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text("[" * 10000 + "]" * 10000 + "\n")
    with pytest.raises(InputError):
        docs(path)
    with pytest.raises(InputError):
        load_inputs([path])


def test_deeply_nested_lists_under_a_key(tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: "
                    + "[" * 10000 + "]" * 10000 + "\n")
    # Either refused while reading or loaded and ignored (ConfigMap): never a RecursionError.
    try:
        snapshot = load_inputs([], [path])
    except InputError as exc:
        assert "deep" in str(exc) or "nest" in str(exc)
    else:
        assert snapshot.ignored == {("v1", "ConfigMap"): 1}


def test_deeply_nested_lists_with_anchors(tmp_path: Path) -> None:
    """Anchors send the file through the guarded pure-Python loader, which recurses."""
    path = tmp_path / "deep.yaml"
    path.write_text("x: &x 1\nkind: " + "[" * 10000 + "]" * 10000 + "\n")
    err = load_error(path)
    assert "deep" in str(err)


def test_deeply_nested_field_of_a_pod(tmp_path: Path) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: "
                    + "[" * 5000 + "]" * 5000 + "\nspec: {}\n")
    with pytest.raises(InputError) as info:
        load_inputs([path])
    assert info.value.field == "metadata.labels"


# ------------------------------------------------------------- reading a file whole (issue 28)


def test_a_regular_file_is_read_whole_in_one_read(tmp_path: Path) -> None:
    from tasplan.load import documents

    data = bytes(range(256)) * 5000
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    with path.open("rb") as fh:
        assert documents.read_limited(fh, str(path), len(data)) == data
    with path.open("rb") as fh:  # from where the stream stands
        fh.read(1000)
        assert documents.read_limited(fh, str(path), len(data)) == data[1000:]
    with path.open("rb") as fh, pytest.raises(InputError, match="larger than the limit"):
        documents.read_limited(fh, str(path), len(data) - 1)


def test_a_file_that_grows_while_read_is_read_on_within_the_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """fstat's size is a hint: a file longer than it said (written to meanwhile) is read on
    in chunks, and the limit still applies."""
    import os

    from tasplan.load import documents

    data = b"x" * 100_000
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    real = os.fstat

    def shorter(fd: int) -> os.stat_result:
        st = real(fd)
        return os.stat_result((*st[:6], 10, *st[7:]))  # st_size: 10 bytes

    monkeypatch.setattr(documents.os, "fstat", shorter)
    monkeypatch.setattr(documents, "READ_CHUNK", 4096)
    with path.open("rb") as fh:
        assert documents.read_limited(fh, str(path), len(data)) == data
    with path.open("rb") as fh, pytest.raises(InputError, match="larger than the limit"):
        documents.read_limited(fh, str(path), len(data) - 1)


def test_streams_that_are_not_files_are_read_in_chunks(tmp_path: Path) -> None:
    import gzip
    import io

    from tasplan.load import documents

    data = b"y" * 50_000
    assert documents.read_limited(io.BytesIO(data), "-", len(data)) == data
    path = tmp_path / "f.gz"
    path.write_bytes(gzip.compress(data))
    with gzip.open(path, "rb") as fh:  # its fileno is the compressed file's
        assert documents.read_limited(fh, str(path), len(data)) == data
