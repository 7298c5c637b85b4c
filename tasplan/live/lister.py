"""GET requests against the API server: raw JSON, paginated lists, bounded retries.

Responses are parsed with orjson, never turned into the client's typed models (those are
orders of magnitude slower at 150k pods). Lists are read in pages (``limit`` /
``continue``); when the server has compacted away the list's resourceVersion (410 Gone,
an expired continue token) the list starts again from the first page, as kubectl does.
429 and 5xx answers are retried a bounded number of times, honouring ``Retry-After``.
The only method this module can send is GET.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import orjson
import urllib3

from tasplan.limits import LIST_DEADLINE, MAX_PAGES, MAX_RESPONSE_BYTES, REQUEST_TIMEOUT
from tasplan.live.config import Connection
from tasplan.live.errors import ClusterError, http_error, transport_error
from tasplan.untrusted import clean
from tasplan.version import __version__

PAGE_SIZE = 500  # kubectl's --chunk-size
MAX_ATTEMPTS = 5
MAX_RESTARTS = 3
MAX_RETRY_AFTER = 30.0
RETRIED = frozenset({429, 500, 502, 503, 504})
READ_BYTES = 1 << 20


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
        # Every request ends: the default when none is given (kubectl's 0 = "no limit" is
        # replaced by the listing deadline, which always applies).
        self.timeout = timeout or REQUEST_TIMEOUT.get()
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
        deadline = time.monotonic() + LIST_DEADLINE.get()
        max_pages = MAX_PAGES.get_int()
        for _ in range(MAX_RESTARTS + 1):
            items: list[dict[str, Any]] = []
            token = ""
            seen: set[str] = set()  # continue tokens followed: one seen twice is a loop
            pages = max_pages  # lowered by the server's own count of what remains
            for _page in range(max_pages + 1):
                if _page >= pages:
                    raise ClusterError(self.connection.server, f"list {resource} did not end "
                                       f"after {_page} pages" + (
                                           f" ({MAX_PAGES.hint()})" if _page == max_pages else
                                           ", more than its remainingItemCount needs"))
                params = {**(query or {}), "limit": self.page_size}
                if token:
                    params["continue"] = token
                status, data = self._request(path, params, "list", resource,
                                             expired_ok=bool(token), deadline=deadline)
                if status == 410:
                    break  # continue token expired: start the list again
                try:
                    page = orjson.loads(data)
                except orjson.JSONDecodeError:
                    raise ClusterError(self.connection.server, f"the answer to list {resource} "
                                       "is not JSON") from None
                if not isinstance(page, dict) or not isinstance(page.get("items") or [], list):
                    raise ClusterError(self.connection.server, f"the answer to list {resource} "
                                       "is not a Kubernetes list")
                if not all(isinstance(item, dict) for item in page.get("items") or ()):
                    raise ClusterError(self.connection.server, f"the answer to list {resource} "
                                       "has items that are not objects")
                for item in page.get("items") or ():
                    item["kind"] = kind
                    item["apiVersion"] = api_version
                    items.append(transform(item) if transform else item)
                self.objects += len(page.get("items") or ())
                self.bytes += len(data)
                if self.progress:
                    self.progress(ListProgress(resource, self.objects, self.bytes,
                                               time.monotonic() - self.started))
                meta = page.get("metadata")
                token = (meta.get("continue") if isinstance(meta, dict) else None) or ""
                if not isinstance(token, str):
                    raise ClusterError(self.connection.server, f"the answer to list {resource} "
                                       "has a continue token that is not a string")
                if not token:
                    return items
                if token in seen:
                    raise ClusterError(self.connection.server, f"list {resource}: the server "
                                       f"sent the same continue token again after {_page + 1} "
                                       "pages (a paging loop)")
                seen.add(token)
                remaining = meta.get("remainingItemCount") if isinstance(meta, dict) else None
                if type(remaining) is int and remaining >= 0:
                    # Pages of at least one object each: one more than that is a server
                    # that pages forever.
                    pages = min(pages, _page + 2 + remaining)
            self.objects -= len(items)
        raise ClusterError(self.connection.server, f"list {resource} kept expiring "
                           f"(410 Gone) after {MAX_RESTARTS} restarts; the cluster changes "
                           "faster than it can be listed")

    def _request(self, path: str, query: Mapping[str, Any] | None, verb: str, resource: str,
                 *, expired_ok: bool = False, deadline: float | None = None,
                 ) -> tuple[int, bytes]:
        """Status and body of a successful GET (or a 410 when ``expired_ok``); raises
        NotServed on 404 and ClusterError on every other failure. Each attempt, body
        included, ends by the request timeout; all of them by ``deadline`` (a listing's)."""
        url = self._host + path + (f"?{urlencode(query)}" if query else "")
        for attempt in range(1, MAX_ATTEMPTS + 1):
            ends = time.monotonic() + self.timeout
            if deadline is not None:
                ends = min(ends, deadline)
            status, headers, data = self._attempt(url, verb, resource, ends)
            if status in RETRIED and attempt < MAX_ATTEMPTS:
                # Retry-After is the server's wish; a request timeout bounds it too.
                wait = min(_retry_after(headers.get("Retry-After"), attempt), self.timeout)
                if deadline is not None and time.monotonic() + wait > deadline:
                    raise self._too_slow(verb, resource, "the listing deadline")
                (self.sleep or time.sleep)(wait)
                continue
            if status in RETRIED:
                raise ClusterError(self.connection.server, f"{status} {_reason(status)} for "
                                   f"{verb} {resource}, still after {MAX_ATTEMPTS} attempts"
                                   f"{_said(data, self._secrets())}")
            if status == 404:
                raise NotServed(resource)
            if status >= 300 and not (status == 410 and expired_ok):
                raise http_error(self.connection.server, status, _reason(status), verb,
                                 resource, _server_message(data, self._secrets()))
            return status, data
        raise AssertionError("unreachable")

    def _attempt(self, url: str, verb: str, resource: str,
                 ends: float) -> tuple[int, Mapping[str, str], bytes]:
        """One GET whose whole answer (connect, headers, body, decompression) arrives by
        ``ends`` and is at most MAX_RESPONSE_BYTES once decompressed."""
        limit = MAX_RESPONSE_BYTES.get_int()
        try:
            remaining = max(ends - time.monotonic(), 0.001)
            response = self._pool.request(
                "GET", url, headers=self._headers(),
                timeout=urllib3.Timeout(connect=remaining, read=remaining),
                retries=False, preload_content=False, decode_content=True)
            try:
                chunks: list[bytes] = []
                size = 0
                while True:
                    if time.monotonic() > ends:
                        raise self._too_slow(verb, resource)
                    # read1: what has arrived, so a drip-fed body cannot hold a read open.
                    chunk = response.read1(READ_BYTES)
                    if not chunk:
                        break
                    size += len(chunk)
                    if size > limit:
                        raise ClusterError(self.connection.server, f"the answer to {verb} "
                                           f"{resource} is larger than {limit} bytes "
                                           f"({MAX_RESPONSE_BYTES.hint()})")
                    chunks.append(chunk)
            finally:
                response.release_conn()
        except urllib3.exceptions.HTTPError as exc:
            if time.monotonic() >= ends:
                raise self._too_slow(verb, resource) from None
            raise transport_error(self.connection.server, exc, verb, resource,
                                  self.timeout) from None
        return response.status, response.headers, b"".join(chunks)

    def _too_slow(self, verb: str, resource: str, what: str = "") -> ClusterError:
        what = what or f"{self.timeout:g}s"
        return ClusterError(self.connection.server, f"no answer within {what} for {verb} "
                            f"{resource} (raise --request-timeout or {LIST_DEADLINE.env}, "
                            "or check the network)")

    def _secrets(self) -> list[str]:
        """Credential values a hostile server might echo back in a message."""
        config = self.connection.api.configuration
        values = [v for v in self._headers().values() if len(v) >= 8]
        values += [v.split(" ", 1)[-1] for v in values]
        values += [str(v) for v in (config.api_key or {}).values()]
        values += [str(v) for v in (config.password, config.username) if v]
        return [v for v in values if len(v) >= 4]

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json", "Accept-Encoding": "gzip",
                   "User-Agent": f"tasplan/{__version__}"}
        # The client's auth settings: bearer token (static, exec plugin or refreshed).
        for setting in self.connection.api.configuration.auth_settings().values():
            if setting.get("in") == "header" and setting.get("value"):
                headers[setting["key"]] = setting["value"]
        return headers



def _retry_after(value: str | None, attempt: int) -> float:
    """Seconds to wait: the server's Retry-After (capped), else exponential backoff."""
    if value:
        try:
            seconds = float(value)
        except ValueError:
            seconds = math.nan
        if math.isfinite(seconds):  # NaN and inf are no wait a sleep can take
            return min(max(seconds, 0.0), MAX_RETRY_AFTER)
    return min(0.5 * 2 ** (attempt - 1), MAX_RETRY_AFTER)


def _server_message(data: bytes, secrets: list[str] = ()) -> str:  # type: ignore[assignment]
    """The ``message`` of a Kubernetes Status answer: untrusted text, so credentials it
    echoes are redacted, control characters escaped and the length capped."""
    try:
        status = orjson.loads(data)
    except orjson.JSONDecodeError:
        return ""
    message = status.get("message") if isinstance(status, dict) else None
    if not isinstance(message, str):
        return ""
    for secret in sorted(secrets, key=len, reverse=True):
        message = message.replace(secret, "<redacted>")
    message = _BEARER.sub("Bearer <redacted>", message)
    return clean(message[:MAX_MESSAGE]) + ("…" if len(message) > MAX_MESSAGE else "")


_BEARER = re.compile(r"(?i)bearer\s+\S+")
MAX_MESSAGE = 300


def _said(data: bytes, secrets: list[str] = ()) -> str:  # type: ignore[assignment]
    message = _server_message(data, secrets)
    return f" (server says: {message})" if message else ""


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "error"
