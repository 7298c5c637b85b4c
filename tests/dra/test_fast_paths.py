"""The DRA plugin's fast paths against its plain ones, on generated clusters: the same
``check`` and ``explain`` results (equal objects, byte-identical JSON documents).

Generated: node-local GPU slices whose devices differ only in attributes a selector reads
(``model``), several pools per node, partitionable devices (a pool of a counters slice and
a devices slice), NIC slices, now and then a network-attached slice, a DeviceTaintRule, an
input-allocated claim of a bound pod; the gang asks per pod for 1-2 GPUs through a template
(a selector on ``model``, admin access, ``firstAvailable`` now and then), and sometimes for
a NIC claim shared by the whole group (a PodGroup claim) or by name.

Fast paths compared (each flag False = the plain path):
* ``dynamic_resources.PER_NODE_FREE``: a domain's free devices summed from per-node,
  per-class device lists (when every device belongs to one node);
* ``dynamic_resources.FIXED_FACTS``: Filter and capacity of a pod whose claims are its own
  read PreFilter's answer, the specs and the simple request from a per-pod record;
* ``placement_cycle.BULK_COUNT``: a counted placement's failed pods get their outcomes
  from per-cycle answers (PlacementFeasible once per (remaining, scheduled), pod keys once);
* ``pod_cycle.FAST_CAPACITY``: counting asks NodeResourcesFit and NodePorts only for their
  capacity and runs DynamicResources' filter (not exact) before its capacity.
Releases vary (1.37, 1.38), and so does ``permit_feasibility`` (1.36's rule: a placement
is only stopped at its end) on top of them.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from tasplan import plan
from tasplan.explain.explainer import explain
from tasplan.load.loader import load_inputs
from tasplan.plan import placement_cycle, pod_cycle
from tasplan.plugins import dynamic_resources
from tasplan.report.document import plan_document
from tasplan.report.serialize import to_json
from tasplan.schedulers.planner import target_for

GPU, NIC = "gpu.example.com", "nic.example.com"
RACK = "topology.example.com/rack"
FLAGS = ((dynamic_resources, "PER_NODE_FREE"), (dynamic_resources, "FIXED_FACTS"),
         (placement_cycle, "BULK_COUNT"), (pod_cycle, "FAST_CAPACITY"))
RELEASES = ("1.37", "1.38")


def _class(name: str, *expressions: str) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": e}} for e in expressions]}}


def _slice(name: str, driver: str, pool: str, devices: list[dict], *, count: int = 1,
           **access) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": name},
            "spec": {"driver": driver, **access,
                     "pool": {"name": pool, "generation": 1, "resourceSliceCount": count},
                     **({"devices": devices} if devices else {})}}


def _gpu(i: int, model: str, counters: bool) -> dict:
    out = {"name": f"gpu-{i}", "attributes": {"model": {"string": model}, "index": {"int": i}},
           "capacity": {"memory": {"value": "80Gi"}}}
    if counters:
        out["consumesCounters"] = [{"counterSet": "mem",
                                    "counters": {"memory": {"value": "40Gi"}}}]
    return out


def _cluster(rng: random.Random) -> list[dict]:
    items = [_class(GPU, f'device.driver == "{GPU}"'),
             _class("h100", f'device.driver == "{GPU}"',
                    f'device.attributes["{GPU}"].model == "h100"'),
             _class(NIC, f'device.driver == "{NIC}"')]
    names = []
    for r in range(rng.choice((2, 3))):
        for k in range(rng.choice((2, 3))):
            name = f"n{r}{k}"
            names.append(name)
            items.append({"apiVersion": "v1", "kind": "Node",
                          "metadata": {"name": name, "labels": {
                              "kubernetes.io/hostname": name, RACK: f"rack-{r}"}},
                          "status": {"allocatable": {"cpu": str(rng.choice((8, 16))),
                                                     "memory": "64Gi", "pods": "110"}}})
            if rng.random() < 0.85:
                counters = rng.random() < 0.2
                pool = name if rng.random() < 0.8 else f"pool-{name}"
                gpus = [_gpu(i, rng.choice(("h100", "h100", "a100")), counters)
                        for i in range(rng.choice((2, 4, 4)))]
                items.append(_slice(f"{name}-gpus", GPU, pool, gpus, nodeName=name,
                                    count=2 if counters else 1))
                if counters:
                    shared = _slice(f"{name}-counters", GPU, pool, [], nodeName=name, count=2)
                    shared["spec"]["sharedCounters"] = [
                        {"name": "mem", "counters": {"memory": {"value": "120Gi"}}}]
                    items.append(shared)
            if rng.random() < 0.3:
                items.append(_slice(f"{name}-nics", NIC, f"nic-{name}",
                                    [{"name": f"nic-{i}"} for i in range(rng.choice((1, 2)))],
                                    nodeName=name))
    if rng.random() < 0.2:
        access = rng.choice(({"allNodes": True}, {"nodeSelector": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": RACK, "operator": "In", "values": ["rack-0"]}]}]}}))
        items.append(_slice("net", GPU, "net", [_gpu(9, "h100", False)], **access))
    if rng.random() < 0.15:
        items.append({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule",
                      "metadata": {"name": "bad"},
                      "spec": {"deviceSelector": {"driver": GPU, "device": "gpu-0"},
                               "taint": {"key": "bad", "effect": "NoSchedule"}}})
    gpu_nodes = [i["spec"]["nodeName"] for i in items if i["kind"] == "ResourceSlice"
                 and i["spec"].get("driver") == GPU and i["spec"].get("nodeName")
                 and i["spec"].get("devices")]
    if gpu_nodes and rng.random() < 0.4:
        node = rng.choice(gpu_nodes)
        pool = next(i["spec"]["pool"]["name"] for i in items if i["kind"] == "ResourceSlice"
                    and i["spec"].get("nodeName") == node and i["spec"].get("devices")
                    and i["spec"]["driver"] == GPU)
        items.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                      "metadata": {"name": "held", "namespace": "other"},
                      "spec": {"devices": {"requests": [
                          {"name": "g", "exactly": {"deviceClassName": GPU}}]}},
                      "status": {"allocation": {
                          "devices": {"results": [{"request": "g", "driver": GPU,
                                                   "pool": pool, "device": "gpu-1"}]},
                          "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                              {"key": "metadata.name", "operator": "In",
                               "values": [node]}]}]}}}})
        items.append({"apiVersion": "v1", "kind": "Pod",
                      "metadata": {"name": "holder", "namespace": "other"},
                      "spec": {"nodeName": node,
                               "containers": [{"name": "c", "image": "i"}],
                               "resourceClaims": [{"name": "g", "resourceClaimName": "held"}]},
                      "status": {"phase": "Running"}})
    return items


def _request(rng: random.Random) -> dict:
    exactly: dict = {"deviceClassName": rng.choice((GPU, GPU, "h100")),
                     "count": rng.choice((1, 1, 2))}
    if rng.random() < 0.3:
        exactly["selectors"] = [{"cel": {"expression":
                                         f'device.attributes["{GPU}"].model == "h100"'}}]
    if rng.random() < 0.1:
        exactly["adminAccess"] = True
    if rng.random() < 0.15:
        return {"name": "gpus", "firstAvailable": [
            {"name": "two", "deviceClassName": GPU, "count": 2},
            {"name": "one", **{k: v for k, v in exactly.items() if k != "adminAccess"},
             "count": 1}]}
    return {"name": "gpus", "exactly": exactly}


def _workload(rng: random.Random) -> list[dict]:
    ns = "ml"
    template = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": "gpus", "namespace": ns},
                "spec": {"spec": {"devices": {"requests": [_request(rng)]}}}}
    nic = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
           "metadata": {"name": "nic", "namespace": ns},
           "spec": {"spec": {"devices": {"requests": [
               {"name": "nic", "exactly": {"deviceClassName": NIC}}]}}}}
    pods = rng.choice((2, 3, 5, 7, 9, 12))
    group: dict = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                   "metadata": {"name": "train", "namespace": ns},
                   "spec": {"schedulingPolicy": {"gang": {"minCount": pods}},
                            "schedulingConstraints": {"topology": [{"key": RACK}]}}}
    claims = [{"name": "gpus", "resourceClaimTemplateName": "gpus"}]
    docs = [template, nic, group]
    shared = rng.random()
    if shared < 0.2:  # one NIC for the whole group
        group["spec"]["resourceClaims"] = [{"name": "nic", "resourceClaimTemplateName": "nic"}]
        claims.append({"name": "nic", "resourceClaimTemplateName": "nic"})
    elif shared < 0.35:  # one named claim shared by every pod
        docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                     "metadata": {"name": "shared-nic", "namespace": ns},
                     "spec": {"devices": {"requests": [
                         {"name": "nic", "exactly": {"deviceClassName": NIC}}]}}})
        claims.append({"name": "nic", "resourceClaimName": "shared-nic"})
    docs += [{"apiVersion": "v1", "kind": "Pod",
              "metadata": {"name": f"train-{i}", "namespace": ns},
              "spec": {"schedulingGroup": {"podGroupName": "train"},
                       "containers": [{"name": "w", "image": "i",
                                       "resources": {"requests": {"cpu": "2"}}}],
                       "resourceClaims": claims}}
             for i in range(pods)]
    return docs


def _write(path: Path, items: list[dict]) -> Path:
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


def _outputs(snapshot, release: str, permit: bool) -> tuple:
    target = target_for(snapshot, release, {})
    target = replace(target, release=replace(target.release, permit_feasibility=permit))
    planned = plan(snapshot, target=target)
    explained = explain(snapshot, all_assignments=True, target=target)
    document = to_json(plan_document(explained.plan, explained.explanations))
    return planned, explained, to_json(plan_document(planned)), document


@pytest.mark.parametrize("seed", range(8))
def test_fast_paths_plan_and_explain_alike(seed: int, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    devices = explained = 0
    for k in range(10):
        cluster = _write(tmp_path / f"cluster-{k}.json", _cluster(rng))
        workload = _write(tmp_path / f"train-{k}.json", _workload(rng))
        snapshot = load_inputs([workload], [cluster])
        release, permit = rng.choice(RELEASES), rng.random() < 0.4
        for module, flag in FLAGS:
            monkeypatch.setattr(module, flag, False)
        plain = _outputs(snapshot, release, permit)
        for module, flag in FLAGS:
            monkeypatch.setattr(module, flag, True)
        fast = _outputs(snapshot, release, permit)
        assert fast == plain
        devices += any("devices/" in key for g in fast[0].groups for p in g.placements
                       for key in p.free)
        explained += bool(fast[1].explanations)
    assert devices > 5 and explained > 2, (devices, explained)
