"""The Kubernetes CEL library's quantity and semver functions as DRA selectors see them
(issue 25): values compare by value, methods exist on their own type only.

``test_quantity_table`` mirrors upstream's TestQuantity table case by case
(k8s.io/apiserver/pkg/cel/library/quantity_test.go at 16913111deb1a4c4ff76f4ba7ffd9ebef397a303);
semver equality follows apiserver/pkg/cel/semver.go (``Version.EQ``, which ignores build
metadata)."""

from __future__ import annotations

import pytest

from tasplan.dra.cel import CelError, compile_selector, device_value
from tasplan.model.dra import Device

EMPTY = {"driver": "", "attributes": {}, "capacity": {}, "allowMultipleAllocations": False}


def evaluate(expression: str, device: dict = EMPTY) -> object:
    """The value of a bool selector, or of ``expression == expected`` for other results."""
    return compile_selector(expression).matches(device)


# (name, expression, expected) -- upstream's expected values, as a bool selector
QUANTITY_TABLE = [
    ("parse", 'quantity("12Mi") == quantity("12582912")', True),
    ("isQuantity", 'isQuantity("20")', True),
    ("isQuantity_megabytes", 'isQuantity("20M")', True),
    ("isQuantity_mebibytes", 'isQuantity("20Mi")', True),
    ("isQuantity_invalidSuffix", 'isQuantity("20Mo")', False),
    ("isQuantity_passingRegex", 'isQuantity("10Mm")', False),
    ("equality_reflexivity", 'quantity("200M") == quantity("200M")', True),
    ("equality_symmetry",
     'quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', True),
    ("equality_transitivity", 'quantity("2M") == quantity("0.002G") && '
     'quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")', True),
    ("inequality", 'quantity("200M") == quantity("0.3G")', False),
    ("quantity_less", 'quantity("50M").isLessThan(quantity("50Mi"))', True),
    ("quantity_less_obvious", 'quantity("50M").isLessThan(quantity("100M"))', True),
    ("quantity_less_false", 'quantity("100M").isLessThan(quantity("50M"))', False),
    ("quantity_greater", 'quantity("50Mi").isGreaterThan(quantity("50M"))', True),
    ("quantity_greater_obvious", 'quantity("150Mi").isGreaterThan(quantity("100Mi"))', True),
    ("quantity_greater_false", 'quantity("50M").isGreaterThan(quantity("100M"))', False),
    ("compare_equal", 'quantity("200M").compareTo(quantity("0.2G")) == 0', True),
    ("compare_less", 'quantity("50M").compareTo(quantity("50Mi")) == -1', True),
    ("compare_greater", 'quantity("50Mi").compareTo(quantity("50M")) == 1', True),
    ("add_quantity", 'quantity("50k").add(quantity("20")) == quantity("50.02k")', True),
    ("add_int", 'quantity("50k").add(20).isLessThan(quantity("50020"))', False),
    ("sub_quantity", 'quantity("50k").sub(quantity("20")) == quantity("49.98k")', True),
    ("sub_int", 'quantity("50k").sub(20) == quantity("49980")', True),
    ("arith_chain_1", 'quantity("50k").add(20).sub(quantity("100k")).asInteger() == -49980',
     True),
    ("arith_chain",
     'quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() == 20', True),
    ("as_integer", 'quantity("50k").asInteger() == 50000', True),
    ("is_integer_big", 'quantity("9999999999999999999999999999999999999G").isInteger()', False),
    ("is_integer", 'quantity("50").isInteger()', True),
    ("as_float", 'quantity("50.703k").asApproximateFloat() == 50703.0', True),
]


@pytest.mark.parametrize(("name", "expression", "expected"), QUANTITY_TABLE,
                         ids=[c[0] for c in QUANTITY_TABLE])
def test_quantity_table(name: str, expression: str, expected: bool) -> None:
    assert evaluate(expression) is expected


@pytest.mark.parametrize(("expression", "error"), [
    ('quantity("10Mo") == quantity("1")', "quantity"),  # parseInvalidSuffix
    ('quantity("10Mm") == quantity("1")', "quantity"),  # parseInvalidSuffixPassesRegex
    ('quantity("9999999999999999999999999999999999999G").asInteger() == 1',
     "cannot convert value to integer"),  # as_integer_error
])
def test_quantity_runtime_errors(expression: str, error: str) -> None:
    with pytest.raises(CelError, match=error):
        evaluate(expression)


@pytest.mark.parametrize("expression", [
    "isQuantity([1, 2, 3])",  # upstream isQuantity_noOverload
    '{"a": 1}.isInteger()',  # a method of quantities on a map: type-checked before
    '{"k8s.quantity": "1"}.isInteger()',  # the runtime representation is no quantity
    'quantity("1").major() == 1',
    'semver("1.0.0").isInteger()',
    'semver("1.0.0").compareTo(quantity("1")) == 0',
    'quantity("1") == 1',
])
def test_methods_exist_on_their_own_type_only(expression: str) -> None:
    with pytest.raises(CelError, match="found no matching overload"):
        compile_selector(expression)


DEVICE = device_value("drv", Device("gpu-0", {"drv/driverVersion": ("version", "1.2.3+build.5")},
                                    {"drv/memory": "81920Mi"}))


@pytest.mark.parametrize(("expression", "expected"), [
    # The case: capacity compared by value with ==.
    ('device.capacity["drv"].memory == quantity("80Gi")', True),
    ('quantity("1k") == quantity("1000")', True),
    ('device.capacity["drv"].memory == quantity("80G")', False),
    # semver equality ignores build metadata (blang/semver EQ); precedence does not.
    ('device.attributes["drv"].driverVersion == semver("1.2.3")', True),
    ('semver("1.2.3+a") == semver("1.2.3+b")', True),
    ('semver("1.2.3-rc.1") == semver("1.2.3")', False),
    ('device.attributes["drv"].driverVersion.compareTo(semver("1.2.3")) == 0', True),
])
def test_values_compare_by_value(expression: str, expected: bool) -> None:
    assert evaluate(expression, DEVICE) is expected


def test_compile_errors_are_one_line() -> None:
    with pytest.raises(CelError) as info:
        compile_selector('{"a": 1}.isInteger()')
    assert "\n" not in str(info.value)


# ---------------------------------------------------------------------- cost limits

def _bomb(levels: int) -> str:
    """The issue's selector: each cel.bind level concatenates the last one ten times."""
    out = 'cel.bind(a0, "xxxxxxxxxx", BODY)'
    for i in range(1, levels + 1):
        out = out.replace("BODY", f"cel.bind(a{i}, {'+'.join([f'a{i - 1}'] * 10)}, BODY)")
    return out.replace("BODY", f"size(a{levels}) > 0")


def test_a_selector_over_the_cost_limit_is_refused_before_it_runs() -> None:
    """A 500-byte selector growing a string tenfold per cel.bind level ran 9-44 s into a
    MemoryError; upstream's validation refuses it ("too complex, exceeds cost limit")."""
    import time

    expression = _bomb(7)
    assert len(expression) < 500
    started = time.process_time()
    with pytest.raises(CelError, match="too complex, exceeds cost limit"):
        compile_selector(expression)
    assert time.process_time() - started < 2


@pytest.mark.parametrize("expression", [
    'device.driver == "gpu.example.com"',
    'device.attributes["gpu.example.com"].model == "h100"',
    'device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0',
    'cel.bind(d, device.attributes["gpu.example.com"], d.model == "h100" && d.index > 2)',
    '["a", "b"].exists(x, device.attributes["gpu.example.com"].model.startsWith(x))',
    _bomb(3),
])
def test_ordinary_selectors_are_far_below_the_limit(expression: str) -> None:
    from tasplan.dra.cel import _env, _rewrite
    from tasplan.dra.cel_cost import MAX_COST, estimate

    compile_selector(expression)
    assert estimate(_env().compile(_rewrite(expression)).serialize()) < MAX_COST // 100


def test_a_device_class_over_the_cost_limit_is_an_input_error(tmp_path) -> None:
    """Also from a DeviceClass in the cluster dump and under lint --cluster."""
    from pathlib import Path

    from tests.hardening.test_inputs import invoke

    dra = Path(__file__).resolve().parents[2] / "samples" / "dra"
    classes = (dra / "cluster" / "deviceclasses.yaml").read_text()
    bad = tmp_path / "classes.yaml"
    bad.write_text(classes.replace('{expression: device.driver == "gpu.example.com"}',
                                   f"{{expression: '{_bomb(7)}'}}", 1))
    assert bad.read_text() != classes
    cluster = [str(p) for p in (dra / "cluster").glob("*.yaml")
               if p.name != "deviceclasses.yaml"] + [str(bad)]
    workload = dra / "workloads" / "train-fabric.yaml"
    args = [a for c in cluster for a in ("-c", c)]
    # check: the pods' attempt fails with the limit named (upstream: its runtime limit)
    result = invoke("check", str(workload), *args)
    assert result.exit_code == 1, result.stderr
    assert "too complex, exceeds cost limit" in result.stdout
    # lint of the class: a compile error, as the API server's validation refuses it
    result = invoke("lint", str(bad))
    assert result.exit_code == 1 and "TP211" in result.stdout
    assert "too complex, exceeds cost limit" in result.stdout
