"""CEL device selectors against Kubernetes' own DRA CEL test expressions
(``k8s.io/dynamic-resource-allocation/cel/compile_test.go``, TestCEL; each case id is the
upstream case name). Costs are not modelled (no cost limit: noted in docs/dra.md)."""

from __future__ import annotations

import pytest

from tasplan.dra.cel import CelError, compile_error, compile_selector, device_value
from tasplan.model.dra import Device

D = "dra.example.com"


def _match(expression: str, attributes=None, capacity=None, driver: str = "",
           allow_multiple: bool = False) -> bool:
    attrs = {(k if "/" in k else f"{driver}/{k}"): v for k, v in (attributes or {}).items()}
    caps = {(k if "/" in k else f"{driver}/{k}"): v for k, v in (capacity or {}).items()}
    device = Device("d", attrs, caps, allow_multiple_allocations=allow_multiple)
    return compile_selector(expression).matches(device_value(driver, device))


ALL_ATTRS = {"bool": ("bool", True), "int": ("int", 1), "string": ("string", "fish"),
             "version": ("version", "1.0.0")}
ALL_EXPR = """
device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"].bool &&
device.attributes["dra.example.com"].int > 0 &&
device.attributes["dra.example.com"].string == "fish" &&
device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&
device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"]["bool"] &&
device.attributes["dra.example.com"]["int"] > 0 &&
device.attributes["dra.example.com"]["string"] == "fish" &&
device.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))
"""

MATCHES = [
    pytest.param("true", {}, {}, "", True, id="true"),
    pytest.param("false", {}, {}, "", False, id="false"),
    pytest.param('"no-such-domain" in device.attributes', {}, {}, "", False,
                 id="domain-check-negative"),
    pytest.param('"dra.example.com" in device.attributes',
                 {"dra.example.com/something": ("bool", True)}, {}, "", True,
                 id="domain-check-positive"),
    pytest.param('device.driver == ""', {}, {}, "", True, id="empty-driver-name"),
    pytest.param('device.driver == "dra.example.com"', {}, {}, D, True, id="real-driver-name"),
    pytest.param('device.attributes["dra.example.com"].name', {"name": ("bool", True)}, {}, D,
                 True, id="driver-name-qualifier"),
    pytest.param('device.attributes["dra.example.com"]["name"]', {"name": ("bool", True)}, {},
                 D, True, id="driver-name-qualifier-map-lookup"),
    pytest.param('cel.bind(dra, device.attributes["dra.example.com"], dra.name)',
                 {"name": ("bool", True)}, {}, D, True, id="bind"),
    pytest.param('device.attributes["other.example.com"].name',
                 {"other.example.com/name": ("bool", True)}, {}, D, True,
                 id="qualified-attribute-name"),
    pytest.param('device.attributes["dra.example.com"].name > 0', {"name": ("int", 1)}, {}, D,
                 True, id="int"),
    pytest.param('device.attributes["dra.example.com"].name == "fish"',
                 {"name": ("string", "fish")}, {}, D, True, id="string"),
    pytest.param('device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1"))',
                 {"name": ("version", "1.0.0")}, {}, D, True, id="version"),
    pytest.param('device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", '
                 'true)) && isSemver("v1.0.0", true)', {"name": ("version", "1.0.0")}, {}, D,
                 True, id="version_v"),
    pytest.param('device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', {},
                 {"name": "1Mi"}, D, True, id="quantity"),
    pytest.param('"name" in device.capacity["dra.example.com"] && '
                 'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', {},
                 {"name": "1Mi"}, D, True, id="check-positive"),
    pytest.param('!("name" in device.capacity["dra.example.com"]) || '
                 'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', {},
                 {}, "", True, id="check-negative"),
    pytest.param(ALL_EXPR, ALL_ATTRS, {"quantity": "1Mi"}, D, True, id="all"),
    pytest.param('device.attributes["dra.example.com"].a && device.attributes['
                 '"dra.example.com"].b && device.attributes["dra.example.com"].c',
                 {"a": ("bool", True), "b": ("bool", True), "c": ("bool", True)}, {}, D, True,
                 id="many"),
    pytest.param('device.attributes.exists_one(x, x == "dra.example.com")',
                 {"services": ("string", "some_example_value")}, {}, D, True,
                 id="check_attribute_domains"),
    pytest.param('device.attributes["dra.example.com"].exists_one(x, x == "services")',
                 {"services": ("string", "some_example_value")}, {}, D, True,
                 id="check_attribute_ids"),
    pytest.param('device.attributes["dra.example.com"].services.split("example").size() >= 2',
                 {"services": ("string", "some_example_value")}, {}, D, True,
                 id="split_attribute"),
    pytest.param('device.attributes["dra.example.com"].services.matches("[^a]?sym")',
                 {"services": ("string", "asymetric")}, {}, D, True, id="regexp_attribute"),
    pytest.param('device.capacity.exists_one(x, x == "dra.example.com")', {},
                 {"memory": "1Mi"}, D, True, id="check_capacity_domains"),
    pytest.param('device.capacity["dra.example.com"].exists_one(x, x == "memory")', {},
                 {"memory": "1Mi"}, D, True, id="check_capacity_ids"),
    pytest.param("device.allowMultipleAllocations == false", {}, {}, D, True,
                 id="allow_multiple_allocations_default"),
]


@pytest.mark.parametrize(("expression", "attributes", "capacity", "driver", "want"), MATCHES)
def test_upstream_cel_cases(expression, attributes, capacity, driver, want):
    assert _match(expression, attributes, capacity, driver) is want


def test_allow_multiple_allocations():
    """allow_multiple_allocations"""
    assert _match("device.allowMultipleAllocations == true", driver=D, allow_multiple=True)


@pytest.mark.parametrize(("expression", "message"), [
    pytest.param("?!", "Syntax error", id="syntax-error"),
    pytest.param("1", "must evaluate to bool or the unknown type, not int", id="type-error"),
])
def test_compile_errors(expression, message):
    assert message in compile_error(expression)


@pytest.mark.parametrize(("expression", "attributes", "message"), [
    pytest.param('device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))',
                 {}, "no such key: noSuchAttr", id="runtime-error-lookup-identifier"),
    pytest.param('device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan('
                 'quantity("0"))', {}, "no such key: noSuchAttr",
                 id="runtime-error-lookup-map"),
])
def test_runtime_errors(expression, attributes, message):
    with pytest.raises(CelError, match=message):
        _match(expression, attributes, driver=D)


@pytest.mark.parametrize(("expression", "want"), [
    ('quantity("200M").compareTo(quantity("0.2G")) == 0', True),
    ('quantity("1Gi").isLessThan(quantity("1G"))', False),
    ('quantity("1.5").add(1).compareTo(quantity("2500m")) == 0', True),
    ('quantity("1").sub(quantity("2")).sign() == -1', True),
    ('quantity("2k").isInteger() && quantity("2k").asInteger() == 2000', True),
    ('isQuantity("1Gi") && !isQuantity("one")', True),
    ('semver("1.0.0-alpha").isLessThan(semver("1.0.0"))', True),
    ('semver("1.0.0-alpha.2").isLessThan(semver("1.0.0-alpha.10"))', True),
    ('semver("1.0.0-alpha.beta").isGreaterThan(semver("1.0.0-alpha.1"))', True),
    ('semver("1.10.0").isGreaterThan(semver("1.9.0"))', True),
    ('semver("1.2.3").major() == 1 && semver("1.2.3").minor() == 2 && '
     'semver("1.2.3").patch() == 3', True),
    ('semver("v1.2", true).compareTo(semver("1.2.0")) == 0', True),
    ('!isSemver("1.2") && isSemver("1.2", true)', True),
])
def test_kubernetes_library_functions(expression, want):
    """The quantity and semver libraries: exact decimal comparison, semver 2.0 precedence
    (apiserver library tests)."""
    assert compile_selector(expression).matches(device_value("", Device("d"))) is want


def test_non_bool_result_is_an_error():
    """list-result-type-causes-match-error (a string attribute here: the same rule)."""
    with pytest.raises(CelError, match="CEL result of type string could not be converted"):
        _match('device.attributes["dra.example.com"].name', {"name": ("string", "x")}, driver=D)
