"""Transport, TLS, auth and server failures -> one clear line (exit 2), never credentials.

Messages name the API server by URL (without user info), the verb and resource that
failed, and for 401/403 what to check; they never include headers, tokens or client keys.
"""

from __future__ import annotations

import ssl
from urllib.parse import urlsplit, urlunsplit

import urllib3

from tasplan.errors import InputError

RBAC_SAMPLE = "samples/rbac/tasplan-reader.yaml"
READ_ONLY_RULES = ("get/list on nodes, pods, priorityclasses.scheduling.k8s.io, "
                   "poddisruptionbudgets.policy, workloads and podgroups.scheduling.k8s.io")


class ClusterError(InputError):
    """The cluster could not be read: the source is the API server (or kubeconfig)."""


class Forbidden(ClusterError):
    """403: RBAC does not allow the read (optional lists may be skipped with a warning)."""


def safe_url(url: str) -> str:
    """``url`` without user info, query or fragment (where credentials could hide)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<invalid URL>"
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def http_error(server: str, status: int, reason: str, verb: str, resource: str,
               server_message: str = "") -> ClusterError:
    """A non-success HTTP answer to ``verb resource``."""
    said = f" (server says: {server_message})" if server_message else ""
    if status == 401:
        return ClusterError(server, f"401 Unauthorized for {verb} {resource}: the server did "
                            "not accept the credentials of the kubeconfig user (expired or "
                            f"invalid token or client certificate){said}")
    if status == 403:
        return Forbidden(server, f"403 Forbidden: RBAC does not allow {verb} on {resource}"
                            f"{said}. tasplan needs read-only access ({READ_ONLY_RULES}); "
                            f"see the ClusterRole in {RBAC_SAMPLE}")
    return ClusterError(server, f"{status} {reason} for {verb} {resource}{said}")


def transport_error(server: str, exc: BaseException, verb: str, resource: str,
                    timeout: float | None) -> ClusterError:
    """A request that got no HTTP answer: unreachable, TLS failure, timeout."""
    cause = exc
    if isinstance(exc, urllib3.exceptions.MaxRetryError) and exc.reason is not None:
        cause = exc.reason
    if isinstance(cause, urllib3.exceptions.SSLError | ssl.SSLError):
        detail = _tls_detail(cause)
        return ClusterError(server, f"TLS failure talking to the API server ({detail}); check "
                            "the cluster's certificate-authority in the kubeconfig")
    if isinstance(cause, urllib3.exceptions.NameResolutionError):
        return ClusterError(server, "cannot resolve the API server's host name")
    # NewConnectionError subclasses ConnectTimeoutError in urllib3 2: test it first.
    if isinstance(cause, urllib3.exceptions.NewConnectionError | ConnectionError):
        return ClusterError(server, "cannot reach the API server (connection refused or "
                            "host unreachable); check the kubeconfig server address and the "
                            "network")
    if isinstance(cause, urllib3.exceptions.TimeoutError | TimeoutError):
        limit = f"{timeout:g}s" if timeout else "the default timeout"
        return ClusterError(server, f"no answer within {limit} for {verb} {resource} "
                            "(raise --request-timeout, or check the network)")
    if isinstance(cause, urllib3.exceptions.ProtocolError):
        return ClusterError(server, f"the connection broke during {verb} {resource}")
    return ClusterError(server, f"request failed for {verb} {resource}: "
                        f"{type(cause).__name__}")


def _tls_detail(exc: BaseException) -> str:
    text = str(exc)
    for marker in ("CERTIFICATE_VERIFY_FAILED", "WRONG_VERSION_NUMBER", "hostname mismatch",
                   "self-signed certificate", "certificate has expired", "unknown ca"):
        if marker.lower() in text.lower():
            return marker.lower().replace("_", " ")
    return "handshake failed"
