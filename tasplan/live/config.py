"""kubeconfig, contexts and in-cluster config -> an authenticated connection.

Configuration goes through ``kubernetes.config``, so ``KUBECONFIG`` lists are merged the
way kubectl merges them (first file wins per name; the first ``current-context`` set is
chosen here, as the client's merger would take the last one),
exec credential plugins and auth providers run as the client runs them, and in a pod the
service account is used. Refreshed tokens are never written back (``persist_config`` off):
the user's kubeconfig files are only read.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from dataclasses import dataclass
from typing import Any

from kubernetes import client, config
from kubernetes.config import kube_config
from kubernetes.config.config_exception import ConfigException

from tasplan.errors import InputError
from tasplan.limits import MAX_KUBECONFIG_BYTES
from tasplan.live.errors import ClusterError, safe_url
from tasplan.load.documents import parse_bytes, read_limited
from tasplan.stdio import on_exit

DEFAULT_KUBECONFIG = "~/.kube/config"


@dataclass(frozen=True)
class Connection:
    """An API client and the names that say which cluster it talks to (no credentials)."""

    api: client.ApiClient
    server: str  # URL without user info
    context: str  # "" in cluster
    cluster: str

    def close(self) -> None:
        self.api.close()
        kube_config._cleanup_temp_files()  # certificate/key data the client wrote to disk


def kubeconfig_paths(kubeconfig: str | None) -> str:
    """What kubectl reads: ``--kubeconfig``, else ``$KUBECONFIG`` (a path list), else
    ``~/.kube/config``."""
    return kubeconfig or os.environ.get("KUBECONFIG") or DEFAULT_KUBECONFIG


def _existing(paths: str) -> list[str]:
    return [p for p in paths.split(os.pathsep)
            if p and os.path.exists(os.path.expanduser(p))]


def read_kubeconfig(path: str) -> dict[str, Any]:
    """One kubeconfig file, read as strictly as a manifest (size limit, UTF-8, no
    duplicate keys, alias guard) and checked for the shape the client assumes; any problem
    is an error naming the file, never a client traceback."""
    limit = MAX_KUBECONFIG_BYTES.get_int()
    try:
        # stat before opening: opening a FIFO waits for a writer
        if not stat.S_ISREG(os.stat(os.path.expanduser(path)).st_mode):
            raise ClusterError(path, "kubeconfig is not a regular file")
        with open(os.path.expanduser(path), "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise ClusterError(path, "kubeconfig is not a regular file")
            data = read_limited(fh, path, limit, "kubeconfig")
    except OSError as exc:
        raise ClusterError(path, f"cannot read kubeconfig: {exc.strerror or exc}") from None
    except ClusterError:
        raise
    except InputError as exc:
        raise ClusterError(path, f"invalid kubeconfig: {exc.detail}") from None
    try:
        docs = [d for d in parse_bytes(path, data, ".yaml") if d is not None]
    except InputError as exc:
        raise ClusterError(path, f"invalid kubeconfig: {exc.detail}", line=exc.line) from None
    if not docs:
        raise ClusterError(path, "invalid kubeconfig: the file is empty")
    if len(docs) > 1 or not isinstance(docs[0], dict):
        raise ClusterError(path, "invalid kubeconfig: expected one mapping (kind: Config)")
    config = docs[0]
    for section, entry in (("clusters", "cluster"), ("contexts", "context"),
                           ("users", "user")):
        items = config.get(section)
        if items is None:
            continue
        if not isinstance(items, list):
            raise ClusterError(path, f"invalid kubeconfig: {section}: expected a list")
        for i, item in enumerate(items):
            if (not isinstance(item, dict) or not isinstance(item.get("name"), str)
                    or not isinstance(item.get(entry) or {}, dict)):
                raise ClusterError(path, f"invalid kubeconfig: {section}[{i}]: expected a "
                                   f"mapping with a name and a {entry} mapping")
    current = config.get("current-context")
    if current is not None and not isinstance(current, str):
        raise ClusterError(path, "invalid kubeconfig: current-context: expected a string")
    return config


@dataclass(frozen=True)
class _Merged:
    """What kubectl takes from a KUBECONFIG list: the first ``current-context`` set, the
    first entry of each name; and every credential value, to keep out of messages."""

    current: str
    users: dict[str, dict]
    contexts: dict[str, dict]
    secrets: tuple[str, ...]


def _merge(paths: list[str]) -> _Merged:
    current = ""
    users: dict[str, dict] = {}
    contexts: dict[str, dict] = {}
    secrets: list[str] = []
    for path in paths:
        config = read_kubeconfig(path)
        current = current or config.get("current-context") or ""
        for item in config.get("users") or ():
            users.setdefault(item["name"], item.get("user") or {})
            secrets.extend(_strings({k: v for k, v in item.items() if k != "name"}))
        for item in config.get("contexts") or ():
            contexts.setdefault(item["name"], item.get("context") or {})
    return _Merged(current, users, contexts,
                   tuple(sorted({v for v in secrets if len(v) >= 4}, key=len, reverse=True)))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def connect(kubeconfig: str | None = None, context: str | None = None) -> Connection:
    paths = kubeconfig_paths(kubeconfig)
    configuration = client.Configuration()
    existing = _existing(paths)
    if not existing:
        if kubeconfig:
            raise ClusterError(kubeconfig, "kubeconfig file not found")
        if os.environ.get("KUBERNETES_SERVICE_HOST") and not context:
            try:
                config.load_incluster_config(client_configuration=configuration)
            except ConfigException as exc:
                raise ClusterError("in-cluster config", _config_message(exc, ())) from None
            return Connection(client.ApiClient(configuration), safe_url(configuration.host),
                              "", "in-cluster")
        raise ClusterError(paths, "no kubeconfig found (set KUBECONFIG, pass --kubeconfig, "
                           "or run inside a pod)")
    merged = _merge(existing)
    names = list(merged.contexts)
    chosen = context or merged.current
    if context and context not in merged.contexts:
        raise ClusterError(paths, f"context {context!r} not found in kubeconfig "
                           f"(contexts: {', '.join(map(str, names)) or 'none'})")
    if not chosen:
        raise ClusterError(paths, "kubeconfig has no current-context; pass --context "
                           f"(contexts: {', '.join(map(str, names)) or 'none'})")
    # The client's temporary files for certificate and key data go when tasplan exits,
    # also through os._exit (which skips the client's own atexit cleanup).
    on_exit(kube_config._cleanup_temp_files)
    log = _Captured()
    try:
        with log:
            config.load_kube_config(config_file=paths, context=chosen,
                                    client_configuration=configuration, persist_config=False)
    except ConfigException as exc:
        raise ClusterError(paths, _config_message(exc, merged.secrets)) from None
    except OSError as exc:
        raise ClusterError(paths, f"cannot read a file the kubeconfig names: "
                           f"{exc.strerror or exc}") from None
    except Exception as exc:  # the client's own bugs on odd input: never its traceback
        raise ClusterError(paths, _config_message(exc, merged.secrets)) from None
    detail = merged.contexts.get(chosen) or {}
    user = merged.users.get(str(detail.get("user", ""))) or {}
    if "exec" in user and not (any(configuration.api_key.values())
                               or configuration.cert_file):
        said = redact(log.messages[0], merged.secrets) if log.messages else "no credential"
        raise ClusterError(paths, f"the exec credential plugin of user {detail.get('user')!r} "
                           f"failed: {said[:200]}")
    return Connection(client.ApiClient(configuration), safe_url(configuration.host),
                      str(chosen), str(detail.get("cluster", "")))


class _Captured(logging.Handler):
    """The client logs (instead of raising) when an exec plugin fails: keep those lines
    off stderr and let connect() turn them into one error."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):
            self.messages.append(record.getMessage())

    def __enter__(self) -> _Captured:
        root = logging.getLogger()
        self._propagate = root.handlers[:]
        root.handlers[:] = [self]
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger().handlers[:] = self._propagate


def redact(text: str, secrets: tuple[str, ...]) -> str:
    for secret in secrets:
        text = text.replace(secret, "<redacted>")
    return text


def _config_message(exc: Exception, secrets: tuple[str, ...]) -> str:
    """The client's message, which names files and fields -- and may quote a whole user
    entry (its merger names entries by their dict): every credential value is redacted."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"invalid kubeconfig: {redact(text, secrets)}"
