"""The binary snapshot (``.tsnap``): the same document and model as the JSON snapshot, the
same reports byte for byte, deterministic bytes, and a clear error (exit 2) for every
damaged, foreign or hostile file."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import msgspec
import orjson
import pytest
from typer.testing import CliRunner

from tasplan.cli.app import app
from tasplan.snapshot import binary
from tasplan.snapshot.format import encode
from tasplan.snapshot.prune import prune
from tasplan.snapshot.write import write_snapshot
from tests.snapshot.test_snapshot import NODE, ORIGIN, pod

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples"
HEADER = len(binary.MAGIC) + 2


def invoke(*args: str | Path):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})


def one_line_error(result, *needles: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    err = result.stderr
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, err
    return err


def snapshots(tmp_path: Path, *clusters: Path) -> tuple[Path, Path]:
    """The JSON and the binary snapshot of the same inputs (the binary written from the
    JSON one's document, so the origin is the same)."""
    as_json, as_binary = tmp_path / "c.json", tmp_path / "c.tsnap"
    cluster_args = [a for c in clusters for a in ("-c", c)]
    assert invoke("snapshot", *cluster_args, "-f", as_json, "-q").exit_code == 0
    write_snapshot(orjson.loads(as_json.read_bytes()), as_binary)
    return as_json, as_binary


def generated(tmp_path: Path, nodes: int, seed: int) -> tuple[Path, Path]:
    """A cluster and gang from the benchmark generator (kubectl JSON, racks, GPU taints)."""
    cluster, gang = tmp_path / f"gen{seed}.json", tmp_path / f"gang{seed}.yaml"
    subprocess.run([sys.executable, str(REPO / "benchmarks" / "generate.py"), "--nodes",
                    str(nodes), "--rack-size", "8", "--racks-per-block", "2", "--pods-per-node",
                    "12", "--seed", str(seed), "--gang-pods", "48", "--out", str(cluster),
                    "--gang-out", str(gang)], check=True, capture_output=True)
    return cluster, gang


# ------------------------------------------------------------------- same document, reports

CASES = [
    ("samples", [SAMPLES / "cluster"], [SAMPLES / "workloads"]),
    ("dra", [SAMPLES / "dra" / "cluster"], [SAMPLES / "dra" / "workloads"]),
    ("kueue", [SAMPLES / "cluster", SAMPLES / "kueue" / "topology.yaml",
               SAMPLES / "kueue" / "flavor.yaml", SAMPLES / "kueue" / "queues.yaml"],
     [SAMPLES / "kueue" / "jobset-tas.yaml"]),
    ("volcano", [SAMPLES / "cluster", SAMPLES / "volcano" / "hypernodes.yaml"],
     [SAMPLES / "volcano" / "train-vcjob.yaml"]),
]


@pytest.mark.parametrize(("name", "clusters", "workloads"), CASES, ids=[c[0] for c in CASES])
def test_binary_and_json_snapshots_give_the_same_reports(tmp_path: Path, name: str,
                                                         clusters: list[Path],
                                                         workloads: list[Path]) -> None:
    as_json, as_binary = snapshots(tmp_path, *clusters)
    assert as_binary.read_bytes().startswith(binary.MAGIC)
    for command in (("check", *workloads, "-o", "json"), ("check", *workloads),
                    ("explain", *workloads, "-o", "json"),
                    ("capacity", "--shape", "cpu=1,memory=1Gi", "-o", "json")):
        from_json = invoke(*command, "-c", as_json)
        from_binary = invoke(*command, "-c", as_binary)
        assert from_json.exit_code == from_binary.exit_code, from_binary.stderr
        assert from_json.exit_code in (0, 1, 4), from_json.stderr
        assert from_binary.stdout == from_json.stdout, command
        assert from_binary.stderr == from_json.stderr


@pytest.mark.parametrize("seed", [0, 1])
def test_generated_clusters_give_the_same_reports(tmp_path: Path, seed: int) -> None:
    cluster, gang = generated(tmp_path, 40, seed)
    as_json, as_binary = snapshots(tmp_path, cluster)
    for command in (("check", gang, "-o", "json", "--all"), ("explain", gang, "-o", "json"),
                    ("capacity", "--shape", "nvidia.com/gpu=8", "-o", "json")):
        from_dump = invoke(*command, "-c", cluster)
        from_json = invoke(*command, "-c", as_json)
        from_binary = invoke(*command, "-c", as_binary)
        assert from_json.exit_code == from_binary.exit_code == from_dump.exit_code
        assert from_binary.stdout == from_json.stdout == from_dump.stdout, command


def test_decoding_gives_the_json_document_back(tmp_path: Path) -> None:
    """Binary -> JSON is lossless: converting back writes the JSON snapshot byte for byte."""
    cluster, _ = generated(tmp_path, 24, 2)
    as_json, as_binary = snapshots(tmp_path, cluster, SAMPLES / "dra" / "cluster")
    document = orjson.loads(as_json.read_bytes())
    from tasplan.load.documents import _binary_snapshot

    assert _binary_snapshot(str(as_binary), as_binary.read_bytes()) == document
    assert binary.encode(document) == as_binary.read_bytes()
    kinds = {i["kind"] for i in document["items"]}
    assert {"Node", "ResourceSlice", "DeviceClass"} <= kinds
    back = tmp_path / "back.json"
    # The origin is rewritten by every conversion: compare what it carries over.
    assert invoke("snapshot", "-c", as_binary, "-f", back, "-q").exit_code == 0
    again = orjson.loads(back.read_bytes())
    assert again["items"] == document["items"] and again["pods"] == document["pods"]


def test_the_same_document_always_gives_the_same_bytes(tmp_path: Path) -> None:
    cluster, _ = generated(tmp_path, 16, 3)
    as_json, _ = snapshots(tmp_path, cluster)
    document = orjson.loads(as_json.read_bytes())
    first = binary.encode(document)
    assert binary.encode(orjson.loads(as_json.read_bytes())) == first
    out = tmp_path / "a.tsnap.gz"
    assert invoke("snapshot", "-c", as_json, "-f", out, "-q").exit_code == 0
    again = tmp_path / "b.tsnap.gz"
    assert invoke("snapshot", "-c", as_json, "-f", again, "-q").exit_code == 0
    one, two = (_without_origin(gzip.decompress(p.read_bytes())) for p in (out, again))
    assert one == two


def _without_origin(data: bytes) -> bytes:
    """The file re-encoded with a fixed origin (it records when the snapshot was taken)."""
    from tasplan.load.documents import _binary_snapshot

    document = _binary_snapshot("x", data)
    document["metadata"] = {}
    return binary.encode(document)


def test_unusual_nodes_stay_whole_among_the_items(tmp_path: Path) -> None:
    """Nodes the columns cannot hold exactly (an annotation kept, no labels, no images) are
    kept in the document, in their place."""
    mirror = {**NODE, "metadata": {**NODE["metadata"], "annotations": {
        "kubernetes.io/config.mirror": "x"}}}
    bare = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"},
            "status": {"allocatable": {"cpu": "1", "pods": "10"}}}
    objects = [prune(NODE), prune(bare), prune({**mirror, "metadata": {
        **mirror["metadata"], "name": "n3"}}), prune(pod("a", node="n1"))]
    document = encode(objects, ORIGIN)
    data = binary.encode(document)
    from tasplan.load.documents import _binary_snapshot

    assert _binary_snapshot("x", data) == orjson.loads(orjson.dumps(document))
    body = msgspec.msgpack.decode(memoryview(data)[HEADER:], type=binary._Body)
    assert body.node_name == ["n1", "n2"] and body.node_at == [0, 1]


# ------------------------------------------------------------------------------ the CLI


def test_format_follows_the_name_or_the_option(tmp_path: Path) -> None:
    cluster = SAMPLES / "cluster"
    for name, args, is_binary in (("a.tsnap", (), True), ("a.json", (), False),
                                  ("b.json", ("--format", "binary"), True),
                                  ("b.tsnap", ("--format", "json"), False),
                                  ("c.tsnap.gz", (), True)):
        out = tmp_path / name
        assert invoke("snapshot", "-c", cluster, "-f", out, "-q", *args).exit_code == 0
        data = out.read_bytes()
        data = gzip.decompress(data) if name.endswith(".gz") else data
        assert data.startswith(binary.MAGIC) == is_binary, name
        # Read by its contents, whatever its name says.
        assert invoke("check", SAMPLES / "workloads" / "train-rack.yaml", "-c", out,
                      "-o", "json").exit_code == 0
    directory = tmp_path / "dir"
    directory.mkdir()
    (tmp_path / "a.tsnap").rename(directory / "a.tsnap")
    assert invoke("check", SAMPLES / "workloads" / "train-rack.yaml", "-c", directory,
                  "-o", "json").exit_code == 0


def test_format_errors_are_usage_errors(tmp_path: Path) -> None:
    cluster = SAMPLES / "cluster"
    one_line_error(invoke("snapshot", "-c", cluster, "-f", tmp_path / "a", "--format", "xml"),
                   "--format: expected json or binary, got 'xml'")
    one_line_error(invoke("snapshot", "-c", cluster, "-f", tmp_path / "a.tsnap", "--as-list"),
                   "--as-list writes a plain JSON List; it has no binary form")
    assert not list(tmp_path.iterdir())


def test_binary_to_stdout(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "tasplan", "snapshot", "-c",
                             str(SAMPLES / "cluster"), "-f", "-", "--format", "binary"],
                            capture_output=True, check=True, cwd=REPO)
    assert result.stdout.startswith(binary.MAGIC)
    out = tmp_path / "x.tsnap"
    out.write_bytes(result.stdout)
    assert invoke("capacity", "-c", out, "--shape", "cpu=1").exit_code == 0


# ------------------------------------------------------------------------- hostile input


@pytest.fixture
def good(tmp_path: Path) -> bytes:
    objects = [prune(NODE), prune(pod("a", node="n1")), prune(pod("b", node="n1")),
               prune(pod("c"))]
    return binary.encode(encode(objects, ORIGIN))


def body_of(data: bytes) -> list:
    return msgspec.msgpack.decode(memoryview(data)[HEADER:])


def with_body(body: list) -> bytes:
    return binary.MAGIC + binary.VERSION.to_bytes(2, "big") + msgspec.msgpack.encode(body)


FIELD = {name: i for i, name in enumerate(binary._Body.__struct_fields__)}


def altered(data: bytes, **fields: object) -> bytes:
    body = body_of(data)
    for name, value in fields.items():
        body[FIELD[name]] = value
    return with_body(body)


def refused(tmp_path: Path, data: bytes, *needles: str, name: str = "bad.tsnap") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    err = one_line_error(invoke("check", "-c", path, SAMPLES / "workloads" / "job.yaml"),
                         str(path), *needles)
    return err


def test_the_fixture_loads(tmp_path: Path, good: bytes) -> None:
    path = tmp_path / "good.tsnap"
    path.write_bytes(good)
    assert invoke("capacity", "-c", path, "--shape", "cpu=1").exit_code == 0


@pytest.mark.parametrize("cut", [4, 9, 13, 14, 15, 200, -1])
def test_truncated(tmp_path: Path, good: bytes, cut: int) -> None:
    refused(tmp_path, good[:cut], "truncated" if cut < HEADER else "malformed binary snapshot")


def test_wrong_version_and_damaged_signature(tmp_path: Path, good: bytes) -> None:
    refused(tmp_path, good[:len(binary.MAGIC)] + b"\x00\x07" + good[HEADER:],
            "unsupported binary snapshot format version 7 (this tasplan reads version 1")
    refused(tmp_path, good.replace(b"\r\n", b"\n", 1), "signature is damaged")
    # Named .json, sniffed by content all the same.
    refused(tmp_path, good[:30], "malformed binary snapshot", name="bad.json")


def test_trailing_and_non_canonical_bytes(tmp_path: Path, good: bytes) -> None:
    refused(tmp_path, good + b"\x00", "malformed binary snapshot")
    body = body_of(good)
    # An int written wider than needed: the same value, another encoding.
    raw = msgspec.msgpack.encode(body)
    column = msgspec.msgpack.encode(body[FIELD["phase"]])
    assert column == b"\x93\x00\x00\x01" and column in raw
    wide = raw.replace(column, b"\x93\xcc\x00\x00\x01", 1)
    refused(tmp_path, binary.MAGIC + b"\x00\x01" + wide, "not in the canonical form")


@pytest.mark.parametrize(("fields", "message"), [
    ({"name": ["a", 5, "c"]}, "name[1]: Expected `str`, got `int`"),
    ({"uid": "x"}, "uid: Expected `array`, got `str`"),
    ({"node_labels": [{"a": 1}]}, "node_labels[0]"),
    ({"document": "text"}, "document: Expected `bytes`, got `str`"),
    ({"phase": [0, 0]}, "expected columns of equal length"),
    ({"node": [0, 0, 7]}, "node[2]: index 7 is out of range (2 entries)"),
    ({"node": [0, 0, -1]}, "node[2]: index -1 is out of range"),
    ({"node_part": [3]}, "node_part: index 3 is out of range (1 entries)"),
    ({"node_images": [[9]]}, "node_images: index 9 is out of range"),
    ({"node_images": [[]]}, "expected images exactly where the node part holds"),
    ({"node_at": [5]}, "node_at: expected increasing item positions below 1"),
    ({"name": ["a", "b\x00", "c"]}, "name: a string holds a NUL character"),
    ({"node_labels": [{"rack\x00": "r1"}]}, "node_labels: a string holds a NUL character"),
    ({"document": b"[]"}, "its document is not a ClusterSnapshot"),
    ({"document": b'{"kind": "ClusterSnapshot", "apiVersion": "tasplan/v1", "items": [], '
                  b'"pods": {"name": []}}'}, "column pods.name is also in its document"),
    ({"document": b'{"kind": "ClusterSnapshot", "a": 1, "a": 2}'},
     "document: duplicate key 'a'"),
    ({"document": b"[" * 300 + b"]" * 300}, "nested deeper than 250 levels"),
    ({"document": b'{"kind": "ClusterSnapshot", "x": 9223372036854775808}'},
     "out of range (int64)"),
    ({"document": b'{"kind": "Cluster\\u0000Snapshot"}'}, "NUL"),
    ({"node_parts": b'{"parts": [], "images": []}'}, "node_part: index 0 is out of range"),
    ({"node_parts": b'[1]'}, "node parts: expected {parts"),
    ({"start_time": ["", "2026-02-30T00:00:00Z", ""]},
     "pods.startTime[1]: expected an RFC 3339 timestamp"),
    ({"meta": [0, 0, 9]}, "pods.meta[2]: index 9 is out of range"),
])
def test_malformed_fields(tmp_path: Path, good: bytes, fields: dict, message: str) -> None:
    refused(tmp_path, altered(good, **fields), message)


def test_wrong_shape_and_nesting_of_the_body(tmp_path: Path, good: bytes) -> None:
    refused(tmp_path, with_body({"document": b"{}"}), "Expected `array`, got `object`")
    refused(tmp_path, with_body(body_of(good)[:5]), "malformed binary snapshot")
    refused(tmp_path, with_body([*body_of(good), 1]), "malformed binary snapshot")
    # Arrays in arrays, 100,000 deep: no field of the body nests, the first one is refused.
    head = binary.MAGIC + b"\x00\x01"
    refused(tmp_path, head + b"\x91" * 100_000 + b"\x90", "Expected `array` of at least length "
            "16, got 1")


def test_huge_lengths_are_refused_without_allocating(tmp_path: Path, good: bytes) -> None:
    """Length prefixes that claim 4 G entries or bytes in a small file."""
    head = binary.MAGIC + b"\x00\x01"
    refused(tmp_path, head + b"\xdd\xff\xff\xff\xff" + b"\x00" * 16, "malformed binary")
    refused(tmp_path, head + b"\x9f\xc6\xff\xff\xff\xff" + b"\x00" * 16, "malformed binary")
    refused(tmp_path, head + b"\x9f\xc4\x02{}\xdb\xff\xff\xff\xff", "malformed binary")


def test_duplicate_keys_and_names(tmp_path: Path, good: bytes) -> None:
    dup = altered(good, node_labels=[{"zzdupkey1": "a", "zzdupkey2": "b"}])
    refused(tmp_path, dup.replace(b"zzdupkey2", b"zzdupkey1"), "not in the canonical form")
    refused(tmp_path, altered(good, name=["a", "a", "c"]), "Pod ml/a is defined twice")
    two = altered(good, node_at=[0, 1], node_name=["n1", "n1"],
                  node_labels=[{"rack": "r1"}] * 2, node_part=[0, 0], node_images=[[0]] * 2)
    refused(tmp_path, two, "Node n1 is defined twice")


def test_lone_surrogates_are_refused(tmp_path: Path, good: bytes) -> None:
    bad = altered(good, uid=["zzsurrogate", "b", "c"])
    refused(tmp_path, bad.replace(b"zzsurrogate", b"zz\xed\xa0\x80rogate"),
            "a string is not UTF-8")


def test_gzip_binary_and_a_corrupt_gzip(tmp_path: Path, good: bytes) -> None:
    path = tmp_path / "ok.tsnap.gz"
    path.write_bytes(gzip.compress(good))
    assert invoke("capacity", "-c", path, "--shape", "cpu=1").exit_code == 0
    refused(tmp_path, gzip.compress(good[:100]), "malformed binary", name="cut.tsnap.gz")
    refused(tmp_path, gzip.compress(good)[:50], "not a valid gzip file", name="bad.tsnap.gz")


def test_snapshot_json_bytes_are_unchanged(tmp_path: Path) -> None:
    """The JSON snapshot is written as before: JSON, not the binary."""
    out = tmp_path / "c.json"
    assert invoke("snapshot", "-c", SAMPLES / "cluster", "-f", out, "-q").exit_code == 0
    assert json.loads(out.read_text())["kind"] == "ClusterSnapshot"
