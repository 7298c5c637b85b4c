"""Effective pod resource requests, computed the way upstream Kubernetes does.

Input is the plain ``spec`` dict of a Pod, as loaded from YAML or JSON.

Sources mirrored:

* API-server defaulting, ``pkg/apis/core/v1/defaults.go``:

  - ``SetDefaults_Pod``: for every container and init container, each resource with a
    limit but no request gets request = limit. Raw manifests never went through the
    API server, so we apply this here. It is idempotent for objects dumped from a
    live cluster.
  - ``SetDefaults_ResourceList``: every quantity is rounded up to milli precision. We
    sum every resource in millis and only convert to whole units at the end, as
    upstream does when it adds Quantities and then calls ``Value()``.
  - PodLevelResources defaulting (``defaultHugePagePodLimits`` then
    ``defaultPodRequests``, gate on by default): when ``spec.resources`` has limits,
    each missing pod-level cpu/memory request defaults to the aggregated container
    requests for that resource if any container names it, otherwise to the pod-level
    limit. A missing hugepages-* request defaults to the pod-level limit. That limit
    itself defaults to the aggregated container hugepages limits.

* ``k8s.io/component-helpers/resource`` ``PodRequests``:

  - regular containers are summed;
  - init containers run in order. A restartable one (``restartPolicy: Always``, a
    sidecar) adds to the container sum and to a running sidecar total. A regular
    one uses its own request plus the sidecars started before it. The pod takes
    the per-resource max of the container sum and every init container's usage;
  - if pod-level requests name a supported resource (cpu, memory, hugepages-*), those
    pod-level values replace the aggregate for the resources they name. Other
    resources named at pod level are ignored;
  - ``spec.overhead`` is added last.

* kube-scheduler ``PodInfo.CalculateResource`` and ``getNonMissingContainerRequests``
  (``pkg/scheduler/framework/types.go``) for the non-zero scoring values. The same
  ``PodRequests`` runs again, but each container (init and sidecar too) that does not
  name cpu / memory counts 100m / 200Mi (``DefaultMilliCPURequest`` /
  ``DefaultMemoryRequest``). When pod-level requests are set, these defaults apply
  only to a resource missing from the pod's full requests (after pod-level values
  and overhead). A resource that is present is used as is, even if it is 0.

A ``null`` quantity inside a resource list counts as a present key with value 0.
This matches how upstream's JSON decoder handles ``null`` for a Quantity.

Status-based resize (in-place vertical scaling) and DRA node-allocatable claims need
``pod.status``. They are out of scope here: only ``spec`` is read.
"""

from __future__ import annotations

from collections.abc import Mapping

from tasplan.model.quantity import QuantityError, parse_milli

__all__ = [
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "RequestError",
    "non_zero_requests",
    "pod_requests",
    "pod_requests_and_non_zero",
]

#: Scheduler ``DefaultMilliCPURequest``: cpu a container counts for scoring without a request.
DEFAULT_MILLI_CPU_REQUEST = 100
#: Scheduler ``DefaultMemoryRequest``: memory bytes counted for scoring without a request.
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

_CPU = "cpu"
_MEMORY = "memory"
_HUGEPAGES_PREFIX = "hugepages-"
_EMPTY: Mapping = {}
_MISSING = object()
_DEFAULT_CPU_MILLI = DEFAULT_MILLI_CPU_REQUEST
_DEFAULT_MEM_MILLI = DEFAULT_MEMORY_REQUEST * 1000
# Non-zero defaults when no pod-level requests are set, in internal milli units.
_NON_MISSING_ALL = {_CPU: _DEFAULT_CPU_MILLI, _MEMORY: _DEFAULT_MEM_MILLI}


class RequestError(ValueError):
    """A pod spec has a bad resource quantity or an unexpected shape.

    ``path`` is the field path relative to the pod, for example
    ``spec.containers[1].resources.requests.cpu``.
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


# ---------------------------------------------------------------------------------
# Helpers. Internally every resource is in millis (parse_milli), which is exact
# after the API server's milli rounding. Non-cpu values become whole units only
# at the end.


def _to_units(milli: int) -> int:
    """Millis to whole units, rounded up away from zero (``Quantity.Value()``)."""
    if milli >= 0:
        return -(-milli // 1000)
    return -((-milli + 999) // 1000)


def _finalize(total: Mapping[str, int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for name, milli in total.items():
        value = milli if name == _CPU else _to_units(milli)
        if value:
            out[name] = value
    return out


def _is_mapping(value: object) -> bool:
    return type(value) is dict or isinstance(value, Mapping)


def _is_list(value: object) -> bool:
    return type(value) is list or isinstance(value, tuple)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (int, float)):
        return "a number"
    if _is_list(value):
        return "a list"
    if _is_mapping(value):
        return "a mapping"
    return type(value).__name__


def _resource_list(rl: object, path: str) -> dict[str, int]:
    """Parse a ResourceList into {name: millis}; a ``None`` quantity is 0."""
    if rl is None:
        return {}
    if not _is_mapping(rl):
        raise RequestError(
            path, f"expected a mapping of resource name to quantity, got {_kind(rl)}"
        )
    out: dict[str, int] = {}
    for name, q in rl.items():  # type: ignore[union-attr]
        if q is None:
            out[name] = 0
            continue
        try:
            out[name] = parse_milli(q)
        except QuantityError as exc:
            raise RequestError(f"{path}.{name}", str(exc)) from None
        if out[name] < 0:
            raise RequestError(f"{path}.{name}", f"must be greater than or equal to 0, got "
                               f"{str(q)[:40]!r} (the API server refuses negative quantities)")
    return out


def _container(c: object, path: str) -> tuple[dict[str, int], dict[str, int], bool]:
    """(requests after limit defaulting, limits, is_restartable) of one container."""
    if not _is_mapping(c):
        raise RequestError(path, f"expected a container mapping, got {_kind(c)}")
    res = c.get("resources")  # type: ignore[union-attr]
    sidecar = c.get("restartPolicy") == "Always"  # type: ignore[union-attr]
    if res is None:
        return {}, {}, sidecar
    if not _is_mapping(res):
        raise RequestError(f"{path}.resources", f"expected a mapping, got {_kind(res)}")
    req = _resource_list(res.get("requests"), f"{path}.resources.requests")
    lim = _resource_list(res.get("limits"), f"{path}.resources.limits")
    for name, milli in lim.items():
        if name not in req:  # SetDefaults_Pod: request defaults to limit
            req[name] = milli
    return req, lim, sidecar


def _containers(spec: Mapping, field: str) -> list[tuple[dict[str, int], dict[str, int], bool]]:
    items = spec.get(field)
    if items is None:
        return []
    if not _is_list(items):
        raise RequestError(f"spec.{field}", f"expected a list of containers, got {_kind(items)}")
    return [_container(c, f"spec.{field}[{i}]") for i, c in enumerate(items)]


def _add(into: dict[str, int], other: Mapping[str, int]) -> None:
    for name, v in other.items():
        into[name] = into.get(name, 0) + v


def _max_into(into: dict[str, int], other: Mapping[str, int]) -> None:
    for name, v in other.items():
        cur = into.get(name, _MISSING)
        if cur is _MISSING or v > cur:  # type: ignore[operator]
            into[name] = v


def _with_defaults(req: dict[str, int], non_missing: Mapping[str, int] | None) -> dict[str, int]:
    if not non_missing:
        return req
    out = None
    for name, v in non_missing.items():
        if name not in req:
            if out is None:
                out = dict(req)
            out[name] = v
    return req if out is None else out


def _aggregate(
    ctrs: list, inits: list, which: int, non_missing: Mapping[str, int] | None = None
) -> dict[str, int]:
    """Upstream ``aggregateContainerResourcesByFn``; which=0 requests, 1 limits."""
    result: dict[str, int] = {}
    for c in ctrs:
        _add(result, _with_defaults(c[which], non_missing))
    if inits:
        sidecars: dict[str, int] = {}
        init_max: dict[str, int] = {}
        for c in inits:
            r = _with_defaults(c[which], non_missing)
            if c[2]:
                _add(result, r)
                _add(sidecars, r)
                _max_into(init_max, sidecars)
            else:
                use = dict(r)
                _add(use, sidecars)
                _max_into(init_max, use)
        _max_into(result, init_max)
    return result


def _is_pod_level(name: str) -> bool:
    return name in (_CPU, _MEMORY) or name.startswith(_HUGEPAGES_PREFIX)


class _Parsed:
    __slots__ = ("ctrs", "inits", "overhead", "pod_reqs")

    def __init__(self, spec: Mapping) -> None:
        self.ctrs = _containers(spec, "containers")
        self.inits = _containers(spec, "initContainers")
        self.overhead = _resource_list(spec.get("overhead"), "spec.overhead")
        self.pod_reqs = self._pod_level_requests(spec.get("resources"))

    def _pod_level_requests(self, res: object) -> dict[str, int] | None:
        """Pod-level requests after API defaulting, or None if not set (IsPodLevelRequestsSet)."""
        if res is None:
            return None
        if not _is_mapping(res):
            raise RequestError("spec.resources", f"expected a mapping, got {_kind(res)}")
        reqs = _resource_list(res.get("requests"), "spec.resources.requests")  # type: ignore[union-attr]
        lims = _resource_list(res.get("limits"), "spec.resources.limits")  # type: ignore[union-attr]
        if reqs or lims:
            # defaultHugePagePodLimits: pod-level hugepage limits default to the
            # aggregated container limits, unless a pod-level request names them.
            for name, v in _aggregate(self.ctrs, self.inits, 1).items():
                if name.startswith(_HUGEPAGES_PREFIX) and name not in reqs and name not in lims:
                    lims[name] = v
        if lims:
            # defaultPodRequests: cpu/memory (the overcommittable pod-level resources)
            # default to the aggregated container requests, then any supported
            # resource still missing defaults to its pod-level limit.
            for name, v in _aggregate(self.ctrs, self.inits, 0).items():
                if name in (_CPU, _MEMORY) and name not in reqs:
                    reqs[name] = v
            for name, v in lims.items():
                if name not in reqs and _is_pod_level(name):
                    reqs[name] = v
        if any(_is_pod_level(name) for name in reqs):
            return reqs
        return None

    def requests(self, non_missing: Mapping[str, int] | None = None) -> dict[str, int]:
        """Upstream ``PodRequests`` in millis, keys kept even when zero."""
        total = _aggregate(self.ctrs, self.inits, 0, non_missing)
        if self.pod_reqs is not None:
            for name, v in self.pod_reqs.items():
                if _is_pod_level(name):
                    total[name] = v
        if self.overhead:
            _add(total, self.overhead)
        return total

    def non_zero(self, total: Mapping[str, int]) -> tuple[int, int]:
        if self.pod_reqs is None:
            non_missing: Mapping[str, int] = _NON_MISSING_ALL
        else:
            non_missing = {}
            if _CPU not in total:
                non_missing[_CPU] = _DEFAULT_CPU_MILLI
            if _MEMORY not in total:
                non_missing[_MEMORY] = _DEFAULT_MEM_MILLI
        non0 = self.requests(non_missing) if non_missing else total
        return non0.get(_CPU, 0), _to_units(non0.get(_MEMORY, 0))


def _check_spec(spec: object) -> Mapping:
    if not _is_mapping(spec):
        raise RequestError("spec", f"expected a pod spec mapping, got {_kind(spec)}")
    return spec  # type: ignore[return-value]


# ---------------------------------------------------------------------------------
# Fast paths: only regular containers, no init containers, overhead or pod-level
# resources. Any surprise (bad quantity, null, wrong shape) raises inside them, and
# the careful slow path then recomputes to give the exact error path or semantics.


def _fast_requests(containers: list | tuple) -> dict[str, int]:
    total: dict[str, int] = {}
    get = total.get
    for c in containers:
        res = c.get("resources")
        if res is None:
            continue
        req = res.get("requests")
        if req is None:
            req = _EMPTY
        for name, q in req.items():
            milli = parse_milli(q)
            if milli < 0:  # the slow path says where
                raise QuantityError(q, "negative")
            total[name] = get(name, 0) + milli
        lim = res.get("limits")
        if lim is not None:
            for name, q in lim.items():
                milli = parse_milli(q)
                if milli < 0:
                    raise QuantityError(q, "negative")
                if name not in req:
                    total[name] = get(name, 0) + milli
    return total


def _fast_non_zero(containers: list | tuple) -> tuple[int, int]:
    cpu = 0
    mem = 0
    for c in containers:
        res = c.get("resources")
        if res is None:
            cpu += _DEFAULT_CPU_MILLI
            mem += _DEFAULT_MEM_MILLI
            continue
        req = res.get("requests")
        if req is None:
            req = _EMPTY
        lim = res.get("limits")
        if lim is None:
            lim = _EMPTY
        q = req.get(_CPU, _MISSING)
        if q is _MISSING:
            q = lim.get(_CPU, _MISSING)
        cpu += _DEFAULT_CPU_MILLI if q is _MISSING else parse_milli(q)
        q = req.get(_MEMORY, _MISSING)
        if q is _MISSING:
            q = lim.get(_MEMORY, _MISSING)
        mem += _DEFAULT_MEM_MILLI if q is _MISSING else parse_milli(q)
    return cpu, _to_units(mem)


_FAST_ERRORS = (QuantityError, AttributeError, TypeError)


def _fast_containers(spec: object) -> list | tuple | None:
    """The container list if the fast path applies to ``spec``, else None."""
    if type(spec) is not dict:
        return None
    inits = spec.get("initContainers")
    overhead = spec.get("overhead")
    pod_res = spec.get("resources")
    if inits or overhead or pod_res:
        return None
    if (
        (inits is not None and type(inits) is not list)
        or (overhead is not None and type(overhead) is not dict)
        or (pod_res is not None and type(pod_res) is not dict)
    ):
        return None  # wrong shape: let the slow path report it
    containers = spec.get("containers")
    if type(containers) is not list:
        return None if containers is not None else ()
    return containers


# ---------------------------------------------------------------------------------
# Public API


def pod_requests(spec: Mapping) -> dict[str, int]:
    """Effective requests of a pod, like upstream ``PodRequests`` with overhead.

    Returns ``{resource: amount}``: ``cpu`` in millicores, every other resource in
    whole units (bytes for memory/storage/hugepages), rounded up. Resources whose
    total is 0 are left out. The ``pods`` slot is not added.
    Raises :class:`RequestError` for a bad quantity or a malformed spec.
    """
    containers = _fast_containers(spec)
    if containers is not None:
        try:
            return _finalize(_fast_requests(containers))
        except _FAST_ERRORS:
            pass  # fall through: the slow path reports precisely
    return _finalize(_Parsed(_check_spec(spec)).requests())


def non_zero_requests(spec: Mapping) -> tuple[int, int]:
    """(milli_cpu, memory_bytes) as the scheduler's scoring counts them.

    A container without a cpu / memory request counts 100m / 200Mi, as in
    kube-scheduler's ``PodInfo.CalculateResource``. Init containers, sidecars,
    pod-level requests and overhead follow the same rules as :func:`pod_requests`.
    On the common fast path, only the cpu and memory quantities are validated. Use
    :func:`pod_requests_and_non_zero` to validate every quantity as well.
    """
    containers = _fast_containers(spec)
    if containers is not None:
        try:
            return _fast_non_zero(containers)
        except _FAST_ERRORS:
            pass
    parsed = _Parsed(_check_spec(spec))
    return parsed.non_zero(parsed.requests())


def pod_requests_and_non_zero(spec: Mapping) -> tuple[dict[str, int], tuple[int, int]]:
    """Both :func:`pod_requests` and :func:`non_zero_requests` with one parse of ``spec``."""
    containers = _fast_containers(spec)
    if containers is not None:
        try:
            return _finalize(_fast_requests(containers)), _fast_non_zero(containers)
        except _FAST_ERRORS:
            pass
    parsed = _Parsed(_check_spec(spec))
    total = parsed.requests()
    return _finalize(total), parsed.non_zero(total)
