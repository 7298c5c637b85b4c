"""A loopback stand-in for kube-apiserver: serves list responses with real ``limit`` /
``continue`` pagination, API discovery and /version, and can be told to answer 401, 403,
410 (expired continue token), 429/5xx with Retry-After, or to stall. It records every
request (method, path, query, headers) so tests can assert what the client sent."""

from __future__ import annotations

import json
import ssl
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import yaml

TOKEN = "tasplan-test-token-9f8e7d6c5b4a"  # what the server accepts

CORE = {"nodes": "Node", "pods": "Pod"}
VOLCANO = (("topology.volcano.sh", "v1alpha1", "hypernodes", False),
           ("scheduling.volcano.sh", "v1beta1", "podgroups", True),
           ("batch.volcano.sh", "v1alpha1", "jobs", True))


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]


KAI = (("kai.scheduler/v1alpha1", "topologies"), ("scheduling.run.ai/v2alpha2", "podgroups"))


@dataclass
class Cluster:
    """What the fake server serves. ``objects`` maps a collection path (``/api/v1/nodes``)
    to its items; namespaced collections are derived from the cluster-wide ones."""

    objects: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    scheduling_versions: tuple[str, ...] = ("v1", "v1beta1")
    workload_resources: tuple[str, ...] = ("workloads", "podgroups")
    # resource.k8s.io versions served (DRA); none by default
    resource_versions: tuple[str, ...] = ()
    # KAI-Scheduler's kai.scheduler/v1alpha1 topologies and scheduling.run.ai/v2alpha2
    # podgroups served
    kai: bool = False
    # kueue.x-k8s.io versions served (Kueue installed); none by default
    kueue_versions: tuple[str, ...] = ()
    # Volcano installed: its three API groups served (HyperNodes, PodGroups, vcjobs)
    volcano: bool = False
    version: str = "v1.37.0"
    token: str | None = TOKEN
    forbidden: set[str] = field(default_factory=set)  # collection paths answered 403
    expire_once: set[str] = field(default_factory=set)  # 410 on the first continue token
    failures: dict[str, list[tuple[int, str | None]]] = field(default_factory=dict)
    delay: float = 0.0
    body_cache: dict = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    # path -> a function taking the request handler that answers in its own (hostile) way
    hostile: dict = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, *objs: dict[str, Any]) -> None:
        for obj in objs:
            self.objects.setdefault(collection_path(obj), []).append(obj)


def collection_path(obj: dict[str, Any]) -> str:
    kind = obj["kind"]
    api_version = obj["apiVersion"]
    plural = kind.lower() + ("es" if kind.endswith("s") else "s")
    if kind == "PriorityClass":
        plural = "priorityclasses"
    if kind == "Topology":
        plural = "topologies"
    prefix = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
    return f"{prefix}/{plural}"


class _Handler(BaseHTTPRequestHandler):
    cluster: Cluster
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:  # keep test output clean
        return

    def _record(self) -> tuple[str, dict[str, str]]:
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        with self.cluster.lock:
            self.cluster.requests.append(Request(self.command, parts.path, query,
                                                 {k.lower(): v for k, v in self.headers.items()}))
        return parts.path, query

    def do_GET(self) -> None:
        path, query = self._record()
        c = self.cluster
        if c.delay:
            time.sleep(c.delay)
        if path in c.hostile:
            return c.hostile[path](self)
        if c.token is not None and self.headers.get("Authorization") != f"Bearer {c.token}":
            return self._status(401, "Unauthorized", "Unauthorized")
        with c.lock:
            queue = c.failures.get(path)
            failure = queue.pop(0) if queue else None
        if failure is not None:
            code, retry_after = failure
            headers = {"Retry-After": retry_after} if retry_after else {}
            return self._status(code, "TooManyRequests" if code == 429 else "InternalError",
                                f"fake failure {code}", headers)
        if path == "/version":
            return self._json({"major": "1", "minor": "37", "gitVersion": c.version})
        if path == "/apis/scheduling.k8s.io":
            return self._json({"kind": "APIGroup", "name": "scheduling.k8s.io", "versions": [
                {"groupVersion": f"scheduling.k8s.io/{v}", "version": v}
                for v in c.scheduling_versions]})
        for v in c.scheduling_versions:
            if path == f"/apis/scheduling.k8s.io/{v}":
                names = ["priorityclasses"] if v == "v1" else list(c.workload_resources)
                return self._json({"kind": "APIResourceList",
                                   "groupVersion": f"scheduling.k8s.io/{v}",
                                   "resources": [{"name": n, "namespaced": n != "priorityclasses",
                                                  "verbs": ["get", "list", "watch"]}
                                                 for n in names]})
        for v in c.resource_versions:
            if path == f"/apis/resource.k8s.io/{v}":
                names = ["deviceclasses", "resourceslices", "resourceclaims",
                         "resourceclaimtemplates"]
                return self._json({"kind": "APIResourceList",
                                   "groupVersion": f"resource.k8s.io/{v}",
                                   "resources": [{"name": n, "namespaced": "claim" in n,
                                                  "verbs": ["get", "list", "watch"]}
                                                 for n in names]})
        for version, resource in KAI:
            if c.kai and path == f"/apis/{version}":
                return self._json({"kind": "APIResourceList", "groupVersion": version,
                                   "resources": [{"name": resource,
                                                  "namespaced": resource == "podgroups",
                                                  "verbs": ["get", "list", "watch"]}]})
        for v in c.kueue_versions:
            if path == f"/apis/kueue.x-k8s.io/{v}":
                names = ["topologies", "resourceflavors", "clusterqueues", "cohorts",
                         "localqueues", "workloads"]
                return self._json({"kind": "APIResourceList",
                                   "groupVersion": f"kueue.x-k8s.io/{v}",
                                   "resources": [{"name": n, "namespaced": n in (
                                       "localqueues", "workloads"),
                                                  "verbs": ["get", "list", "watch"]}
                                                 for n in names]})
        for group, version, resource, namespaced in VOLCANO if c.volcano else ():
            if path == f"/apis/{group}/{version}":
                return self._json({"kind": "APIResourceList",
                                   "groupVersion": f"{group}/{version}",
                                   "resources": [{"name": resource, "namespaced": namespaced,
                                                  "verbs": ["get", "list", "watch"]}]})
        collection, namespace = _collection(path)
        if collection is None or not self._served(collection):
            return self._status(404, "NotFound", "the server could not find the requested "
                                "resource")
        if collection in c.forbidden:
            resource = collection.rsplit("/", 1)[-1]
            return self._status(403, "Forbidden", f'{resource} is forbidden: User "alice" '
                                f'cannot list resource "{resource}" at the cluster scope')
        items = c.objects.get(collection, [])
        if namespace:
            items = [o for o in items if o["metadata"].get("namespace") == namespace]
        return self._page(collection, items, query)

    def do_POST(self) -> None:
        self._record()
        self._status(405, "MethodNotAllowed", "read-only fake")

    do_PUT = do_PATCH = do_DELETE = do_POST

    def _served(self, collection: str) -> bool:
        c = self.cluster
        if any(collection.startswith(f"/apis/{v}/") for v, _ in KAI):
            return c.kai
        if collection.startswith("/apis/resource.k8s.io/"):
            return collection.split("/")[3] in c.resource_versions
        if collection.startswith("/apis/kueue.x-k8s.io/"):
            return collection.split("/")[3] in c.kueue_versions
        if "volcano.sh/" in collection:
            return c.volcano
        if collection.startswith("/apis/scheduling.k8s.io/"):
            version, resource = collection.split("/")[3:5]
            if version not in c.scheduling_versions:
                return False
            return resource == "priorityclasses" if version == "v1" else \
                resource in c.workload_resources
        return True

    def _page(self, collection: str, items: list, query: dict[str, str]) -> None:
        c = self.cluster
        start = 0
        token = query.get("continue")
        if token:
            if collection in c.expire_once:
                c.expire_once.discard(collection)
                return self._status(410, "Expired", "The provided continue parameter is too "
                                    "old to display a consistent list result.")
            start = int(token)
        limit = int(query.get("limit", 0)) or len(items)
        page = items[start:start + limit]
        meta: dict[str, Any] = {"resourceVersion": "1000"}
        if start + limit < len(items):
            meta["continue"] = str(start + limit)
        # Real list items carry no kind/apiVersion.
        kind = page[0]["kind"] if page else "Object"
        key = (collection, start, limit, len(items))
        body = c.body_cache.get(key)
        if body is None:
            stripped = [{k: v for k, v in o.items() if k not in ("kind", "apiVersion")}
                        for o in page]
            body = json.dumps({"kind": f"{kind}List", "apiVersion": "v1", "metadata": meta,
                               "items": stripped}).encode()
            c.body_cache[key] = body
        self._send(200, body)

    def _json(self, obj: Any) -> None:
        self._send(200, json.dumps(obj).encode())

    def _status(self, code: int, reason: str, message: str,
                headers: dict[str, str] | None = None) -> None:
        body = json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                           "message": message, "reason": reason, "code": code}).encode()
        self._send(code, body, headers)

    def _send(self, code: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)


def _collection(path: str) -> tuple[str | None, str]:
    """``/api/v1/namespaces/ns/pods`` -> (``/api/v1/pods``, ``ns``)."""
    parts = path.strip("/").split("/")
    prefix_len = 2 if parts[0] == "api" else 3
    if len(parts) < prefix_len + 1:
        return None, ""
    prefix, rest = parts[:prefix_len], parts[prefix_len:]
    namespace = ""
    if len(rest) == 3 and rest[0] == "namespaces":
        namespace, rest = rest[1], rest[2:]
    if len(rest) != 1:
        return None, ""
    return "/" + "/".join([*prefix, rest[0]]), namespace


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hangs up first (a request timeout, a refused certificate) is what
        several tests do on purpose: no traceback on the test output for that."""
        if isinstance(sys.exc_info()[1], (ConnectionError, ssl.SSLError, TimeoutError)):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


@contextmanager
def serve(cluster: Cluster, *, tls: tuple[Path, Path] | None = None) -> Iterator[str]:
    """Run the fake server on 127.0.0.1 (random port) and yield its URL; with ``tls``
    (certificate, key) it speaks HTTPS."""
    handler = type("Handler", (_Handler,), {"cluster": cluster})
    server = _Server(("127.0.0.1", 0), handler)
    if tls is not None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def write_kubeconfig(path: Path, server: str, *, token: str = TOKEN, context: str = "test",
                     cluster: str = "test-cluster", user: str = "test-user",
                     current: bool = True, extra_user: dict | None = None,
                     ca: Path | None = None) -> Path:
    entry: dict[str, Any] = {"server": server}
    if ca is not None:
        entry["certificate-authority"] = str(ca)
    config: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": cluster, "cluster": entry}],
        "contexts": [{"name": context, "context": {"cluster": cluster, "user": user}}],
        "users": [{"name": user, "user": extra_user or {"token": token}}],
    }
    if current:
        config["current-context"] = context
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path
