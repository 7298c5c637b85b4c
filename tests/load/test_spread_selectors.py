"""Services and controllers -> a pending pod's default spread selector, after upstream
``helper.DefaultSelector`` (helper/spread_test.go TestDefaultSelector) and the objects of
podtopologyspread's TestPreScoreSkip / TestPreScoreStateEmptyNodes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tasplan import InputError, load_inputs
from tasplan.model.pod_affinity import LabelSelector
from tasplan.model.selectors import Requirement
from tests.load.helpers import line_of, write

POD = """
apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: {namespace}
  labels: {{foo: bar, baz: sup}}
{owner}spec:
  containers: [{{name: c}}]
{extra}"""


def pod(namespace: str = "default", owner: str = "", extra: str = "") -> str:
    """``owner``: "Kind/name" (controller: true) or "Kind/name/false"."""
    ref = ""
    if owner:
        kind, name, *controller = owner.split("/")
        api = "v1" if kind == "ReplicationController" else "apps/v1"
        flag = "false" if controller else "true"
        ref = (f"  ownerReferences:\n  - {{apiVersion: {api}, kind: {kind}, name: {name},"
               f" uid: u1, controller: {flag}}}\n")
    return POD.format(namespace=namespace, owner=ref, extra=extra)


def service(selector: str, namespace: str = "default", name: str = "s") -> str:
    return (f"---\napiVersion: v1\nkind: Service\nmetadata: {{name: {name}, namespace: "
            f"{namespace}}}\nspec:\n  selector: {selector}\n")


RS1 = """---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs1, namespace: default}
spec:
  replicas: 0
  selector:
    matchExpressions: [{key: foo, operator: Exists}]
  template:
    metadata: {labels: {foo: x}}
    spec: {containers: [{name: c}]}
"""


def selector_of(tmp_path: Path, text: str) -> LabelSelector | None:
    snapshot = load_inputs([write(tmp_path, "in.yaml", text)])
    (p,) = [p for p in snapshot.pods if p.name == "p"]
    return p.default_spread_selector


def req(key: str, op: str = "In", *values: str) -> Requirement:
    return Requirement(key, op, values)


@pytest.mark.parametrize("text, want", [
    pytest.param(pod() + service("{foo: bar}"), (req("foo", "In", "bar"),),
                 id="service selecting the pod"),
    pytest.param(pod() + service("{foo: bar}") + service("{baz: sup}", name="s2"),
                 (req("baz", "In", "sup"), req("foo", "In", "bar")),
                 id="two services, labels merged"),
    pytest.param(pod() + service("{foo: other}"), None, id="service not selecting the pod"),
    pytest.param(pod() + service("{foo: bar}", namespace="ns1"), None,
                 id="service in another namespace"),
    pytest.param(pod() + service("{}"), None, id="empty service selector adds nothing"),
    pytest.param(pod(owner="ReplicaSet/rs1") + RS1, (req("foo", "Exists"),),
                 id="replicaset owner"),
    pytest.param(pod(owner="ReplicaSet/rs1") + RS1 + service("{baz: sup}"),
                 (req("baz", "In", "sup"), req("foo", "Exists")),
                 id="service and replicaset"),
    pytest.param(pod(owner="ReplicaSet/rs2") + RS1, None,
                 id="default constraints and a replicaset that doesn't match"),
    pytest.param(pod(owner="ReplicaSet/rs1/false") + RS1, None,
                 id="owner reference that is not the controller"),
    pytest.param(pod(owner="StatefulSet/ss1") + RS1.replace("ReplicaSet", "StatefulSet")
                 .replace("rs1", "ss1"), (req("foo", "Exists"),), id="statefulset owner"),
    pytest.param(pod(owner="ReplicationController/rc1") + service("{foo: bar}") + """---
apiVersion: v1
kind: ReplicationController
metadata: {name: rc1, namespace: default}
spec:
  template:
    metadata: {labels: {baz: sup}}
""", (req("baz", "In", "sup"), req("foo", "In", "bar")),
                 id="replication controller without selector uses its template labels"),
])
def test_default_selector(tmp_path: Path, text: str, want) -> None:
    got = selector_of(tmp_path, text)
    assert (got.requirements if got is not None else None) == want


def test_only_pending_pods_without_constraints_get_one(tmp_path: Path) -> None:
    """Bound pods are never scheduled; pods with their own constraints ignore defaults."""
    constraint = """  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule,
     labelSelector: {matchLabels: {foo: bar}}}
"""
    assert selector_of(tmp_path, pod(extra=constraint) + service("{foo: bar}")) is None
    assert selector_of(tmp_path, pod(extra="  nodeName: n1\n") + service("{foo: bar}")) is None


def test_services_are_no_longer_ignored(tmp_path: Path) -> None:
    snapshot = load_inputs([write(tmp_path, "in.yaml", pod() + service("{foo: bar}"))])
    assert "Service" not in snapshot.ignored


def test_bad_owner_reference(tmp_path: Path) -> None:
    text = pod() + service("{foo: bar}")
    text = text.replace("  labels:", "  ownerReferences:\n  - {kind: ReplicaSet, "
                        "name: rs1, controller: true}\n  labels:")
    path = write(tmp_path, "in.yaml", text)
    with pytest.raises(InputError) as err:
        load_inputs([path])
    assert err.value.field == "metadata.ownerReferences[0].apiVersion"
    assert err.value.line == line_of(path, "- {kind: ReplicaSet")


def test_bad_service_selector(tmp_path: Path) -> None:
    path = write(tmp_path, "in.yaml", pod() + service("[foo]"))
    with pytest.raises(InputError) as err:
        load_inputs([path])
    assert err.value.field == "spec.selector"
