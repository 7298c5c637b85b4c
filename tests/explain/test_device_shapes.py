"""explain's capacity of an empty node copy, shared by nodes whose devices are equal but for
names (``case.DEVICE_SHAPES``), against keying every node with devices by its name: the
same explanations on generated DRA clusters (node-local GPU slices of different sizes and
models, taint rules and network-attached devices now and then), and fewer capacities
computed where nodes are alike."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tasplan.explain import case as case_module
from tasplan.explain.explainer import explain
from tasplan.load.loader import load_inputs

DRIVER = "gpu.example.com"


def _node(name: str, rack: str, cpu: int) -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  "topology.example.com/rack": rack}},
            "status": {"allocatable": {"cpu": str(cpu), "memory": "64Gi", "pods": "110"}}}


def _slice(name: str, node: str, pool: str, devices: list[tuple[str, str]]) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": name},
            "spec": {"driver": DRIVER, "nodeName": node,
                     "pool": {"name": pool, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": device, "attributes": {"model": {"string": model}}}
                                 for device, model in devices]}}


def _inputs(rng: random.Random, tmp: Path) -> tuple[Path, Path]:
    items: list[dict] = [{
        "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
        "metadata": {"name": DRIVER},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}}]
    for r in range(rng.choice((2, 3))):
        for k in range(rng.choice((2, 3))):
            name = f"n{r}{k}"
            items.append(_node(name, f"rack-{r}", rng.choice((8, 8, 16))))
            if rng.random() < 0.85:
                count = rng.choice((2, 4, 4, 4))
                models = [rng.choice(("h100", "h100", "a100")) for _ in range(count)]
                pool = name if rng.random() < 0.8 else f"pool-{name}"
                items.append(_slice(f"{name}-gpus", name, pool,
                                    [(f"gpu-{i}", m) for i, m in enumerate(models)]))
    if rng.random() < 0.15:  # a network-attached device: copies are told apart by name
        items.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                      "metadata": {"name": "shared"},
                      "spec": {"driver": DRIVER, "allNodes": True,
                               "pool": {"name": "shared", "generation": 1,
                                        "resourceSliceCount": 1},
                               "devices": [{"name": "spare",
                                            "attributes": {"model": {"string": "h100"}}}]}})
    if rng.random() < 0.15:
        items.append({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule",
                      "metadata": {"name": "bad"},
                      "spec": {"deviceSelector": {"driver": DRIVER, "device": "gpu-0"},
                               "taint": {"key": "bad", "effect": "NoSchedule"}}})
    cluster = tmp / "cluster.json"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    gpus = rng.choice((1, 2, 3))
    model = rng.choice(("", 'device.attributes["gpu.example.com"].model == "h100"'))
    pods = rng.choice((3, 5, 7))
    docs = [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
             "metadata": {"name": "gpus", "namespace": "ml"},
             "spec": {"spec": {"devices": {"requests": [{"name": "gpus", "exactly": {
                 "deviceClassName": DRIVER, "count": gpus,
                 **({"selectors": [{"cel": {"expression": model}}]} if model else {})}}]}}}},
            {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
             "metadata": {"name": "train", "namespace": "ml"},
             "spec": {"schedulingPolicy": {"gang": {"minCount": pods}},
                      "schedulingConstraints": {"topology": [
                          {"key": "topology.example.com/rack"}]}}}]
    docs += [{"apiVersion": "v1", "kind": "Pod",
              "metadata": {"name": f"train-{i}", "namespace": "ml"},
              "spec": {"schedulingGroup": {"podGroupName": "train"},
                       "containers": [{"name": "w", "image": "i",
                                       "resources": {"requests": {"cpu": "2"}}}],
                       "resourceClaims": [{"name": "gpus",
                                           "resourceClaimTemplateName": "gpus"}]}}
             for i in range(pods)]
    workload = tmp / "train.json"
    workload.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
    return workload, cluster


def test_shared_capacities_explain_alike(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(2028)
    computed = {True: 0, False: 0}
    capacity_of = case_module.Case._capacity_of

    def counted(self, node):
        computed[case_module.DEVICE_SHAPES] += 1
        return capacity_of(self, node)

    monkeypatch.setattr(case_module.Case, "_capacity_of", counted)
    explained = 0
    for _ in range(40):
        workload, cluster = _inputs(rng, tmp_path)
        snapshot = load_inputs([workload], [cluster])
        found = {}
        for shapes in (False, True):
            monkeypatch.setattr(case_module, "DEVICE_SHAPES", shapes)
            found[shapes] = explain(snapshot)
        assert found[True] == found[False]
        explained += bool(found[True].explanations)
    assert explained > 20, explained
    assert computed[True] < computed[False], computed
