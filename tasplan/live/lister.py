"""GET requests against the API server: raw JSON, paginated lists, bounded retries.

Responses are parsed with orjson, never turned into the client's typed models (those are
orders of magnitude slower at 150k pods). Lists are read in pages (``limit`` /
``continue``); when the server has compacted away the list's resourceVersion (410 Gone,
an expired continue token) the list starts again from the first page, as kubectl does.
429 and 5xx answers are retried a bounded number of times, honouring ``Retry-After``.
The only method this module can send is GET.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import orjson
import urllib3

from tasplan import __version__
from tasplan.live.config import Connection
from tasplan.live.errors import ClusterError, http_error, transport_error

PAGE_SIZE = 500  # kubectl's --chunk-size
MAX_ATTEMPTS = 5
MAX_RESTARTS = 3
MAX_RETRY_AFTER = 30.0
RETRIED = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True)
class ListProgress:
    """Reported after each page: objects and (decoded) bytes so far, over all lists."""

    resource: str
    objects: int
    bytes: int
    elapsed: float


Transform = Callable[[dict[str, Any]], dict[str, Any]]


class NotServed(Exception):
    """404 for a resource the caller marked optional."""


class Reader:
    """Reads one cluster through a Connection. ``timeout`` bounds each request (seconds)."""

    def __init__(self, connection: Connection, *, timeout: float | None = None,
                 page_size: int | None = None,
                 progress: Callable[[ListProgress], None] | None = None,
                 sleep: Callable[[float], None] | None = None) -> None:
        self.connection = connection
        self.timeout = timeout
        self.page_size = page_size or PAGE_SIZE
        self.progress = progress
        self.sleep = sleep
        self.objects = 0
        self.bytes = 0
        self.started = time.monotonic()
        self._pool = connection.api.rest_client.pool_manager
        self._host = connection.api.configuration.host.rstrip("/")

    def get(self, path: str, *, resource: str, query: Mapping[str, Any] | None = None,
            verb: str = "get") -> dict[str, Any]:
        """One GET, parsed; raises NotServed on 404 and ClusterError on anything else."""
        _, data = self._request(path, query, verb, resource)
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            raise ClusterError(self.connection.server, f"the answer to {verb} {resource} is "
                               "not JSON") from None

    def list(self, path: str, *, kind: str, api_version: str, resource: str,
             transform: Transform | None = None,
             query: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Every object of a list, with ``kind`` and ``apiVersion`` set (list items lack
        them) and ``transform`` applied page by page (so raw pages are freed early)."""
        for _ in range(MAX_RESTARTS + 1):
            items: list[dict[str, Any]] = []
            token = ""
            while True:
                params = {**(query or {}), "limit": self.page_size}
                if token:
                    params["continue"] = token
                status, data = self._request(path, params, "list", resource,
                                             expired_ok=bool(token))
                if status == 410:
                    break  # continue token expired: start the list again
                page = orjson.loads(data)
                for item in page.get("items") or ():
                    item["kind"] = kind
                    item["apiVersion"] = api_version
                    items.append(transform(item) if transform else item)
                self.objects += len(page.get("items") or ())
                self.bytes += len(data)
                if self.progress:
                    self.progress(ListProgress(resource, self.objects, self.bytes,
                                               time.monotonic() - self.started))
                token = (page.get("metadata") or {}).get("continue") or ""
                if not token:
                    return items
            self.objects -= len(items)
        raise ClusterError(self.connection.server, f"list {resource} kept expiring "
                           f"(410 Gone) after {MAX_RESTARTS} restarts; the cluster changes "
                           "faster than it can be listed")

    def _request(self, path: str, query: Mapping[str, Any] | None, verb: str, resource: str,
                 *, expired_ok: bool = False) -> tuple[int, bytes]:
        """Status and body of a successful GET (or a 410 when ``expired_ok``); raises
        NotServed on 404 and ClusterError on every other failure."""
        url = self._host + path + (f"?{urlencode(query)}" if query else "")
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                response = self._pool.request(
                    "GET", url, headers=self._headers(), timeout=self._timeout(),
                    retries=False, preload_content=True, decode_content=True)
            except urllib3.exceptions.HTTPError as exc:
                raise transport_error(self.connection.server, exc, verb, resource,
                                      self.timeout) from None
            status = response.status
            if status in RETRIED and attempt < MAX_ATTEMPTS:
                wait = _retry_after(response.headers.get("Retry-After"), attempt)
                (self.sleep or time.sleep)(wait)
                continue
            if status in RETRIED:
                raise ClusterError(self.connection.server, f"{status} {_reason(status)} for "
                                   f"{verb} {resource}, still after {MAX_ATTEMPTS} attempts"
                                   f"{_said(response.data)}")
            if status == 404:
                raise NotServed(resource)
            if status >= 300 and not (status == 410 and expired_ok):
                raise http_error(self.connection.server, status, _reason(status), verb,
                                 resource, _server_message(response.data))
            return status, response.data
        raise AssertionError("unreachable")

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json", "Accept-Encoding": "gzip",
                   "User-Agent": f"tasplan/{__version__}"}
        # The client's auth settings: bearer token (static, exec plugin or refreshed).
        for setting in self.connection.api.configuration.auth_settings().values():
            if setting.get("in") == "header" and setting.get("value"):
                headers[setting["key"]] = setting["value"]
        return headers

    def _timeout(self) -> urllib3.Timeout:
        return urllib3.Timeout(total=self.timeout) if self.timeout else urllib3.Timeout(
            connect=30.0, read=None)


def _retry_after(value: str | None, attempt: int) -> float:
    """Seconds to wait: the server's Retry-After (capped), else exponential backoff."""
    if value:
        try:
            return min(max(float(value), 0.0), MAX_RETRY_AFTER)
        except ValueError:
            pass
    return min(0.5 * 2 ** (attempt - 1), MAX_RETRY_AFTER)


def _server_message(data: bytes) -> str:
    """The ``message`` of a Kubernetes Status answer (never echoes request headers)."""
    try:
        status = orjson.loads(data)
    except orjson.JSONDecodeError:
        return ""
    message = status.get("message") if isinstance(status, dict) else None
    return message[:300] if isinstance(message, str) else ""


def _said(data: bytes) -> str:
    message = _server_message(data)
    return f" (server says: {message})" if message else ""


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "error"
