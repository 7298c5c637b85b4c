"""Fuzzing every command with mutated manifests, cluster objects and snapshot tables.

Valid documents (the samples, and a snapshot of the sample cluster) are mutated -- values
swapped for other types, keys deleted or duplicated, huge and negative numbers, strings with
control characters, ANSI escapes, NUL, very long ones -- and written as JSON or YAML. For
every example and command the promise holds: exit 0, 1 or 2; no traceback and no internal
error; on exit 2 exactly one line on stderr; no credential from the planted kubeconfig in
any output; and each run ends within the Hypothesis deadline.

CI runs a fixed, small budget (derandomized: the same examples every run). To fuzz long:

    TASPLAN_FUZZ_EXAMPLES=100000 TASPLAN_FUZZ_SEED=1 nice pytest tests/fuzz -q -p no:cacheprovider

(``TASPLAN_FUZZ_SEED`` switches to random generation from that seed; failures print the
reproducing example.)
"""

from __future__ import annotations

import copy
import json
import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tasplan.cli.app import app

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples"
SECRET = "fuzz-secret-token-3c1f0e9d8b7a"
EXAMPLES = int(os.environ.get("TASPLAN_FUZZ_EXAMPLES", "25"))
SEED = os.environ.get("TASPLAN_FUZZ_SEED")
pytestmark = pytest.mark.slow


def _load(path: Path) -> list[dict]:
    out = []
    for doc in yaml.safe_load_all(path.read_text()):
        if isinstance(doc, dict) and str(doc.get("kind", "")).endswith("List"):
            out.extend(doc.get("items") or ())
        elif isinstance(doc, dict):
            out.append(doc)
    return out


WORKLOADS = [d for f in sorted((SAMPLES / "workloads").glob("*.yaml")) for d in _load(f)]
CLUSTER = [d for f in sorted((SAMPLES / "cluster").glob("*.yaml")) for d in _load(f)]
NODES = [d for d in CLUSTER if d.get("kind") == "Node"]


def _snapshot(tmp: Path) -> dict:
    out = tmp / "snap.json"
    result = CliRunner().invoke(app, ["snapshot", "-c", str(SAMPLES / "cluster"), "-o",
                                      str(out), "-q"])
    assert result.exit_code == 0, result.stderr
    return json.loads(out.read_text())


class Dup(dict):
    """A mapping written with one key twice (the JSON writer below emits it)."""

    dup: str = ""


ODD_STRINGS = ["", " ", "\x00", "a\x1b[31mred", "SCHEDULABLE: forged\nline", "\u202e", "x" * 70_000,
               "../../etc/passwd", "-1", "1e400", "0x10", "2:30", "null", "🙂", "a/b/c",
               "\ud800"]
ODD_NUMBERS = [-1, 0, 2**31, 2**63, -(2**63) - 1, 10**30, 1.5, float("inf"), 10**5000]


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(node, list):
        for i, v in enumerate(node[:20]):
            out.extend(_paths(v, (*prefix, i)))
    return out


def _get(node: Any, path: tuple) -> Any:
    for part in path:
        node = node[part]
    return node


@st.composite
def mutated(draw, seeds: list[dict]) -> Any:
    doc = copy.deepcopy(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(doc)
        path = draw(st.sampled_from(paths))
        kind = draw(st.sampled_from(["type", "delete", "number", "string", "dup", "list",
                                     "nest"]))
        if not path:
            if kind == "type":
                return draw(st.sampled_from([[], "text", 7, None, [doc, doc]]))
            continue
        parent, key = _get(doc, path[:-1]), path[-1]
        value: Any
        if kind == "delete":
            del parent[key]
            continue
        if kind == "type":
            value = draw(st.sampled_from([None, True, 3, 2.5, "s", [], {}, [1, "a"], {"a": 1}]))
        elif kind == "number":
            value = draw(st.sampled_from(ODD_NUMBERS) | st.integers())
        elif kind == "string":
            value = draw(st.sampled_from(ODD_STRINGS) | st.text(max_size=20))
        elif kind == "list":
            value = [parent[key]] * draw(st.integers(0, 50))
        elif kind == "nest":
            value = {"a": {"b": [parent[key]]}}
        else:
            target = parent[key] if isinstance(parent[key], dict) and parent[key] else parent
            if isinstance(target, dict) and target:
                dup = Dup(target)
                dup.dup = draw(st.sampled_from(sorted(map(str, target))))
                if target is parent:
                    grand = _get(doc, path[:-2]) if len(path) > 1 else None
                    if grand is None:
                        doc = dup
                        continue
                    grand[path[-2]] = dup
                else:
                    parent[key] = dup
            continue
        parent[key] = value
    return doc


def _json(value: Any) -> str:
    """JSON text (also valid YAML) that may hold a duplicate key, lone surrogates and
    numbers Python's json would refuse to write."""
    if isinstance(value, dict):
        pairs = [(str(k), v) for k, v in value.items()]
        if isinstance(value, Dup) and value.dup:
            pairs.append((value.dup, value.get(value.dup)))
        return "{" + ", ".join(f"{_string(k)}: {_json(v)}" for k, v in pairs) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_json(v) for v in value) + "]"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, float):
        return "1e400" if value == float("inf") else repr(value)
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int) and abs(value) > 10**4000:
        return "1" + "0" * 5000
    return str(value)


def _string(text: str) -> str:
    return json.dumps(text)  # escapes control characters and lone surrogates as \uXXXX


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("fuzz")
    kubeconfig = tmp / "kubeconfig"
    kubeconfig.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "c",
        "clusters": [{"name": "k", "cluster": {"server": "https://127.0.0.1:1"}}],
        "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u"}}],
        "users": [{"name": "u", "user": {"token": SECRET}}]}))
    return {"tmp": tmp, "snapshot": _snapshot(tmp), "kubeconfig": kubeconfig}


def _run(args: list[str], kubeconfig: Path) -> None:
    result = CliRunner().invoke(app, args, env={"COLUMNS": "120",
                                                "KUBECONFIG": str(kubeconfig)})
    out, err = result.stdout, result.stderr
    assert result.exit_code in (0, 1, 2, 4), (args, result.exit_code, err[-2000:])
    assert "Traceback" not in out + err and "internal error" not in err, (args, err[-2000:])
    if result.exit_code == 2:
        assert err.count("\n") == 1 and err.startswith("error: "), (args, err[-2000:])
    assert SECRET not in out + err
    assert "\x1b[31m" not in err and "\x00" not in out + err


def _settings(examples: int):
    decorators = [settings(max_examples=examples, deadline=timedelta(seconds=20),
                           derandomize=SEED is None, database=None,
                           suppress_health_check=list(HealthCheck))]
    if SEED is not None:
        decorators.append(seed(int(SEED)))

    def apply(fn):
        for decorator in decorators:
            fn = decorator(fn)
        return fn
    return apply


def _write(tmp: Path, name: str, doc: Any, as_json: bool) -> Path:
    path = tmp / (name + (".json" if as_json else ".yaml"))
    path.write_text(_json(doc), encoding="utf-8", errors="surrogatepass")
    return path


@_settings(EXAMPLES)
@given(doc=mutated(WORKLOADS), as_json=st.booleans())
def test_fuzz_workload_manifests(world: dict, doc: Any, as_json: bool) -> None:
    path = _write(world["tmp"], "workload", doc, as_json)
    cluster = str(SAMPLES / "cluster")
    for args in (["check", str(path), "-c", cluster, "-o", "json"],
                 ["check", str(path), "-c", cluster],
                 ["explain", str(path), "-c", cluster],
                 ["lint", str(path), "-o", "sarif"],
                 ["lint", str(path), "-c", cluster, "-o", "junit"]):
        _run(args, world["kubeconfig"])


@_settings(max(EXAMPLES // 2, 5))
@given(doc=mutated(NODES + [d for d in CLUSTER if d.get("kind") != "Node"][:6]),
       as_json=st.booleans())
def test_fuzz_cluster_objects(world: dict, doc: Any, as_json: bool) -> None:
    path = _write(world["tmp"], "cluster", {"apiVersion": "v1", "kind": "List",
                                            "items": [doc, *NODES[1:]]}, as_json)
    train = str(SAMPLES / "workloads" / "train-rack.yaml")
    out = str(world["tmp"] / "out.json")
    for args in (["check", train, "-c", str(path)],
                 ["snapshot", "-c", str(path), "-o", out, "-q"]):
        _run(args, world["kubeconfig"])


@_settings(max(EXAMPLES // 2, 5))
@given(data=st.data())
def test_fuzz_snapshot_tables(world: dict, data: st.DataObject) -> None:
    doc = data.draw(mutated([world["snapshot"]]))
    path = _write(world["tmp"], "snapshot", doc, True)
    train = str(SAMPLES / "workloads" / "train-rack.yaml")
    out = str(world["tmp"] / "again.json")
    _run(["check", train, "-c", str(path), "-o", "json"], world["kubeconfig"])
    _run(["snapshot", "-c", str(path), "-o", out, "-q"], world["kubeconfig"])
    if Path(out).exists():  # a conversion never writes what check then refuses
        result = CliRunner().invoke(app, ["check", train, "-c", out, "-o", "json"])
        assert result.exit_code in (0, 1), result.stderr
        Path(out).unlink()


# ------------------------------------------------------------------ issue 25 generators

CEL_ATOMS = ['device.driver', 'device.attributes["gpu.example.com"].model',
             'device.capacity["gpu.example.com"].memory', '"x"', "1", "true", "[1, 2]",
             'quantity("80Gi")', 'semver("1.2.3")', "{}", "device", "x", "a"]
CEL_FORMS = ["{0} == {1}", "{0} + {1}", "{0}.compareTo({1})", "{0}.isGreaterThan({1})",
             "cel.bind(x, {0}, x + x + x + x + x + x + x + x + x + x)",
             "{0}.all(a, {1})", "{0}.exists(a, {1})", "{0}.map(a, {1})", "size({0})",
             "{0} ? {1} : {0}", "!{0}", "({0})", "{0}.isInteger()", "{0}.major()",
             "{0}[{1}]", "{0}.startsWith({1})", "{0}.matches({1})"]


@st.composite
def cel_selectors(draw) -> str:
    """Nested CEL: type mismatches, quantity/semver methods on other types, growing
    binds, deep nesting; each must compile, evaluate or fail with one line."""
    expression = draw(st.sampled_from(CEL_ATOMS))
    for _ in range(draw(st.integers(0, 40))):
        form = draw(st.sampled_from(CEL_FORMS))
        expression = form.format(expression, draw(st.sampled_from(CEL_ATOMS)))
    return expression


@_settings(max(EXAMPLES // 2, 5))
@given(expression=cel_selectors())
def test_fuzz_cel_selectors(world: dict, expression: str) -> None:
    dra = SAMPLES / "dra"
    workload = (dra / "workloads" / "train-fabric.yaml").read_text().replace(
        'device.attributes["gpu.example.com"].model == "h100"', expression.replace("'", "\\'"))
    path = world["tmp"] / "cel.yaml"
    path.write_text(workload)
    for args in (["check", str(path), "-c", str(dra / "cluster"), "-o", "json"],
                 ["lint", str(path), "-c", str(dra / "cluster")]):
        _run(args, world["kubeconfig"])


@st.composite
def composite_trees(draw) -> str:
    """Composite forests: chains, cycles, missing parents, self-parents, deep ones."""
    n = draw(st.integers(1, 60))
    docs = []
    for i in range(n):
        parent = draw(st.one_of(st.none(), st.integers(0, n + 2)))
        count = draw(st.integers(1, 3))
        spec = (f"  schedulingPolicy: {{gang: {{minGroupCount: {count}}}}}\n"
                "  workloadRef: {workloadName: w, templateName: t}\n")
        if parent is not None:
            spec += f"  parentCompositePodGroupName: c{parent}\n"
        docs.append("apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\n"
                    f"metadata: {{name: c{i}, namespace: ml}}\nspec:\n{spec}")
    for j in range(draw(st.integers(0, 4))):
        docs.append("apiVersion: scheduling.k8s.io/v1alpha3\nkind: PodGroup\n"
                    f"metadata: {{name: g{j}, namespace: ml}}\nspec:\n"
                    f"  parentCompositePodGroupName: c{draw(st.integers(0, n))}\n"
                    "  workloadRef: {workloadName: w, templateName: t}\n"
                    "  schedulingPolicy: {gang: {minCount: 1}}\n---\n"
                    "apiVersion: v1\nkind: Pod\n"
                    f"metadata: {{name: p{j}, namespace: ml}}\nspec:\n"
                    f"  schedulingGroup: {{podGroupName: g{j}}}\n  containers: [{{name: c}}]\n")
    return "---\n".join(docs)


@_settings(max(EXAMPLES // 2, 5))
@given(text=composite_trees())
def test_fuzz_composite_trees(world: dict, text: str) -> None:
    path = world["tmp"] / "trees.yaml"
    path.write_text(text)
    cluster = str(SAMPLES / "cluster")
    for args in (["check", str(path), "-c", cluster, "-o", "json"],
                 ["explain", str(path), "-c", cluster],
                 ["lint", str(path)]):
        _run(args, world["kubeconfig"])


WHATIF_VALUES = st.one_of(st.sampled_from(["gpu-a1-0", "rack=rack-a1", "ml/train-workers-0"
                                           ".minCount=2", "priority<٣", "x" * 5000, "", "a,",
                                           "ml/*", "!", "(", "k in (a,b)"]),
                          st.integers(-5, 10**6), st.floats(allow_nan=True), st.none(),
                          st.text(max_size=30), st.lists(st.integers(), max_size=3))


@st.composite
def what_if_files(draw) -> str:
    edits = []
    for _ in range(draw(st.integers(0, 6))):
        edit = {"op": draw(st.sampled_from(["cordon", "drain", "remove", "addNodes", "evict",
                                            "set", "other"]))}
        for key in draw(st.lists(st.sampled_from(["target", "count", "like", "in", "labels",
                                                  "extra"]), max_size=4, unique=True)):
            edit[key] = draw(WHATIF_VALUES)
        edits.append(edit)
    return _json({"apiVersion": "tasplan/v1", "kind": "WhatIf", "edits": edits})


@_settings(max(EXAMPLES // 2, 5))
@given(text=what_if_files())
def test_fuzz_what_if_files(world: dict, text: str) -> None:
    path = world["tmp"] / "whatif.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    train = str(SAMPLES / "workloads" / "train-rack.yaml")
    cluster = str(SAMPLES / "cluster")
    _run(["check", train, "-c", cluster, "--what-if", str(path), "-o", "json"],
         world["kubeconfig"])


@st.composite
def output_targets(draw, tmp: Path) -> str:
    """Where an output file may be asked to go: devices, FIFOs, directories, links,
    missing directories, empty and odd names."""
    kind = draw(st.sampled_from(["device", "fifo", "dir", "link", "missing", "empty", "dot",
                                 "slash", "file", "name"]))
    if kind == "fifo":
        fifo = tmp / f"fifo-{draw(st.integers(0, 3))}"
        if not fifo.exists():
            os.mkfifo(fifo)
        return str(fifo)
    if kind == "link":
        link = tmp / f"link-{draw(st.integers(0, 3))}"
        if not link.is_symlink():
            link.symlink_to(tmp / "elsewhere")
        return str(link)
    return {"device": "/dev/null", "dir": str(tmp), "missing": str(tmp / "no" / "x.svg"),
            "empty": "", "dot": ".", "slash": str(tmp) + "/", "file": str(tmp / "out.svg"),
            "name": str(tmp / draw(st.text(min_size=1, max_size=12).filter(
                lambda s: "/" not in s and "\0" not in s and s not in (".", ".."))))}[kind]


@_settings(max(EXAMPLES // 2, 5))
@given(data=st.data())
def test_fuzz_output_targets(world: dict, data: st.DataObject) -> None:
    tmp = world["tmp"] / "targets"
    tmp.mkdir(exist_ok=True)
    target = data.draw(output_targets(tmp))
    option = data.draw(st.sampled_from(["--svg", "--html", "snapshot"]))
    cluster = str(SAMPLES / "cluster")
    args = (["snapshot", "-c", cluster, "-f", target, "-q"] if option == "snapshot" else
            ["capacity", "-c", cluster, "--shape", "cpu=1", option, target])
    _run(args, world["kubeconfig"])
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")
    for fifo in tmp.glob("fifo-*"):
        assert not fifo.is_file()  # never replaced by a regular file
