"""Hardening round 3 (issue 25): inputs that are not files, symlink loops, numbers too long
for ``int()``; each one exit 2 with one line, never a traceback or a 4 GiB read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.hardening.test_inputs import CLUSTER, TRAIN, invoke, one_line_error

WORKLOAD_INPUTS = {
    "--what-if": lambda f: ("check", TRAIN, "-c", CLUSTER, "--what-if", f),
    "--scheduler-config": lambda f: ("check", TRAIN, "-c", CLUSTER, "--scheduler-config", f),
    "workload": lambda f: ("check", f, "-c", CLUSTER),
    "--cluster": lambda f: ("check", TRAIN, "-c", f),
    "lint": lambda f: ("lint", f),
    "capacity --for": lambda f: ("capacity", "-c", CLUSTER, "--for", f),
}


@pytest.mark.parametrize("option", sorted(WORKLOAD_INPUTS))
def test_every_input_refuses_devices_and_fifos(option: str, tmp_path: Path) -> None:
    """--what-if /dev/zero and --scheduler-config /dev/zero read up to 4 GiB (MemoryError
    under a memory cap); every input now gets the one regular-file check."""
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    for path in ("/dev/zero", str(fifo)):
        one_line_error(invoke(*WORKLOAD_INPUTS[option](path)), path, "not a regular file")


def test_a_symlink_loop_in_a_cluster_directory_names_its_links(tmp_path: Path) -> None:
    (tmp_path / "nodes.yaml").write_text((CLUSTER / "nodes.yaml").read_text())
    (tmp_path / "a.yaml").symlink_to("b.yaml")
    (tmp_path / "b.yaml").symlink_to("a.yaml")
    one_line_error(invoke("check", TRAIN, "-c", tmp_path),
                   "a.yaml: a symbolic link loop", "a.yaml -> b.yaml -> a.yaml")


def test_a_dangling_symlink_is_named_with_its_target(tmp_path: Path) -> None:
    link = tmp_path / "w.yaml"
    link.symlink_to(tmp_path / "gone.yaml")
    one_line_error(invoke("check", link, "-c", CLUSTER), "a broken symbolic link",
                   "gone.yaml")


@pytest.mark.parametrize("cpu", ["1" * 5000, "1e" + "1" * 5000, "1e" + "9" * 30])
def test_quantities_beyond_the_digit_limit(cpu: str, tmp_path: Path) -> None:
    """A 5,000-digit cpu quantity or exponent was Python's int-string ValueError (exit 3)."""
    pod = tmp_path / "pod.yaml"
    pod.write_text(f"""apiVersion: v1
kind: Pod
metadata: {{name: p}}
spec:
  containers: [{{name: c, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
""")
    err = one_line_error(invoke("check", pod, "-c", CLUSTER),
                         "spec.containers[0].resources.requests.cpu")
    assert len(err) < 400


def test_a_fifo_kubeconfig_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "config"
    os.mkfifo(fifo)
    one_line_error(invoke("check", TRAIN, "--live", "--kubeconfig", fifo),
                   "kubeconfig is not a regular file")


# ------------------------------------------------------------------ what-if and config files

WHATIF = "apiVersion: tasplan/v1\nkind: WhatIf\nedits:\n"


def what_if(tmp_path: Path, edits: str) -> Path:
    path = tmp_path / "whatif.yaml"
    path.write_text(WHATIF + edits)
    return path


@pytest.mark.parametrize(("edits", "needles"), [
    ("- {op: addNodes, count: 2.0, like: gpu-a1-0}\n",  # was a TypeError (exit 3)
     ("edits[0].count", "expected an integer, got 2.0")),
    ("- {op: addNodes, count: 1, like: gpu-a1-0, target: x}\n",  # was ignored
     ("edits[0].target", "target does not apply to addNodes")),
    ("- {op: cordon, target: gpu-a1-0, count: 3}\n",  # was ignored
     ("edits[0].count", "count does not apply to cordon")),
    ("- {op: cordon, target: gpu-a1-0, labels: {a: b}}\n",
     ("edits[0].labels", "labels does not apply to cordon")),
])
def test_what_if_fields_are_checked(tmp_path: Path, edits: str, needles: tuple) -> None:
    one_line_error(invoke("check", TRAIN, "-c", CLUSTER, "--what-if",
                          what_if(tmp_path, edits)), *needles)


def test_too_many_edits_are_refused_before_the_schema_runs(tmp_path: Path) -> None:
    """100,000 edits were refused only after the schema's item-by-item pass and a compose
    for the line (14-24 s): the count is checked first."""
    import time

    path = what_if(tmp_path, "- {op: cordon, target: x}\n" * 100_000)
    started = time.process_time()
    one_line_error(invoke("check", TRAIN, "-c", CLUSTER, "--what-if", path),
                   "expected at most 1000 edits, got 100,000")
    assert time.process_time() - started < 10


@pytest.mark.parametrize("op", ["cordon", "set", "evict", "drain"])
def test_a_long_target_is_quoted_short(tmp_path: Path, op: str) -> None:
    """A 100,000-character target was echoed in a 300 KB line; errors quote 60 characters."""
    err = one_line_error(invoke("check", TRAIN, "-c", CLUSTER, "--what-if",
                                what_if(tmp_path, f"- {{op: {op}, target: {'x' * 100_000}}}\n")))
    assert len(err) < 400 and "(100000 chars)" in err


@pytest.mark.parametrize("value", ["2147483648", "1" + "0" * 20, "٣", "1_0", "+", "0"])
def test_set_min_count_takes_int32_ascii_digits(value: str) -> None:
    """Python's int() takes '٣' and '1_0', and minCount is an int32 in the API."""
    one_line_error(invoke("check", TRAIN, "-c", CLUSTER, "--set",
                          f"ml/train-workers-0.minCount={value}"),
                   "minCount must be an integer from 1 to 2147483647")


def test_evict_priority_bound_takes_ascii_digits() -> None:
    one_line_error(invoke("check", TRAIN, "-c", CLUSTER, "--evict", "priority<٣"),
                   "priority bound", "is not an integer")


SCHEDULER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def test_score_weight_overflow_names_the_file_and_field(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(SCHEDULER + """profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      enabled:
      - {name: NodeResourcesFit, weight: 2147483647}
      - {name: TaintToleration, weight: 2147483647}
""")
    one_line_error(invoke("check", TRAIN, "-c", CLUSTER, "--scheduler-config", config),
                   "config.yaml:", "profiles[0].plugins.score", "would overflow")


def test_extenders_are_named_in_a_warning(tmp_path: Path) -> None:
    import json

    config = tmp_path / "config.yaml"
    config.write_text(SCHEDULER + "extenders:\n- {urlPrefix: 'http://x', filterVerb: f}\n")
    result = invoke("check", TRAIN, "-c", CLUSTER, "--scheduler-config", config, "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert any("does not call extenders" in w for w in json.loads(result.stdout)["warnings"])


def test_many_profiles_are_read_in_bounded_time(tmp_path: Path) -> None:
    """10,000 profiles took 21-37 s (isinstance against Protocols, per profile)."""
    import time

    from tasplan.plugins.config import load_scheduler_config

    config = tmp_path / "config.yaml"
    config.write_text(SCHEDULER + "profiles:\n" + "".join(
        f"- schedulerName: s{i}\n" for i in range(2_000)))
    started = time.process_time()
    assert len(load_scheduler_config(config).profiles) == 2_000
    assert time.process_time() - started < 5  # 0.4 s on an idle machine


# ------------------------------------------------------------------ controllers and names

def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


JOB = """apiVersion: batch/v1
kind: Job
metadata: {{{meta}, namespace: ml}}
spec:
  parallelism: 1
  template:
    spec:
      containers: [{{name: c, resources: {{requests: {{cpu: "1"}}}}}}]
"""


def test_a_generated_name_never_collides_with_a_real_one(tmp_path: Path) -> None:
    """A real Job j-00000 next to a generateName j- Job was refused as "defined twice"."""
    jobs = write(tmp_path / "jobs.yaml", JOB.format(meta="name: j-00000") + "---\n"
                 + JOB.format(meta="generateName: j-"))
    result = invoke("check", jobs, "-c", CLUSTER, "-o", "json")
    assert result.exit_code in (0, 1), result.stderr
    assert "defined twice" not in result.stderr and "j-00001" in result.stdout


def test_jobset_replicated_job_names_are_unique(tmp_path: Path) -> None:
    template = "{name: w, replicas: 1, template: {spec: {parallelism: 1, template: {spec: " \
               "{containers: [{name: c}]}}}}}"
    jobset = write(tmp_path / "js.yaml", "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n"
                   f"metadata: {{name: js, namespace: ml}}\nspec:\n  replicatedJobs: "
                   f"[{template}, {template}]\n")
    one_line_error(invoke("check", jobset, "-c", CLUSTER), "spec.replicatedJobs[1].name",
                   "duplicate replicatedJob name 'w'")


@pytest.mark.parametrize(("spec", "needles"), [
    ("{minAvailable: 1, maxUnavailable: 1}", ("spec", "cannot be both set")),
    ("{minAvailable: -1}", ("spec.minAvailable",)),
    ("{maxUnavailable: 2147483648}", ("spec.maxUnavailable",)),
    ('{maxUnavailable: "101%"}', ("spec.maxUnavailable", "greater than 100%")),
])
def test_pdbs_the_api_server_refuses(tmp_path: Path, spec: str, needles: tuple) -> None:
    """Upstream ValidatePodDisruptionBudgetSpec (pkg/apis/policy/validation)."""
    pdb = write(tmp_path / "pdb.yaml", "apiVersion: policy/v1\nkind: PodDisruptionBudget\n"
                f"metadata: {{name: b, namespace: ml}}\nspec: {spec}\n")
    one_line_error(invoke("check", TRAIN, "-c", CLUSTER, "-c", pdb), "pdb.yaml", *needles)


POD = """apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: ml}}
{rest}
"""


@pytest.mark.parametrize(("rest", "needles"), [
    ("spec: []", ("spec: expected a mapping, got a list",)),
    ("spec: {containers: [{name: c}]}\nstatus: []", ("status: expected a mapping",)),
    ("spec: {containers: [{name: c}], nodeSelector: {disk: y}}",  # go-yaml v2: y is a bool
     ("spec.nodeSelector.disk", "expected a string, got a boolean")),
    ("spec: {containers: [{name: c}], schedulingGroup: {podGroupName: a}, "
     "workloadRef: {name: w, podGroup: b}}", ("spec.workloadRef", "belongs to one pod group")),
])
def test_pods_the_api_server_refuses(tmp_path: Path, rest: str, needles: tuple) -> None:
    """An empty list was taken for an empty spec (``or {}``); y/n were strings."""
    pod = write(tmp_path / "pod.yaml", POD.format(rest=rest))
    one_line_error(invoke("check", TRAIN, "-c", CLUSTER, "-c", pod), "pod.yaml", *needles)


def test_an_invalid_topology_key_of_a_pod_group_is_invalid_input(tmp_path: Path) -> None:
    """It was planned as a key no node has (exit 1)."""
    text = TRAIN.read_text().replace("key: topology.example.com/rack", "key: 'rack key!'")
    one_line_error(invoke("check", write(tmp_path / "w.yaml", text), "-c", CLUSTER),
                   "topology[0].key", "expected a label key")


def test_a_snapshot_apiversion_in_upper_case_is_refused(tmp_path: Path) -> None:
    """snapshot -c skipped it as an unknown kind and wrote an empty snapshot."""
    snap = tmp_path / "snap.json"
    assert invoke("snapshot", "-c", CLUSTER, "-f", snap, "-q").exit_code == 0
    upper = write(tmp_path / "upper.json", snap.read_text().replace('"tasplan/v1"',
                                                                    '"TASPLAN/V1"', 1))
    for args in (("snapshot", "-c", upper, "-f", tmp_path / "out.json"),
                 ("check", TRAIN, "-c", upper)):
        one_line_error(invoke(*args), "unsupported snapshot version 'TASPLAN/V1'")
    assert not (tmp_path / "out.json").exists()


# ------------------------------------------------------------------ composite trees

def tree_file(tmp_path: Path, n: int, *, cycle: bool = False) -> Path:
    """A chain of ``n`` CompositePodGroups (or a cycle of them) with one PodGroup leaf."""
    docs = []
    for i in range(n):
        parent = f"c{i - 1}" if i else (f"c{n - 1}" if cycle else None)
        docs.append("apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\n"
                    f"metadata: {{name: c{i}, namespace: ml}}\nspec:\n"
                    "  schedulingPolicy: {gang: {minGroupCount: 1}}\n"
                    "  workloadRef: {workloadName: w, templateName: t}\n"
                    + (f"  parentCompositePodGroupName: {parent}\n" if parent else ""))
    docs.append("apiVersion: scheduling.k8s.io/v1alpha3\nkind: PodGroup\n"
                "metadata: {name: leaf, namespace: ml}\nspec:\n"
                f"  parentCompositePodGroupName: c{n - 1}\n"
                "  workloadRef: {workloadName: w, templateName: t}\n"
                "  schedulingPolicy: {gang: {minCount: 1}}\n")
    docs.append("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\nspec:\n"
                "  schedulingGroup: {podGroupName: leaf}\n  containers: [{name: c}]\n")
    return write(tmp_path / "tree.yaml", "---\n".join(docs))


@pytest.mark.parametrize("command", ["check", "explain"])
def test_a_1000_deep_parent_chain_is_an_invalid_hierarchy(tmp_path: Path, command: str
                                                          ) -> None:
    """It was a RecursionError (exit 3) in the report's tree walk."""
    import json

    path = tree_file(tmp_path, 1000)
    result = invoke(command, path, "-c", CLUSTER, "-o", "json")
    assert result.exit_code == 1, result.stderr
    assert "deeper than the maximum of 4" in result.stdout
    assert json.loads(result.stdout)["kind"]


@pytest.mark.parametrize(("n", "cycle"), [(2000, False), (1000, True)])
def test_lint_decides_depth_and_cycles_in_linear_time(tmp_path: Path, n: int, cycle: bool
                                                      ) -> None:
    """lint took 95 s on a 2,000-deep chain and 36-66 s on a 1,000-member cycle (walking up
    from every member, a list membership per step). Now each composite is walked once."""
    import time

    path = tree_file(tmp_path, n, cycle=cycle)
    started = time.process_time()
    result = invoke("lint", path)
    assert time.process_time() - started < 20  # 1-2 s on an idle machine
    assert result.exit_code == 1
    if cycle:
        [line] = [x for x in result.stdout.splitlines() if "TP213" in x]
        assert f"… ({n} groups)" in line and len(line) < 600
    else:
        assert result.stdout.count("TP214") == n - 3  # levels 5 .. n+1


def test_planner_trees_are_built_in_linear_time() -> None:
    """build_trees walked up from every member: quadratic in a chain's depth."""
    import time

    from tasplan.plan.tree import build_trees
    from tests.composite.helpers import composite, leaf

    n = 20_000
    composites = [composite(f"c{i}", parent=f"c{i - 1}" if i else None) for i in range(n)]
    group, _ = leaf("leaf", f"c{n - 1}")
    started = time.process_time()
    [tree] = build_trees(composites, [group])
    assert time.process_time() - started < 10
    assert tree.invalid and "deeper than the maximum of 4" in tree.problem


# ------------------------------------------------------------------ DRA objects

DRA_CLUSTER = CLUSTER.parent / "dra" / "cluster"
DRA_WORKLOAD = CLUSTER.parent / "dra" / "workloads" / "train-fabric.yaml"


def claim_template(devices: str) -> str:
    return ("apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"
            "metadata: {name: eight-h100, namespace: ml}\nspec:\n  spec:\n    devices:\n"
            + "".join(f"      {line}\n" for line in devices.strip().splitlines()))


def exactly(name: str, extra: str = "") -> str:
    return f"- {{name: {name}, exactly: {{deviceClassName: gpu.example.com{extra}}}}}"


SUB = "{{name: s{k}, deviceClassName: gpu.example.com}}"


@pytest.mark.parametrize(("devices", "needles"), [
    ("requests:\n- name: r\n  firstAvailable: ["
     + ", ".join(SUB.format(k=k).replace("{{", "{").replace("}}", "}") for k in range(9))
     + "]", ("requests[0].firstAvailable", "at most 8 items, got 9")),
    ("requests:\n" + exactly("r", ", selectors: ["
                             + ", ".join(["{cel: {expression: 'true'}}"] * 33) + "]"),
     ("requests[0].exactly.selectors", "at most 32 items, got 33")),
    ("requests:\n" + exactly("r") + "\n" + exactly("r"),
     ("requests[1].name", "Duplicate value: 'r'")),
    ("requests:\n" + exactly("r") + "\nconstraints:\n- {requests: [x], matchAttribute: "
     "gpu.example.com/numa}", ("constraints[0].requests[0]", "must be the name of a request")),
    ("requests:\n" + exactly("r", ", tolerations: [{key: k, operator: Exists, "
                                  "effect: NoSchedul}]"),
     ("tolerations[0].effect", "NoSchedule or NoExecute")),
    ("requests:\n" + exactly("r", ", tolerations: [{key: k, operator: Exists, value: v}]"),
     ("tolerations[0].value", "must be empty when operator is Exists")),
])
def test_claims_the_api_server_refuses(tmp_path: Path, devices: str, needles: tuple) -> None:
    """pkg/apis/resource/validation (firstAvailable <= 8, selectors <= 32, unique request
    names, constraints naming requests, toleration effects): each was planned."""
    text = DRA_WORKLOAD.read_text().split("---\n", 1)[1]
    workload = write(tmp_path / "w.yaml", claim_template(devices) + "---\n" + text)
    one_line_error(invoke("check", workload, "-c", DRA_CLUSTER), "w.yaml", *needles)


def test_a_resource_slice_holds_at_most_128_devices(tmp_path: Path) -> None:
    devices = "".join(f"  - {{name: d{i}}}\n" for i in range(129))
    slice_ = write(tmp_path / "slice.yaml", "apiVersion: resource.k8s.io/v1\nkind: "
                   "ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: gpu.example.com\n"
                   "  nodeName: dra-r1-0\n  pool: {name: p, generation: 1, "
                   "resourceSliceCount: 1}\n  devices:\n" + devices)
    one_line_error(invoke("check", DRA_WORKLOAD, "-c", DRA_CLUSTER, "-c", slice_),
                   "spec.devices", "at most 128 items, got 129")


def test_allocation_mode_all_over_32_devices_fails_the_claim() -> None:
    """Upstream counts the devices of an All request before searching and fails the claim
    beyond AllocationResultsMaxSize; the search took the devices one by one."""
    from tasplan.dra.allocator import AllocationError, World, allocate
    from tasplan.model.dra import ALL
    from tests.builders import make_node
    from tests.dra.builders import (
        CLASS_A,
        DRIVER_A,
        claim,
        device,
        device_class,
        inputs,
        local_slice,
        request,
    )

    devices = [device(f"d{i:02d}") for i in range(33)]
    world = World(inputs((device_class(CLASS_A, DRIVER_A),),
                         [local_slice("s", "node-1", "pool", DRIVER_A, *devices)]))
    with pytest.raises(AllocationError, match="33 exceeds the claim limit of 32"):
        allocate(world, make_node("node-1"), [claim(request(mode=ALL))])


@pytest.mark.parametrize("number", ["9223372036854775808", "-9223372036854775809",
                                    "18446744073709551616"])
def test_json_integers_beyond_int64_are_refused(tmp_path: Path, number: str) -> None:
    """orjson read them as uint64 or silently as floats; the YAML path refused them."""
    pod = write(tmp_path / "pod.json", '{"apiVersion": "v1", "kind": "Pod", "metadata": '
                '{"name": "p", "namespace": "ml"}, "spec": {"containers": [{"name": "c"}], '
                f'"priority": {number}}}}}')
    one_line_error(invoke("check", TRAIN, "-c", CLUSTER, "-c", pod), "pod.json:1",
                   "is out of range (int64)")


@pytest.mark.parametrize("column", ["metadata", "specs"])
def test_a_null_entry_of_a_snapshot_pod_table(tmp_path: Path, column: str) -> None:
    """A pod table's metadata or spec entry that is null was a TypeError (exit 3)."""
    import json

    snap = tmp_path / "snap.json"
    assert invoke("snapshot", "-c", CLUSTER, "-f", snap, "-q").exit_code == 0
    doc = json.loads(snap.read_text())
    doc["pods"][column][0] = None
    snap.write_text(json.dumps(doc))
    one_line_error(invoke("check", TRAIN, "-c", snap), f"pods.{column}[0]",
                   "expected a mapping, got null")


@pytest.mark.parametrize(("text", "refused", "read_again"), [
    ('{"a": 9223372036854775808}', True, True),
    ('{"a" :\n  -9223372036854775809}', True, True),
    ('[1, 9223372036854775808]', True, True),
    ('{"image": "x@sha256:92233720368547758081234"}', False, False),  # a digest
    ('{"a": "k:9223372036854775808", "b": 9223372036854775808}', True, True),
    ('{"a": "k: 9223372036854775808"}', False, True),  # after a space: may be a number
])
def test_long_digit_runs_inside_strings_are_not_read_twice(
        text: str, refused: bool, read_again: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The int64 check reads the file again (slowly) only for a digit run that may be a
    number; one after a colon that does not end a key is inside a string."""
    import json as json_module

    from tasplan.errors import StrictError
    from tasplan.load import strict

    calls = []
    real = json_module.loads
    monkeypatch.setattr(strict.json, "loads", lambda *a, **k: calls.append(1) or real(*a, **k))
    if refused:
        with pytest.raises(StrictError, match="out of range"):
            strict.check_json_ints(text.encode())
    else:
        strict.check_json_ints(text.encode())
    assert bool(calls) == read_again


def test_long_digit_runs_are_found_as_the_pattern_finds_them() -> None:
    """The digit-run search (translation + substring search) against the pattern tried at
    every byte, on random JSON-ish text."""
    import random

    from tasplan.load import strict

    rng = random.Random(3)
    alphabet = b'0123456789:,[ -"a.e\n{}'
    for _ in range(3000):
        text = bytes(rng.choice(alphabet) for _ in range(rng.randrange(80)))
        text = text.replace(b"7", b"7" * rng.randrange(1, 30), 3)
        assert [m.span() for m in strict._long_ints(text)] == \
            [m.span() for m in strict._LONG_INT.finditer(text)], text
