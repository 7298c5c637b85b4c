#!/usr/bin/env python3
"""Synthetic cluster snapshot + 1,024-pod gang for benchmarking tasplan.

Writes ONE JSON file shaped like ``kubectl get nodes,pods -A -o json``
(``{"apiVersion": "v1", "items": [...], "kind": "List", "metadata": {...}}``,
2-space indented) and, with ``--gang-out``, a multi-document YAML holding a
``scheduling.k8s.io/v1beta1`` PodGroup ``bench/gang`` plus its pending Pods.
Only the standard library and orjson are used; output is a pure function of
the arguments (``--seed``, default 0): no wall clock, no global random state.

Topology
--------
``--nodes N`` GPU nodes are cut into racks of ``--rack-size`` (32) nodes and
blocks of ``--racks-per-block`` (8) racks, labelled
``topology.example.com/rack`` (``rack-0000``...) and
``topology.example.com/block`` (``block-000``...). When N is not a multiple of
the rack size the last rack is short (1000 nodes -> 31 full racks + one of 8).
Every node: allocatable cpu "128", memory "2048Gi", nvidia.com/gpu "8",
pods "110", taint ``nvidia.com/gpu=present:NoSchedule``. About 0.2% of nodes
are cordoned (``spec.unschedulable`` + ``node.kubernetes.io/unschedulable``).

Gang sizing arithmetic
----------------------
The gang is ``--gang-pods`` (1024) identical pods, each requesting cpu "3",
memory "40Gi" and NO GPU (1024 pods x 1 GPU would need 1024 GPUs, but a rack
only has 32 x 8 = 256, so no rack could ever fit). They tolerate the GPU taint
and must all land in one rack.

For identical pods a rack's capacity is exact and order-independent:

    cap(node) = min(free_cpu // 3, free_mem // 40Gi, free_pod_slots)
    cap(rack) = sum(cap(node) for schedulable nodes in the rack)

An empty node gives min(128 // 3, 2048 // 40, 110) = min(42, 51, 110) = 42,
an empty rack 32 x 42 = 1344. The gang needs 1024, i.e. on average 32 pods
per node = 96 free cpu: a rack fits only if its nodes average <= ~32 cpu of
background requests (memory is never the binding resource here).

Background load (``--pods-per-node`` ~30, +-3, per node) is assigned per rack
class; the class of each full rack is drawn by a seeded shuffle of an exact
split, so the fitting fraction does not drift with N:

* every node, 4 DaemonSets: kube-proxy 100m/128Mi, node-exporter 50m/64Mi,
  nvidia-device-plugin 50m/128Mi, fluent-bit 100m/256Mi = 300m / 576Mi.
* ``training`` racks (50%): each node runs GPU training pods using 1-8 GPUs
  (60% of nodes one 8-GPU pod, others 1-3 pods of 1/2/4 GPUs), 12 cpu and
  160Gi per GPU, plus small services. An 8-GPU node has ~96+12 cpu used ->
  cap ~6; a rack averages ~15 per node (~480) -> never fits.
* ``busy`` racks (~33%): 2-4 batch executors (8 cpu / 64Gi each) + ~22
  services of 100m-2 cpu (mean ~1.05 cpu) -> ~47 cpu used -> cap ~26 per
  node, ~830 per rack -> does not fit.
* ``light`` racks (17%): ~26 services of 100m-1 cpu (mean ~0.5 cpu)
  -> ~13 cpu used -> cap ~38 per node, ~1200 per rack -> fits.
* a short last rack never fits (8 nodes x 42 = 336 < 1024).

So roughly 15-17% of racks can hold the gang (1000 nodes: 5 of 32 racks;
5000 nodes: 27 of 157). ``--report`` prints the per-rack free cpu/memory and
gang capacity computed from the generated requests, and the count of racks
with room (excluding cordoned nodes).

Usage::

    python benchmarks/generate.py --nodes 5000 --out /tmp/c5000.json \
        --gang-out /tmp/gang.yaml --report
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time

import orjson

GI = 1024**3
MI = 1024**2

NODE_CPU_M = 128_000
NODE_MEM = 2048 * GI
NODE_GPU = 8
NODE_PODS = 110

GANG_CPU_M = 3_000
GANG_MEM = 40 * GI

RACK_KEY = "topology.example.com/rack"
BLOCK_KEY = "topology.example.com/block"
GPU_TAINT = {"effect": "NoSchedule", "key": "nvidia.com/gpu", "value": "present"}
GPU_TOLERATION = {"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}
DEFAULT_TOLERATIONS = [
    {
        "effect": "NoExecute",
        "key": "node.kubernetes.io/not-ready",
        "operator": "Exists",
        "tolerationSeconds": 300,
    },
    {
        "effect": "NoExecute",
        "key": "node.kubernetes.io/unreachable",
        "operator": "Exists",
        "tolerationSeconds": 300,
    },
]
DS_TOLERATIONS = [
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists"},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/disk-pressure", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/memory-pressure", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/pid-pressure", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable", "operator": "Exists"},
]

# name, namespace, image, cpu (m), memory (bytes), memory limit (bytes|None),
# tolerate-all, hostNetwork
DAEMONSETS = [
    (
        "kube-proxy",
        "kube-system",
        "registry.k8s.io/kube-proxy:v1.37.0",
        100,
        128 * MI,
        None,
        True,
        True,
    ),
    (
        "node-exporter",
        "monitoring",
        "quay.io/prometheus/node-exporter:v1.9.1",
        50,
        64 * MI,
        128 * MI,
        True,
        True,
    ),
    (
        "nvidia-device-plugin-daemonset",
        "gpu-operator",
        "nvcr.io/nvidia/k8s-device-plugin:v0.17.2",
        50,
        128 * MI,
        256 * MI,
        False,
        False,
    ),
    (
        "fluent-bit",
        "logging",
        "cr.fluentbit.io/fluent/fluent-bit:4.0.3",
        100,
        256 * MI,
        512 * MI,
        True,
        False,
    ),
]

# service size menus: (cpu millicores, memory bytes)
SVC_CPU_ALL = [100, 250, 500, 1000, 1500, 2000]
SVC_CPU_W_BUSY = [10, 15, 20, 25, 15, 15]  # mean ~1.0 cpu
SVC_CPU_W_LIGHT = [25, 30, 25, 20, 0, 0]  # mean ~0.45 cpu
SVC_CPU_W_TRAIN = [30, 30, 25, 15, 0, 0]
SVC_MEM_ALL = [256 * MI, 512 * MI, 1 * GI, 2 * GI, 4 * GI, 8 * GI]
SVC_MEM_W = [15, 25, 25, 20, 10, 5]

_WORDS = (
    "alpha amber apex atlas aurora beacon birch blaze bolt cedar cinder comet coral cosmos "
    "crest delta drift ember falcon fern flint forge frost garnet glacier harbor hazel helix "
    "horizon iris jade juniper kestrel lagoon lark lotus lumen maple meadow mesa mist nebula "
    "nimbus nova oak onyx orbit osprey pebble pine pixel prism pulse quartz quill raven reef "
    "ridge river rune sage sequoia shadow sierra slate solar spark spruce stellar summit "
    "tango tempest thistle tide timber topaz tundra vapor vertex willow zephyr"
)
WORDS = tuple(_WORDS.split())
SVC_KINDS = (
    "api",
    "web",
    "worker",
    "cache",
    "gateway",
    "indexer",
    "scheduler",
    "ingest",
    "auth",
    "search",
    "billing",
    "notifier",
    "proxy",
    "exporter",
    "sync",
)
TEAMS = (
    "payments",
    "search",
    "ads",
    "platform",
    "data",
    "ml-serving",
    "identity",
    "growth",
    "infra",
    "media",
)
ALNUM = "bcdfghjklmnpqrstvwxz2456789"
BASE_TS = 1_777_593_600  # 2026-05-01T00:00:00Z


def fmt_ts(sec: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(sec))


def host_ip(idx: int) -> str:
    third = idx // 250
    return f"172.{16 + third // 256}.{third % 256}.{idx % 250 + 2}"


def fmt_cpu(m: int) -> str:
    return str(m // 1000) if m % 1000 == 0 else f"{m}m"


def fmt_mem(b: int) -> str:
    if b % GI == 0:
        return f"{b // GI}Gi"
    if b % MI == 0:
        return f"{b // MI}Mi"
    return f"{b // 1024}Ki"


class Gen:
    """All randomness flows through one seeded Random instance."""

    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.rv = 9_000_000
        self.names: set[str] = set()

    def uid(self) -> str:
        h = f"{self.r.getrandbits(128):032x}"
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:32]}"

    def sfx(self, n: int = 5) -> str:
        r = self.r
        return "".join(r.choice(ALNUM) for _ in range(n))

    def pod_name(self, prefix: str) -> str:
        """``prefix-xxxxx``, drawn again on a collision: an API server holds one pod per name
        (and tasplan refuses a dump with two)."""
        while True:
            name = f"{prefix}-{self.sfx()}"
            if name not in self.names:
                self.names.add(name)
                return name

    def resource_version(self) -> str:
        self.rv += self.r.randint(1, 40)
        return str(self.rv)


# ----------------------------------------------------------------------------- nodes

NODE_IMAGES = [
    ("nvcr.io/nvidia/cuda@sha256:", "nvcr.io/nvidia/cuda:12.8.1-base-ubuntu24.04", 91_234_113),
    (
        "registry.example.com/ml/megatron-train@sha256:",
        "registry.example.com/ml/megatron-train:2026.04.2",
        12_884_901_888,
    ),
    ("registry.k8s.io/kube-proxy@sha256:", "registry.k8s.io/kube-proxy:v1.37.0", 30_815_412),
    (
        "nvcr.io/nvidia/k8s-device-plugin@sha256:",
        "nvcr.io/nvidia/k8s-device-plugin:v0.17.2",
        156_322_101,
    ),
    (
        "quay.io/prometheus/node-exporter@sha256:",
        "quay.io/prometheus/node-exporter:v1.9.1",
        12_116_203,
    ),
    (
        "cr.fluentbit.io/fluent/fluent-bit@sha256:",
        "cr.fluentbit.io/fluent/fluent-bit:4.0.3",
        40_112_554,
    ),
]


def make_node(g: Gen, idx: int, name: str, rack: str, block: str, cordoned: bool) -> dict:
    r = g.r
    ip = host_ip(idx)
    cidr = (
        f"10.{(idx >> 8) & 255}.{idx & 255}.0/24"
        if idx < 65536
        else f"11.{(idx >> 8) & 255}.{idx & 255}.0/24"
    )
    created = fmt_ts(BASE_TS - 86400 * 60 + r.randint(0, 86400 * 30))
    hb = fmt_ts(BASE_TS + 86400 * 10 + r.randint(0, 40))
    taints = [dict(GPU_TAINT)]
    spec = {
        "podCIDR": cidr,
        "podCIDRs": [cidr],
        "providerID": f"aws:///us-east-1{'abc'[idx % 3]}/i-0{r.getrandbits(64):016x}",
    }
    if cordoned:
        spec["unschedulable"] = True
        taints.append(
            {
                "effect": "NoSchedule",
                "key": "node.kubernetes.io/unschedulable",
                "timeAdded": fmt_ts(BASE_TS + 86400 * 9 + r.randint(0, 86400)),
            }
        )
    spec["taints"] = taints
    images = [
        {"names": [f"{a}{r.getrandbits(256):064x}", b], "sizeBytes": c} for a, b, c in NODE_IMAGES
    ]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": {
                "alpha.kubernetes.io/provided-node-ip": ip,
                "csi.volume.kubernetes.io/nodeid": orjson.dumps(
                    {"ebs.csi.aws.com": spec["providerID"][-19:]}
                ).decode(),
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
            "creationTimestamp": created,
            "labels": {
                "beta.kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/instance-type": "p5e.48xlarge",
                "beta.kubernetes.io/os": "linux",
                BLOCK_KEY: block,
                RACK_KEY: rack,
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "node.kubernetes.io/instance-type": "p5e.48xlarge",
                "nvidia.com/gpu.count": "8",
                "nvidia.com/gpu.present": "true",
                "nvidia.com/gpu.product": "NVIDIA-H200",
                "topology.kubernetes.io/region": "us-east-1",
                "topology.kubernetes.io/zone": f"us-east-1{'abc'[idx % 3]}",
            },
            "name": name,
            "resourceVersion": g.resource_version(),
            "uid": g.uid(),
        },
        "spec": spec,
        "status": {
            "addresses": [
                {"address": ip, "type": "InternalIP"},
                {"address": name, "type": "Hostname"},
            ],
            "allocatable": {
                "cpu": "128",
                "ephemeral-storage": "7073478850470",
                "hugepages-1Gi": "0",
                "hugepages-2Mi": "0",
                "memory": "2048Gi",
                "nvidia.com/gpu": "8",
                "pods": "110",
            },
            "capacity": {
                "cpu": "128",
                "ephemeral-storage": "7675012124Ki",
                "hugepages-1Gi": "0",
                "hugepages-2Mi": "0",
                "memory": f"{(2048 + 9) * 1024 * 1024}Ki",
                "nvidia.com/gpu": "8",
                "pods": "110",
            },
            "conditions": [
                {
                    "lastHeartbeatTime": hb,
                    "lastTransitionTime": created,
                    "message": "kubelet has sufficient memory available",
                    "reason": "KubeletHasSufficientMemory",
                    "status": "False",
                    "type": "MemoryPressure",
                },
                {
                    "lastHeartbeatTime": hb,
                    "lastTransitionTime": created,
                    "message": "kubelet has no disk pressure",
                    "reason": "KubeletHasNoDiskPressure",
                    "status": "False",
                    "type": "DiskPressure",
                },
                {
                    "lastHeartbeatTime": hb,
                    "lastTransitionTime": created,
                    "message": "kubelet is posting ready status",
                    "reason": "KubeletReady",
                    "status": "True",
                    "type": "Ready",
                },
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "images": images,
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": g.uid(),
                "containerRuntimeVersion": "containerd://2.1.4",
                "kernelVersion": "6.8.0-1031-aws",
                "kubeProxyVersion": "",
                "kubeletVersion": "v1.37.0",
                "machineID": f"{r.getrandbits(128):032x}",
                "operatingSystem": "linux",
                "osImage": "Ubuntu 24.04.2 LTS",
                "systemUUID": g.uid(),
            },
        },
    }


# ----------------------------------------------------------------------------- pods


def resources(
    cpu_m: int, mem: int, gpu: int = 0, cpu_limit: bool = False, mem_limit: int | None = None
) -> dict:
    req = {"cpu": fmt_cpu(cpu_m), "memory": fmt_mem(mem)}
    lim = {}
    if cpu_limit:
        lim["cpu"] = fmt_cpu(cpu_m)
    if mem_limit:
        lim["memory"] = fmt_mem(mem_limit)
    if gpu:
        req["nvidia.com/gpu"] = str(gpu)
        lim["nvidia.com/gpu"] = str(gpu)
    out = {"requests": req}
    if lim:
        out["limits"] = lim
    return out


def container(g: Gen, name: str, image: str, res: dict, ports=None, env=None) -> dict:
    c = {
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "name": name,
        "resources": res,
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "volumeMounts": [
            {
                "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                "name": "kube-api-access-" + g.sfx(5),
                "readOnly": True,
            }
        ],
    }
    if ports:
        c["ports"] = ports
    if env:
        c["env"] = env
    return c


def pod(
    g: Gen,
    *,
    name: str,
    generate_name: str,
    ns: str,
    node: str,
    host_ip: str,
    pod_ip: str,
    labels: dict,
    owner: dict,
    containers: list,
    tolerations: list,
    created: int,
    qos: str,
    priority: int = 0,
    priority_class: str | None = None,
    restart: str = "Always",
    sa: str = "default",
    affinity: dict | None = None,
    annotations: dict | None = None,
    host_network: bool = False,
) -> dict:
    vol = containers[0]["volumeMounts"][0]["name"]
    for c in containers[1:]:
        c["volumeMounts"][0]["name"] = vol
    ts = fmt_ts(created)
    ready_ts = fmt_ts(created + g.r.randint(3, 90))
    meta = {
        "creationTimestamp": ts,
        "generateName": generate_name,
        "labels": labels,
        "name": name,
        "namespace": ns,
        "ownerReferences": [owner],
        "resourceVersion": g.resource_version(),
        "uid": g.uid(),
    }
    if annotations:
        meta["annotations"] = annotations
    spec = {
        "containers": containers,
        "dnsPolicy": "ClusterFirstWithHostNet" if host_network else "ClusterFirst",
        "enableServiceLinks": True,
        "nodeName": node,
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": priority,
        "restartPolicy": restart,
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "serviceAccount": sa,
        "serviceAccountName": sa,
        "terminationGracePeriodSeconds": 30,
        "tolerations": tolerations,
        "volumes": [
            {
                "name": vol,
                "projected": {
                    "defaultMode": 420,
                    "sources": [
                        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                        {
                            "configMap": {
                                "items": [{"key": "ca.crt", "path": "ca.crt"}],
                                "name": "kube-root-ca.crt",
                            }
                        },
                        {
                            "downwardAPI": {
                                "items": [
                                    {
                                        "fieldRef": {
                                            "apiVersion": "v1",
                                            "fieldPath": "metadata.namespace",
                                        },
                                        "path": "namespace",
                                    }
                                ]
                            }
                        },
                    ],
                },
            }
        ],
    }
    if priority_class:
        spec["priorityClassName"] = priority_class
    if affinity:
        spec["affinity"] = affinity
    if host_network:
        spec["hostNetwork"] = True
    ip = host_ip if host_network else pod_ip
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": spec,
        "status": {
            "conditions": [
                {
                    "lastProbeTime": None,
                    "lastTransitionTime": ready_ts,
                    "status": "True",
                    "type": "Initialized",
                },
                {
                    "lastProbeTime": None,
                    "lastTransitionTime": ready_ts,
                    "status": "True",
                    "type": "Ready",
                },
                {
                    "lastProbeTime": None,
                    "lastTransitionTime": ready_ts,
                    "status": "True",
                    "type": "ContainersReady",
                },
                {
                    "lastProbeTime": None,
                    "lastTransitionTime": ts,
                    "status": "True",
                    "type": "PodScheduled",
                },
            ],
            "containerStatuses": [
                {
                    "containerID": f"containerd://{g.r.getrandbits(256):064x}",
                    "image": c["image"],
                    "imageID": c["image"].split(":")[0] + f"@sha256:{g.r.getrandbits(256):064x}",
                    "lastState": {},
                    "name": c["name"],
                    "ready": True,
                    "restartCount": 0,
                    "started": True,
                    "state": {"running": {"startedAt": ready_ts}},
                }
                for c in containers
            ],
            "hostIP": host_ip,
            "hostIPs": [{"ip": host_ip}],
            "phase": "Running",
            "podIP": ip,
            "podIPs": [{"ip": ip}],
            "qosClass": qos,
            "startTime": ts,
        },
    }


def owner_ref(g: Gen, kind: str, name: str, api: str, cache: dict) -> dict:
    key = (kind, name)
    uid = cache.get(key)
    if uid is None:
        uid = cache[key] = g.uid()
    return {
        "apiVersion": api,
        "blockOwnerDeletion": True,
        "controller": True,
        "kind": kind,
        "name": name,
        "uid": uid,
    }


# ----------------------------------------------------------------------------- cluster


def rack_classes(g: Gen, n_full: int) -> list[str]:
    n_train = round(n_full * 0.50)
    n_light = max(1, round(n_full * 0.17)) if n_full else 0
    n_busy = n_full - n_train - n_light
    classes = ["training"] * n_train + ["light"] * n_light + ["busy"] * n_busy
    g.r.shuffle(classes)
    return classes


def generate_cluster(
    *,
    nodes: int,
    pods_per_node: int = 30,
    rack_size: int = 32,
    racks_per_block: int = 8,
    seed: int = 0,
    out: str,
    indent: bool = True,
) -> dict:
    """Stream the snapshot to ``out``; return bookkeeping for ``--report``."""
    g = Gen(seed)
    r = g.r
    n_racks = -(-nodes // rack_size)
    n_full = nodes // rack_size
    classes = rack_classes(g, n_full) + (["short"] if n_racks > n_full else [])
    owners: dict = {}
    ds_hash = {d[0]: g.sfx(10) for d in DAEMONSETS}
    services = [
        (f"{w}-{k}", TEAMS[i % len(TEAMS)])
        for i, (w, k) in enumerate((w, k) for w in WORDS for k in SVC_KINDS)
    ]
    svc_hash = {}
    # kubectl prints unstructured objects, i.e. maps: keys come out sorted.
    opt = orjson.OPT_SORT_KEYS | (orjson.OPT_INDENT_2 if indent else 0)
    sep = b",\n    " if indent else b","
    stats = {"nodes": [], "pods": 0, "racks": n_racks, "classes": classes}

    tmp = out + ".tmp"
    with open(tmp, "wb", buffering=1 << 22) as f:
        f.write(
            b'{\n  "apiVersion": "v1",\n  "items": [\n    '
            if indent
            else b'{"apiVersion":"v1","items":['
        )
        first = [True]

        def emit(obj):
            data = orjson.dumps(obj, option=opt)
            if indent:
                data = data.replace(b"\n", b"\n    ")
            if not first[0]:
                f.write(sep)
            first[0] = False
            f.write(data)

        node_names = []
        node_meta = []
        for i in range(nodes):
            rack_i = i // rack_size
            name = f"gpu-{rack_i:04d}-{i % rack_size:02d}"
            cordoned = r.random() < 0.002
            node_names.append(name)
            node_meta.append((rack_i, cordoned))
            emit(
                make_node(
                    g,
                    i,
                    name,
                    f"rack-{rack_i:04d}",
                    f"block-{rack_i // racks_per_block:03d}",
                    cordoned,
                )
            )

        for i, name in enumerate(node_names):
            rack_i, cordoned = node_meta[i]
            cls = classes[rack_i]
            hip = host_ip(i)
            pod_net = (
                f"10.{(i >> 8) & 255}.{i & 255}."
                if i < 65536
                else f"11.{(i >> 8) & 255}.{i & 255}."
            )
            ip_seq = iter(range(2, 256))

            def next_ip(net=pod_net, seq=ip_seq):
                return net + str(next(seq))

            free_cpu, free_mem, free_gpu, free_pods = NODE_CPU_M, NODE_MEM, NODE_GPU, NODE_PODS
            target = max(4, pods_per_node + r.randint(-3, 3))
            n_pods = 0

            def take(cpu, mem, gpu=0):
                nonlocal free_cpu, free_mem, free_gpu, free_pods, n_pods
                free_cpu -= cpu
                free_mem -= mem
                free_gpu -= gpu
                free_pods -= 1
                n_pods += 1

            # DaemonSets
            for dsname, ns, image, cpu, mem, mem_lim, tol_all, hn in DAEMONSETS:
                app = dsname.replace("-daemonset", "")
                tols = (
                    [{"operator": "Exists"}] if tol_all else [dict(GPU_TOLERATION)]
                ) + DS_TOLERATIONS
                if hn:
                    tols = [
                        *tols,
                        {
                            "effect": "NoSchedule",
                            "key": "node.kubernetes.io/network-unavailable",
                            "operator": "Exists",
                        },
                    ]
                created = BASE_TS - 86400 * 20 + r.randint(0, 3600)
                emit(
                    pod(
                        g,
                        name=g.pod_name(dsname),
                        generate_name=f"{dsname}-",
                        ns=ns,
                        node=name,
                        host_ip=hip,
                        pod_ip=next_ip(),
                        labels={
                            "app.kubernetes.io/name": app,
                            "controller-revision-hash": ds_hash[dsname],
                            "pod-template-generation": "3",
                        },
                        owner=owner_ref(g, "DaemonSet", dsname, "apps/v1", owners),
                        containers=[
                            container(g, app, image, resources(cpu, mem, mem_limit=mem_lim))
                        ],
                        tolerations=tols,
                        created=created,
                        qos="Burstable",
                        priority=2000001000,
                        priority_class="system-node-critical",
                        sa=app,
                        host_network=hn,
                        affinity={
                            "nodeAffinity": {
                                "requiredDuringSchedulingIgnoredDuringExecution": {
                                    "nodeSelectorTerms": [
                                        {
                                            "matchFields": [
                                                {
                                                    "key": "metadata.name",
                                                    "operator": "In",
                                                    "values": [name],
                                                }
                                            ]
                                        }
                                    ]
                                }
                            }
                        },
                    )
                )
                take(cpu, mem)

            # class-specific heavy pods
            if cls in ("training", "short") and (cls == "training" or r.random() < 0.5):
                if r.random() < 0.6:
                    gpus_list = [8]
                else:
                    gpus_list = r.choice(
                        [[4, 4], [4, 2, 2], [2, 2, 2], [1, 2, 4], [4], [2, 1], [1], [2, 2]]
                    )
                for gpus in gpus_list:
                    job = f"train-{r.choice(WORDS)}-{r.randint(0, 999):03d}"
                    idx = r.randint(0, 63)
                    cpu, mem = 12_000 * gpus, 160 * GI * gpus
                    created = BASE_TS + r.randint(0, 86400 * 9)
                    cuid = owner_ref(g, "Job", job, "batch/v1", owners)
                    emit(
                        pod(
                            g,
                            name=g.pod_name(f"{job}-{idx}"),
                            generate_name=f"{job}-{idx}-",
                            ns="ml-training",
                            node=name,
                            host_ip=hip,
                            pod_ip=next_ip(),
                            labels={
                                "batch.kubernetes.io/controller-uid": cuid["uid"],
                                "batch.kubernetes.io/job-completion-index": str(idx),
                                "batch.kubernetes.io/job-name": job,
                                "controller-uid": cuid["uid"],
                                "job-name": job,
                            },
                            owner=cuid,
                            containers=[
                                container(
                                    g,
                                    "trainer",
                                    "registry.example.com/ml/megatron-train:2026.04.2",
                                    resources(cpu, mem, gpus, cpu_limit=True, mem_limit=mem),
                                    env=[
                                        {"name": "NCCL_DEBUG", "value": "WARN"},
                                        {"name": "GPUS_PER_POD", "value": str(gpus)},
                                    ],
                                )
                            ],
                            tolerations=[dict(GPU_TOLERATION), *DEFAULT_TOLERATIONS],
                            created=created,
                            qos="Guaranteed",
                            priority=100000,
                            priority_class="training-high",
                            restart="Never",
                        )
                    )
                    take(cpu, mem, gpus)
            elif cls == "busy":
                for _ in range(r.randint(2, 4)):
                    app = f"etl-{r.choice(WORDS)}"
                    created = BASE_TS + r.randint(0, 86400 * 9)
                    job = f"{app}-{r.randint(28_000_000, 29_999_999)}"
                    cuid = owner_ref(g, "Job", job, "batch/v1", owners)
                    emit(
                        pod(
                            g,
                            name=g.pod_name(job),
                            generate_name=f"{job}-",
                            ns="data-batch",
                            node=name,
                            host_ip=hip,
                            pod_ip=next_ip(),
                            labels={
                                "app.kubernetes.io/name": app,
                                "batch.kubernetes.io/controller-uid": cuid["uid"],
                                "batch.kubernetes.io/job-name": job,
                                "job-name": job,
                            },
                            owner=cuid,
                            containers=[
                                container(
                                    g,
                                    "executor",
                                    "registry.example.com/data/spark:3.5.5",
                                    resources(8000, 64 * GI, mem_limit=72 * GI),
                                )
                            ],
                            tolerations=[dict(GPU_TOLERATION), *DEFAULT_TOLERATIONS],
                            created=created,
                            qos="Burstable",
                            priority=1000,
                            priority_class="batch-low",
                            restart="Never",
                        )
                    )
                    take(8000, 64 * GI)

            # small services up to the per-node target
            weights = (
                SVC_CPU_W_LIGHT
                if cls == "light"
                else SVC_CPU_W_BUSY
                if cls == "busy"
                else SVC_CPU_W_TRAIN
            )
            while n_pods < target:
                cpu = r.choices(SVC_CPU_ALL, weights)[0]
                mem = r.choices(SVC_MEM_ALL, SVC_MEM_W)[0]
                sidecar = r.random() < 0.3
                tot_cpu = cpu + (100 if sidecar else 0)
                tot_mem = mem + (128 * MI if sidecar else 0)
                if tot_cpu > free_cpu or tot_mem > free_mem or free_pods < 1:
                    break
                svc, team = services[r.randrange(len(services))]
                h = svc_hash.get(svc)
                if h is None:
                    h = svc_hash[svc] = g.sfx(10)
                ns = f"team-{team}"
                cs = [
                    container(
                        g,
                        "app",
                        f"registry.example.com/{team}/{svc}:"
                        f"{r.randint(1, 9)}.{r.randint(0, 40)}.{r.randint(0, 9)}",
                        resources(cpu, mem, mem_limit=mem * 2),
                        ports=[{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
                        env=[
                            {"name": "SERVICE_NAME", "value": svc},
                            {
                                "name": "POD_IP",
                                "valueFrom": {
                                    "fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}
                                },
                            },
                        ],
                    )
                ]
                if sidecar:
                    cs.append(
                        container(
                            g,
                            "istio-proxy",
                            "docker.io/istio/proxyv2:1.26.2",
                            resources(100, 128 * MI, mem_limit=1 * GI),
                            ports=[
                                {
                                    "containerPort": 15090,
                                    "name": "http-envoy-prom",
                                    "protocol": "TCP",
                                }
                            ],
                        )
                    )
                created = BASE_TS + r.randint(0, 86400 * 9)
                emit(
                    pod(
                        g,
                        name=g.pod_name(f"{svc}-{h}"),
                        generate_name=f"{svc}-{h}-",
                        ns=ns,
                        node=name,
                        host_ip=hip,
                        pod_ip=next_ip(),
                        labels={
                            "app.kubernetes.io/name": svc,
                            "app.kubernetes.io/part-of": team,
                            "pod-template-hash": h,
                        },
                        annotations={"prometheus.io/port": "8080", "prometheus.io/scrape": "true"},
                        owner=owner_ref(g, "ReplicaSet", f"{svc}-{h}", "apps/v1", owners),
                        containers=cs,
                        tolerations=[dict(GPU_TOLERATION), *DEFAULT_TOLERATIONS],
                        created=created,
                        qos="Burstable",
                        sa=svc,
                    )
                )
                take(tot_cpu, tot_mem)

            stats["pods"] += n_pods
            stats["nodes"].append((rack_i, cordoned, free_cpu, free_mem, free_gpu, free_pods))

        if indent:
            f.write(
                b'\n  ],\n  "kind": "List",\n  "metadata": {\n    "resourceVersion": ""\n  }\n}\n'
            )
        else:
            f.write(b'],"kind":"List","metadata":{"resourceVersion":""}}')
    os.replace(tmp, out)
    return stats


# ----------------------------------------------------------------------------- gang


def write_gang(path: str, pods: int = 1024, cpu: str = "3", memory: str = "40Gi") -> None:
    head = f"""# Benchmark gang: {pods} identical pods that must all land in one rack.
# Each pod: cpu {cpu}, memory {memory}, no GPU; tolerates the GPU taint.
# See benchmarks/generate.py for the sizing arithmetic.
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: gang
  namespace: bench
spec:
  schedulingPolicy:
    gang:
      minCount: {pods}
  schedulingConstraints:
    topology:
    - key: {RACK_KEY}
"""
    tpl = """---
apiVersion: v1
kind: Pod
metadata:
  name: gang-{i:04d}
  namespace: bench
  labels:
    app.kubernetes.io/name: gang
spec:
  schedulingGroup:
    podGroupName: gang
  restartPolicy: Never
  tolerations:
  - key: nvidia.com/gpu
    operator: Exists
    effect: NoSchedule
  containers:
  - name: worker
    image: registry.example.com/bench/worker:1.0.0
    resources:
      requests:
        cpu: "{cpu}"
        memory: {memory}
      limits:
        cpu: "{cpu}"
        memory: {memory}
"""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(head)
        for i in range(pods):
            f.write(tpl.format(i=i, cpu=cpu, memory=memory))
    os.replace(tmp, path)


# The explain benchmark: 20 pending gangs that fail for different reasons (see write_pending).
PENDING_GROUPS = (
    # (count, name prefix, pods, cpu, memory, GPUs, priority, tolerate the GPU taint)
    (8, "too-big", 1400, "3", "40Gi", 0, 0, True),  # > an empty rack (1,344): capacity
    (6, "crowded", 1250, "3", "40Gi", 0, 500, True),  # fits an empty rack, not a busy one
    (6, "untolerated", 256, "1", "4Gi", 0, 0, False),  # every GPU node's taint rejects it
)


def write_pending(path: str) -> int:
    """20 pending gangs (namespace ``explain``), rack-level, as one JSON ``kind: List``:

    * ``too-big-N``: 1,400 pods of (cpu 3, memory 40Gi); an empty rack holds 32 x 42 = 1,344,
      so no rack can ever hold them (capacity problem; a block can);
    * ``crowded-N``: 1,250 such pods at priority 500: an empty rack would hold them, the
      lightest racks hold ~1,200 now (contention; the priority-0 services could be evicted);
    * ``untolerated-N``: 256 pods of (cpu 1, memory 4Gi) without the GPU toleration: every
      node rejects them (a missing toleration).

    Returns the number of pods written."""
    items = []
    for count, prefix, pods, cpu, memory, gpus, priority, tolerate in PENDING_GROUPS:
        for k in range(count):
            name = f"{prefix}-{k}"
            items.append({
                "apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                "metadata": {"name": name, "namespace": "explain"},
                "spec": {"schedulingPolicy": {"gang": {"minCount": pods}},
                         "schedulingConstraints": {"topology": [{"key": RACK_KEY}]}},
            })
            requests = {"cpu": cpu, "memory": memory}
            if gpus:
                requests["nvidia.com/gpu"] = str(gpus)
            for i in range(pods):
                spec = {
                    "schedulingGroup": {"podGroupName": name},
                    "priority": priority,
                    "restartPolicy": "Never",
                    "containers": [{"name": "worker", "image": "registry.example.com/w:1",
                                    "resources": {"requests": requests, "limits": requests}}],
                }
                if tolerate:
                    spec["tolerations"] = [GPU_TOLERATION]
                items.append({"apiVersion": "v1", "kind": "Pod",
                              "metadata": {"name": f"{name}-{i:04d}", "namespace": "explain"},
                              "spec": spec, "status": {"phase": "Pending"}})
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(orjson.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    os.replace(tmp, path)
    return sum(1 for it in items if it["kind"] == "Pod")


# ----------------------------------------------------------------------------- report


def report(stats: dict, gang_pods: int = 1024, per_rack: bool = True, file=sys.stdout) -> int:
    racks: dict[int, list] = {}
    for rack_i, cordoned, fc, fm, fg, fp in stats["nodes"]:
        racks.setdefault(rack_i, []).append((cordoned, fc, fm, fg, fp))
    fits = 0
    if per_rack:
        print(
            f"{'rack':<10}{'class':<10}{'nodes':>6}{'free cpu':>10}"
            f"{'free mem Gi':>13}{'free gpu':>9}"
            f"{'gang cap':>9}  fits",
            file=file,
        )
    for rack_i in sorted(racks):
        ns = racks[rack_i]
        cap = 0
        for cordoned, fc, fm, _fg, fp in ns:
            if not cordoned:
                cap += min(fc // GANG_CPU_M, fm // GANG_MEM, fp)
        ok = cap >= gang_pods
        fits += ok
        if per_rack:
            print(
                f"rack-{rack_i:04d} {stats['classes'][rack_i]:<10}{len(ns):>6}"
                f"{sum(n[1] for n in ns if not n[0]) / 1000:>10.1f}"
                f"{sum(n[2] for n in ns if not n[0]) / GI:>13.1f}"
                f"{sum(n[3] for n in ns if not n[0]):>9}{cap:>9}  {'YES' if ok else '-'}",
                file=file,
            )
    n = len(racks)
    cordoned = sum(1 for x in stats["nodes"] if x[1])
    print(
        f"racks: {n}, racks with room for the {gang_pods}-pod gang (cpu {GANG_CPU_M // 1000}, "
        f"memory {GANG_MEM // GI}Gi each): {fits} ({100.0 * fits / max(n, 1):.1f}%); "
        f"nodes: {len(stats['nodes'])} ({cordoned} cordoned), pods: {stats['pods']}",
        file=file,
    )
    return fits


# ------------------------------------------------------------------ kubectl -o yaml

# How go-yaml v2 (kubectl -o yaml, through sigs.k8s.io/yaml) writes a string: plain when
# it reads back as the same string, double-quoted when a plain one would read as another
# type (bools such as yes/on/y, null, numbers in any base, timestamps, base-60), single-
# quoted when a plain one is not allowed (indicators, ": ", " #", edge spaces), double-
# quoted with escapes when it holds control characters, a literal block when multi-line.
_GO_BOOL_NULL = frozenset((
    "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE",
    "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL",
    "~", ".inf", ".Inf", ".INF", "-.inf", "-.Inf", "-.INF", "+.inf", "+.Inf", "+.INF",
    ".nan", ".NaN", ".NAN", "<<"))
_GO_NUMBER = re.compile(
    r"[-+]?(?:0[bB][01_]+|0[oO][0-7_]+|0[xX][0-9a-fA-F_]+|[0-9][0-9_]*"
    r"|(?:\.[0-9_]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?)\Z")
_GO_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}")
_GO_NO_PLAIN = re.compile(r"\A[-?:,\[\]{}#&*!|>'\"%@`]|: |:\Z| #|\A\s|\s\Z")
_GO_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x85\u2028\u2029]")


def _go_string(s: str) -> str:
    if _GO_CONTROL.search(s):
        return orjson.dumps(s).decode()
    if "\n" in s:
        return None  # the caller writes a literal block
    if s == "" or s in _GO_BOOL_NULL or _GO_NUMBER.match(s) or _GO_TIMESTAMP.match(s):
        return orjson.dumps(s).decode()
    if _GO_NO_PLAIN.search(s):
        return "'" + s.replace("'", "''") + "'"
    return s


def _go_scalar(v) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v).removesuffix(".0")  # Go's shortest form (exponents differ past 1e16)
    return _go_string(v)


def kubectl_yaml(obj, indent: str = "", head: str = "") -> list[str]:
    """``obj`` as lines of ``kubectl get -o yaml``: go-yaml v2's layout (2-space indent,
    sequences not indented under their key, ``{}`` and ``[]`` when empty) and quoting. Long
    strings are not folded at 80 columns as go-yaml folds them."""
    out: list[str] = []
    _go_block(obj, indent, out, head)
    return out


def _go_block(v, indent: str, out: list[str], head: str) -> None:
    """Write value ``v`` whose key or dash prefix ``head`` starts the current line."""
    if isinstance(v, dict) and v:
        first = True
        for k, item in v.items():
            key = _go_string(k) or orjson.dumps(k).decode()
            prefix = head if first else indent
            first = False
            if isinstance(item, dict) and item:
                out.append(f"{prefix}{key}:")
                _go_block(item, indent + "  ", out, indent + "  ")
            elif isinstance(item, list) and item:
                out.append(f"{prefix}{key}:")
                _go_block(item, indent, out, indent)
            else:
                out.append(f"{prefix}{key}: {_go_leaf(item, indent + '  ')}")
    elif isinstance(v, list) and v:
        first = True
        for item in v:
            prefix = (head if first else indent) + "- "
            first = False
            if isinstance(item, (dict, list)) and item:
                _go_block(item, indent + "  ", out, prefix)
            else:
                out.append(prefix + _go_leaf(item, indent + "  "))
    else:
        out.append(head + _go_leaf(v, indent))


def _go_leaf(v, indent: str) -> str:
    if isinstance(v, dict):
        return "{}"
    if isinstance(v, list):
        return "[]"
    text = _go_scalar(v)
    if text is not None:
        return text
    chomp = "" if v.endswith("\n") else "-"
    if v.endswith("\n\n"):
        chomp = "+"
    lines = v.split("\n")
    if chomp != "+":
        lines = lines[:-1] if chomp == "" else lines
    keep = "2" if lines and lines[0].startswith(" ") else ""
    return f"|{keep}{chomp}" + "".join(f"\n{indent}{line}" if line else "\n"
                                       for line in (lines[:-1] if chomp == "+" else lines))


def convert_to_yaml(src: str, out: str) -> int:
    """A kubectl JSON ``List`` (e.g. ``--out``'s file) rewritten as ``kubectl -o yaml``
    prints it; returns the number of items."""
    with open(src, "rb") as fh:
        top = orjson.loads(fh.read())
    items = top.pop("items")
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8", buffering=1 << 22) as f:
        f.write(f"apiVersion: {_go_scalar(top.get('apiVersion'))}\n")
        f.write("items:\n" if items else "items: []\n")
        for item in items:
            f.write("\n".join(kubectl_yaml(item, "  ", "- ")))
            f.write("\n")
        rest = {k: v for k, v in top.items() if k != "apiVersion"}
        f.write("\n".join(kubectl_yaml(rest)) + "\n")
    os.replace(tmp, out)
    return len(items)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--nodes",
        type=int,
        default=1000,
        help="GPU node count (presets used by run.py: 1000, 5000, 20000)",
    )
    ap.add_argument(
        "--pods-per-node",
        type=int,
        default=30,
        help="approx. background pods per node (default 30)",
    )
    ap.add_argument("--rack-size", type=int, default=32)
    ap.add_argument("--racks-per-block", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", help="cluster snapshot JSON path")
    ap.add_argument("--gang-out", help="gang YAML path (PodGroup bench/gang + pods)")
    ap.add_argument("--gang-pods", type=int, default=1024)
    ap.add_argument("--pending-out", help="explain benchmark: 20 pending gangs (JSON)")
    ap.add_argument(
        "--yaml",
        metavar="JSON",
        help="convert this kubectl JSON List (e.g. an --out file) to --out as kubectl -o yaml "
        "writes it (go-yaml v2 layout and quoting)",
    )
    ap.add_argument(
        "--compact",
        action="store_true",
        help="no indentation (kubectl indents; default indents by 2)",
    )
    ap.add_argument(
        "--report",
        action="store_true",
        help="print per-rack free capacity and racks fitting the gang",
    )
    ap.add_argument("--summary", action="store_true", help="with --report: only the summary line")
    a = ap.parse_args(argv)
    if not a.out and not a.gang_out and not a.pending_out:
        ap.error("nothing to do: give --out, --gang-out and/or --pending-out")
    if a.yaml:
        if not a.out:
            ap.error("--yaml needs --out")
        t = time.perf_counter()
        n = convert_to_yaml(a.yaml, a.out)
        print(f"wrote {a.out} ({os.path.getsize(a.out):,} bytes, {n} items) "
              f"in {time.perf_counter() - t:.2f}s", file=sys.stderr)
        return 0
    if a.pending_out:
        n = write_pending(a.pending_out)
        print(f"wrote {a.pending_out} ({n} pods in 20 groups)", file=sys.stderr)
    if a.gang_out:
        t = time.perf_counter()
        write_gang(a.gang_out, a.gang_pods)
        print(
            f"wrote {a.gang_out} ({os.path.getsize(a.gang_out):,} bytes) "
            f"in {time.perf_counter() - t:.2f}s",
            file=sys.stderr,
        )
    if a.out:
        t = time.perf_counter()
        stats = generate_cluster(
            nodes=a.nodes,
            pods_per_node=a.pods_per_node,
            rack_size=a.rack_size,
            racks_per_block=a.racks_per_block,
            seed=a.seed,
            out=a.out,
            indent=not a.compact,
        )
        print(
            f"wrote {a.out} ({os.path.getsize(a.out):,} bytes, {a.nodes} nodes, "
            f"{stats['pods']} pods) "
            f"in {time.perf_counter() - t:.2f}s",
            file=sys.stderr,
        )
        if a.report:
            report(stats, a.gang_pods, per_rack=not a.summary)
    elif a.report:
        ap.error("--report needs --out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
