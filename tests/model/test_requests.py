"""Tests for tasplan.model.requests.

Tables copy component-helpers ``resource/helpers_test.go`` (TestPodRequestsAndLimits,
TestPodRequestsAndLimitsWithoutOverhead, TestPodResourceRequests,
TestPodLevelResourceRequests) and kube-scheduler
``pkg/scheduler/framework/types_test.go`` (TestPodInfoCalculateResources), plus
``pkg/scheduler/util`` non-zero cases. Where an upstream case depends on an option we
do not have (ExcludeOverhead, status-based resize) or on API-server defaulting that
upstream's unit test skips, the expected value is adjusted and a comment says why.

Every case runs twice: once with plain dicts, which may take the fast path, and once
behind a read-only MappingProxyType, which always takes the general path. Both must
agree.
"""

from __future__ import annotations

from types import MappingProxyType

import pytest

from tasplan.model.quantity import QuantityError
from tasplan.model.requests import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    RequestError,
    non_zero_requests,
    pod_requests,
    pod_requests_and_non_zero,
)

Ki, Mi, Gi = 1 << 10, 1 << 20, 1 << 30
ALWAYS = "Always"


def ctr(requests=None, limits=None, restart=None, name=None):
    """A container dict as it appears in a manifest."""
    c: dict = {"name": name or "c", "image": "busybox"}
    res: dict = {}
    if requests is not None:
        res["requests"] = requests
    if limits is not None:
        res["limits"] = limits
    if res:
        c["resources"] = res
    if restart is not None:
        c["restartPolicy"] = restart
    return c


def spec(containers=(), init=None, overhead=None, resources=None) -> dict:
    s: dict = {"containers": list(containers)}
    if init is not None:
        s["initContainers"] = list(init)
    if overhead is not None:
        s["overhead"] = overhead
    if resources is not None:
        s["resources"] = resources
    return s


def frozen(obj):
    """Deep read-only copy: Mappings that are not dicts skip the fast path."""
    if isinstance(obj, dict):
        return MappingProxyType({k: frozen(v) for k, v in obj.items()})
    if isinstance(obj, list):
        return [frozen(v) for v in obj]
    return obj


def both(fn, s):
    """Run ``fn`` on the dict and on the read-only variant; they must agree."""
    fast = fn(s)
    slow = fn(frozen(s))
    assert fast == slow
    return fast


def getpod(cpu_req=None, cpu_lim=None, mem_req=None, mem_lim=None, cpu_oh=None, mem_oh=None):
    """Upstream getPod(): the same resources on one container and one init container."""
    req = {k: v for k, v in (("cpu", cpu_req), ("memory", mem_req)) if v is not None}
    lim = {k: v for k, v in (("cpu", cpu_lim), ("memory", mem_lim)) if v is not None}
    oh = {k: v for k, v in (("cpu", cpu_oh), ("memory", mem_oh)) if v is not None}
    return spec([ctr(req, lim, name="foo")], init=[ctr(req, lim, name="init-foo")], overhead=oh)


# --------------------------------------------------------------------------------------
# TestPodRequestsAndLimits


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        # "just-limit-no-overhead": upstream's unit test builds the Pod object directly,
        # so no defaulting runs and it expects {}. The API server defaults
        # request=limit, and we apply that, so the pod requests 9 cpu.
        pytest.param(getpod(cpu_lim="9"), {"cpu": 9000}, id="just-limit-no-overhead"),
        pytest.param(
            getpod(cpu_oh="5", mem_oh="5"), {"cpu": 5000, "memory": 5}, id="just-overhead"
        ),
        pytest.param(
            getpod(cpu_req="1", mem_req="10", cpu_oh="5", mem_oh="5"),
            {"cpu": 6000, "memory": 15},
            id="req-and-overhead",
        ),
        pytest.param(
            getpod("1", "2", "10", "12", "5", "5"),
            {"cpu": 6000, "memory": 15},
            id="all-req-lim-and-overhead",
        ),
        pytest.param(
            getpod(cpu_req="1", cpu_lim="2", mem_req="10", cpu_oh="5", mem_oh="5"),
            {"cpu": 6000, "memory": 15},
            id="req-some-lim-and-overhead",
        ),
    ],
)
def test_pod_requests_and_limits(s: dict, expected: dict) -> None:
    """TestPodRequestsAndLimits (requests half)."""
    assert both(pod_requests, s) == expected


# --------------------------------------------------------------------------------------
# TestPodRequestsAndLimitsWithoutOverhead: upstream passes ExcludeOverhead. We always
# include overhead, so the expected values below add the overhead back.

_TWO_CONTAINERS = [
    ctr({"cpu": "1", "memory": "5"}, {"cpu": "2", "memory": "10"}, name="foobar"),
    ctr({"cpu": "4", "memory": "12"}, {"cpu": "8", "memory": "24"}, name="foobar2"),
]


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        pytest.param(
            spec(_TWO_CONTAINERS),
            {"cpu": 5000, "memory": 17},
            id="two container no overhead - should just be sum of containers",
        ),
        pytest.param(
            spec(_TWO_CONTAINERS, overhead={"cpu": "3", "memory": "8"}),
            {"cpu": 8000, "memory": 25},  # upstream excludes overhead: 5 / 17
            id="two container with overhead",
        ),
        pytest.param(
            spec(
                _TWO_CONTAINERS,
                init=[
                    ctr({"cpu": "1", "memory": "5"}, {"cpu": "1", "memory": "5"}),
                    ctr({"cpu": "40", "memory": "120"}, {"cpu": "80", "memory": "240"}),
                ],
                overhead={"cpu": "3", "memory": "8"},
            ),
            {"cpu": 43000, "memory": 128},  # upstream excludes overhead: 40 / 120
            id="two container with overhead, massive init - should just be the largest init",
        ),
    ],
)
def test_pod_requests_with_overhead(s: dict, expected: dict) -> None:
    """TestPodRequestsAndLimitsWithoutOverhead, with overhead included."""
    assert both(pod_requests, s) == expected


# --------------------------------------------------------------------------------------
# TestPodResourceRequests (the spec-only cases; status/resize cases need pod.status)


def _cpu(q: str) -> dict:
    return {"cpu": q}


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        pytest.param(
            spec([ctr(_cpu("1"))], init=[ctr(_cpu("4"))]),
            {"cpu": 4000},
            id="nil options, larger init container",
        ),
        pytest.param(
            spec([ctr(_cpu("2")), ctr(_cpu("3"))], init=[ctr(_cpu("2"))]),
            {"cpu": 5000},
            id="nil options, larger containers",
        ),
        pytest.param(
            spec(
                [ctr(_cpu("2")), ctr(_cpu("3"))],
                init=[ctr(_cpu("2"), _cpu("2"))],
                overhead={"cpu": "1", "memory": "1Gi"},
            ),
            {"cpu": 6000, "memory": Gi},
            id="pod overhead included",
        ),
        pytest.param(
            spec(init=[ctr(_cpu("4"), restart=ALWAYS, name="restartable-init-1")]),
            {"cpu": 4000},
            id="resized, restartable init container, infeasible, but don't use status",
        ),
        pytest.param(
            spec([ctr(_cpu("1"))], init=[ctr(_cpu("1"), restart=ALWAYS)]),
            {"cpu": 2000},
            id="restartable init container",
        ),
        pytest.param(
            # max(5, restartable init containers(3+2+1) + regular(1)) = 7
            spec(
                [ctr(_cpu("1"))],
                init=[
                    ctr(_cpu("5"), name="init-1"),
                    ctr(_cpu("1"), restart=ALWAYS),
                    ctr(_cpu("2"), restart=ALWAYS),
                    ctr(_cpu("3"), restart=ALWAYS),
                ],
            ),
            {"cpu": 7000},
            id="multiple restartable init containers",
        ),
        pytest.param(
            # init-2 requires 5 + the previously running sidecars (1+2) = 8; the
            # sidecar that starts after it does not count
            spec(
                [ctr(_cpu("1"))],
                init=[
                    ctr(_cpu("5"), name="init-1"),
                    ctr(_cpu("1"), restart=ALWAYS),
                    ctr(_cpu("2"), restart=ALWAYS),
                    ctr(_cpu("5"), name="init-2"),
                    ctr(_cpu("3"), restart=ALWAYS),
                ],
            ),
            {"cpu": 8000},
            id="multiple restartable and regular init containers",
        ),
        pytest.param(
            spec(
                [ctr(_cpu("100"))],
                init=[ctr(_cpu("10"), restart=ALWAYS), ctr(_cpu("200"))],
            ),
            {"cpu": 210000},
            id="restartable-init, init and regular",
        ),
    ],
)
def test_pod_resource_requests(s: dict, expected: dict) -> None:
    """TestPodResourceRequests."""
    assert both(pod_requests, s) == expected


# --------------------------------------------------------------------------------------
# TestPodLevelResourceRequests

HP2 = "hugepages-2Mi"
HP1G = "hugepages-1Gi"


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        pytest.param(spec(resources={}), {}, id="nil"),
        pytest.param(
            spec(resources={"requests": {"memory": "2Mi"}}),
            {"memory": 2 * Mi},
            id="pod level memory resource with SkipPodLevelResources false",
        ),
        pytest.param(
            spec([ctr({"cpu": "2m"})], resources={"requests": {"memory": "2Mi"}}),
            {"memory": 2 * Mi, "cpu": 2},
            id="pod level memory and container level cpu resources",
        ),
        pytest.param(
            spec([ctr({"storage": "3Mi"})], resources={"requests": {"storage": "2Mi"}}),
            {"storage": 3 * Mi},
            id="pod level unsupported resources set at both pod-level and container-level",
        ),
        pytest.param(
            spec([ctr({"memory": "3Mi"})], resources={"requests": {"storage": "2Mi"}}),
            {"memory": 3 * Mi},
            id="pod level unsupported resources set at pod-level",
        ),
        pytest.param(
            spec([ctr({"memory": "3Mi", "cpu": "2m"})]),
            {"memory": 3 * Mi, "cpu": 2},
            id="only container level resources set",
        ),
        pytest.param(
            spec(
                [ctr({"memory": "3Mi", "cpu": "2m"})],
                resources={"requests": {"memory": "6Mi", "cpu": "8m"}},
            ),
            {"memory": 6 * Mi, "cpu": 8},
            id="both container-level and pod-level resources set",
        ),
        pytest.param(
            spec([ctr({"memory": "3Mi", "cpu": "2m"})], init=[ctr({"memory": "5Mi", "cpu": "4m"})]),
            {"memory": 5 * Mi, "cpu": 4},
            id="container-level resources and init container set",
        ),
        pytest.param(
            spec(
                [ctr({"memory": "3Mi", "cpu": "2m"})],
                init=[ctr({"memory": "5Mi", "cpu": "4m"}, restart=ALWAYS)],
            ),
            {"memory": 8 * Mi, "cpu": 6},
            id="container-level resources and sidecar container set",
        ),
        pytest.param(
            spec(
                [ctr({"memory": "3Mi", "cpu": "2m"})],
                init=[
                    ctr({"memory": "5Mi", "cpu": "4m"}, restart=ALWAYS),
                    ctr({"memory": "6Mi", "cpu": "8m"}),
                ],
            ),
            {"memory": 11 * Mi, "cpu": 12},
            id="container-level resources, init and sidecar container set",
        ),
        pytest.param(
            spec(
                [ctr({"memory": "3Mi", "cpu": "2m"})],
                init=[
                    ctr({"memory": "5Mi", "cpu": "4m"}, restart=ALWAYS),
                    ctr({"memory": "6Mi", "cpu": "8m"}),
                ],
                resources={"requests": {"memory": "15Mi", "cpu": "18m"}},
            ),
            {"memory": 15 * Mi, "cpu": 18},
            id="pod-level resources, container-level resources, init and sidecar container set",
        ),
        pytest.param(
            spec(resources={"limits": {HP2: "2Mi"}, "requests": {"memory": "10Mi", HP2: "2Mi"}}),
            {"memory": 10 * Mi, HP2: 2 * Mi},
            id="pod-level resources, hugepage request/limit single page size",
        ),
        pytest.param(
            spec(
                resources={
                    "limits": {HP2: "2Mi", HP1G: "1Gi"},
                    "requests": {"cpu": "1", HP2: "2Mi", HP1G: "1Gi"},
                }
            ),
            {"cpu": 1000, HP2: 2 * Mi, HP1G: Gi},
            id="pod-level resources, hugepage request/limit multiple page sizes",
        ),
        pytest.param(
            spec(
                [ctr({HP2: "6Mi"}, {HP2: "6Mi"})],
                resources={"limits": {HP2: "10Mi"}, "requests": {"cpu": "1", HP2: "10Mi"}},
            ),
            {"cpu": 1000, HP2: 10 * Mi},
            id="pod-level resources, container-level resources, hugepage single page size",
        ),
        pytest.param(
            spec(
                [ctr({"cpu": "1", HP1G: "2Gi"}, {HP1G: "2Gi"})],
                resources={
                    "limits": {HP2: "10Mi", HP1G: "2Gi"},
                    "requests": {"cpu": "1", HP2: "10Mi", HP1G: "2Gi"},
                },
            ),
            {"cpu": 1000, HP2: 10 * Mi, HP1G: 2 * Gi},
            id="pod-level resources, container-level resources, hugepage multiple page sizes",
        ),
        pytest.param(
            spec(
                [ctr({"memory": "4Mi", HP1G: "1Gi"}, {HP1G: "1Gi"})],
                resources={"limits": {HP2: "10Mi"}, "requests": {"cpu": "1", HP2: "10Mi"}},
            ),
            {"cpu": 1000, "memory": 4 * Mi, HP2: 10 * Mi, HP1G: Gi},
            id="hugepage multiple page sizes between pod-level and container-level",
        ),
    ],
)
def test_pod_level_resource_requests(s: dict, expected: dict) -> None:
    """TestPodLevelResourceRequests."""
    assert both(pod_requests, s) == expected


# --------------------------------------------------------------------------------------
# API-server defaulting (pkg/apis/core/v1/defaults.go SetDefaults_Pod)


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        pytest.param(
            spec([ctr(limits={"cpu": "2", "memory": "1Gi"})]),
            {"cpu": 2000, "memory": Gi},
            id="container limits default the missing requests",
        ),
        pytest.param(
            spec([ctr({"cpu": "250m"}, {"cpu": "2", "memory": "1Gi"})]),
            {"cpu": 250, "memory": Gi},
            id="an explicit request wins over the limit",
        ),
        pytest.param(
            spec([ctr({"cpu": "0"}, {"cpu": "2"})]),
            {},
            id="an explicit zero request is kept, not defaulted from the limit",
        ),
        pytest.param(
            spec(init=[ctr(limits={"cpu": "3"})]),
            {"cpu": 3000},
            id="init container limits default requests too",
        ),
        pytest.param(
            spec([ctr()], resources={"limits": {"cpu": "2", "memory": "1Gi"}}),
            {"cpu": 2000, "memory": Gi},
            id="pod-level requests default to pod-level limits (defaultPodRequests)",
        ),
        pytest.param(
            spec([ctr({"cpu": "500m"})], resources={"limits": {"cpu": "2", "memory": "1Gi"}}),
            {"cpu": 500, "memory": Gi},
            id="pod-level cpu request defaults to the aggregated container requests first",
        ),
        pytest.param(
            spec(
                [ctr({"cpu": "500m"})],
                init=[ctr({"cpu": "1"}, restart=ALWAYS)],
                resources={"limits": {"cpu": "4"}},
            ),
            {"cpu": 1500},
            id="aggregated container requests follow the sidecar rules",
        ),
        pytest.param(
            spec([ctr(limits={HP2: "4Mi"})], resources={"requests": {"cpu": "1"}}),
            {"cpu": 1000, HP2: 4 * Mi},
            id="hugepage pod limit defaults from containers, then the pod request from it",
        ),
        pytest.param(
            spec([ctr({"memory": "1Gi"})], resources={"requests": {"ephemeral-storage": "5Gi"}}),
            {"memory": Gi},
            id="pod-level resources naming only unsupported resources are ignored",
        ),
        pytest.param(
            spec([ctr({"memory": "0.5"}), ctr({"memory": "0.5"})]),
            {"memory": 1},
            id="quantities are summed at milli precision before Value()",
        ),
        pytest.param(
            spec([ctr({"cpu": "0.1m"}), ctr({"cpu": "0.1m"})]),
            {"cpu": 2},
            id="each quantity is rounded up to milli precision (SetDefaults_ResourceList)",
        ),
        pytest.param(
            spec(
                [ctr({"nvidia.com/gpu": 2, "ephemeral-storage": "1Gi"}, {"nvidia.com/gpu": 2})],
                init=[ctr({"example.com/foo": "3"})],
            ),
            {"nvidia.com/gpu": 2, "ephemeral-storage": Gi, "example.com/foo": 3},
            id="extended resources and ephemeral-storage are aggregated like others",
        ),
        pytest.param(
            spec([ctr({"cpu": 1.5, "memory": 1024})]),
            {"cpu": 1500, "memory": 1024},
            id="YAML numbers are quantities",
        ),
        pytest.param({"containers": None}, {}, id="null containers"),
        pytest.param({}, {}, id="no containers at all"),
    ],
)
def test_defaulting_and_aggregation(s: dict, expected: dict) -> None:
    assert both(pod_requests, s) == expected


# --------------------------------------------------------------------------------------
# Non-zero requests: TestPodInfoCalculateResources (scheduler types_test.go)

CPU_DEF = DEFAULT_MILLI_CPU_REQUEST
MEM_DEF = DEFAULT_MEMORY_REQUEST


@pytest.mark.parametrize(
    ("s", "requests", "non_zero"),
    [
        pytest.param(spec([{}]), {}, (CPU_DEF, MEM_DEF), id="requestless container"),
        pytest.param(
            spec([ctr({"cpu": "500m", "memory": "500Mi"})]),
            {"cpu": 500, "memory": 500 * Mi},
            (500, 500 * Mi),
            id="1X container with requests",
        ),
        pytest.param(
            spec(
                [ctr({"cpu": "500m", "memory": "500Mi"}), ctr({"cpu": "700m", "memory": "800Mi"})]
            ),
            {"cpu": 1200, "memory": 1300 * Mi},
            (1200, 1300 * Mi),
            id="2X container with requests",
        ),
        pytest.param(
            spec(
                [ctr({"cpu": "500m", "memory": "500Mi"})],
                init=[ctr({"cpu": "500m", "memory": "500Mi"})],
                resources={"requests": {"cpu": "1200m", "memory": "1200Mi"}},
            ),
            {"cpu": 1200, "memory": 1200 * Mi},
            (1200, 1200 * Mi),
            id="1X container and 1X init container with pod-level requests",
        ),
        pytest.param(
            spec(
                [ctr({"cpu": "500m", "memory": "500Mi"})],
                init=[ctr({"cpu": "500m", "memory": "500Mi"}, restart=ALWAYS)],
                resources={"requests": {"cpu": "1200m", "memory": "1200Mi"}},
            ),
            {"cpu": 1200, "memory": 1200 * Mi},
            (1200, 1200 * Mi),
            id="1X container and 1X sidecar container with pod-level requests",
        ),
        pytest.param(
            spec(
                [{"resources": {}}],
                init=[{"resources": {}}],
                resources={"requests": {"memory": "1200Mi"}},
            ),
            {"memory": 1200 * Mi},
            (CPU_DEF, 1200 * Mi),
            id="1X container with pod-level memory requests",
        ),
        pytest.param(
            spec(
                [{"resources": {}}],
                init=[{"resources": {}}],
                resources={"requests": {"cpu": "500m"}},
            ),
            {"cpu": 500},
            (500, MEM_DEF),
            id="1X container with pod-level cpu requests",
        ),
        pytest.param(
            spec(
                [ctr({"ephemeral-storage": "800Mi"})],
                init=[ctr({"ephemeral-storage": "500Mi"})],
                resources={"requests": {"cpu": "500m"}},
            ),
            {"cpu": 500, "ephemeral-storage": 800 * Mi},
            (500, MEM_DEF),
            id="1X container unsupported resources and pod-level supported resources",
        ),
        pytest.param(
            spec(
                [ctr({"cpu": "500m", "memory": "500Mi"})],
                overhead={"cpu": "100m", "memory": "200Mi"},
            ),
            {"cpu": 600, "memory": 700 * Mi},
            (600, 700 * Mi),
            id="with Pod Overhead (DRA claims left out)",
        ),
    ],
)
def test_pod_info_calculate_resources(s: dict, requests: dict, non_zero: tuple) -> None:
    """TestPodInfoCalculateResources: Resource and Non0CPU/Non0Mem."""
    assert both(pod_requests, s) == requests
    assert both(non_zero_requests, s) == non_zero
    assert both(pod_requests_and_non_zero, s) == (requests, non_zero)


@pytest.mark.parametrize(
    ("s", "non_zero"),
    [
        # pkg/scheduler/util non-zero cases, per container
        pytest.param(spec([ctr({})]), (CPU_DEF, MEM_DEF), id="cpu_and_memory_not_found"),
        pytest.param(spec([ctr({"cpu": "200m"})]), (200, MEM_DEF), id="only_cpu_exist"),
        pytest.param(spec([ctr({"memory": "400Mi"})]), (CPU_DEF, 400 * Mi), id="only_memory_exist"),
        pytest.param(
            spec([ctr({"cpu": "200m", "memory": "400Mi"})]), (200, 400 * Mi), id="cpu_memory_exist"
        ),
        pytest.param(
            spec([ctr({"cpu": "0", "memory": "0"})]),
            (0, 0),
            id="explicit zero requests are not replaced by defaults",
        ),
        pytest.param(
            spec([ctr(limits={"cpu": "2", "memory": "1Gi"})]),
            (2000, Gi),
            id="limits-only container: API defaulting makes requests, no 100m/200Mi",
        ),
        pytest.param(
            spec([ctr(), ctr({"cpu": "1"})]),
            (1100, 2 * MEM_DEF),
            id="defaults apply per container",
        ),
        pytest.param(
            spec([ctr()], init=[ctr({"cpu": "500m"})]),
            (500, MEM_DEF),
            id="init container max also uses defaults",
        ),
        pytest.param(
            spec([ctr()], init=[ctr(restart=ALWAYS)]),
            (2 * CPU_DEF, 2 * MEM_DEF),
            id="requestless sidecar counts the defaults too",
        ),
        pytest.param(
            spec([ctr()], overhead={"cpu": "50m"}),
            (CPU_DEF + 50, MEM_DEF),
            id="overhead is added on top of the defaults",
        ),
        pytest.param(
            # Pod-level requests set: defaults only for resources missing from the
            # *whole* pod requests. Overhead makes cpu present, so no 100m default.
            spec([ctr()], overhead={"cpu": "50m"}, resources={"requests": {"memory": "1Gi"}}),
            (50, Gi),
            id="pod-level set and overhead cpu present: no cpu default",
        ),
        pytest.param(
            # Pod-level requests set and one container names cpu: the other container
            # gets no 100m default, unlike the no-pod-level case.
            spec([ctr({"cpu": "300m"}), ctr()], resources={"requests": {"memory": "1Gi"}}),
            (300, Gi),
            id="pod-level set and a container names cpu: no per-container default",
        ),
        pytest.param(
            spec([ctr(), ctr()], resources={"requests": {"memory": "1Gi"}}),
            (2 * CPU_DEF, Gi),
            id="pod-level memory only: every container gets the cpu default",
        ),
        pytest.param(
            spec([ctr({"cpu": None})]),
            (0, MEM_DEF),
            id="null quantity is a present zero",
        ),
    ],
)
def test_non_zero_requests(s: dict, non_zero: tuple) -> None:
    assert both(non_zero_requests, s) == non_zero
    assert both(pod_requests_and_non_zero, s)[1] == non_zero


def test_null_quantity_is_a_present_zero_in_requests() -> None:
    s = spec([ctr({"cpu": None, "memory": "1Gi"}, {"cpu": "2"})])
    # cpu is present (as 0), so the limit does not default it
    assert both(pod_requests, s) == {"memory": Gi}


# --------------------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize(
    ("s", "path"),
    [
        pytest.param(["not", "a", "spec"], "spec", id="spec not a mapping"),
        pytest.param({"containers": {"name": "x"}}, "spec.containers", id="containers not a list"),
        pytest.param({"containers": "abc"}, "spec.containers", id="containers a string"),
        pytest.param({"containers": ["x"]}, "spec.containers[0]", id="container not a mapping"),
        pytest.param(
            spec([ctr({"cpu": "1"}), ctr({"cpu": "abc"})]),
            "spec.containers[1].resources.requests.cpu",
            id="bad cpu request",
        ),
        pytest.param(
            spec([ctr(limits={"memory": "1 Gi"})]),
            "spec.containers[0].resources.limits.memory",
            id="bad memory limit",
        ),
        pytest.param(
            spec([ctr({"cpu": True})]),
            "spec.containers[0].resources.requests.cpu",
            id="bool quantity",
        ),
        pytest.param(
            spec([ctr()], init=[ctr(), ctr({"memory": "1KiB"})]),
            "spec.initContainers[1].resources.requests.memory",
            id="bad init container request",
        ),
        pytest.param(
            {"containers": [], "initContainers": "x"},
            "spec.initContainers",
            id="initContainers not a list",
        ),
        pytest.param(
            spec([ctr()], overhead={"cpu": "lots"}), "spec.overhead.cpu", id="bad overhead"
        ),
        pytest.param(spec([ctr()], overhead=[]), "spec.overhead", id="overhead not a mapping"),
        pytest.param(
            spec([ctr()], resources={"requests": {"memory": "1.5.5"}}),
            "spec.resources.requests.memory",
            id="bad pod-level request",
        ),
        pytest.param(
            spec([ctr()], resources={"limits": {"cpu": ""}}),
            "spec.resources.limits.cpu",
            id="empty pod-level limit",
        ),
        pytest.param(
            spec([ctr()], resources="big"), "spec.resources", id="pod resources not a mapping"
        ),
        pytest.param(
            spec([{"resources": ["cpu"]}]),
            "spec.containers[0].resources",
            id="container resources not a mapping",
        ),
        pytest.param(
            spec([{"resources": {"requests": []}}]),
            "spec.containers[0].resources.requests",
            id="requests not a mapping",
        ),
        pytest.param(
            spec([{"resources": {"requests": ["cpu", "1"]}}]),
            "spec.containers[0].resources.requests",
            id="requests a list",
        ),
    ],
)
def test_request_errors(s: object, path: str) -> None:
    for fn in (pod_requests, non_zero_requests, pod_requests_and_non_zero):
        with pytest.raises(RequestError) as err:
            fn(s)  # type: ignore[arg-type]
        assert err.value.path == path
        assert str(err.value).startswith(path + ": ")
        assert err.value.message
        assert isinstance(err.value, ValueError)


def test_request_error_wraps_quantity_error_message() -> None:
    with pytest.raises(RequestError) as err:
        pod_requests(spec([ctr({"cpu": "abc"})]))
    assert err.value.path == "spec.containers[0].resources.requests.cpu"
    assert (
        'expected a Kubernetes quantity such as "500m", "2", "1Gi", got "abc"' in err.value.message
    )
    assert err.value.__cause__ is None or isinstance(err.value.__cause__, QuantityError)


def test_inputs_are_not_mutated() -> None:
    s = spec(
        [ctr(limits={"cpu": "2"})],
        init=[ctr(limits={HP2: "4Mi"}, restart=ALWAYS)],
        resources={"limits": {"cpu": "4"}},
    )
    snapshot = repr(s)
    pod_requests(s)
    non_zero_requests(s)
    assert repr(s) == snapshot
