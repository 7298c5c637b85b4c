"""kubectl's JSONPath dialect: the cases of client-go's util/jsonpath/jsonpath_test.go
(kubernetes/client-go commit 32ce75a7: TestTypesInput, TestStructInput, TestJSONInput,
TestKubernetes, TestFilterPartialMatchesSometimesMissingAnnotations,
TestNegativeIndex, TestStep, TestRunningPodsJSONPathOutput), run with missing keys
allowed as ``kubectl get -o jsonpath`` runs them."""

from __future__ import annotations

import json

import pytest

from tasplan.report.jsonpath import JSONPathError, parse

TYPES = {
    "bools": [True, False, True, False],
    "integers": [1, 2, 3, 4],
    "floats": [1.0, 2.2, 3.3, 4.0],
    "strings": ["one", "two", "three", "four"],
    "interfaces": [True, "one", 1, 1.1],
    "maps": [{"name": "one", "value": 1}, {"name": "two", "value": 2.02},
             {"name": "three", "value": 3.03}, {"name": "four", "value": 4.04}],
}

STORE = {
    "Name": "jsonpath",
    "Book": [
        {"Category": "reference", "Author": "Nigel Rees", "Title": "Sayings of the Centurey",
         "Price": 8.95},
        {"Category": "fiction", "Author": "Evelyn Waugh", "Title": "Sword of Honour",
         "Price": 12.99},
        {"Category": "fiction", "Author": "Herman Melville", "Title": "Moby Dick",
         "Price": 8.99},
    ],
    "Bicycle": [{"Color": "red", "Price": 19.95, "IsNew": True},
                {"Color": "green", "Price": 20.01, "IsNew": False}],
    "Labels": {"engieer": 10, "web/html": 15, "k8s-app": 20},
    "Employees": {"jason": "manager", "dan": "clerk"},
}

POINTS = json.loads("""[
  {"id": "i1", "x":4, "y":-5},
  {"id": "i2", "x":-2, "y":-5, "z":1},
  {"id": "i3", "x":  8, "y":  3 },
  {"id": "i4", "x": -6, "y": -1 },
  {"id": "i5", "x":  0, "y":  2, "z": 1 },
  {"id": "i6", "x":  1, "y":  4 },
  {"id": "i7", "x":  null, "y":  4 }
]""")

NODES = json.loads("""{
  "kind": "List",
  "items":[
    {"kind":"None",
     "metadata":{"name":"127.0.0.1", "labels":{"kubernetes.io/hostname":"127.0.0.1"}},
     "status":{"capacity":{"cpu":"4"}, "ready": true,
               "addresses":[{"type": "LegacyHostIP", "address":"127.0.0.1"}]}},
    {"kind":"None",
     "metadata":{"name":"127.0.0.2", "labels":{"kubernetes.io/hostname":"127.0.0.2"}},
     "status":{"capacity":{"cpu":"8"}, "ready": false,
               "addresses":[{"type": "LegacyHostIP", "address":"127.0.0.2"},
                            {"type": "another", "address":"127.0.0.3"}]}}
  ],
  "users":[{"name": "myself", "user": {}},
           {"name": "e2e", "user": {"username": "admin", "password": "secret"}}]
}""")

CASES = [
    # TestTypesInput
    ("{ .bools }", TYPES, "[true,false,true,false]"),
    ("{ .bools[0] }", TYPES, "true"),
    ("{ .bools[-1] }", TYPES, "false"),
    ("{ .bools[0:2] }", TYPES, "true false"),
    ("{ .bools[:2] }", TYPES, "true false"),
    ("{ .bools[:4:2] }", TYPES, "true true"),
    ("{ .integers }", TYPES, "[1,2,3,4]"),
    ("{ .integers[-2] }", TYPES, "3"),
    ("{ .integers[:4:2] }", TYPES, "1 3"),
    ("{ .floats }", TYPES, "[1,2.2,3.3,4]"),
    ("{ .floats[0] }", TYPES, "1"),
    ("{ .floats[-2] }", TYPES, "3.3"),
    ("{ .strings }", TYPES, '["one","two","three","four"]'),
    ("{ .strings[:4:2] }", TYPES, "one three"),
    ("{ .interfaces }", TYPES, '[true,"one",1,1.1]'),
    ("{ .interfaces[:4:2] }", TYPES, "true 1"),
    ("{ .maps[0] }", TYPES, '{"name":"one","value":1}'),
    ("{ .maps[::2] }", TYPES, '{"name":"one","value":1} {"name":"three","value":3.03}'),
    ("{ .maps[1::2] }", TYPES, '{"name":"two","value":2.02} {"name":"four","value":4.04}'),
    # TestStructInput (storeTests)
    ("hello jsonpath", None, "hello jsonpath"),
    ("{..}", [1, 2, 3], "[1,2,3]"),
    ("{[?(@<5)]}", [2, 6, 3, 7], "2 3"),
    ('{"{"}', None, "{"),
    ("{[1,3,4]}", [0, 1, 2, 3, 4], "1 3 4"),
    ("{[0:2]}", ["Monday", "Tudesday"], "Monday Tudesday"),
    ("hello {.Name}", STORE, "hello jsonpath"),
    ("{$.Labels.web/html}", STORE, "15"),
    ("{$.Employees.jason}", STORE, "manager"),
    ("{.Labels.k8s-app}", STORE, "20"),
    ("{.Bicycle[*].Color}", STORE, "red green"),
    ("{.Book[*].Author}", STORE, "Nigel Rees Evelyn Waugh Herman Melville"),
    ('{range .Bicycle[*]}{ "{" }{ @.* }{ "} " }{end}', STORE,
     "{red 19.95 true} {green 20.01 false} "),
    ("{..Price}", STORE, "8.95 12.99 8.99 19.95 20.01"),
    ("{...Price}", STORE, "8.95 12.99 8.99 19.95 20.01"),
    ("{.Bicycle}", STORE, '[{"Color":"red","IsNew":true,"Price":19.95},'
     '{"Color":"green","IsNew":false,"Price":20.01}]'),
    ('{range .Bicycle[*]}{ @ }{ " " }{end}', STORE,
     '{"Color":"red","IsNew":true,"Price":19.95} {"Color":"green","IsNew":false,'
     '"Price":20.01} '),
    ("{.Book[-1:]}", STORE, '{"Author":"Herman Melville","Category":"fiction","Price":8.99,'
     '"Title":"Moby Dick"}'),
    ("{..Book[2]}", STORE, '{"Author":"Herman Melville","Category":"fiction","Price":8.99,'
     '"Title":"Moby Dick"}'),
    ("{.Bicycle[?(@.IsNew==true)]}", STORE, '{"Color":"red","IsNew":true,"Price":19.95}'),
    # missingKeyTests
    ("{.hello}", STORE, ""),
    ("before-{.hello}after", STORE, "before-after"),
    # TestJSONInput (pointsTests)
    ("{[?(@.z)].id}", POINTS, "i2 i5"),
    ("{[0]['id']}", POINTS, "i1"),
    ("{[-1]['x']}", POINTS, "null"),
    # TestKubernetes
    ("{range .items[*]}{.metadata.name}, {end}{.kind}", NODES, "127.0.0.1, 127.0.0.2, List"),
    ('{range .items[*]}{.metadata.name}{"\\t"}{end}', NODES, "127.0.0.1\t127.0.0.2\t"),
    ("{.items[*].status.addresses[*].address}", NODES, "127.0.0.1 127.0.0.2 127.0.0.3"),
    ("{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}", NODES,
     "127.0.0.1, 127.0.0.2, 127.0.0.3, "),
    ("{.items[*].metadata.name}", NODES, "127.0.0.1 127.0.0.2"),
    ("{.items[*]['metadata.name', 'status.capacity']}", NODES,
     '127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}'),
    ("{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}", NODES,
     '[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] '),
    ('{.users[?(@.name=="e2e")].user.password}', NODES, "secret"),
    ("{.items[0].metadata.labels.kubernetes\\.io/hostname}", NODES, "127.0.0.1"),
    ('{.items[?(@.metadata.labels.kubernetes\\.io/hostname=="127.0.0.1")].kind}', NODES,
     "None"),
    ("{.items[?(@..ready==true)].metadata.name}", NODES, "127.0.0.1"),
    # TestEmptyRange
    ("{range .items[*]}{.metadata.name}{end}", {"items": []}, ""),
    ('{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}'
     '{"+"}{end}', {"items": []}, ""),
]


@pytest.mark.parametrize(("template", "data", "expected"), CASES)
def test_upstream_cases(template: str, data: object, expected: str) -> None:
    assert parse(template).render(data) == expected


CONTAINERS = {"spec": {"containers": [{"name": f"c{i}"} for i in range(1, 5)]}}


@pytest.mark.parametrize(("template", "expected"), [
    # TestNegativeIndex
    ("{.spec.containers[0].name}", "c1"),
    ("{.spec.containers[0:0].name}", ""),
    ("{.spec.containers[0:-1].name}", "c1 c2 c3"),
    ("{.spec.containers[-1].name}", "c4"),
    ("{.spec.containers[-1:].name}", "c4"),
    ("{.spec.containers[-2].name}", "c3"),
    ("{.spec.containers[-4].name}", "c1"),
    ("{.spec.containers[-4:].name}", "c1 c2 c3 c4"),
    ("{.spec.containers[5:5].name}", ""),
    ("{.spec.containers[-5:-5].name}", ""),
    # TestStep
    ("{.spec.containers[0:].name}", "c1 c2 c3 c4"),
    ("{.spec.containers[1:4:2].name}", "c2 c4"),
    ("{.spec.containers[0:4:3].name}", "c1 c4"),
])
def test_indexes_and_steps(template: str, expected: str) -> None:
    assert parse(template).render(CONTAINERS) == expected


@pytest.mark.parametrize(("template", "data", "error"), [
    ("{hello}", STORE, "unrecognized identifier hello"),
    ("{.Labels[0]}", STORE, "is not array or slice"),
    ("{.Book[?(@.Price<>10)]}", STORE, "unrecognized filter operator <>"),
    ("{range .Labels.*}{@}{end}{end}", STORE, "not in range, nothing to end"),
    ("{............Price}", STORE, "invalid multiple recursive descent"),
    ("{.spec.containers[-5].name}", CONTAINERS, "array index out of bounds"),
    ("{.spec.containers[-1:0].name}", CONTAINERS, "starting index 3 is greater than ending"),
    ("{.spec.containers[3:1].name}", CONTAINERS, "starting index 3 is greater than ending"),
    ("{.spec.containers[0:4:0].name}", CONTAINERS, "step must be > 0"),
    ("{.spec.containers[0:4:-1].name}", CONTAINERS, "step must be > 0"),
    ('{.Book[?(@.Price=="x")]}', STORE, "incompatible types for comparison"),
    ("{.Book", STORE, "unclosed action"),
    ("{range .Book[*]}{.Title}", STORE, "has no {end}"),
])
def test_errors(template: str, data: object, error: str) -> None:
    with pytest.raises(JSONPathError, match=error.replace("[", "\\[")):
        parse(template).render(data)


def test_running_pods_filter_and_literal_text() -> None:
    """TestRunningPodsJSONPathOutput: a filter inside a range, escapes in quoted text."""
    pods = {"items": [{"metadata": {"name": "pod1"}, "status": {"phase": "Running"}},
                      {"metadata": {"name": "pod2"}, "status": {"phase": "Running"}},
                      {"metadata": {"name": "pod3"}, "status": {"phase": "Pending"}}]}
    template = '{range .items[?(.status.phase=="Running")]}{.metadata.name}{" is Running\\n"}{end}'
    assert parse(template).render(pods) == "pod1 is Running\npod2 is Running\n"


def test_as_json_and_go_number_and_html_escapes() -> None:
    data = {"a": [1, 2.5, 1e21, 1e-7, "<x>&"]}
    assert parse("{.a[*]}").render(data) == "1 2.5 1e+21 1e-07 <x>&"
    assert parse("{.a}").render(data) == '[1,2.5,1e+21,1e-7,"\\u003cx\\u003e\\u0026"]'
    assert parse("{.a[0:2]}", as_json=True).render(data) == "[\n    1,\n    2.5\n]\n"
